"""The "What if?" panel in Chromium: what a student does with it.

Change a page size and see more pages; step in at a step and undo it; solve a challenge and
fail one; open a shared link in a fresh browser and land on the same step; and the panel used
from the keyboard and on a 390 px phone. The lab is served from a thread (`live_server`).
"""

from __future__ import annotations

import re
import urllib.request
from urllib.parse import quote, urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.test_browser_security import ACTIVE, CAPTURE
from tests.test_browser_viewer import (  # noqa: F401 (fixtures)
    at_step,
    axe_problems,
    connected,
    open_page,
    shot,
)
from tests.xss import PAYLOADS as XSS

pytestmark = pytest.mark.browser

PAGINATION = "/scenario/pagination?version=2025-11-25&transport=stdio&lang=en"
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module", autouse=True)
def warm(live_server: str) -> None:
    """The library loads (and replays every challenge's solution) on the first request: done
    once here, so no page's load waits on it."""
    with urllib.request.urlopen(live_server + PAGINATION, timeout=300) as answer:
        assert answer.status == 200


def marks(page: Page) -> int:
    return page.locator("#timeline .mark").count()


def count_row(page: Page, name: str) -> list[str]:
    return page.locator(f'#whatif-counts tr[data-count="{name}"] td').all_inner_texts()


def test_a_smaller_page_size_gives_more_pages_at_the_same_step(open_page):  # noqa: F811
    page = open_page(PAGINATION + "&step=4")
    connected(page)
    at_step(page, 3)
    before = marks(page)
    expect(page.locator("#whatif-panel")).to_be_hidden()
    page.get_by_role("button", name="What if?").click()
    expect(page.locator("#whatif-panel")).to_be_visible()
    size = page.get_by_label("Page size (files)")
    expect(size).to_have_value("3")
    size.fill("2")
    size.press("Enter")
    page.wait_for_url(re.compile(r"whatif=1\."))
    connected(page)
    at_step(page, 3)  # the same step, in the new trace
    assert marks(page) == before + 2  # one more page: a request and its response
    assert count_row(page, "lists") == ["4", "5"]
    expect(page.locator("#whatif-changes li")).to_have_count(1)
    expect(page.locator("#whatif-changes li").first).to_contain_text(
        "files serves 2 tools per page."
    )
    # the first step that differs is said when it is on show, and marked on the timeline
    expect(page.locator("#whatif-here")).to_be_hidden()
    page.locator("#whatif-goto-first").click()
    at_step(page, 5)
    expect(page.locator("#whatif-here")).to_be_visible()
    expect(page.locator("#whatif-here")).to_have_text("Your change makes a difference here.")
    expect(page.locator("#mark-5")).to_have_class(re.compile("whatif-first"))
    # the address keeps the what-if as the socket moves
    page.locator("#btn-next").click()
    at_step(page, 6)
    assert "whatif=1." in page.url and "step=7" in page.url
    shot(page, "whatif-page-size")
    assert axe_problems(page) == []
    assert page.errors == []


def test_a_lost_message_at_the_step_on_show_and_its_undo(open_page):  # noqa: F811
    page = open_page(PAGINATION)
    connected(page)
    base = marks(page)
    for _ in range(3):
        page.locator("#btn-next").click()
    at_step(page, 3)
    page.keyboard.press("w")
    expect(page.locator("#whatif-panel")).to_be_visible()
    expect(page.locator('[data-fill="at"]')).to_have_text("4")
    page.get_by_role("button", name="The next message is lost").click()
    page.wait_for_url(re.compile(r"whatif=1\."))
    connected(page)
    at_step(page, 3)
    assert marks(page) != base
    expect(page.locator("#whatif-changes li")).to_have_count(1)
    page.locator("#btn-next").click()
    at_step(page, 4)
    expect(page.locator("#narration")).to_contain_text(re.compile("lost|never arrives", re.I))
    page.get_by_role("button", name="Undo").click()
    page.wait_for_url(lambda url: "whatif=" not in url)
    connected(page)
    assert marks(page) == base
    expect(page.locator("#whatif-changes")).to_have_count(0)
    assert page.errors == []


def test_an_impossible_move_is_refused_in_the_students_language(open_page):  # noqa: F811
    page = open_page(PAGINATION.replace("lang=en", "lang=ru"))
    connected(page)
    at_step(page, 0)  # before the host has started the server
    page.locator("#btn-whatif").click()
    page.locator('.whatif-form[data-kind="restartServer"] button').click()
    alert = page.locator("#whatif-error")
    expect(alert).to_be_visible()
    expect(alert).to_contain_text("Изменение 1: на шаге 1")
    expect(page.locator("#whatif-error")).to_be_focused()
    assert "/whatif?" not in page.url  # the address is the page's again
    assert page.errors == []


def test_solve_a_challenge_and_fail_one(open_page):  # noqa: F811
    page = open_page("/scenario/challenge-silent-server?lang=en")
    connected(page)
    expect(page.locator("#whatif-panel")).to_be_visible()  # a challenge opens on its panel
    expect(page.locator(".whatif-goal")).to_contain_text("desk__merge_tickets")
    expect(page.locator("#whatif-left")).to_contain_text("0 moves made, 2 left")
    expect(page.get_by_label("Page size (desk)")).to_have_count(0)  # not an allowed move
    # a wrong move: the goal stays out of reach
    page.get_by_label("Refresh on list_changed").select_option("false")
    page.wait_for_url(re.compile(r"whatif=1\."))
    expect(page.locator("#whatif-result")).to_contain_text("Not reached yet")
    expect(page.locator("#whatif-left")).to_contain_text("1 move made, 1 left")
    page.get_by_role("button", name="Undo").click()
    page.wait_for_url(lambda url: "whatif=" not in url)
    # the right one
    page.get_by_label("Cache the tool list").select_option("false")
    page.wait_for_url(re.compile(r"whatif=1\."))
    expect(page.locator("#whatif-result")).to_contain_text("Goal reached with 1 move")
    expect(page.locator("#whatif-best")).to_have_text("Your fewest moves in this browser: 1.")
    kept = page.evaluate("localStorage.getItem('mcp-lab:challenge:challenge-silent-server')")
    assert kept == '{"reached":true,"best":1}'
    # kept like a lesson's progress: the challenge page says it on the next visit
    page.goto("/scenario/challenge-silent-server?lang=en")
    expect(page.locator("#whatif-best")).to_be_visible()
    assert axe_problems(page) == []
    assert page.errors == []


def test_a_shared_link_opens_the_same_step_in_a_fresh_browser(open_page):  # noqa: F811
    page = open_page(PAGINATION + "&step=6")
    connected(page)
    page.locator("#btn-whatif").click()
    page.get_by_label("Page size (files)").fill("1")
    page.get_by_label("Page size (files)").press("Enter")
    page.wait_for_url(re.compile(r"whatif=1\."))
    connected(page)
    page.locator("#btn-next").click()
    at_step(page, 6)
    link = page.url
    steps = marks(page)
    narration = page.locator("#narration").inner_text()
    shared = urlsplit(link)
    other = open_page(f"{shared.path}?{shared.query}")  # a new context: nothing of the first
    connected(other)
    at_step(other, 6)
    assert marks(other) == steps
    assert other.locator("#narration").inner_text() == narration
    assert count_row(other, "lists") == count_row(page, "lists")
    other.locator("#btn-next").click()  # its socket serves the what-if too
    at_step(other, 7)
    assert other.errors == []


def test_the_panel_on_a_phone_by_keyboard(open_page):  # noqa: F811
    page = open_page(PAGINATION, viewport=PHONE)
    connected(page)
    page.keyboard.press("W")
    expect(page.locator("#whatif-title")).to_be_focused()
    size = page.get_by_label("Page size (files)")
    size.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("4")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"whatif=1\."))
    expect(page.locator("#whatif-title")).to_be_focused()  # the keyboard stays in the panel
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 390, wide
    box = page.locator("#whatif-panel").bounding_box()
    assert box and box["width"] <= 390
    shot(page, "whatif-phone")
    assert page.errors == []


def test_xss_payloads_in_a_whatif_link_stay_text(browser, live_server):
    """The corpus of tests/xss.py as whatif= values: nothing runs, nothing becomes markup, and
    the page says the link cannot be read (with the CSP on, as a student has it)."""
    context = browser.new_context(base_url=live_server)
    context.add_init_script(CAPTURE)
    page = context.new_page()
    try:
        for payload in XSS[:: len(XSS) // 12]:
            q = quote(payload, safe="")
            page.goto(f"/scenario/pagination?lang=en&whatif={q}&step={q}")
            expect(page.locator("#whatif-error")).to_contain_text("This what-if cannot be read.")
            assert page.evaluate("window.__fired") == [], payload
            assert page.evaluate(ACTIVE) == [], payload
            assert "whatif=" not in page.url  # the address no longer holds it
    finally:
        context.close()


def test_a_language_switched_over_the_socket_redraws_the_panel_in_place(open_page):  # noqa: F811
    page = open_page("/scenario/challenge-silent-server?lang=en")
    connected(page)
    expect(page.locator("#whatif-title")).to_have_text("What if?")
    page.evaluate("window.__same = true")  # gone if the page were loaded again
    page.locator("#lang-ru").click()
    expect(page.locator("#whatif-title")).to_have_text("А что, если?")
    expect(page.locator("#whatif-panel")).to_be_visible()  # open as it was
    expect(page.locator("#btn-whatif")).to_have_attribute("aria-expanded", "true")
    assert page.evaluate("window.__same") is True
    page.get_by_label("Кэшировать список инструментов").select_option("false")
    page.wait_for_url(re.compile(r"whatif=1\."))
    expect(page.locator("#whatif-result")).to_contain_text("Цель достигнута за 1 ход")
    assert page.errors == []
