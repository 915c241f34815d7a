"""Course modules in a real browser: what a course author and a student do with a lesson.

Downloads the trace from the viewer and compares it with the CLI's bytes; prints the handout in
Chromium's print preview (`page.pdf()`) and checks that no control is printed and that steps are
kept whole; fetches the server-made PDF.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.test_browser_viewer import connected

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def page(browser: Browser, live_server: str) -> Iterator[Page]:
    context = browser.new_context(base_url=live_server, accept_downloads=True, locale="en-US")
    page = context.new_page()
    yield page
    context.close()


def cli_jsonl(*args: str) -> bytes:
    command = [sys.executable, "-m", "app.cli", "trace", *args, "--format", "jsonl"]
    return subprocess.run(command, cwd=ROOT, capture_output=True, check=True).stdout


def test_trace_downloaded_from_the_viewer_is_the_clis_jsonl_byte_for_byte(page: Page, tmp_path):
    page.goto("/scenario/handshake?version=2025-06-18&transport=http&lang=zh")
    connected(page)
    with page.expect_download() as download:
        page.locator("#btn-trace").click()
    saved = tmp_path / "trace.jsonl"
    download.value.save_as(saved)
    assert download.value.suggested_filename == "handshake-2025-06-18-http.jsonl"
    expected = cli_jsonl("handshake", "--protocol-version", "2025-06-18", "--transport", "http")
    assert saved.read_bytes() == expected
    assert expected.count(b"\n") > 10


def test_handout_prints_every_step_without_controls_and_keeps_steps_whole(page: Page):
    page.goto("/scenario/pagination/handout?lang=ru")
    steps = page.locator(".h-step")
    assert steps.count() > 5
    expect(page.locator("#btn-print")).to_be_visible()
    expect(page.locator(".h-answers")).to_contain_text("1")
    page.emulate_media(media="print")
    for control in ("#btn-print", "#btn-pdf", "#btn-trace", ".handout-bar"):
        expect(page.locator(control)).to_be_hidden()
    assert steps.first.evaluate("e => getComputedStyle(e).breakInside") == "avoid"
    pdf = page.pdf(format="A4")
    assert pdf.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page\b", pdf)) > 2


def test_handout_pdf_is_a_download_printed_on_the_server(page: Page):
    response = page.request.get("/scenario/cache/handout.pdf?lang=zh")
    assert response.status == 200
    assert response.headers["content-type"] == "application/pdf"
    assert response.body().startswith(b"%PDF")


def default_trace_length(scenario_id: str) -> int:
    """How many steps the library card counts: the trace of the scenario's default run."""
    from app.engine.library import default_scenarios_dir, load_library
    from app.engine.runner import run_trace

    scenario = load_library(default_scenarios_dir()).scenarios[scenario_id]
    return len(run_trace(scenario, scenario.default_version, scenario.transports[0]))


def test_progress_survives_a_reload_and_marks_the_library_card_with_a_way_back(page: Page):
    page.goto("/scenario/cache?lang=en")
    connected(page)
    page.locator("#btn-next").click()
    expect(page.locator("#status")).to_have_attribute("data-step", "1")
    page.locator("#btn-next").click()
    expect(page.locator("#status")).to_have_attribute("data-step", "2")
    page.goto("/?lang=en")
    card = page.locator("#card-cache")
    expect(card).to_have_attribute("data-progress", "started")
    expect(page.locator("#card-pagination")).to_have_attribute("data-progress", "new")
    page.reload()
    expect(card).to_have_attribute("data-progress", "started")
    expect(card.locator(".progress-chip[data-when=started]")).to_contain_text(
        f"Step 3 of {default_trace_length('cache')}"
    )
    expect(page.locator("#continue-last")).to_contain_text("Caching the tool list")
    card.locator("a.continue").click()
    connected(page)
    expect(page.locator("#status")).to_have_attribute("data-step", "2")


def test_the_last_step_summarizes_score_missed_questions_myths_and_the_next_lesson(page: Page, app):
    from tests.test_browser_embed import answers, work_through

    page.goto("/scenario/pagination?lang=en")
    right = answers(app, "pagination", "2026-07-28", "stdio")
    work_through(page, right, wrong_first=True)
    summary = page.locator("#summary")
    expect(summary).to_be_visible()
    expect(summary).to_have_attribute("data-raw", "1")
    expect(summary.locator(".summary-score [data-raw]:not([hidden])")).to_have_text(
        "You answered 1 of 2 questions right on the first try."
    )
    missed = summary.locator("[data-question]:not([hidden])")
    expect(missed).to_have_count(1)
    first_question = min(right)
    expect(missed.locator("a")).to_contain_text(f"Step {first_question + 1}:")
    expect(summary.locator(".summary-myths a.see-step").first).to_be_visible()
    expect(page.locator("#summary-next")).to_contain_text("Caching the tool list")
    missed.locator("a").click()
    expect(page.locator("#status")).to_have_attribute("data-step", str(first_question))

    page.goto("/course?lang=en")
    entry = page.locator("#path-pagination")
    expect(entry).to_have_attribute("data-progress", "completed")
    expect(entry.locator(".progress-chip[data-when=completed]")).to_contain_text("1/2")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#btn-forget").click()
    expect(entry).to_have_attribute("data-progress", "new")
    page.goto("/?lang=en")
    expect(page.locator("#card-pagination")).to_have_attribute("data-progress", "new")


def test_the_embed_button_shows_the_snippet_of_the_lesson_on_screen(page: Page, live_server: str):
    page.goto("/scenario/cache?version=2025-06-18&transport=http&lang=ru")
    connected(page)
    page.locator("#btn-embed").click()
    expect(page.locator("#embed-dialog")).to_be_visible()
    code = page.locator("#embed-code").input_value()
    assert f'<iframe src="{live_server}/embed/cache?' in code
    assert "version=2025-06-18&amp;transport=http" in code and "lang=ru" in code
    assert f'<script src="{live_server}/static/js/mcp-lab-embed.js" defer></script>' in code
    page.locator("#embed-close").click()
    expect(page.locator("#embed-dialog")).to_be_hidden()
