"""The observer tells a real session's story with the events the lab's own client reports.

The lab's client and server talk through a fake link (tests.pair) while an observer watches the
wire, as it would watch a real client: for everything that can be seen on the wire, it must
report what the client itself reported, with the same fields, and its mirror must hold what the
client holds. What only the client knows (why it asked, a cache hit that sent nothing) is left
out of the comparison on purpose.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine import observed
from app.mcp import events as ev
from app.mcp.events import Event
from app.mcp.observer import Observation, SessionObserver
from app.mcp.server import ServerConfig
from tests.pair import Pair, tools

# Event kinds the wire shows, compared field by field.
SEEN_ON_THE_WIRE = {
    "initialize",
    "negotiated",
    "probe",
    "discovered",
    "page",
    "published",
    "list-changed",
    "listen",
    "listen-acknowledged",
    "call",
    "call-ok",
    "call-tool-error",
    "call-rejected",
    "request-cancelled",
    "stale-response",
    "gather-abandoned",
    "cache-expired",
}


class WatchedPair(Pair):
    """A pair with an observer on the wire between them."""

    def __init__(self, version: str, server: ServerConfig, **client: Any) -> None:
        super().__init__(version, server, **client)
        self.observer = SessionObserver()
        self.seen: list[Observation] = []

    def step(self) -> None:
        direction, message = self.queue[0]
        now = self.clock.now_ms()
        watch = self.observer.client_sent if direction == "c2s" else self.observer.server_sent
        self.seen.append(watch(message, now))
        super().step()

    def observed(self) -> list[Event]:
        return [e for o in self.seen for e in o.events]


def by_kind(events: list[Event]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        if event.kind in SEEN_ON_THE_WIRE:
            out.setdefault(event.kind, []).append(event.as_dict())
    return out


def walks(events: list[Event]) -> list[int]:
    return [e.generation for e in events if isinstance(e, ev.GatherStarted)]


def assert_same_story(pair: WatchedPair) -> None:
    assert by_kind(pair.observed()) == by_kind(pair.events)
    assert walks(pair.observed()) == walks(pair.events)
    mine, theirs = pair.observer.mirror.snapshot(pair.clock.now_ms()), pair.client.snapshot()
    for key in ("phase", "protocolVersion", "era", "listening", "gathering"):
        assert mine[key] == theirs[key], key  # type: ignore[literal-required]
    for key in ("generation", "tools", "fetchedAtMs", "valid"):
        assert mine["cache"][key] == theirs["cache"][key], key  # type: ignore[literal-required]


def catalog(**extra: Any) -> ServerConfig:
    names = ("read_order", "list_orders", "cancel_order", "ship_order", "track_order")
    return ServerConfig("orders", tools=tools(*names), page_size=2, list_changed=True, **extra)


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25"])
def test_a_legacy_session_s_walks_change_and_calls_are_told_as_the_client_tells_them(
    version: str,
) -> None:
    pair = WatchedPair(version, catalog()).connect()
    pair.send(pair.client.list_tools())
    pair.settle()
    pair.notify(pair.server.add_tool(tools("refund_order")[0]))
    pair.settle()  # list_changed, and the walk it sends the client on
    pair.send(pair.client.call_tool("refund_order", {}))
    pair.send(pair.client.call_tool("no_such_tool", {}))
    pair.settle()  # the unknown tool is rejected; the client lists again once
    assert [k for k in by_kind(pair.events)["published"]][-1]["generation"] == 3
    assert_same_story(pair)
    reasons = [e.reason for e in pair.observed() if isinstance(e, ev.GatherStarted)]
    assert reasons == ["client asked", "list_changed", "unknown tool"]


def test_a_modern_session_with_a_listen_stream_and_an_expired_list_is_told_alike() -> None:
    pair = WatchedPair("2026-07-28", catalog(ttl_ms=5_000)).connect()
    pair.send(pair.client.list_tools())
    pair.settle()
    pair.clock.advance(6_000)
    pair.send(pair.client.list_tools())  # every page expired: the whole list is asked again
    pair.settle()
    kinds = by_kind(pair.observed())
    assert kinds["listen-acknowledged"] and kinds["cache-expired"][0]["expired"] == [1, 2, 3]
    assert_same_story(pair)
    mirror = pair.observer.mirror.snapshot(pair.clock.now_ms())["cache"]
    assert mirror["ttlMs"] == 5_000 and mirror["expiresAtMs"] == 6_000 + 5_000


def test_an_abandoned_walk_its_cancellation_and_its_late_page_are_seen() -> None:
    pair = WatchedPair("2025-11-25", catalog()).connect()
    pair.send(pair.client.list_tools())  # page 1 of walk 1 is on its way
    pair.send(pair.client.refresh(reason="host asked", restart=True))
    pair.settle()  # its answer arrives after the cancellation and the new walk's request
    kinds = by_kind(pair.observed())
    assert kinds["request-cancelled"][0]["generation"] == 1
    assert kinds["stale-response"] == [
        {"kind": "stale-response", "generation": 1, "current": 2, "cancelled": True}
    ]
    assert_same_story(pair)


def test_a_closed_stream_is_a_cancellation_on_2026_http() -> None:
    observer = SessionObserver()
    meta = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    observer.client_sent(
        {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": meta}, at_ms=0
    )
    seen = observer.stream_closed(7, at_ms=10)
    assert seen is not None
    assert [e.as_dict() for e in seen.events] == [
        {
            "kind": "request-cancelled",
            "id": 7,
            "method": "tools/list",
            "reason": "stream closed",
            "generation": 1,
            "streamClosed": True,
        }
    ]
    assert observer.mirror.requests.in_flight == []


def test_each_step_of_a_watched_session_is_narrated_in_three_languages() -> None:
    pair = WatchedPair("2025-11-25", catalog()).connect()
    pair.send(pair.client.list_tools())
    pair.settle()
    pair.notify(pair.server.remove_tool("ship_order"))
    pair.settle()
    pair.observer.mirror.client_info = {"name": "host", "version": "2"}
    said = [observed.narrate(o, pair.observer.mirror) for o in pair.seen]
    assert all(text[lang].strip() for text in said for lang in ("en", "zh", "ru"))
    assert said[0]["en"] == (
        "host 2 opens a session with initialize and asks for protocol version 2025-11-25."
    )
    assert "Compared with its previous list, ship_order is gone." in said[-1]["en"]
    assert "ship_order 被移除" in said[-1]["zh"] and "пропал ship_order" in said[-1]["ru"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
MESSAGE = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.just("2.0"),
        "id": JSON,
        "method": st.sampled_from(
            ["initialize", "tools/list", "tools/call", "notifications/cancelled", "x"]
        )
        | JSON,
        "params": JSON,
        "result": JSON,
        "error": JSON,
    },
)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), MESSAGE), max_size=12))
def test_whatever_a_peer_sends_the_observer_tells_it_and_never_fails(
    messages: list[tuple[bool, dict[str, Any]]],
) -> None:
    observer = SessionObserver()
    for at, (from_client, message) in enumerate(messages):
        watch = observer.client_sent if from_client else observer.server_sent
        seen = watch(message, at)
        said = observed.narrate(seen, observer.mirror)
        assert said["en"] and said["zh"] and said["ru"]
    observer.mirror.snapshot(len(messages))


def test_nothing_is_reported_for_a_message_that_means_nothing_to_the_client() -> None:
    observer = SessionObserver()
    seen = observer.server_sent({"jsonrpc": "2.0", "method": "notifications/message"}, 0)
    assert [type(e) for e in seen.events] == [ev.OtherNotification]
    assert observer.client_sent({"jsonrpc": "2.0", "id": 1, "result": {}}, 0).events == []


def rpc(**fields: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", **fields}


def test_a_careless_host_shows_on_the_wire_page_two_never_asked_and_list_changed_ignored() -> None:
    """What issue 20's tap grades, read from the observations alone: a host that calls a tool
    after page 1 of 2 (never fetching page 2), then calls again after a list_changed without
    listing again, and leaves a request of an abandoned walk uncancelled."""
    observer = SessionObserver()
    seen: list[Observation] = []

    def client(at: int, **fields: Any) -> None:
        seen.append(observer.client_sent(rpc(**fields), at))

    def server(at: int, **fields: Any) -> None:
        seen.append(observer.server_sent(rpc(**fields), at))

    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "h"}}
    client(0, id=1, method="initialize", params=init)
    answer = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": True}}}
    server(1, id=1, result=answer)
    client(2, id=2, method="tools/list")
    server(3, id=2, result={"tools": [{"name": "a"}], "nextCursor": "p2"})
    client(4, id=3, method="tools/call", params={"name": "a"})
    server(5, id=3, result={"content": [{"type": "text", "text": "ok"}]})
    server(6, method="notifications/tools/list_changed")
    client(7, id=4, method="tools/call", params={"name": "b"})
    client(8, id=5, method="tools/list", params={"cursor": "p2"})
    client(9, id=6, method="tools/list")  # a new walk; request 5 is left in flight

    kinds = [[e.kind for e in o.events] for o in seen]
    assert kinds[3] == ["page"]  # page 1 of walk 1, a nextCursor: the list is not whole
    assert kinds[4] == ["call"] and observer.mirror.cache.generation == 0  # used before whole
    assert kinds[6] == ["list-changed"] and kinds[7] == ["call"]  # no walk between them
    assert kinds[9] == ["gather-abandoned", "gather-start"]
    left = [observer.mirror.requests.get(i) for i in observer.mirror.requests.in_flight]
    assert [(p.method, p.generation) for p in left if p is not None] == [
        ("tools/call", 0),
        ("tools/list", 1),  # the abandoned walk's page 2, never cancelled
        ("tools/list", 2),
    ]
