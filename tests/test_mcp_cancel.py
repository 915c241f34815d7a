"""An abandoned gather cancels its request in flight, as the negotiated version's transport does
it (basic/utilities/cancellation.mdx; 2026-07-28 basic/patterns/cancellation.mdx):
notifications/cancelled with the request's id and a reason, except on 2026-07-28 Streamable HTTP,
where closing the request's response stream is the cancellation and nothing is sent. An answer
that still arrives for a cancelled request is recognised and ignored."""

from __future__ import annotations

import pytest

from app.engine.library import default_scenarios_dir, load_library
from app.engine.runner import run_trace
from app.mcp import events as ev
from app.mcp import versions
from app.mcp.schemas import check_message
from app.mcp.server import ServerConfig
from tests.pair import Pair, tools


def mid_gather(version: str, **client: object) -> tuple[Pair, int]:
    """Seven tools, three to a page; a refresh whose page 2 request is answered but unread."""
    pair = Pair(version, ServerConfig("s", tools=tools(*"abcdefg"), page_size=3), **client)
    pair.connect()
    pair.send(pair.client.list_tools())
    pair.step()  # page 1 request reaches the server
    pair.step()  # page 1 arrives; page 2 is asked for
    pair.step()  # page 2 reaches the server, whose answer is now in flight
    [(direction, answer)] = pair.queue
    assert direction == "s2c"
    return pair, answer["id"]


@pytest.mark.parametrize("version", versions.VERSIONS)
def test_a_restart_sends_notifications_cancelled_for_the_page_in_flight(version):
    pair, in_flight = mid_gather(version)
    out = pair.client.refresh(reason="user", restart=True)
    cancel, relist = out.messages
    assert cancel["method"] == "notifications/cancelled" and "id" not in cancel
    assert cancel["params"]["requestId"] == in_flight and cancel["params"]["reason"]
    assert check_message(cancel, version, sender="client") == []
    assert relist["method"] == "tools/list" and "cursor" not in (relist.get("params") or {})
    assert in_flight not in pair.client.in_flight  # no longer awaited
    pair.send(out)
    pair.settle()
    stale = [e for e in pair.events if isinstance(e, ev.StaleResponse)]
    assert [(e.generation, e.cancelled) for e in stale] == [(1, True)]  # seen, then ignored
    assert pair.client.cache.generation == 2 and len(pair.client.cache.tools) == 7


def test_on_2026_streamable_http_the_stream_is_closed_and_nothing_is_sent():
    pair, in_flight = mid_gather("2026-07-28", http=True)
    out = pair.client.refresh(reason="user", restart=True)
    assert [m["method"] for m in out.messages] == ["tools/list"]  # no notifications/cancelled
    closed = next(e for e in out.events if isinstance(e, ev.RequestCancelled))
    assert closed.stream_closed and closed.id == in_flight and closed.generation == 1
    assert pair.client.method_of(in_flight) is None  # forgotten: no answer can come any more


def test_a_request_already_cancelled_is_not_cancelled_twice():
    pair, in_flight = mid_gather("2025-11-25")
    assert pair.client.cancel(in_flight, "first").messages
    assert pair.client.cancel(in_flight, "again").messages == []


def test_the_scenario_shows_each_way_of_cancelling():
    scenario = load_library(default_scenarios_dir()).scenarios["list-changed-during-refresh"]
    for version, transport in [("2025-06-18", "http"), ("2026-07-28", "stdio")]:
        trace = run_trace(scenario, version, transport)
        cancels = [s for s in trace if s["method"] == "notifications/cancelled"]
        assert len(cancels) == 1 and cancels[0]["from"] == "client:orders"
        late = [s for s in trace if any(e.get("cancelled") for e in s["events"])]
        assert len(late) == 1 and late[0]["id"] == cancels[0]["message"]["params"]["requestId"]
    trace = run_trace(scenario, "2026-07-28", "http")
    assert not [s for s in trace if s["method"] == "notifications/cancelled"]
    [closed] = [s for s in trace if s["kind"] == "transport" and s["events"]]
    assert closed["events"][0]["streamClosed"] is True
    answered = [s["id"] for s in trace if s["kind"] == "response"]
    assert closed["events"][0]["id"] not in answered  # its answer never arrives
