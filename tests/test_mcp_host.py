"""The host: prefixed and model-safe names, collisions, access, model tools, revalidation."""

from __future__ import annotations

import re

from app.mcp.host import MODEL_NAME, Host, HostConfig, model_safe_name

SNAPSHOTS = {
    "files": [
        {"name": "upload", "description": "to disk", "inputSchema": {"type": "object"}},
        {"name": "search", "description": "names", "inputSchema": {"type": "object"}},
        {"name": "fs.stat", "description": "dotted", "inputSchema": {"type": "object"}},
    ],
    "drive": [
        {"name": "upload", "description": "to the cloud", "inputSchema": {"type": "object"}},
        {"name": "search", "description": "documents", "inputSchema": {"type": "object"}},
    ],
}


def test_names_are_prefixed_by_the_configured_server_id_and_collisions_are_found():
    host = Host(["files", "drive"], HostConfig())
    names = [t["name"] for t in host.model_tools(SNAPSHOTS)]
    assert names == [
        "files__upload",
        "files__search",
        "files__fs_stat",
        "drive__upload",
        "drive__search",
    ]
    assert host.collisions(SNAPSHOTS) == [
        {"tool": "upload", "servers": ["files", "drive"]},
        {"tool": "search", "servers": ["files", "drive"]},
    ]


def test_every_model_name_fits_model_apis_and_maps_back_to_server_and_tool():
    hostile = {
        "weird": [
            {"name": n, "inputSchema": {"type": "object"}}
            for n in ["a/b", "ünïcode", "x" * 128, "x" * 128 + "y", "<b>bold</b>", "", "😀"]
        ]
    }
    host = Host(["weird"], HostConfig())
    rows = host.table(hostile)
    assert all(MODEL_NAME.match(r["modelName"]) for r in rows)
    assert len({r["modelName"] for r in rows}) == len(rows)  # still unique after truncation
    for row in rows:
        assert host.resolve(row["modelName"], hostile)["tool"] == row["tool"]


def test_a_sanitised_name_that_would_clash_gets_a_distinct_suffix():
    taken = {"files__a_b"}
    assert model_safe_name("files", "a.b", taken) != "files__a_b"
    assert re.fullmatch(r"files__a_b_[0-9a-f]{8}", model_safe_name("files", "a.b", taken))


def test_denied_tools_never_reach_the_model_and_calls_to_them_are_refused():
    host = Host(["files", "drive"], HostConfig(user="ana", deny={"ana": ("drive/*",)}))
    names = [t["name"] for t in host.model_tools(SNAPSHOTS)]
    assert not any(n.startswith("drive__") for n in names)
    prepared = host.prepare_call("drive__upload", {}, SNAPSHOTS)
    assert prepared is not None and host.revalidate(prepared, SNAPSHOTS) == "denied"
    host.user = "bo"
    assert "drive__upload" in [t["name"] for t in host.model_tools(SNAPSHOTS)]


def test_the_model_tools_are_rebuilt_for_every_request_unless_configured_stale():
    fresh = Host(["files"], HostConfig())
    stale = Host(["files"], HostConfig(rebuild_every_request=False))
    before = {"files": SNAPSHOTS["files"][:1]}
    for host in (fresh, stale):
        host.model_request(before)
    assert len(fresh.model_request(SNAPSHOTS)) == 3
    assert len(stale.model_request(SNAPSHOTS)) == 1


def test_a_prepared_call_is_checked_against_the_current_contract():
    host = Host(["files"], HostConfig())
    old = {
        "files": [
            {
                "name": "search",
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
            }
        ]
    }
    new = {
        "files": [
            {
                "name": "search",
                "inputSchema": {
                    "type": "object",
                    "properties": {"query": {"type": "string"}},
                    "required": ["query"],
                },
            }
        ]
    }
    call = host.prepare_call("files__search", {"q": "budget"}, old)
    assert call is not None
    assert host.revalidate(call, old) is None
    assert host.revalidate(call, new).startswith("schema-changed")
    assert host.revalidate(call, {"files": []}) == "gone"
    fits = host.prepare_call("files__search", {"query": "budget"}, old)
    assert host.revalidate(fits, new) is None  # a changed schema the arguments still satisfy


def test_next_tools_previews_the_next_request_without_counting_one():
    stale = Host(["files"], HostConfig(rebuild_every_request=False))
    assert len(stale.next_tools(SNAPSHOTS)) == 3  # nothing frozen yet: built from the snapshot
    stale.model_request({"files": SNAPSHOTS["files"][:1]})
    assert len(stale.next_tools(SNAPSHOTS)) == 1  # the stale host will repeat the old list
    assert stale.model_requests == 1
