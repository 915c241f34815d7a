"""Every change kind and every intervention, on every shipped scenario it applies to: the
what-if runs, every message of it validates against the official schema of its version (the
sandbox refuses a run whose messages do not), and the move shows where it was made. The
version and transport rotate with the scenario, so each kind meets every version."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from app.engine.library import default_scenarios_dir, load_library
from app.engine.runner import run_trace
from app.engine.whatif import KINDS, WhatIf, WhatIfError, run_whatif
from app.mcp import versions

LIBRARY = load_library(default_scenarios_dir()).scenarios
LESSONS = sorted(sid for sid, s in LIBRARY.items() if "challenge" not in s.data)
MODERN = "2026-07-28"
SCHEMA = {"type": "object", "properties": {"note": {"type": "string"}}, "required": ["note"]}


def case(sid: str, kind: str) -> tuple[str, str]:
    """The version and transport this scenario and kind run under: rotating through both."""
    scenario = LIBRARY[sid]
    offered = scenario.versions
    if kind in ("ttl", "pageTtl") and MODERN in offered:
        return MODERN, scenario.transports[-1]
    at = LESSONS.index(sid) + KINDS.index(kind)
    return offered[at % len(offered)], scenario.transports[at % len(scenario.transports)]


@cache
def base_trace(sid: str, version: str, transport: str) -> list[dict[str, Any]]:
    return run_trace(LIBRARY[sid], version, transport)


def first(trace, test) -> int:
    return next(s["index"] for s in trace if test(s))


def change_for(sid: str, kind: str, trace) -> dict[str, Any]:
    """Parameters that make sense on this scenario: its first server and tool, a step where
    the move can happen."""
    server = LIBRARY[sid].data["servers"][0]
    sid0, tool0 = server["id"], server["tools"][0]["name"] if server["tools"] else "x"
    ready = first(trace, lambda s: s["state"]["clients"][sid0]["phase"] == "ready")
    request = first(trace, lambda s: s["kind"] == "request")
    end = len(trace) - 1
    host = trace[-1]["state"]["host"]["tools"]
    tool = {"name": "what_if_tool", "description": "Added by a test.", "inputSchema": SCHEMA}
    return {
        "pageSize": {"server": sid0, "value": 1},
        "ttl": {"server": sid0, "ms": 1000},
        "pageTtl": {"server": sid0, "ms": [60000, 1000]},
        "listChanged": {"server": sid0, "value": not server.get("listChanged", False)},
        "addTool": {"server": sid0, "tool": tool},
        "removeTool": {"server": sid0, "name": tool0},
        "renameTool": {"server": sid0, "name": tool0, "to": f"{tool0}_v2"},
        "toolSchema": {"server": sid0, "name": tool0, "inputSchema": SCHEMA},
        "twinServer": {"name": tool0, "server": "twin"},
        "protocolVersion": {"value": versions.VERSIONS[LESSONS.index(sid) % 5]},
        "transport": {"value": "http"},
        "cache": {"value": False},
        "refreshOnListChanged": {"value": False},
        "poll": {"seconds": 5},
        "rediscover": {"value": False},
        "addToolNow": {"after": ready, "server": sid0, "tool": tool},
        "removeToolNow": {"after": end, "server": sid0, "name": tool0},
        "toolSchemaNow": {"after": end, "server": sid0, "name": tool0, "inputSchema": SCHEMA},
        "loseNext": {"after": request},
        "restartServer": {"after": ready, "server": sid0},
        "wait": {"after": ready, "seconds": 90},
        "callTool": {"after": end, "tool": host[0]["modelName"] if host else "none"},
    }[kind] | {"change": kind}


CASES = [(sid, kind) for sid in LESSONS for kind in KINDS]


@pytest.mark.parametrize(("sid", "kind"), CASES, ids=[f"{s}-{k}" for s, k in CASES])
def test_the_change_runs_schema_valid_and_shows_where_it_was_made(sid, kind):
    version, transport = case(sid, kind)
    base = base_trace(sid, version, transport)
    change = change_for(sid, kind, base)
    whatif = WhatIf(sid, version, transport, (change,))
    if kind in ("ttl", "pageTtl") and versions.era_of(version).value == "legacy":
        with pytest.raises(WhatIfError) as refused:
            run_whatif(whatif, LIBRARY, base)
        assert refused.value.key == "ttl-legacy"
        return
    run = run_whatif(whatif, LIBRARY, base)  # raises if a message breaks its schema
    trace = run.trace
    assert trace[-1]["kind"] == "terminal" and trace[-1]["narration"]["zh"]
    if "after" in change:
        after = change["after"]
        unchanged = after if base[after]["kind"] == "terminal" else after + 1
        assert run.comparison.firstDifference is None or run.comparison.firstDifference >= unchanged
        assert trace[:unchanged] == base[:unchanged] or _same_but_narration(trace, base, unchanged)
    if kind == "loseNext":
        # The next delivery is lost; steps that carry no message may come first (a protected
        # server's authorization steps between a refused request and its retry).
        lost = first(trace, lambda s: any(e["kind"] == "message-lost" for e in s["events"]))
        between = trace[change["after"] + 1 : lost]
        assert lost > change["after"] and all(s["message"] is None for s in between)
    if kind == "restartServer":
        assert any(e["kind"] == "server-restarted" for s in trace for e in s["events"])
    if kind == "twinServer":
        assert "twin" in trace[-1]["state"]["servers"]
    if kind == "protocolVersion":
        assert trace[-1]["protocolVersion"] in versions.VERSIONS


def _same_but_narration(trace, base, upto: int) -> bool:
    keys = [k for k in base[0] if k not in ("narration", "checkpoint", "action")]
    return all(
        all(a[k] == b[k] for k in keys) for a, b in zip(trace[:upto], base[:upto], strict=True)
    )


def test_every_kind_meets_every_version():
    seen = {kind: {case(sid, kind)[0] for sid in LESSONS} for kind in KINDS}
    for kind, found in seen.items():
        if kind in ("ttl", "pageTtl"):
            assert MODERN in found
        else:
            assert found == set(versions.VERSIONS), (kind, sorted(found))
