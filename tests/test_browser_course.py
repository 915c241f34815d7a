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
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.test_browser_viewer import ARGS, CHROMIUM, connected

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make browser installs it)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


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
