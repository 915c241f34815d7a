"""The live view in Debian's Chromium under the strict CSP, with the official SDK client as the
real peer: /watch shows the session by the client's clientInfo in the viewer's four views, each
message appears without a reload, and the change button makes the served server's catalog
change, the notification go out and the client's re-list appear.

The served server is `mcp-lab mcp-server --transport http`'s own shell (HttpShell) on a loopback
port in a thread; the SDK client runs in a thread of its own (anyio), driven by the test through
events, while Playwright drives the page.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import pytest
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client
from playwright.sync_api import Browser, Page, expect

from app.serving.catalog import load_served
from app.serving.endpoint import McpEndpoint
from app.serving.http import HttpShell, loopback_origins
from tests.test_engine_step import problems as schema_problems
from tests.test_serving_sdk import gather_client, gather_session, on_list_changed

pytestmark = pytest.mark.browser
WAIT_MS = 15000
BEFORE, AFTER = ["read_order", "list_orders"], ["read_order", "list_orders", "search_invoices"]


@pytest.fixture
def served() -> Iterator[tuple[str, McpEndpoint]]:
    endpoint = McpEndpoint(load_served("list-changed-add", "orders", announce_changes=True))
    shell = HttpShell(endpoint, "127.0.0.1", 0)
    endpoint.origins = loopback_origins("127.0.0.1", shell.port)
    thread = threading.Thread(target=shell.serve_forever, daemon=True)
    thread.start()
    assert shell.ready.wait(5)
    yield f"http://127.0.0.1:{shell.port}", endpoint
    shell.stop()
    thread.join(5)


class SdkClient:
    """An SDK client's session in a thread: `listed` is set once it has every page, then it
    waits for the change and lists again; `after` holds what it found then."""

    def __init__(self, flow: Callable[[SdkClient], Awaitable[None]]) -> None:
        self.listed = threading.Event()
        self.relist = threading.Event()  # cleared: after the change, wait to list again
        self.relist.set()
        self.after: list[str] | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(flow,), daemon=True)
        self._thread.start()

    def _run(self, flow: Callable[[SdkClient], Awaitable[None]]) -> None:
        try:
            anyio.run(flow, self)
        except BaseException as exc:  # reported by finish()
            self.error = exc
            self.listed.set()

    def finish(self) -> list[str] | None:
        self._thread.join(20)
        assert not self._thread.is_alive(), "the SDK client did not finish"
        if self.error is not None:
            raise self.error
        return self.after


def legacy(url: str) -> Callable[[SdkClient], Awaitable[None]]:
    async def flow(me: SdkClient) -> None:
        changed = anyio.Event()
        async with (
            streamable_http_client(url + "/mcp") as (read, write),
            ClientSession(read, write, message_handler=on_list_changed(changed)) as session,
        ):
            with anyio.fail_after(20):
                await session.initialize()
                assert (await gather_session(session))[0] == BEFORE
                me.listed.set()
                await changed.wait()
                await anyio.to_thread.run_sync(me.relist.wait, 10)
                me.after = (await gather_session(session))[0]

    return flow


def modern(url: str) -> Callable[[SdkClient], Awaitable[None]]:
    async def flow(me: SdkClient) -> None:
        async with Client(url + "/mcp") as client:
            with anyio.fail_after(20):
                assert client.protocol_version == "2026-07-28"
                assert (await gather_client(client))[0] == BEFORE
                async with client.listen(tools_list_changed=True) as subscription:
                    me.listed.set()
                    async for _event in subscription:
                        break
                me.after = (await gather_client(client))[0]

    return flow


def open_watch(browser: Browser, url: str, problems: list[str]) -> Page:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(url)
    page.evaluate("() => { window.sameDocument = true; }")  # gone if the page reloads
    return page


def cache_of_client(page: Page) -> Any:
    return page.locator("#panel-transform table.cache").first


def test_live_view_shows_a_legacy_sdk_session_as_it_happens_and_a_change_it_follows(
    browser: Browser, live_server: str, served: tuple[str, McpEndpoint]
) -> None:
    base, endpoint = served
    problems: list[str] = []
    page = open_watch(browser, f"{live_server}/watch?server={base}", problems)
    expect(page.locator("#watch-sessions")).to_contain_text("No client has connected yet")

    sdk = SdkClient(legacy(base))
    assert sdk.listed.wait(20)
    # The session appears by the SDK's clientInfo and its negotiated version, unasked.
    sessions = page.locator("#watch-sessions")
    expect(sessions).to_contain_text("mcp 0.1.0", timeout=WAIT_MS)
    expect(page.locator("#scenario-title")).to_contain_text("mcp 0.1.0", timeout=WAIT_MS)
    expect(page.locator("#scenario-title")).to_contain_text("2025-11-25")
    # The overview names the real client and draws its host and model as unseen, not simulated.
    stage = page.locator("#panel-overview svg.stage.wide")
    expect(stage.locator('[data-actor="client:orders"]')).to_contain_text("mcp 0.1.0")
    expect(stage.locator('[data-actor="host"]')).to_contain_text("unseen by the server")
    expect(stage.locator('[data-actor="model"]')).not_to_contain_text("tools offered")
    transport = page.locator("#panel-transport")
    expect(transport).to_contain_text("POST /mcp HTTP/1.1", timeout=WAIT_MS)  # the real bytes
    expect(transport).to_contain_text("tools/list")
    expect(cache_of_client(page)).to_contain_text("list_orders", timeout=WAIT_MS)
    expect(page.locator("#panel-output")).to_contain_text("list_orders")
    expect(cache_of_client(page)).not_to_contain_text("search_invoices")

    change = page.get_by_role("button", name="Apply the next change")
    change.focus()
    sdk.relist.clear()  # the client lists again only once the page has said the change
    page.keyboard.press("Enter")  # reachable and usable by keyboard
    expect(page.locator("#alert")).to_contain_text(
        "Change 1 applied: +search_invoices", timeout=WAIT_MS
    )
    sdk.relist.set()
    expect(transport).to_contain_text("notifications/tools/list_changed", timeout=WAIT_MS)
    # The client's re-list arrives and lands in its cache, without a reload.
    expect(cache_of_client(page)).to_contain_text("search_invoices", timeout=WAIT_MS)
    # What the student's command was told stays while the session goes on (the steps that
    # came since did not wipe it).
    expect(page.locator("#alert")).to_contain_text("Change 1 applied: +search_invoices")
    assert sdk.finish() == AFTER
    assert page.evaluate("() => window.sameDocument") is True
    expect(page.locator("#watch-status")).to_contain_text("changes applied: 1")

    (summary,) = endpoint.live.summary()
    steps = endpoint.live.steps(summary["id"]) or []
    assert schema_problems(steps) == []
    methods = [s["method"] for s in steps if s["kind"] != "internal"]
    at = methods.index("notifications/tools/list_changed")
    assert "tools/list" in methods[at:]  # the re-list followed the notification
    expect(page.locator("#counter")).to_contain_text(f"Step {len(steps)} of {len(steps)}")
    page.close()
    assert problems == []  # nothing refused by the CSP, no script errors


def test_live_view_lists_each_client_and_follows_a_modern_listen_stream(
    browser: Browser, live_server: str, served: tuple[str, McpEndpoint]
) -> None:
    base, endpoint = served
    first = SdkClient(legacy(base))
    assert first.listed.wait(20)
    second = SdkClient(modern(base))
    assert second.listed.wait(20)
    modern_key = next(s["id"] for s in endpoint.live.summary() if s["id"].startswith("modern:"))
    label = next(s["label"] for s in endpoint.live.summary() if s["id"] == modern_key)

    problems: list[str] = []
    page = open_watch(browser, f"{live_server}/watch?server={base}", problems)
    expect(page.locator("#watch-sessions .watch-list li")).to_have_count(2)
    expect(page.locator("#watch-sessions")).to_contain_text("2026-07-28")
    page.locator("#watch-sessions .watch-list li", has_text="2026-07-28").get_by_role(
        "link", name=label
    ).click()  # another session: the page shows the one it names
    expect(page.locator("#scenario-title")).to_contain_text("2026-07-28", timeout=WAIT_MS)
    page.evaluate("() => { window.sameDocument = true; }")
    transport = page.locator("#panel-transport")
    expect(transport).to_contain_text("subscriptions/listen", timeout=WAIT_MS)

    page.get_by_role("button", name="Apply the next change").click()
    expect(transport).to_contain_text("notifications/tools/list_changed", timeout=WAIT_MS)
    expect(cache_of_client(page)).to_contain_text("search_invoices", timeout=WAIT_MS)
    assert second.finish() == AFTER
    assert first.finish() == AFTER  # the legacy session was told too, on its GET stream
    page.locator("#lang-zh").click()  # the whole page speaks the language, its header too
    expect(page.locator("#watch-head .watch-title")).to_have_text("实时会话", timeout=WAIT_MS)
    expect(page.locator("#watch-sessions-title")).to_have_text("会话")
    expect(page.locator("#panel-transform")).to_contain_text("服务器一侧")
    assert page.evaluate("() => window.sameDocument") is True
    page.close()
    assert problems == []
