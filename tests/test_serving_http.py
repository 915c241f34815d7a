"""The MCP-over-HTTP rules of the served server, sans-IO (the endpoint) and through the CLI.

The endpoint is driven with plain requests, as h11's tests drive its state machine: sessions
(missing 400, unknown 404, DELETE), the Origin check (403), 2026-07-28 header mirroring
(-32020), JSON-RPC batches on 2025-03-26 only, the GET stream's backlog and Last-Event-ID
replay, the HTTP+SSE endpoint event. One test runs `mcp-lab mcp-server --transport http` as a
process and talks to it over a socket.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from app.mcp import versions
from app.mcp.framing import parse_sse
from app.serving.catalog import load_served
from app.serving.endpoint import McpEndpoint
from app.serving.http_messages import HttpRequest, HttpResponse, Push
from tests.pair import initialize_request

REPO = Path(__file__).resolve().parent.parent
ORIGIN = "http://127.0.0.1:3001"


def endpoint(scenario: str = "pagination", server: str = "files") -> McpEndpoint:
    return McpEndpoint(load_served(scenario, server), origins=frozenset({ORIGIN}))


def post(
    ep: McpEndpoint, message: Any, path: str = "/mcp", **headers: str
) -> tuple[HttpResponse, list[Push]]:
    given = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    given.update({k.replace("_", "-").lower(): v for k, v in headers.items()})
    body = json.dumps(message).encode()
    return ep.handle(HttpRequest("POST", path, given, body))


def body(response: HttpResponse) -> Any:
    return json.loads(response.body)


def header(response: HttpResponse, name: str) -> str | None:
    return next((v for k, v in response.headers if k.lower() == name.lower()), None)


def initialize(ep: McpEndpoint, version: str) -> str:
    message = initialize_request(version)
    message["params"]["clientInfo"] = {"name": "probe-test", "version": "9.9"}
    response, _ = post(ep, message)
    assert response.status == 200
    session = header(response, "mcp-session-id")
    assert session is not None
    post(ep, {"jsonrpc": "2.0", "method": "notifications/initialized"}, mcp_session_id=session)
    return session


def modern(method: str, request_id: int = 1, **params: Any) -> dict[str, Any]:
    meta = {
        versions.META_VERSION: "2026-07-28",
        versions.META_CLIENT_CAPABILITIES: {},
        versions.META_CLIENT_INFO: {"name": "modern-test", "version": "2.0"},
    }
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**params, "_meta": meta},
    }


def test_a_foreign_origin_is_refused_with_403() -> None:
    ep = endpoint()
    response, _ = post(ep, modern("tools/list"), origin="http://evil.example")
    assert response.status == 403
    assert body(response)["error"]["code"] == -32600
    ok, _ = post(
        ep,
        modern("tools/list"),
        origin=ORIGIN,
        mcp_protocol_version="2026-07-28",
        mcp_method="tools/list",
    )
    assert ok.status == 200


def test_legacy_sessions_need_their_header() -> None:
    ep = endpoint()
    session = initialize(ep, "2025-11-25")
    assert ep.status()["conversations"][0]["client"] == {"name": "probe-test", "version": "9.9"}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    without, _ = post(ep, listing)
    assert without.status == 400
    unknown, _ = post(ep, listing, mcp_session_id="nope")
    assert unknown.status == 404
    wrong_version, _ = post(ep, listing, mcp_session_id=session, mcp_protocol_version="2025-03-26")
    assert wrong_version.status == 400
    ok, _ = post(ep, listing, mcp_session_id=session, mcp_protocol_version="2025-11-25")
    assert ok.status == 200 and len(body(ok)["result"]["tools"]) == 3
    ended = ep.handle(HttpRequest("DELETE", "/mcp", {"mcp-session-id": session}))[0]
    assert ended.status == 200
    assert post(ep, listing, mcp_session_id=session)[0].status == 404


def test_notifications_are_accepted_with_202_and_no_body() -> None:
    ep = endpoint()
    session = initialize(ep, "2025-06-18")
    response, _ = post(
        ep,
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}},
        mcp_session_id=session,
    )
    assert (response.status, response.body) == (202, b"")


def test_batches_only_in_a_2025_03_26_session() -> None:
    ep = endpoint()
    old = initialize(ep, "2025-03-26")
    batch = [
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
    ]
    response, _ = post(ep, batch, mcp_session_id=old)
    assert response.status == 200
    assert [r["id"] for r in body(response)] == [2, 3]
    newer = initialize(ep, "2025-06-18")
    refused, _ = post(ep, batch, mcp_session_id=newer)
    assert refused.status == 400
    assert "2025-03-26" in body(refused)["error"]["message"]


def test_modern_headers_must_mirror_the_body() -> None:
    ep = endpoint()
    request = modern("tools/call", name="read_file", arguments={"path": "a"})
    mismatch, _ = post(ep, request, mcp_protocol_version="2026-07-28", mcp_method="tools/list")
    assert mismatch.status == 400
    assert body(mismatch)["error"]["code"] == -32020
    no_name, _ = post(ep, request, mcp_protocol_version="2026-07-28", mcp_method="tools/call")
    assert body(no_name)["error"]["code"] == -32020
    ok, _ = post(
        ep,
        request,
        mcp_protocol_version="2026-07-28",
        mcp_method="tools/call",
        mcp_name="read_file",
    )
    assert ok.status == 200 and body(ok)["result"]["resultType"] == "complete"
    unsupported = modern("tools/list")
    unsupported["params"]["_meta"][versions.META_VERSION] = "2099-01-01"
    refused, _ = post(ep, unsupported, mcp_protocol_version="2099-01-01", mcp_method="tools/list")
    assert refused.status == 400 and body(refused)["error"]["code"] == -32022


def test_a_listen_stream_gets_its_ack_then_the_change_and_closing_cancels_it() -> None:
    ep = endpoint()
    listen = modern("subscriptions/listen", request_id=7, notifications={"toolsListChanged": True})
    response, _ = post(
        ep, listen, mcp_protocol_version="2026-07-28", mcp_method="subscriptions/listen"
    )
    assert response.status == 200 and response.stream is not None
    assert header(response, "content-type") == "text/event-stream"
    (ack,) = parse_sse(response.body.decode())
    assert json.loads(ack["data"])["method"] == "notifications/subscriptions/acknowledged"
    _, pushes = ep.change()
    (push,) = pushes
    assert push.stream == response.stream
    (event,) = parse_sse(push.data.decode())
    note = json.loads(event["data"])
    assert note["method"] == "notifications/tools/list_changed"
    assert note["params"]["_meta"][versions.META_SUBSCRIPTION_ID] == 7
    ep.stream_closed(response.stream)
    assert ep.listens == {}
    assert ep.change()[1] == []  # nobody is listening any more


def test_the_get_stream_delivers_backlog_and_replays_after_last_event_id() -> None:
    ep = endpoint()
    session = initialize(ep, "2025-11-25")
    ep.change()  # before any GET stream is open: kept for the session
    ep.change()
    get = HttpRequest("GET", "/mcp", {"accept": "text/event-stream", "mcp-session-id": session})
    stream, _ = ep.handle(get)
    events = parse_sse(stream.body.decode())
    assert [json.loads(e["data"])["method"] for e in events] == [
        "notifications/tools/list_changed"
    ] * 2
    first_id = events[0]["id"]
    assert stream.stream is not None
    ep.stream_closed(stream.stream)
    again = HttpRequest("GET", "/mcp", {**get.headers, "last-event-id": first_id})
    resumed, _ = ep.handle(again)
    assert [e["id"] for e in parse_sse(resumed.body.decode())] == [events[1]["id"]]
    no_session = HttpRequest("GET", "/mcp", {"accept": "text/event-stream"})
    assert ep.handle(no_session)[0].status == 405


def test_http_sse_endpoint_event_and_replies_on_the_stream() -> None:
    ep = endpoint()
    opened, _ = ep.handle(HttpRequest("GET", "/sse", {"accept": "text/event-stream"}))
    (endpoint_event,) = parse_sse(opened.body.decode())
    assert endpoint_event["event"] == "endpoint"
    path = endpoint_event["data"]
    assert path.startswith("/messages?session_id=")
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2024-11-05",
            "capabilities": {},
            "clientInfo": {"name": "old", "version": "1"},
        },
    }
    accepted, pushes = post(ep, message, path=path)
    assert (accepted.status, accepted.body) == (202, b"")
    (push,) = pushes
    assert push.stream == opened.stream
    reply = json.loads(parse_sse(push.data.decode())[0]["data"])
    assert reply["result"]["protocolVersion"] == "2024-11-05"
    assert post(ep, message, path="/messages?session_id=nope")[0].status == 404


def test_broken_bodies_get_clear_errors() -> None:
    ep = endpoint()
    not_json = ep.handle(
        HttpRequest("POST", "/mcp", {"content-type": "application/json"}, b"{nope")
    )[0]
    assert not_json.status == 400 and body(not_json)["error"]["code"] == -32700
    wrong_type = ep.handle(HttpRequest("POST", "/mcp", {"content-type": "text/plain"}, b"{}"))[0]
    assert wrong_type.status == 415
    assert ep.handle(HttpRequest("PUT", "/mcp", {}))[0].status == 405
    assert ep.handle(HttpRequest("GET", "/nothing", {}))[0].status == 404


def test_cli_serves_http_with_changes_and_checks_origin() -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app.cli",
            "mcp-server",
            "list-changed-add",
            "--server",
            "orders",
            "--transport",
            "http",
            "--port",
            "0",
        ],
        cwd=REPO,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert "serving orders-server 1.4.0 at http://127.0.0.1:" in line
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("POST", "/lab/change", headers={"Origin": "http://attacker.example"})
        refused = conn.getresponse()
        refused.read()
        assert refused.status == 403
        conn.request("POST", "/lab/change")
        change = json.loads(conn.getresponse().read())
        assert change["added"] == ["search_invoices"] and change["source"] == "scenario"
        conn.request("GET", "/lab/status")
        status = json.loads(conn.getresponse().read())
        assert status["tools"] == ["read_order", "list_orders", "search_invoices"]
        conn.close()
    finally:
        process.terminate()
        assert process.wait(5) == 0  # SIGTERM is a clean stop
        assert process.stderr is not None
        process.stderr.close()
