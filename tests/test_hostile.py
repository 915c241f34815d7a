"""The same hostile cases against every entry that takes input, so a fix cannot reach one path only.

Payloads: random bytes, 10 MB, 4,000 `[` (inside most size limits, past any sane depth), JSON of
the wrong types, NaN. Origins: another site, and another port of the same host (which a browser
calls same-site, so SameSite cookies do not stop it). Every entry answers each with a clear
refusal in its own language (an HTTP 4xx page, a JSON-RPC error, an alert on the socket) and
then serves a good request as before.

The served MCP endpoint and the stdio shell are driven sans-IO, as h11's tests drive its state
machine, plus one run over a real socket. The web app's POST routes and sockets come from its
url_map (tests/hostile.py), so a route added later is covered without anyone listing it.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import os
import random
import socket
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from joserfc.jwk import RSAKey
from werkzeug.routing import Rule

from app.probe.http_peer import HttpPeer
from app.probe.peers import StdioPeer
from app.serving.catalog import load_served
from app.serving.endpoint import McpEndpoint
from app.serving.http import HttpShell, loopback_origins
from app.serving.http_messages import HttpRequest, HttpResponse
from app.serving.stdio import ChangingStdio
from app.serving.stdio_server import MAX_LINE, answer_line, build_server, serve_stdio
from app.web.factory import create_app
from app.web.security import CROSS_SITE
from app.web.watch.client import Unreachable, ask
from tests.classroom_client import start_room
from tests.conftest import default_engine
from tests.hostile import (
    ALERT,
    SAMPLE,
    entries,
    gunicorn,
    handshake,
    method_of,
    path_of,
    raw_request,
    until,
    upload,
)
from tests.lti_platform import Platform
from tests.pair import initialize_request
from tests.rawws import abort, text_frame

TEN_MB = 10 * 1024 * 1024
PAYLOADS: dict[str, bytes] = {
    "random bytes": bytes(random.Random(16).randrange(256) for _ in range(512)),
    "10 MB": b"[" + b"1," * (TEN_MB // 2) + b"1]",
    "4,000 [": b"[" * 4000,
    "4,000 [ in a message": b'{"jsonrpc":"2.0","id":1,"method":"ping","params":' + b"[" * 4000,
    "wrong types": b'{"jsonrpc":2,"id":{"a":[]},"method":["initialize"],"params":"x"}',
    "NaN": b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}',
}

# ------------------------------------------------------------------------------ the served endpoint

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


@pytest.fixture(scope="module")
def shell() -> Iterator[int]:
    """The served endpoint behind its real h11 shell, on a free port."""
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
    too_large = conn.getresponse()
    error = json.loads(too_large.read())["error"]  # a JSON-RPC error, as /mcp speaks
    assert too_large.status == 413 and error["code"] == -32700 and "size" in error["data"]
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


# -------------------------------------------------------------------------------------- stdio lines


@pytest.mark.parametrize("payload", [p for p in PAYLOADS if p != "random bytes"])
def test_every_stdio_line_that_is_hostile_gets_a_parse_error_and_the_next_line_works(
    payload: str,
) -> None:
    server = build_server("pagination", "files")
    (reply,) = answer_line(server, PAYLOADS[payload].decode())
    assert reply["error"]["code"] in (-32700, -32600)  # type: ignore[call-overload, index]
    (opened,) = answer_line(server, json.dumps(initialize_request("2025-06-18")))
    assert opened["result"]["protocolVersion"] == "2025-06-18"  # type: ignore[call-overload, index]


LONG_LINE = b"[" + b"1," * (MAX_LINE // 2 + 10) + b"1]\n"


def replies_of(text: str) -> list[Any]:
    replies: list[Any] = [json.loads(line) for line in text.splitlines()]
    assert [r.get("error", {}).get("code") for r in replies] == [-32700, None]
    assert "size" in replies[0]["error"]["data"]
    assert replies[1]["result"]["protocolVersion"] == "2025-06-18"
    return replies


def test_a_stdio_line_longer_than_the_limit_is_refused_once_and_skipped() -> None:
    opening = json.dumps(initialize_request("2025-06-18")) + "\n"
    out = io.StringIO()
    serve_stdio(build_server("pagination", "files"), io.StringIO(LONG_LINE.decode() + opening), out)
    replies_of(out.getvalue())


def test_the_changing_stdio_shell_refuses_a_line_before_it_ends_and_skips_the_rest() -> None:
    """`mcp-lab mcp-server` on POSIX reads stdin itself (ChangingStdio). A line that goes on
    past the bound is refused while it is still coming (it is not held in memory to the end),
    and what follows its newline is read as usual."""
    read, write = os.pipe()
    out = io.StringIO()
    shell = ChangingStdio(load_served("pagination", "files"), read, out)
    thread = threading.Thread(target=shell.serve, daemon=True)
    thread.start()
    with open(write, "wb") as stdin:
        stdin.write(LONG_LINE[:-1])  # no newline yet
        stdin.flush()
        for _ in range(200):  # wait for the refusal (state, not time)
            if "-32700" in out.getvalue():
                break
            threading.Event().wait(0.05)
        assert "-32700" in out.getvalue()
        stdin.write(b"1]\n" + json.dumps(initialize_request("2025-06-18")).encode() + b"\n")
    thread.join(10)
    os.close(read)
    replies_of(out.getvalue())


# ---------------------------------------------------------------------------- the web app's entries

WEB_APP = create_app({"TESTING": True, "LAB_ENGINE": default_engine()})
POSTS, SOCKETS = entries(WEB_APP)
# The one exception, by name: an LMS posts these from its own site (LTI 1.3's login initiation
# and launch), and pylti1p3's checks of the signed launch stand in for the guard there.
CROSS_SITE_BY_DESIGN = {"lti.login", "lti.launch"}
REFUSED_TEXT = "Refused: this came from another site"
FOREIGN_PAGES = {
    "another site": {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
    "another site, an older browser": {"Origin": "http://evil.example"},
    "another port of the same host": {
        "Origin": "http://localhost:5001",
        "Sec-Fetch-Site": "same-site",
    },
    "another port, an older browser": {"Origin": "http://localhost:5001"},
    "a sandboxed frame": {"Origin": "null"},
    "an old browser with the user's cookies": {"Cookie": "mcp-lab-teach-ABCDEF=stolen"},
}
OWN_PAGES = {
    "the lab's own form (no-referrer)": {"Origin": "null", "Sec-Fetch-Site": "same-origin"},
    "the lab's own origin": {"Origin": "http://localhost"},
    "a script (no Origin, no cookies)": {},
}


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    """The app with an LTI registration, so the LTI routes read their input too (no platform
    answers: every launch fails its checks, as a hostile one should)."""
    folder = tmp_path_factory.mktemp("lti")
    key = RSAKey.generate_key(2048)
    (folder / "tool-private.pem").write_bytes(key.as_pem(private=True))
    (folder / "tool-public.pem").write_bytes(key.as_pem(private=False))
    config = Platform("https://lms.example", "http://localhost").tool_config(
        "tool-private.pem", "tool-public.pem"
    )
    (folder / "lti.json").write_text(json.dumps(config))
    return create_app(
        {"TESTING": True, "LAB_ENGINE": default_engine(), "LTI_CONFIG": str(folder / "lti.json")}
    )


def test_the_url_map_has_the_entries_this_matrix_was_written_for() -> None:
    """A guard on a list would miss the next route; this one enumerates, so only sanity here."""
    assert set(CROSS_SITE) == CROSS_SITE_BY_DESIGN
    assert {"classroom.create", "classroom.end", "recorded.upload", "watch.change"} <= {
        r.endpoint for r in POSTS
    }
    assert len(SOCKETS) >= 3  # the viewer's, the watch view's and the classroom's


@pytest.mark.parametrize("who", FOREIGN_PAGES)
@pytest.mark.parametrize("rule", POSTS, ids=lambda r: r.endpoint)
def test_every_state_changing_route_refuses_other_sites_and_other_ports(
    web: Flask, rule: Rule, who: str
) -> None:
    method = method_of(rule)
    headers = dict(FOREIGN_PAGES[who])
    with web.test_client() as client:
        if "Cookie" in headers:  # the test client sends its own jar's cookies, not a header
            name, value = headers.pop("Cookie").split("=")
            client.set_cookie(name, value)
        answer = client.open(path_of(rule), method=method, headers=headers)
        text = answer.get_data(as_text=True)
    if rule.endpoint in CROSS_SITE_BY_DESIGN:
        assert REFUSED_TEXT not in text  # LTI's own checks answer instead
        return
    assert answer.status_code == 403 and REFUSED_TEXT in text, (rule.rule, answer.status)
    assert "Set-Cookie" not in answer.headers


@pytest.mark.parametrize("who", OWN_PAGES)
@pytest.mark.parametrize("rule", POSTS, ids=lambda r: r.endpoint)
def test_every_state_changing_route_takes_the_lab_s_own_pages(
    web: Flask, rule: Rule, who: str
) -> None:
    method = method_of(rule)
    with web.test_client() as client:
        answer = client.open(path_of(rule), method=method, headers=OWN_PAGES[who])
    assert REFUSED_TEXT not in answer.get_data(as_text=True)
    assert answer.status_code < 500


@pytest.mark.parametrize("payload", ["4,000 [", "random bytes", "wrong types", "NaN"])
@pytest.mark.parametrize("rule", POSTS, ids=lambda r: r.endpoint)
def test_every_state_changing_route_answers_a_hostile_body_without_a_500(
    web: Flask, rule: Rule, payload: str
) -> None:
    method = method_of(rule)
    for kind in ("application/json", "application/x-www-form-urlencoded"):
        with web.test_client() as client:
            answer = client.open(
                path_of(rule),
                method=method,
                data=PAYLOADS[payload],
                headers={"Content-Type": kind, "Sec-Fetch-Site": "same-origin"},
            )
        assert answer.status_code < 500, (rule.rule, kind, answer.status)


@pytest.mark.parametrize("who", FOREIGN_PAGES)
@pytest.mark.parametrize("rule", SOCKETS, ids=lambda r: r.endpoint)
def test_every_socket_refuses_a_handshake_from_other_sites_and_other_ports(
    live_server: str, rule: Rule, who: str
) -> None:
    own_port = live_server.rsplit(":", 1)[1]
    headers = {
        k: v.replace("localhost:5001", f"127.0.0.1:{int(own_port) + 1}")
        for k, v in FOREIGN_PAGES[who].items()
    }
    sock, status = handshake(live_server, path_of(rule), headers)
    sock.close()
    assert status == 403


@pytest.mark.parametrize("rule", SOCKETS, ids=lambda r: r.endpoint)
def test_every_socket_opens_for_the_lab_s_own_pages_and_for_scripts(
    live_server: str, rule: Rule
) -> None:
    for headers in (
        {"Origin": live_server},
        {"Origin": live_server, "Sec-Fetch-Site": "same-origin"},
        {},
    ):
        sock, status = handshake(live_server, path_of(rule), headers)
        sock.close()
        assert status == 101, headers


# ------------------------------------------------------------------------------------ socket frames

FRAMES: dict[str, tuple[int, bytes]] = {  # (opcode, payload): 1 is text, 2 binary
    "random bytes": (2, PAYLOADS["random bytes"]),
    "4,000 [": (1, b"[" * 4000),
    "4,000 [ in a command": (1, b'{"command":"goto","step":' + b"[" * 4000),
    "wrong types": (1, b'{"command":["goto"],"step":{"x":[]}}'),
    "not an object": (1, b"[1, 2]"),
    "NaN": (1, b'{"command":"goto","step":NaN}'),
    "over the command limit": (1, b'{"command":"goto","pad":"' + b"x" * 5000 + b'"}'),
}
# What each socket answers to a good command once the hostile one is behind it.
TEN_MB_FRAME = text_frame(b"[" * TEN_MB)
GOOD = {
    "socket.scenario_socket": (b'{"command":"goto","step":1}', 'data-step="1"'),
    "watch.watch_socket": (b'{"command":"goto","step":1}', 'data-step="1"'),
    "classroom_socket.classroom_socket": (b'{"command":"sync"}', 'id="live-seq"'),
}


@pytest.fixture(scope="module")
def watched(shell: int) -> str:
    """The served server with one client's session, for the watch view's socket."""
    conn = http.client.HTTPConnection("127.0.0.1", shell, timeout=10)
    body = json.dumps(initialize_request("2025-06-18"))
    conn.request("POST", "/mcp", body, dict(list(JSON_HEADERS.items())[1:]))
    assert conn.getresponse().status == 200
    conn.close()
    return f"http://127.0.0.1:{shell}"


def open_socket(live_server: str, watched: str, rule: Rule) -> socket.socket:
    """A socket to `rule` as the lab's page opens it, past its first frames."""
    path, headers = path_of(rule), {"Origin": live_server}
    if rule.endpoint == "watch.watch_socket":
        path += f"?server={watched}"
    if rule.endpoint == "classroom_socket.classroom_socket":
        code, _cookie = start_room(live_server)
        path = path.replace(SAMPLE["code"], code)
    sock, status = handshake(live_server, path, headers)
    assert status == 101
    until(sock, GOOD[rule.endpoint][1] if rule.endpoint != "socket.scenario_socket" else "id=")
    return sock


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("rule", SOCKETS, ids=lambda r: r.endpoint)
def test_every_socket_answers_a_hostile_frame_with_an_alert_and_goes_on(
    live_server: str, watched: str, rule: Rule, frame: str
) -> None:
    assert rule.endpoint in GOOD, f"a new socket: say what a good command gets ({rule.rule})"
    sock = open_socket(live_server, watched, rule)
    try:
        opcode, payload = FRAMES[frame]
        sock.sendall(text_frame(payload, opcode=opcode))
        alert = ALERT.search(until(sock, ALERT))
        assert alert is not None and alert.group(1).strip()
        good, needle = GOOD[rule.endpoint]
        sock.sendall(text_frame(good))
        until(sock, needle)
    finally:
        abort(sock)


@pytest.mark.parametrize("rule", SOCKETS, ids=lambda r: r.endpoint)
def test_every_socket_refuses_a_10_mb_frame_and_serves_on(
    live_server: str, watched: str, rule: Rule
) -> None:
    """Over the channel's limit: dropped as it arrives and answered with an alert on the same
    socket; a socket still on simple-websocket closes with 1009 (Message Too Big) instead, and
    its route serves the next socket. Never an HTTP status written into the socket."""
    sock = open_socket(live_server, watched, rule)
    try:
        sock.sendall(TEN_MB_FRAME)
        try:
            until(sock, ALERT)
        except ConnectionError as closed:
            assert str(closed) == "closed: 1009"
            abort(open_socket(live_server, watched, rule))
            return
        good, needle = GOOD[rule.endpoint]
        sock.sendall(text_frame(good))
        until(sock, needle)
    finally:
        abort(sock)


# ------------------------------------------------------------------------------------------ uploads

UPLOADS = {  # a trace file's content: what the person is told
    "100,000 [ on a line": (b"[" * 100_000 + b"\n", "nested more than 64 levels deep"),
    "random bytes": (PAYLOADS["random bytes"], "not UTF-8 text"),
    "wrong types": (b'["a step"]\n', "a step must be a JSON object"),
    "a step of the wrong shape": (b'{"index": "0"}\n', "the step has no"),
    "NaN": (b'{"index": NaN}\n', "not JSON"),
}


@pytest.mark.parametrize("upload", UPLOADS)
def test_an_upload_that_is_not_a_trace_is_refused_with_its_reason(upload: str) -> None:
    data, reason = UPLOADS[upload]
    client = WEB_APP.test_client()
    answer = client.post(
        "/recorded",
        data={"trace": (io.BytesIO(data), "t.jsonl")},
        content_type="multipart/form-data",
    )
    assert answer.status_code == 400
    assert f"line 1: {reason}" in answer.get_data(as_text=True)
    assert client.get("/recorded").status_code == 200  # and the lab goes on


def test_a_refused_upload_reads_in_the_person_s_language() -> None:
    answer = WEB_APP.test_client().post(
        "/recorded?lang=zh",
        data={"trace": (io.BytesIO(UPLOADS["100,000 [ on a line"][0]), "t.jsonl")},
        content_type="multipart/form-data",
    )
    assert "第 1 行：嵌套超过 64 层" in answer.get_data(as_text=True)


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "with a Content-Length"])
def test_an_upload_over_the_limit_is_a_413_page_under_werkzeug(
    live_server: str, chunked: bool
) -> None:
    status, page = upload(live_server, 12 * 1024 * 1024, chunked=chunked)
    assert status == 413 and "The file is larger than 8 MB." in page


def test_any_post_is_bounded_even_where_no_file_is_expected() -> None:
    answer = WEB_APP.test_client().post(
        "/live",
        data=b"x=" + b"y" * (2 * 1024 * 1024),
        content_type="application/x-www-form-urlencoded",
        headers={"Sec-Fetch-Site": "same-origin"},
    )
    assert answer.status_code == 413 and "Too large" in answer.get_data(as_text=True)


# ------------------------------------------------------------------------- gunicorn's gevent worker


@pytest.fixture(scope="module")
def gevent_lab() -> Iterator[tuple[str, Path]]:
    """`mcp-lab serve`'s gunicorn, with keep-alive at 1 s so a slow upload outlasts it quickly."""
    with gunicorn(keepalive=1, accesslog=None) as served:
        base, _log = served
        for _ in range(300):  # the worker validates the library before it answers
            with contextlib.suppress(OSError):
                if raw_request(base, b"GET /recorded HTTP/1.0\r\n\r\n").startswith("HTTP/1.0 200"):
                    break
        yield served


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "with a Content-Length"])
def test_an_upload_over_the_limit_is_a_413_page_under_gunicorn_even_from_a_slow_client(
    gevent_lab: tuple[str, Path], chunked: bool
) -> None:
    """The client pauses past gunicorn's keep-alive deadline in the middle of its upload (a slow
    network): it still reads the page, instead of a connection reset."""
    base, log = gevent_lab
    status, page = upload(
        base, 12 * 1024 * 1024, chunked=chunked, pause_after=10 * 1024 * 1024, pause=1.5
    )
    assert status == 413 and "The file is larger than 8 MB." in page
    assert "Traceback" not in log.read_text(errors="replace")


@pytest.mark.parametrize(
    ("head", "status"),
    [
        (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        (b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * 200 + b"\r\n", 431),
        (b"NOT HTTP AT ALL\r\n\r\n", 400),
        (PAYLOADS["random bytes"].replace(b"\n", b"") + b"\r\n\r\n", 400),
    ],
    ids=["a URI over 8,190 bytes", "200 headers", "a broken request line", "random bytes"],
)
def test_gunicorn_s_own_error_answers_carry_the_security_headers(
    gevent_lab: tuple[str, Path], head: bytes, status: int
) -> None:
    base, _ = gevent_lab
    answer = raw_request(base, head)
    top, _, _ = answer.partition("\r\n\r\n")
    assert top.startswith(f"HTTP/1.1 {status} ")
    assert "Content-Security-Policy: default-src 'self';" in top
    assert "X-Content-Type-Options: nosniff" in top and "Referrer-Policy: no-referrer" in top
    assert raw_request(base, b"GET /recorded HTTP/1.0\r\n\r\n").startswith("HTTP/1.0 200")


# ------------------------------------------------------------------------- what real servers answer

GOOD_ANSWER = b'{"jsonrpc":"2.0","id":1,"result":{}}'
ANSWERS = {  # what a hostile server may write where the probe expects one message
    "random bytes": PAYLOADS["random bytes"].replace(b"\n", b""),
    "10 MB": PAYLOADS["10 MB"],
    "4,000 [": PAYLOADS["4,000 ["],
    "wrong types": b'[1, "two", null]',
    "NaN": b'{"jsonrpc":"2.0","id":1,"result":NaN}',
}


@pytest.mark.parametrize("answer", ANSWERS)
def test_the_probe_notes_a_hostile_stdio_line_and_reads_the_next_message(
    tmp_path: Path, answer: str
) -> None:
    out = tmp_path / "answer.bin"
    out.write_bytes(ANSWERS[answer] + b"\n" + GOOD_ANSWER + b"\n")
    script = (
        f"import sys; sys.stdout.buffer.write(open({str(out)!r}, 'rb').read()); "
        "sys.stdout.flush(); sys.stdin.read()"
    )
    peer = StdioPeer([sys.executable, "-c", script])
    try:
        received = peer.receive(30)
        assert received is not None and received.message == json.loads(GOOD_ANSWER)
        assert len(peer.noise) == 1 and all(len(n) <= 300 for n in peer.noise)
    finally:
        peer.close()


class _Hostile(BaseHTTPRequestHandler):
    body = b""
    kind = "application/json"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = self.body if self.kind == "application/json" else b"data: " + self.body + b"\n\n"
        self.send_response(200)
        self.send_header("Content-Type", self.kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize("kind", ["application/json", "text/event-stream"])
@pytest.mark.parametrize("answer", ANSWERS)
def test_the_probe_turns_a_hostile_http_answer_into_a_parse_error(answer: str, kind: str) -> None:
    handler = type("Handler", (_Hostile,), {"body": ANSWERS[answer], "kind": kind})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        peer = HttpPeer(f"http://127.0.0.1:{server.server_address[1]}/mcp", timeout=30)
        peer.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        received = peer.receive(0)
        if received is not None:  # a JSON body: the request gets a parse error in its place
            assert received.synthesized and received.message["error"]["code"] == -32700
        assert peer.noise  # and the probe's report says what it could not read
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


# ---------------------------------------------------------------------- the served server's lab API


@pytest.mark.parametrize("answer", ["4,000 [", "random bytes", "NaN", "wrong types"])
def test_the_watch_view_says_a_hostile_lab_api_cannot_be_read(answer: str) -> None:
    """/watch reads the served server's /lab/* JSON; a server that answers garbage there is
    'unreachable' on the page, never a 500."""
    handler = type("Handler", (_Hostile,), {"body": ANSWERS[answer]})
    handler.do_GET = handler.do_POST  # type: ignore[attr-defined]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page = WEB_APP.test_client().get(
            f"/watch?server=http://127.0.0.1:{server.server_address[1]}"
        )
        assert page.status_code == 200
        if answer != "wrong types":  # JSON, read; the feed finds no session list in it
            with pytest.raises(Unreachable):
                ask(f"http://127.0.0.1:{server.server_address[1]}", "/lab/sessions")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
