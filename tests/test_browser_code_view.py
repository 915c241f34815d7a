"""The Code view in Chromium: the fifth tab (key 5, `view=code` in the address) shows the SDK
code that sends the step's message, follows the steps, speaks the page's language, and fits a
390 px phone and a 1440 px desk without pushing the page sideways."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.test_browser_viewer import at_step, connected

pytestmark = pytest.mark.browser

LESSON = "/scenario/pagination?version=2025-11-25&transport=stdio"


@pytest.fixture
def open_page(browser: Browser, live_server: str) -> Iterator:
    contexts = []

    def open_page(path: str, width: int = 1440, height: int = 900, **options: object) -> Page:
        viewport = {"width": width, "height": height}
        context = browser.new_context(viewport=viewport, base_url=live_server, **options)
        contexts.append(context)
        page = context.new_page()
        page.goto(path)
        connected(page)
        return page

    yield open_page
    for context in contexts:
        context.close()


def test_key_5_opens_the_code_of_the_step_and_the_address_says_so(open_page) -> None:
    page = open_page(LESSON + "&step=2", 900, locale="en-US")  # the width where views are tabs
    at_step(page, 1)
    expect(page.locator("#tab-code")).to_have_text(re.compile(r"5\s*Code"))
    page.keyboard.press("5")
    code = page.locator("#panel-code")
    expect(code).to_be_visible()
    expect(page.locator("#tab-code")).to_have_attribute("aria-selected", "true")
    expect(page).to_have_url(re.compile(r"view=code"))
    expect(code.locator("pre.code").first).to_have_text(
        "async with ClientSession(read, write) as session:\n    result = await session.initialize()"
    )
    expect(code).to_contain_text("mcp-lab example pagination --protocol-version 2025-11-25")
    page.locator("#btn-next").click()  # the server's answer: the SDK answers by itself
    at_step(page, 2)
    expect(code.locator("pre.code").first).to_contain_text('"file-server"')
    expect(code.locator(".code-note")).to_contain_text("Server side")
    page.keyboard.press("1")
    expect(code).to_be_hidden()
    expect(page.locator("#panel-overview")).to_be_visible()


def test_a_link_with_view_code_opens_it_in_the_page_language(open_page) -> None:
    page = open_page(LESSON + "&step=1&view=code&lang=zh", 900)
    code = page.locator("#panel-code")
    expect(code).to_be_visible()
    expect(code.locator("h2")).to_have_text("代码")
    expect(code.locator(".code-note")).to_contain_text("没有任何东西经过线路")  # a note step
    expect(code.locator("pre.code")).to_have_count(1)  # only the lesson's command
    expect(code).to_contain_text("--lang zh")


@pytest.mark.parametrize("width", [390, 1440])
def test_long_code_scrolls_inside_its_box_not_the_page(open_page, width: int) -> None:
    # collisions' call of the long-named tool has one of the widest snippets
    page = open_page("/scenario/collisions?version=2025-11-25&transport=http&view=code", width)
    page.locator("#timeline .mark").last.click()  # stops at the first open question
    expect(page.locator("#panel-code")).to_be_visible()
    wide = page.evaluate("() => document.scrollingElement.scrollWidth <= window.innerWidth")
    assert wide, "the page scrolls sideways"
    for box in page.locator("#panel-code pre.code").all():
        inside = box.evaluate("e => e.getBoundingClientRect().right <= window.innerWidth + 1")
        assert inside
        assert box.get_attribute("tabindex") == "0"  # a box that may scroll takes the keyboard


def test_on_a_desk_the_code_sits_below_the_other_views_and_5_marks_it(open_page) -> None:
    page = open_page(LESSON + "&step=2", 1440)
    code, output = page.locator("#panel-code"), page.locator("#panel-output")
    expect(code).to_be_visible()
    below = code.evaluate(
        "(e, o) => e.getBoundingClientRect().top >= o.getBoundingClientRect().bottom",
        output.element_handle(),
    )
    assert below
    plain = code.evaluate("e => getComputedStyle(e).borderTopColor")
    page.keyboard.press("5")
    expect(page.locator("#tabs")).to_have_attribute("data-view", "code")
    expect(code).not_to_have_css("border-top-color", plain)  # the chosen view is outlined


@pytest.mark.parametrize("lang", ["en-US", "ru-RU"])
def test_a_projector_at_150_percent_shows_all_five_tabs(open_page, lang: str) -> None:
    """1280x720 at 150 %: the views share half the width, and Code must not hide past its edge."""
    page = open_page(LESSON, 853, 480, locale=lang, device_scale_factor=1.5)
    for tab in page.locator("#tabs [role=tab]").all():
        expect(tab).to_be_visible()
    # one evaluation measures the strip and its tabs together: measured apart, a region the
    # socket swapped in between would be a detached element of width 0
    past = page.locator("#tabs").evaluate(
        """strip => { const edge = strip.getBoundingClientRect().right + 0.5;
             return [...strip.querySelectorAll('[role=tab]')]
               .filter(tab => tab.getBoundingClientRect().right > edge).map(tab => tab.id); }"""
    )
    assert past == []
    page.keyboard.press("5")
    expect(page.locator("#panel-code")).to_be_visible()
