"""The same hostile cases against every entry that takes input, so a fix cannot reach one path only.

Payloads: random bytes, 10 MB, 4,000 `[` (inside most size limits, past any sane depth), JSON of
the wrong types, NaN. Origins: another site, and another port of the same host (which a browser
calls same-site, so SameSite cookies do not stop it). Every entry answers each with a clear
refusal in its own language (an HTTP 4xx page, a JSON-RPC error, an alert on the socket) and
then serves a good request as before.

The served MCP endpoint and the stdio shell are driven sans-IO, as h11's tests drive its state
machine, plus one run over a real socket. The web app's POST routes and sockets come from its
url_map (tests/hostile_web.py), so a route added later is covered without anyone listing it.
"""

from __future__ import annotations

import http.client
import io
import json
import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from app.serving.catalog import load_served
from app.serving.endpoint import HttpRequest, HttpResponse, McpEndpoint
from app.serving.http import HttpShell, loopback_origins
from app.serving.stdio_server import MAX_LINE, answer_line, build_server, serve_stdio
from tests.pair import initialize_request

TEN_MB = 10 * 1024 * 1024
PAYLOADS: dict[str, bytes] = {
    "random bytes": bytes(random.Random(16).randrange(256) for _ in range(512)),
    "10 MB": b"[" + b"1," * (TEN_MB // 2) + b"1]",
    "4,000 [": b"[" * 4000,
    "4,000 [ in a message": b'{"jsonrpc":"2.0","id":1,"method":"ping","params":' + b"[" * 4000,
    "wrong types": b'{"jsonrpc":2,"id":{"a":[]},"method":["initialize"],"params":"x"}',
    "NaN": b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}',
}

# --------------------------------------------------------------------------- the served endpoint

PORT = 8000
OWN = "http://127.0.0.1:8000"
ROUTES = [
    ("POST", "/mcp"),
    ("GET", "/mcp"),
    ("DELETE", "/mcp"),
    ("GET", "/sse"),
    ("POST", "/messages?session_id=x"),
    ("POST", "/lab/change"),
    ("GET", "/lab/status"),
    ("GET", "/lab/sessions"),
    ("GET", "/lab/steps?session=x"),
]
FOREIGN = {
    "another site": {"origin": "http://evil.example", "sec-fetch-site": "cross-site"},
    "another site, an older browser": {"origin": "http://evil.example"},
    "another port": {"origin": "http://127.0.0.1:5000", "sec-fetch-site": "same-site"},
    "another port, an older browser": {"origin": "http://localhost:5000"},
    "a sandboxed frame": {"origin": "null"},
    "a rebound name": {
        "host": "attacker.example:8000",
        "origin": "http://attacker.example:8000",
        "sec-fetch-site": "same-origin",
    },
}
JSON_HEADERS = {
    "host": "127.0.0.1:8000",
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
}


def endpoint() -> McpEndpoint:
    return McpEndpoint(
        load_served("pagination", "files"), origins=loopback_origins("127.0.0.1", PORT)
    )


def send(
    ep: McpEndpoint, method: str, target: str, body: bytes = b"", **extra: str
) -> HttpResponse:
    headers = {**JSON_HEADERS, **extra}
    response, _ = ep.handle(HttpRequest(method, target, headers, body))
    return response


def still_serves(ep: McpEndpoint) -> None:
    """A client's first request still opens a session."""
    answer = send(ep, "POST", "/mcp", json.dumps(initialize_request("2025-06-18")).encode())
    assert answer.status == 200, answer.body
    assert json.loads(answer.body)["result"]["protocolVersion"] == "2025-06-18"


@pytest.mark.parametrize("route", ROUTES, ids=" ".join)
@pytest.mark.parametrize("who", FOREIGN)
def test_the_endpoint_refuses_every_foreign_page_on_every_route(
    route: tuple[str, str], who: str
) -> None:
    ep = endpoint()
    refused = send(ep, *route, **FOREIGN[who])
    assert refused.status == 403
    assert json.loads(refused.body)["error"]["message"].startswith("Forbidden: ")
    assert ep.served.applied == [] and ep.sessions == {}
    still_serves(ep)


@pytest.mark.parametrize(
    "headers",
    [{}, {"origin": OWN}, {"origin": "http://localhost:8000", "sec-fetch-site": "same-origin"},
     {"host": "localhost:8000"}],
    ids=["an SDK or curl", "its own origin", "its own name", "another of its names"],
)  # fmt: skip
def test_the_endpoint_takes_clients_without_origin_and_its_own_pages(
    headers: dict[str, str],
) -> None:
    ep = endpoint()
    assert send(ep, "POST", "/lab/change", **headers).status == 200
    assert send(ep, "GET", "/lab/status", **headers).status == 200


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("path", ["/mcp", "/mcp in a session", "/messages"])
def test_every_mcp_body_entry_refuses_hostile_bodies_with_a_json_rpc_error(
    path: str, payload: str
) -> None:
    ep = endpoint()
    headers: dict[str, str] = {}
    if path == "/messages":  # the 2024-11-05 transport: its session comes from GET /sse
        opened = send(ep, "GET", "/sse")
        path = opened.body.decode().split("data: ")[1].strip()
    elif path == "/mcp in a session":
        opened = send(ep, "POST", "/mcp", json.dumps(initialize_request("2025-03-26")).encode())
        path, headers = "/mcp", {"mcp-session-id": dict(opened.headers)["Mcp-Session-Id"]}
    answer = send(ep, "POST", path, PAYLOADS[payload], **headers)
    error = json.loads(answer.body)["error"] if answer.body else None
    if path.startswith("/messages"):  # answered on the stream; the POST itself is refused or 202
        assert answer.status in (202, 400, 413)
    else:
        assert answer.status in (200, 400, 404, 413) and error is not None, answer  # 200: legacy
        assert error["code"] in (-32700, -32600)
    if payload in ("4,000 [", "4,000 [ in a message", "10 MB") and error is not None:
        assert error["code"] == -32700 and "data" in error  # says which bound, not "bad JSON"
    still_serves(ep)


@pytest.fixture
def shell() -> Iterator[int]:
    ep = McpEndpoint(load_served("pagination", "files"))
    served = HttpShell(ep, "127.0.0.1", 0)
    ep.origins = loopback_origins("127.0.0.1", served.port)
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    assert served.ready.wait(5)
    yield served.port
    served.stop()
    thread.join(5)


def test_over_a_real_socket_a_10_mb_body_is_413_and_the_server_keeps_serving(shell: int) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", shell, timeout=30)
    conn.request("POST", "/mcp", PAYLOADS["10 MB"], {"Content-Type": "application/json"})
    assert conn.getresponse().status == 413
    conn.close()
    conn = http.client.HTTPConnection("127.0.0.1", shell, timeout=30)
    conn.request("POST", "/mcp", PAYLOADS["4,000 ["], {"Content-Type": "application/json"})
    refused = conn.getresponse()
    assert refused.status == 400 and json.loads(refused.read())["error"]["code"] == -32700
    body = json.dumps(initialize_request("2025-06-18"))
    conn.request("POST", "/mcp", body, {"Content-Type": "application/json", **dict([
        ("Accept", "application/json, text/event-stream")])})  # fmt: skip
    assert conn.getresponse().status == 200
    conn.close()


# --------------------------------------------------------------------------- stdio lines


@pytest.mark.parametrize("payload", [p for p in PAYLOADS if p != "random bytes"])
def test_every_stdio_line_that_is_hostile_gets_a_parse_error_and_the_next_line_works(
    payload: str,
) -> None:
    server = build_server("pagination", "files")
    (reply,) = answer_line(server, PAYLOADS[payload].decode())
    assert reply["error"]["code"] in (-32700, -32600)  # type: ignore[call-overload, index]
    (opened,) = answer_line(server, json.dumps(initialize_request("2025-06-18")))
    assert opened["result"]["protocolVersion"] == "2025-06-18"  # type: ignore[call-overload, index]


def test_a_stdio_line_longer_than_the_limit_is_refused_once_and_skipped() -> None:
    long_line = "[" + "1," * (MAX_LINE // 2 + 10) + "1]\n"
    stdin = io.StringIO(long_line + json.dumps(initialize_request("2025-06-18")) + "\n")
    out = io.StringIO()
    serve_stdio(build_server("pagination", "files"), stdin, out)
    replies: list[Any] = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r.get("error", {}).get("code") for r in replies] == [-32700, None]
    assert "size" in replies[0]["error"]["data"]
    assert replies[1]["result"]["protocolVersion"] == "2025-06-18"
