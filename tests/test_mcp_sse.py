"""SSE and HTTP framing against the standards: the SSE stream format of the HTML Living Standard
(server-sent events, "Interpreting an event stream") and HTTP/1.1 message framing (RFC 9112),
both directions, one table of cases checked by encoding and by decoding."""

from __future__ import annotations

import pytest

from app.mcp import framing, http, sse
from app.mcp.sse import SseEvent

# (stream text as a server may send it, the events a browser's EventSource dispatches)
STREAMS = [
    ("data: x\n\n", [SseEvent("message", "x")]),
    ("data:x\n\n", [SseEvent("message", "x")]),  # the space after the colon is optional
    ("data:  x\n\n", [SseEvent("message", " x")]),  # only one space is dropped
    ("data: x\r\n\r\n", [SseEvent("message", "x")]),  # CRLF line ends
    ("data: x\r\rdata: y\r\r", [SseEvent("message", "x"), SseEvent("message", "y")]),  # CR
    ("data: a\ndata: b\n\n", [SseEvent("message", "a\nb")]),  # multi-line data
    (": keep-alive\n\ndata: x\n\n", [SseEvent("message", "x")]),  # comments are ignored
    ("event: endpoint\ndata: /messages\n\n", [SseEvent("endpoint", "/messages")]),
    (
        "id: 7\ndata: a\n\ndata: b\n\n",
        [SseEvent("message", "a", "7"), SseEvent("message", "b", "7")],
    ),
    ("retry: 3000\ndata: x\n\n", [SseEvent("message", "x", None, 3000)]),
    ("event: nothing\n\n", []),  # no data: nothing is dispatched
    ("data: x\n", []),  # not terminated by a blank line: not dispatched yet
    ("\ufeffdata: x\n\n", [SseEvent("message", "x")]),  # a leading BOM is skipped
    ("data\n\n", [SseEvent("message", "")]),  # a field name alone has an empty value
    ("foo: bar\ndata: x\n\n", [SseEvent("message", "x")]),  # unknown fields are ignored
]


@pytest.mark.parametrize(("text", "events"), STREAMS)
def test_the_parser_reads_a_stream_as_eventsource_does(text, events):
    assert sse.parse_events(text) == events


@pytest.mark.parametrize(
    "data", ['{"jsonrpc":"2.0","method":"x"}', "two\nlines", "crlf\r\nlines", "", " lead"]
)
def test_what_the_encoder_writes_the_parser_reads_back(data):
    text = sse.encode_event(data, event="message", event_id="s-1")
    expected = data.replace("\r\n", "\n")
    assert sse.parse_events(text) == [SseEvent("message", expected, "s-1")]
    assert sse.parse_events(sse.comment("ping") + text) == [SseEvent("message", expected, "s-1")]


def test_an_event_name_or_id_with_a_line_break_is_refused():
    with pytest.raises(ValueError):
        sse.encode_event("x", event="a\nb")
    with pytest.raises(ValueError):
        sse.encode_event("x", event_id="1\r")


def test_headers_are_read_case_insensitively_and_kept_as_sent():
    text = http.request_text(
        "POST",
        "/mcp",
        [("Host", "h"), ("MCP-Protocol-Version", "2025-06-18"), ("Content-Length", "2")],
        "{}",
    )
    line, headers, body = http.parse_request(text)
    assert line == "POST /mcp HTTP/1.1" and body == "{}"
    assert headers["mcp-protocol-version"] == headers["MCP-Protocol-Version"] == "2025-06-18"
    assert "content-length" in headers and list(headers)[1] == "MCP-Protocol-Version"


def test_a_response_body_is_framed_by_content_length_or_chunked():
    fixed = http.response_text(200, [("Content-Type", "application/json")], '{"a":"é"}')
    assert "Content-Length: 10\r\n" in fixed  # bytes, not characters
    assert http.parse_response(fixed)[2] == '{"a":"é"}'
    stream, head = http.Stream.open(200, [("Content-Type", "text/event-stream")], "GET")
    assert "Transfer-Encoding: chunked\r\n" in head
    first, second = stream.chunk("data: 1\n\n"), stream.chunk("data: 2\n\n")
    assert first == "9\r\ndata: 1\n\n\r\n"
    status, _, body = http.parse_response(head + first + second, method="GET")
    assert status == 200 and body == "data: 1\n\ndata: 2\n\n"
    assert [e.data for e in sse.parse_events(body)] == ["1", "2"]


def test_a_framed_response_with_lower_case_headers_and_crlf_events_decodes():
    text = (
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n\r\n"
        'event: message\r\ndata:{"jsonrpc":"2.0","id":1,"result":{}}\r\n\r\n'
    )
    status, headers, messages = framing.parse_http_response(text)
    assert status == 200 and headers["Content-Type"].startswith("text/event-stream")
    assert messages == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
