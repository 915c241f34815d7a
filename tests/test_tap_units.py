"""The tap's parts without sockets: the HTTP/1.1 reader gives back every byte it is fed (heads,
chunked and sized bodies, streams read to the close, 1xx, HEAD) and turns into a pass-through on
what it cannot parse; the line reader is bounded; a hostile request to the side port is refused;
and the report card, fed a session message by message, grades what a host did."""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request
from typing import Any

import pytest

from app.serving.side_api import SideServer
from app.tap.http1 import MAX_HEAD, Body, End, Head, MessageReader, Piece, rewrite_host
from app.tap.http_relay import BadUpstream, HttpTap
from app.tap.lines import Line, LineReader, TooLong
from app.tap.log import TapLog
from app.tap.report import TapApi, report_json, report_text


def feed_bytewise(reader: MessageReader, data: bytes) -> list[Piece]:
    return [p for i in range(len(data)) for p in reader.feed(data[i : i + 1])]


def events(pieces: list[Piece]) -> list[Any]:
    return [p.event for p in pieces if p.event is not None]


def body_of(pieces: list[Piece]) -> bytes:
    return b"".join(e.data for e in events(pieces) if isinstance(e, Body))


REQUESTS = (
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:3002\r\nContent-Length: 5\r\n\r\nhello"
    b"POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: t\r\n\r\n"
    b"GET /mcp HTTP/1.1\r\nHost: x\r\n\r\n"
)


@pytest.mark.parametrize("bytewise", [False, True])
def test_requests_come_back_byte_for_byte_with_their_bodies(bytewise: bool) -> None:
    reader = MessageReader("request")
    pieces = feed_bytewise(reader, REQUESTS) if bytewise else reader.feed(REQUESTS)
    assert b"".join(p.raw for p in pieces) == REQUESTS
    heads = [e for e in events(pieces) if isinstance(e, Head)]
    assert [h.method for h in heads] == ["POST", "POST", "GET"]
    assert heads[0].header("content-length") == "5" and heads[0].target == "/mcp"
    assert body_of(pieces) == b"helloabcde"
    assert sum(isinstance(e, End) for e in events(pieces)) == 3
    assert reader.broken is None


def test_responses_follow_the_request_they_answer() -> None:
    reader = MessageReader("response")
    for method in ("HEAD", "POST", "GET"):
        reader.expect(method)
    data = (
        b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n"  # to HEAD: no body, whatever it says
        b"HTTP/1.1 100 Continue\r\n\r\n"
        b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\n\n"
    )
    pieces = reader.feed(data)
    assert b"".join(p.raw for p in pieces) == data
    assert [e.status for e in events(pieces) if isinstance(e, Head)] == [200, 100, 202, 200]
    closing = reader.close()  # the stream was read until the connection closed
    assert body_of(pieces) == b"data: 1\n\n" and isinstance(closing[0].event, End)


def test_what_cannot_be_parsed_passes_through_unread() -> None:
    reader = MessageReader("request")
    junk = b"\x16\x03\x01 not http at all\r\n\r\nmore"
    pieces = reader.feed(junk) + reader.feed(b" and more")
    assert b"".join(p.raw for p in pieces) == junk + b" and more"
    assert reader.broken and not events(pieces)
    endless = MessageReader("request")
    out = endless.feed(b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * (MAX_HEAD // 6 + 1))
    assert endless.broken == f"a head longer than {MAX_HEAD} bytes" and out[-1].event is None


def test_only_the_host_of_a_head_is_rewritten() -> None:
    head = b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:3002\r\nX-Host: keep\r\n\r\n"
    assert rewrite_host(head, "127.0.0.1:3001") == (
        b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:3001\r\nX-Host: keep\r\n\r\n"
    )


def test_lines_are_bounded_and_an_endless_one_is_reported_once() -> None:
    reader = LineReader(10)
    assert reader.feed(b'{"a":1}\r\n{"b"') == [Line(b'{"a":1}')]
    assert reader.feed(b":2}\n") == [Line(b'{"b":2}')]
    assert reader.feed(b"x" * 30) == [TooLong(30)]
    assert reader.feed(b"y" * 30) == []  # the same line, still skipped
    assert reader.feed(b"tail\nok\n") == [Line(b"ok")]


def test_the_side_port_refuses_a_foreign_page_and_a_rebound_name() -> None:
    side = SideServer(TapApi(TapLog("server")))
    try:
        with urllib.request.urlopen(side.base + "/lab/sessions", timeout=5) as answer:
            assert json.loads(answer.read())["sessions"] == []
        for headers in ({"Origin": "https://evil.example"}, {"Host": "evil.example"}):
            request = urllib.request.Request(side.base + "/lab/sessions", headers=headers)
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=5)
            assert refused.value.code == 403
            refused.value.close()
        post = urllib.request.Request(side.base + "/lab/change", data=b"", method="POST")
        with pytest.raises(urllib.error.HTTPError) as no_change:
            urllib.request.urlopen(post, timeout=5)
        assert no_change.value.code == 405  # a tap changes nothing
        no_change.value.close()
    finally:
        side.stop()


def test_a_host_whose_server_is_down_gets_502_and_the_tap_goes_on() -> None:
    log = TapLog("http://127.0.0.1:9/mcp")  # port 9: nothing listens
    tap = HttpTap("http://127.0.0.1:9/mcp", "127.0.0.1", 0, log)
    thread = threading.Thread(target=tap.serve_forever, daemon=True)
    thread.start()
    try:
        for _ in range(2):
            request = urllib.request.Request(f"http://127.0.0.1:{tap.port}/mcp", data=b"{}")
            with pytest.raises(urllib.error.HTTPError) as answer:
                urllib.request.urlopen(request, timeout=5)
            assert answer.value.code == 502
            answer.value.close()
    finally:
        tap.stop()
        thread.join(5)
    assert not thread.is_alive()
    with pytest.raises(BadUpstream):
        HttpTap("https://example.org/mcp", "127.0.0.1", 0, log)


def test_the_http_tap_refuses_a_foreign_page_before_the_server_sees_it() -> None:
    """The tap names the real server in Host, so it must keep the guard the server would have
    kept: a rebound name or another origin is refused by the tap itself."""
    silent = socket.create_server(("127.0.0.1", 0))  # takes connections, never answers
    upstream = f"http://127.0.0.1:{silent.getsockname()[1]}/mcp"
    log = TapLog(upstream)
    tap = HttpTap(upstream, "127.0.0.1", 0, log)
    thread = threading.Thread(target=tap.serve_forever, daemon=True)
    thread.start()
    try:
        for headers in ({"Host": "attacker.example"}, {"Origin": "http://127.0.0.1:5000"}):
            request = urllib.request.Request(
                f"http://127.0.0.1:{tap.port}/mcp", data=b"{}", headers=headers
            )
            with pytest.raises(urllib.error.HTTPError) as answer:
                urllib.request.urlopen(request, timeout=5)
            assert answer.value.code == 403
            answer.value.close()
    finally:
        tap.stop()
        thread.join(5)
        silent.close()
    assert log.sessions == {}  # an answer came from the tap: the server never answers


# --------------------------------------------------------------------------- the card


def _modern(method: str, rid: int, **params: Any) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "host", "version": "1"},
    }
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": meta}}


def _page(rid: int, names: list[str], ttl: int, cursor: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"resultType": "complete", "ttlMs": ttl, "cacheScope": "public",
                              "tools": [{"name": n, "inputSchema": {"type": "object"}}
                                        for n in names]}  # fmt: skip
    if cursor:
        result["nextCursor"] = cursor
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def _card(log: TapLog) -> dict[str, str]:
    return {c["id"]: c["level"] for c in report_json(log)["sessions"][0]["checks"]}


def test_a_stale_list_used_a_missing_meta_and_an_abandoned_walk_are_graded() -> None:
    log = TapLog("server")
    clock = iter(range(0, 100_000, 1000))
    log.now = lambda: next(clock)  # type: ignore[method-assign]  # one second per message
    send = [
        (True, _modern("tools/list", 1)),
        (False, _page(1, ["a"], 1500)),  # fresh for 1.5 s
        (True, _modern("tools/list", 2)),  # a new walk while none is open: fine
        (True, _modern("tools/list", 3)),  # another, over request 2 still in flight
        (False, _page(3, ["a"], 1500)),
        (True, {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "a"}}),
        (True, _modern("tools/call", 5, name="a")),  # 3 s after page 3: its ttlMs ran out
        (True, _modern("tools/call", 6, name="ghost")),
    ]
    for from_client, message in send:
        log.message("k", "streamable-http", from_client, message, None)
    card = _card(log)
    assert card == {"handshake": "note", "request-meta": "fail", "all-pages": "pass",
                    "ttl": "warn", "known-tools": "note", "cancel": "warn"}  # fmt: skip
    text = report_text(log)
    assert "tools/call (no protocolVersion, clientCapabilities)" in text
    assert "tools/list 2 of walk 2, left for a new walk" in text
    assert "ghost" in text and "ttlMs (1500 ms) ran out" in text
    assert "1 failure, 2 warnings, 2 notes (fails)" in text
