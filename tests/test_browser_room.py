"""A room's views in a real browser: what a room's messages leave out loads when it is shown.

A room's step messages go to every student, so they carry a log entry's summary but not its
message and bytes, the Output view's tools array, a narration's term definitions or a large
Transform table (app.web.bodies). A student who looks at them gets them: the instructor drives
over its own socket (tests/classroom_client.py), one student follows in Chromium and switches
views, and each body is waited for, then read.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.classroom_client import LiveSocket, start_room
from tests.test_browser_viewer import WIDE

pytestmark = pytest.mark.browser


def test_a_student_sees_what_a_step_left_out_load_when_looking(browser, live_server: str):
    code, cookie = start_room(live_server, "pagination", "2025-11-25", "http")
    teacher = LiveSocket(live_server, code, cookie)
    teacher.receive()
    context = browser.new_context(base_url=live_server, viewport=WIDE, locale="en-US")
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"/live/{code}?lang=en")
        expect(page.locator("body")).to_have_attribute("data-ws", "open")
        for _ in range(5):
            teacher.send("next")
        expect(page.locator("#counter")).to_contain_text("Step 6 of")
        # the step's entry is marked by the page and its bytes load once it is in sight
        page.keyboard.press("2")
        current = page.locator("#panel-transport .frame.current")
        expect(current).to_have_id("frame-5")
        expect(current.locator("pre.wire")).to_contain_text("POST /mcp HTTP/1.1")
        expect(current.locator(".badge-line")).to_contain_text("valid 2025-11-25")
        # a narration's terms are defined when the disclosure is opened
        terms = page.locator("#narration .step-terms")
        terms.locator("summary").click()
        expect(terms.locator("dd").first).not_to_be_empty()
        for _ in range(8):
            teacher.send("next")
        expect(page.locator("#counter")).to_contain_text("Step 14 of")
        page.keyboard.press("3")
        expect(page.locator("#panel-transform tbody tr.row").first).to_be_visible()
        page.keyboard.press("4")
        # It loads when it comes into sight, so look at it, as a student would: where the
        # page's scroll leaves it after the other views is not this test's to assume (once, in
        # a loaded run, no request for it came in 30 s). Scrolled from the page: a locator's
        # scroll can find the placeholder already replaced by what it loaded.
        page.evaluate("() => document.querySelector('#panel-output pre.json')?.scrollIntoView()")
        expect(page.locator("#panel-output pre.json")).to_contain_text('"tools": [')
        assert errors == []
    finally:
        context.close()
        teacher.close()
