"""The live view of real sessions: the served server records each client's session as trace
steps while it happens, and /watch in `mcp-lab serve` shows them by clientInfo, applies a change
on demand, and opens a session in the four views.

An SDK client (legacy session over Streamable HTTP) talks to the served server in this process;
the web app is driven with Flask's test client, which fetches from the served server over the
loopback socket as the real page does; the page's socket conversation
(app.web.watch.socket.Watch) is driven with a fake socket. tests/test_browser_watch.py has the
same in Chromium.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import pytest
from flask.testing import FlaskClient
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from simple_websocket import ConnectionClosed

from app.serving.catalog import load_served
from app.serving.endpoint import McpEndpoint
from app.serving.http import HttpShell, loopback_origins
from app.web.factory import create_app
from app.web.recorded import parse_trace
from app.web.watch.feed import Feed
from app.web.watch.socket import Watch
from tests.test_engine_step import problems as schema_problems
from tests.test_serving_inspector import LAUNCHER as INSPECTOR_LAUNCHER
from tests.test_serving_inspector import NODE as INSPECTOR_NODE
from tests.test_serving_inspector import inspector
from tests.test_serving_sdk import gather_session, on_list_changed
from tests.test_web_security import upgrade_status

TIMEOUT_S = 30


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@contextmanager
def served(scenario: str, server: str) -> Iterator[tuple[str, McpEndpoint]]:
    endpoint = McpEndpoint(load_served(scenario, server))
    shell = HttpShell(endpoint, "127.0.0.1", 0)
    endpoint.origins = loopback_origins("127.0.0.1", shell.port)
    thread = threading.Thread(target=shell.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{shell.port}", endpoint
    finally:
        shell.stop()
        thread.join(5)


@pytest.fixture
def web() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


@pytest.mark.anyio
async def test_watch_shows_a_real_client_live_and_a_change_reaches_it(web: FlaskClient) -> None:
    with served("list-changed-add", "orders") as (base, endpoint):
        changed = anyio.Event()
        async with (
            streamable_http_client(base + "/mcp") as (read, write),
            ClientSession(read, write, message_handler=on_list_changed(changed)) as session,
        ):
            with anyio.fail_after(TIMEOUT_S):
                await session.initialize()
                assert (await gather_session(session))[0] == ["read_order", "list_orders"]

                live = await anyio.to_thread.run_sync(
                    lambda: web.get(f"/watch?server={base}").get_data(as_text=True)
                )
                assert "/ws/watch" in live and "ws-connect" in live  # it goes on updating itself
                assert "mcp 0.1.0" in live  # the SDK's clientInfo, name and version
                assert "2025-11-25" in live and "tools/list" in live
                assert "POST /mcp HTTP/1.1" in live  # the bytes on the wire
                for panel in ("overview", "transport", "transform", "output"):
                    assert f'id="panel-{panel}"' in live  # the viewer's own four views

                applied = await anyio.to_thread.run_sync(
                    lambda: web.post(f"/watch/change?server={base}")
                )
                assert applied.status_code == 303
                await changed.wait()
                names, _ = await gather_session(session)
                assert names == ["read_order", "list_orders", "search_invoices"]
                live = await anyio.to_thread.run_sync(
                    lambda: web.get(f"/watch?server={base}").get_data(as_text=True)
                )
                assert "notifications/tools/list_changed" in live
                assert "search_invoices" in live
                assert "changes applied: 1" in live

        (summary,) = endpoint.live.summary()
        steps = endpoint.live.steps(summary["id"])
        assert steps is not None
        assert endpoint.live.steps(summary["id"], since=len(steps) - 2) == steps[-2:]
        methods = [s["method"] for s in steps if s["message"] is not None]
        assert (
            methods.count("tools/list") == 6
        )  # one page before the change, two after (asked, answered)
        assert "notifications/tools/list_changed" in methods
        assert summary["client"] == {"name": "mcp", "version": "0.1.0"}
        assert schema_problems(steps) == []  # docs/step.schema.json, as a scenario's trace
        last = steps[-1]["state"]["clients"]["orders"]
        assert [t["name"] for t in last["cache"]["tools"]][-1] == "search_invoices"
        data = "".join(json.dumps(s) + "\n" for s in steps).encode()
        assert len(parse_trace(data)) == len(steps)  # the viewer can show every step

        opened = await anyio.to_thread.run_sync(
            lambda: web.get(f"/watch/open?server={base}&session={summary['id']}")
        )
        assert opened.status_code == 303
        assert f"step={len(steps)}" in opened.headers["Location"]
        viewer = web.get(opened.headers["Location"])
        assert viewer.status_code == 200
        assert "orders-server" in viewer.get_data(as_text=True)


def test_watch_refuses_addresses_off_this_machine(web: FlaskClient) -> None:
    assert web.post("/watch/change?server=http://example.com:80").status_code == 400
    assert web.get("/watch/open?server=file:///etc/passwd&session=x").status_code == 400
    page = web.get("/watch?server=http://10.0.0.1:3001").get_data(as_text=True)
    assert "Only http:// addresses on this machine" in page
    assert "ws-connect" not in page
    gone = web.get("/watch?server=http://127.0.0.1:9").get_data(as_text=True)
    assert "cannot be reached" in gone


def test_the_live_socket_keeps_serving_after_bad_commands(web: FlaskClient) -> None:
    """The socket's conversation with a fake socket: the session is drawn on open, bad frames
    are answered with a readable alert, and a change is applied and reported."""
    with served("pagination", "files") as (base, endpoint):
        initialize(base)
        app = web.application
        with app.test_request_context(f"/ws/watch?server={base}"):
            sent: list[str] = []
            frames = iter(["{not json", json.dumps({"command": "fly"}), "[1]", None])
            watch = Watch(Feed(base), {"server": base}, "en", 4096)
            fake = FakeSocket(sent, frames)
            with contextlib.suppress(ConnectionClosed):
                watch.converse(fake)
            html = "".join(sent)
            assert 'id="watch-lab"' in html and "live-client 1.0" in html
            assert 'href="/scenario/watch-' not in html  # the stepper's links name /watch too
            assert f'href="/watch?server={base}&amp;session=' in html
            assert "That command is not valid JSON." in html
            assert "Unknown command: fly" in html
            assert "A command must be a JSON object." in html
            out = "".join(watch.command(json.dumps({"command": "change"})))
            assert "Change 1 applied: +" in out
            assert len(endpoint.served.applied) == 1


class FakeSocket:
    def __init__(self, sent: list[str], frames: Iterator[str | None]) -> None:
        self.sent = sent
        self.frames = frames

    def send(self, data: str) -> None:
        self.sent.append(data)

    def receive(self, timeout: float | None = None) -> str | None:
        try:
            return next(self.frames)
        except StopIteration:
            raise ConnectionClosed(1000, "done") from None


def initialize(base: str) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "live-client", "version": "1.0"},
        },
    }
    conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=10)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    conn.request("POST", "/mcp", json.dumps(body), headers)
    assert conn.getresponse().read()
    conn.close()


def test_a_foreign_page_cannot_apply_changes(web: FlaskClient) -> None:
    with served("pagination", "files") as (base, endpoint):
        refused = web.post(
            f"/watch/change?server={base}", headers={"Origin": "http://elsewhere.example"}
        )
        assert refused.status_code == 403
        cross_site = web.post(
            f"/watch/change?server={base}", headers={"Sec-Fetch-Site": "cross-site"}
        )
        assert cross_site.status_code == 403
        assert endpoint.served.applied == []
        own_page = web.post(
            f"/watch/change?server={base}",
            headers={"Origin": "null", "Sec-Fetch-Site": "same-origin"},  # no-referrer pages
        )
        assert own_page.status_code == 303
        assert len(endpoint.served.applied) == 1


@pytest.mark.skipif(
    not (INSPECTOR_NODE.exists() and INSPECTOR_LAUNCHER.exists()), reason="run `make inspector`"
)
def test_watch_shows_an_inspector_session_by_its_client_info(
    web: FlaskClient, tmp_path: Path
) -> None:
    """The MCP Inspector CLI as the real client: its session is listed and shown under the
    name it gave, with every page it listed."""
    with served("pagination", "files") as (base, endpoint):
        listed = inspector(tmp_path, f"{base}/mcp", "--method", "tools/list")
        assert len(listed["tools"]) == 8
        (summary,) = endpoint.live.summary()
        name = summary["client"]["name"]
        live = web.get(f"/watch?server={base}").get_data(as_text=True)
        steps = endpoint.live.steps(summary["id"]) or []
    assert name and name != "mcp"
    assert summary["label"] in live  # the Inspector by its own clientInfo, name and version
    assert "tools/list" in live
    assert schema_problems(steps) == []
    pages = [s for s in steps if s["method"] == "tools/list" and s["kind"] == "response"]
    assert len(pages) == 3  # every page it fetched is a step of its session


def test_the_live_socket_refuses_a_foreign_origin(live_server: str) -> None:
    """A page on another site cannot open the live view's socket (and so cannot press its
    change button): refused before the handshake, like every lab socket."""
    path = "/ws/watch?server=http://127.0.0.1:9"
    assert upgrade_status(live_server, path, "http://evil.example") == 403
    assert upgrade_status(live_server, path, live_server) == 101


class Links(HTMLParser):
    """Every link and form of a page: (href), and (method, action, hidden fields)."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.forms: list[tuple[str, str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "href" in a and tag in ("a", "link"):
            self.hrefs.append(a["href"])
        if tag == "form":
            self.forms.append((a.get("method", "get").lower(), a.get("action", ""), {}))
        if tag == "input" and a.get("type") == "hidden" and self.forms:
            self.forms[-1][2][a.get("name", "")] = a.get("value", "")


def test_every_link_and_form_on_the_live_view_leads_to_a_real_page(web: FlaskClient) -> None:
    """As a crawler (or a middle click, or "copy link") would: each href on /watch answers 200,
    the stepper's and timeline's links name this session at that step and /watch renders that
    very step server-side, and both forms land on a page."""
    with served("pagination", "files") as (base, endpoint):
        initialize(base)
        own_page = {"Sec-Fetch-Site": "same-origin"}  # as a browser posts the page's own form
        assert web.post(f"/watch/change?server={base}", headers=own_page).status_code == 303
        (summary,) = endpoint.live.summary()
        page = web.get(f"/watch?server={base}&session={summary['id']}&step=2&lang=en")
        html = page.get_data(as_text=True)
        assert page.status_code == 200 and "Step 2 of 3" in html  # the step the URL names
        links = Links()
        links.feed(html)
        hrefs = sorted({h for h in links.hrefs if not h.startswith(("#", "data:"))})
        stepping = [h for h in hrefs if "step=" in h]
        # reset, previous, next and a timeline mark per step: every step of the session
        assert {parse_qs(urlsplit(h).query)["step"][0] for h in stepping} == {"1", "2", "3"}
        for href in hrefs:
            assert urlsplit(href).netloc == "", href  # nothing leaves the lab
            with web.get(href, follow_redirects=True) as answer:  # a static file streams
                assert answer.status_code == 200, href
        for href in stepping:
            query = parse_qs(urlsplit(href).query)
            assert urlsplit(href).path == "/watch", href
            assert query["server"] == [base] and query["session"] == [summary["id"]], href
            shown = web.get(href).get_data(as_text=True)
            assert f"Step {query['step'][0]} of 3" in shown, href
        zh = next(h for h in hrefs if "lang=zh" in h)
        assert "server=" in zh and "第 3 步，共 3 步" in web.get(zh).get_data(as_text=True)
        forms = [f for f in links.forms if f[0] != "dialog"]  # the shortcut sheet's Close
        assert len(forms) == 2  # the server to watch, the change button
        for method, action, fields in forms:
            if method == "post":
                answer = web.post(action, data=fields, headers=own_page, follow_redirects=True)
            else:
                answer = web.get(action, query_string=fields | {"server": base})
            assert answer.status_code == 200, (method, action, fields, answer.status_code)


def overview_of(html: str) -> str:
    start = html.index('id="panel-overview"')
    return html[start : html.index("</section>", start)]


def test_the_overview_of_a_real_session_names_what_is_known_and_not_the_lab_s_own_host(
    web: FlaskClient,
) -> None:
    """A real client's host and model never reach the wire: the overview names the client by
    its clientInfo and the served server, and draws the host and the model as unseen instead of
    the lab's simulated agent and the tools it would offer a model, in each language."""
    with served("pagination", "files") as (base, _endpoint):
        initialize(base)
        seen = {}
        for lang in ("en", "zh", "ru"):
            seen[lang] = overview_of(web.get(f"/watch?server={base}&lang={lang}").get_data(True))
    en = seen["en"]
    assert "live-client 1.0" in en  # the client, by the name and version it gave
    assert ">file-server<" in en  # the served server, by its name
    assert "unseen by the server" in en and "host: unseen" in en
    assert "tools offered" not in en and "tools known" not in en  # no simulated model or agent
    assert ">Agent<" not in en and "Client · files" not in en
    assert 'class="actor unseen a-model"' in en and 'class="actor unseen a-host"' in en
    assert "服务器看不到" in seen["zh"] and "live-client 1.0" in seen["zh"]
    assert "сервер его не видит" in seen["ru"] and "live-client 1.0" in seen["ru"]
    scenario = overview_of(web.get("/scenario/pagination?lang=en").get_data(True))
    assert " unseen" not in scenario and "tools offered" in scenario  # lessons keep their host


def events_of(steps: list[Any], kind: str, method: str) -> list[list[dict[str, Any]]]:
    return [s["events"] for s in steps if s["kind"] == kind and s["method"] == method]


@pytest.mark.anyio
async def test_a_live_session_s_steps_carry_the_engine_s_events_and_say_what_happened(
    web: FlaskClient,
) -> None:
    """What each recorded message means, as the engine's event types (the walk published with
    what it added, list_changed, a call and its result), and narration that says it."""
    with served("list-changed-add", "orders") as (base, endpoint):
        changed = anyio.Event()
        async with (
            streamable_http_client(base + "/mcp") as (read, write),
            ClientSession(read, write, message_handler=on_list_changed(changed)) as session,
        ):
            with anyio.fail_after(TIMEOUT_S):
                await session.initialize()
                await gather_session(session)
                await session.call_tool("read_order", {"order_id": "517"})
                await anyio.to_thread.run_sync(lambda: web.post(f"/watch/change?server={base}"))
                await changed.wait()
                await gather_session(session)
        (summary,) = endpoint.live.summary()
        steps = endpoint.live.steps(summary["id"]) or []
    assert schema_problems(steps) == []
    assert events_of(steps, "request", "initialize") == [
        [{"kind": "initialize", "version": "2025-11-25"}]
    ]
    assert events_of(steps, "response", "initialize") == [
        [{"kind": "negotiated", "version": "2025-11-25", "listChanged": True}]
    ]
    pages = events_of(steps, "response", "tools/list")
    assert [[e["kind"] for e in page] for page in pages] == [
        ["page", "published"],  # two tools: one page
        ["page"],  # three after the change: a page with a nextCursor, then the last
        ["page", "published"],
    ]
    assert pages[1][0]["nextCursor"] and pages[1][0]["page"] == 1 and pages[2][0]["page"] == 2
    first, again = (e[-1] for e in pages if e[-1]["kind"] == "published")
    assert first | {"kind": "published", "generation": 1, "count": 2} == first
    assert first["added"] == ["read_order", "list_orders"] and first["removed"] == []
    assert again["generation"] == 2 and again["added"] == ["search_invoices"]
    assert events_of(steps, "notification", "notifications/tools/list_changed") == [
        [{"kind": "list-changed", "declared": True}]
    ]
    assert events_of(steps, "request", "tools/call") == [[{"kind": "call", "name": "read_order"}]]
    ((called,),) = events_of(steps, "response", "tools/call")
    assert called["kind"] == "call-ok" and called["name"] == "read_order" and called["text"]
    said = [s["narration"]["en"] for s in steps if s["method"] == "tools/call"]
    assert said[0] == "mcp 0.1.0 calls the tool read_order."
    assert said[1].startswith("The server answers the call to read_order: ")
    relisted = next(s for s in reversed(steps) if s["events"] and s["events"][-1] == again)
    said = relisted["narration"]
    assert "Compared with its previous list, search_invoices is new." in said["en"]
    assert "新增了 search_invoices" in said["zh"] and "появился search_invoices" in said["ru"]
