"""The engine moves a what-if is made of, tried one at a time on a small world: the client's
policies (no cache, ignore list_changed, no re-discovery, polling), a lost message, a server
restart, and a connect that waits. Every message stays schema-valid in every version."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.checks import message_problems
from app.engine.interventions import InterventionError
from app.engine.runner import run_trace
from app.engine.scenario import Scenario, validate
from app.mcp import versions

TOOL = {"name": "read_order", "inputSchema": {"type": "object"}}
NEW = {"name": "search_invoices", "inputSchema": {"type": "object"}}
WORLD: dict[str, Any] = {
    "id": "tiny",
    "title": {"en": "t", "zh": "t", "ru": "t"},
    "summary": {"en": "s", "zh": "s", "ru": "s"},
    "goals": [{"en": "g", "zh": "g", "ru": "g"}],
    "topics": [],
    "servers": [
        {
            "id": "orders",
            "name": "orders-server",
            "pageSize": 1,
            "listChanged": True,
            "tools": [TOOL, {"name": "list_orders", "inputSchema": {"type": "object"}}],
        }
    ],
    "script": [
        {"connect": "orders"},
        {"list_tools": "orders"},
        {"model_request": "find invoices"},
        {"server_change": "orders", "add": [NEW]},
        {"list_tools": "orders"},
        {"model_request": "again"},
    ],
}


def scenario(edit=None) -> Scenario:
    data = copy.deepcopy(WORLD)
    if edit is not None:
        edit(data)
    assert validate(data, None, "tiny.yaml") == []
    return Scenario("tiny", "tiny.yaml", data)


def run(edit=None, version: str = "2025-11-25", transport: str = "stdio") -> list[dict[str, Any]]:
    trace = run_trace(scenario(edit), version, transport)
    for step in trace:
        assert message_problems(step) == [], (step["index"], step["method"])
    return trace


def kinds(trace) -> list[str]:
    return [e["kind"] for s in trace for e in s["events"]]


def model_names(trace) -> list[str]:
    return [t["name"] for t in trace[-1]["state"]["model"]["tools"]]


def lists(trace) -> int:
    return sum(1 for s in trace if s["kind"] == "request" and s["method"] == "tools/list")


@pytest.mark.parametrize("version", versions.VERSIONS)
def test_a_client_that_ignores_list_changed_keeps_its_old_list(version):
    def ignore(data):
        data["client"] = {"refreshOnListChanged": False}

    healthy, ignoring = run(version=version), run(ignore, version=version)
    assert "orders__search_invoices" in model_names(healthy)
    assert "list-changed-ignored" in kinds(ignoring) and "list-changed" not in kinds(ignoring)
    assert "orders__search_invoices" not in model_names(ignoring)  # the cache was still fresh
    step = next(s for s in ignoring if s["method"] == "notifications/tools/list_changed")
    assert "does not act on it" in step["narration"]["en"]
    assert any("ignored by policy" in line["en"] for line in ignoring[-1]["state"]["console"])


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_without_a_cache_every_list_goes_to_the_server(version):
    def silent(data):
        data["servers"][0]["listChanged"] = False

    def silent_no_cache(data):
        silent(data)
        data["client"] = {"cache": False}

    cached, uncached = run(silent, version), run(silent_no_cache, version)
    assert any(s["kind"] == "cache-hit" for s in cached)
    assert "orders__search_invoices" not in model_names(cached)
    assert not any(s["kind"] == "cache-hit" for s in uncached)
    assert lists(uncached) == lists(cached) + 3  # the second list: three pages of one tool
    assert "orders__search_invoices" in model_names(uncached)


def _call_gone_tool(data, rediscover: bool) -> None:
    data["servers"][0]["listChanged"] = False
    data["client"] = {"rediscoverOnFailedCall": rediscover}
    data["script"][3] = {"server_change": "orders", "remove": ["read_order"]}
    data["script"][4] = {"call_tool": "orders__read_order"}


def test_without_rediscovery_a_failed_call_is_only_reported():
    retried = run(lambda d: _call_gone_tool(d, True))
    reported = run(lambda d: _call_gone_tool(d, False))
    assert lists(retried) == lists(reported) + 1  # the re-list: the one tool left
    assert "call-abandoned" in kinds(reported) and "gather-start" not in kinds(reported[-4:])


def test_a_polling_host_lists_on_every_tick_of_the_clock():
    def poll(data):
        data["servers"][0]["listChanged"] = False
        data["client"] = {"pollSeconds": 10, "cache": False}
        data["script"][4] = {"advance_clock": 25000}

    trace = run(poll)
    clocks = [s["state"]["clockMs"] for s in trace if s["kind"] == "clock"]
    assert clocks == [10000, 20000, 25000]
    assert sum(1 for s in trace if "timer fires" in s["narration"]["en"]) == 2
    assert "orders__search_invoices" in model_names(trace)


@pytest.mark.parametrize("version", versions.VERSIONS)
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_lost_answer_never_arrives_and_the_client_keeps_waiting(version, transport):
    def lose_page(data):
        data["script"][1] = {"list_tools": "orders", "wait": True}
        data["script"].insert(2, {"deliver": 1})
        data["script"].insert(3, {"lose": 1})

    trace = run(lose_page, version, transport)
    lost = next(s for s in trace if s["events"] and s["events"][0]["kind"] == "message-lost")
    assert lost["message"] is None and lost["frame"] is None
    assert lost["from"] == "server:orders" and lost["events"][0]["method"] == "tools/list"
    assert "is lost on the way" in lost["narration"]["en"]
    assert trace[lost["index"] + 1]["kind"] == "model-request"
    assert trace[lost["index"]]["state"]["clients"]["orders"]["gathering"] is not None


def test_a_loss_armed_when_nothing_is_in_flight_takes_the_next_message_sent():
    trace = run(lambda d: d["script"].insert(1, {"lose": 1}))  # after connect, before listing
    lost = next(s for s in trace if s["events"] and s["events"][0]["kind"] == "message-lost")
    assert lost["from"] == "client:orders" and lost["events"][0]["method"] == "tools/list"
    assert "never sees it" in lost["narration"]["en"]
    # No timeout in the lab: the gather waits for ever, and the model is never given a tool.
    assert not any(s["method"] == "tools/list" and s["kind"] == "response" for s in trace)
    assert model_names(trace) == []


@pytest.mark.parametrize("version", versions.VERSIONS)
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_restarted_server_is_connected_again_and_listed_from_a_new_generation(version, transport):
    def restart(data):
        data["script"].insert(2, {"restart_server": "orders"})

    trace = run(restart, version, transport)
    at = next(
        s["index"] for s in trace if s["events"][:1] == [{"kind": "server-restarted", "lost": 0}]
    )
    opening = "initialize" if versions.era_of(version).value == "legacy" else "server/discover"
    assert trace[at + 1]["method"] == opening or trace[at + 1]["kind"] == "transport"
    generations = [e["generation"] for s in trace for e in s["events"] if e["kind"] == "published"]
    assert generations[:2] == [1, 2]
    assert model_names(trace)[:2] == ["orders__read_order", "orders__list_orders"]


def test_restarting_a_server_never_connected_is_refused():
    with pytest.raises(InterventionError, match="not been connected"):
        run(lambda d: d["script"].insert(0, {"restart_server": "orders"}))


def test_a_connect_that_waits_leaves_its_opening_in_flight():
    def hold(data):
        data["script"][0] = {"connect": "orders", "wait": True}
        data["script"].insert(1, {"lose": 1})

    trace = run(hold)
    assert trace[0]["events"][0]["method"] == "initialize"
    assert trace[-1]["state"]["clients"]["orders"]["phase"] == "initializing"


@pytest.mark.parametrize("key", ["cache", "refreshOnListChanged", "rediscoverOnFailedCall"])
def test_the_documented_policy_default_is_the_one_the_client_holds(key):
    from app.engine import config
    from app.mcp.client import ClientConfig
    from tests.test_engine_config import doc_default

    assert doc_default(key) == str(config.default_of(ClientConfig, key, config.CLIENT_KEYS)).lower()
