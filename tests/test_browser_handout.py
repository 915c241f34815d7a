"""The handout as a teacher prints it: Chromium's print layout (`page.pdf()`) on A4 and Letter.

A long message must not run over the next heading or step (it wraps, and past a length it is
folded with a note saying where the whole message is), and a lesson takes about two or three
steps to a page rather than one. The layout is checked on the print-emulated page: every box
holds its content and the parts of a step follow one another without overlapping.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

pytestmark = pytest.mark.browser

# (paper, its printable width in CSS px: the paper less the @page margins of 12 mm a side)
PAPERS = {"A4": round((210 - 24) / 25.4 * 96), "Letter": round((215.9 - 24) / 25.4 * 96)}
LESSONS = ["pagination", "list-changed-during-refresh", "tool-metadata"]


@pytest.fixture
def page(browser: Browser, live_server: str) -> Iterator[Page]:
    context = browser.new_context(base_url=live_server, locale="en-US")
    page = context.new_page()
    yield page
    context.close()


def printed(page: Page, url: str, paper: str) -> None:
    page.set_viewport_size({"width": PAPERS[paper], "height": 1000})
    page.goto(url)
    expect(page.locator(".h-step").first).to_be_visible()
    page.emulate_media(media="print")
    expect(page.locator(".handout-bar")).to_be_hidden()


OVERFLOWS = """() => {
  const bad = [];
  for (const box of document.querySelectorAll('.h-step pre, .h-step p, .h-step h3, .h-step h4')) {
    if (box.scrollHeight > box.clientHeight + 1 || box.scrollWidth > box.clientWidth + 1)
      bad.push(box.closest('.h-step').id + ' ' + box.tagName + '.' + box.className);
  }
  for (const step of document.querySelectorAll('.h-step')) {
    const outer = step.getBoundingClientRect();
    let bottom = -Infinity;
    for (const part of step.children) {
      const r = part.getBoundingClientRect();
      if (r.height === 0) continue;
      const overlaps = r.top < bottom - 0.5 || r.bottom > outer.bottom + 0.5;
      if (overlaps) bad.push(step.id + ' ' + part.tagName);
      bottom = Math.max(bottom, r.bottom);
    }
  }
  return bad;
}"""


@pytest.mark.parametrize("paper", sorted(PAPERS))
@pytest.mark.parametrize("lesson", LESSONS)
def test_no_message_runs_over_what_follows_it(page: Page, lesson: str, paper: str) -> None:
    printed(page, f"/scenario/{lesson}/handout?version=2025-11-25&transport=http", paper)
    assert page.evaluate(OVERFLOWS) == []


@pytest.mark.parametrize("paper", sorted(PAPERS))
@pytest.mark.parametrize("lesson", LESSONS)
def test_two_or_three_steps_fit_on_a_page(page: Page, lesson: str, paper: str) -> None:
    printed(page, f"/scenario/{lesson}/handout?version=2026-07-28&transport=http", paper)
    steps = page.locator(".h-step").count()
    pdf = page.pdf(format=paper, print_background=True)
    pages = len(re.findall(rb"/Type\s*/Page\b", pdf))
    # the head and the answers take a page or two of their own; the steps two or more a page
    assert pages <= steps / 2 + 2, (steps, pages)


def test_a_folded_message_says_how_much_is_left_and_where_it_is(page: Page) -> None:
    printed(page, "/scenario/pagination/handout?version=2025-11-25&transport=stdio&lang=ru", "A4")
    folded = page.locator(".h-step .h-folded")
    assert folded.count() > 0
    expect(folded.first).to_contain_text("JSONL")
    note = folded.first.inner_text()
    assert re.search(r"\d", note)  # how many lines were left out
