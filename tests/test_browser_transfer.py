"""Bytes on the wire, counted by Chromium itself: a student's first visit to a scenario page
stays within 60 KB and a later visit within 10 KB (pages compressed, static files cached by
content hash and not asked for again)."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser
PAGE = "/scenario/pagination"
FIRST_VISIT, NEXT_VISIT = 60_000, 10_000


class Transfers:
    """Every HTTP request of one page as the DevTools protocol reports it: bytes received
    (headers and encoded body; 0 for one answered from the browser's cache)."""

    def __init__(self, page: Page) -> None:
        self.session = page.context.new_cdp_session(page)
        self.pending: dict[str, str] = {}
        self.received: dict[str, int] = {}
        self.urls: dict[str, str] = {}
        self.session.on("Network.requestWillBeSent", self._sent)
        self.session.on("Network.loadingFinished", self._finished)
        self.session.on("Network.loadingFailed", self._failed)
        self.session.send("Network.enable")

    def _sent(self, event: dict) -> None:
        self.pending[event["requestId"]] = event["request"]["url"]

    def _finished(self, event: dict) -> None:
        url = self.pending.pop(event["requestId"], "?")
        self.received[event["requestId"]] = int(event["encodedDataLength"])
        self.urls[event["requestId"]] = url

    def _failed(self, event: dict) -> None:
        url = self.pending.pop(event["requestId"], "?")
        raise AssertionError(f"{url} failed: {event.get('errorText')}")

    def visit(self, page: Page, url: str) -> int:
        """Bytes received for one navigation, once every request it started has finished."""
        self.received.clear()
        page.goto(url, wait_until="load")
        deadline = time.monotonic() + 60
        while self.pending and time.monotonic() < deadline:
            page.wait_for_timeout(50)  # events are delivered while Playwright waits
        assert not self.pending, f"still loading: {sorted(self.pending.values())}"
        return sum(self.received.values())

    def report(self) -> str:
        return ", ".join(f"{self.urls[k]}: {n}" for k, n in self.received.items())


def test_a_first_visit_is_at_most_60_kb_and_the_next_at_most_10_kb(
    browser: Browser, live_server: str
):
    context = browser.new_context(base_url=live_server)
    try:
        page = context.new_page()
        transfers = Transfers(page)
        first = transfers.visit(page, live_server + PAGE)
        assert len(transfers.received) >= 5, transfers.report()  # the page and its files
        assert first <= FIRST_VISIT, transfers.report()
        again = transfers.visit(page, live_server + PAGE)
        assert again <= NEXT_VISIT, transfers.report()
        print(f"first visit {first} B, next visit {again} B")
    finally:
        context.close()
