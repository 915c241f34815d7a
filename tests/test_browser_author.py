"""The scenario editor in Chromium: an error is shown with its line as you type, the fix brings
the preview back and it steps, a share link opened in a fresh browser gives the same scenario,
and the XSS corpus (tests/xss.py) runs nowhere on /author or on its links, with the CSP on and
with escaping alone."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from app.web.factory import create_app
from tests.conftest import served_from_a_thread
from tests.test_browser_security import CAPTURE, WATCH, violations
from tests.test_browser_viewer import axe_problems
from tests.xss import PAYLOADS, hostile_scenario

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
CARET_LINE = """() => { const t = document.getElementById("author-text");
  return t.value.slice(0, t.selectionStart).split("\\n").length; }"""


@pytest.fixture(scope="module")
def lab() -> Iterator[str]:
    app = create_app({})
    _ = app.extensions["lab"].library  # validated before the first page, as `serve` does
    with served_from_a_thread(app) as url:
        yield url


def watched(browser: Browser, base: str, *, csp: bool = True) -> tuple[Page, list[str]]:
    context = browser.new_context(base_url=base, bypass_csp=not csp)
    context.add_init_script(WATCH + CAPTURE)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    return page, problems


def paste(page: Page, text: str) -> None:
    """Put `text` in the editor as a paste does: one input event. (Playwright's fill inserts a
    text line by line, an input event a line: 544 for the hostile scenario, two seconds.)"""
    page.locator("#author-text").evaluate(
        """(area, text) => { area.focus(); area.value = text; area.dispatchEvent(
          new InputEvent("input", {bubbles: true, inputType: "insertFromPaste"})); }""",
        text,
    )


def settled(page: Page) -> None:
    """Wait until htmx has settled what it swapped in: until then a new result's buttons are
    not yet htmx's, and a click is the form's own submit (a page load, as without script)."""
    page.wait_for_function(  # a function, not an expression: the page's CSP forbids eval
        "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"
    )


def test_an_error_shows_its_line_and_the_fix_brings_the_preview_back(browser, lab):
    page, problems = watched(browser, lab)
    try:
        page.goto("/author?from=challenge-silent-server")
        expect(page.locator("#author-counter")).to_have_attribute("data-step", "1")
        text = page.locator("#author-text")
        original = text.input_value()
        line = original.split("\n").index("    listChanged: false") + 1
        paste(page, original.replace("listChanged: false", "listChanged: maybe"))
        error = page.locator("#author-errors .error-line").first
        expect(error).to_contain_text(
            f"challenge-silent-server.yaml:{line}: servers[0].listChanged: 'maybe'"
        )
        expect(page.locator("#author-status")).to_contain_text("1 error")
        expect(page.locator("#author-gutter .bad")).to_have_text(str(line))
        expect(page.locator("#author-preview")).to_have_count(0)
        # "Line N" puts the caret on that line, selected: typing replaces it (the fix).
        page.locator("#author-errors .goto-line").first.click()
        assert page.evaluate(CARET_LINE) == line
        page.keyboard.type("    listChanged: false")
        assert text.input_value() == original
        expect(page.locator("#author-status")).to_contain_text("No errors")
        expect(page.locator("#author-gutter .bad")).to_have_count(0)
        counter = page.locator("#author-counter")
        expect(counter).to_have_attribute("data-step", "1")
        settled(page)
        page.get_by_role("button", name="Next").click()
        expect(counter).to_have_attribute("data-step", "2")
        settled(page)
        page.get_by_role("button", name="Last").click()
        expect(counter).to_have_attribute("data-step", counter.get_attribute("data-last") or "")
        # The views are tabs, and the one chosen stays chosen across steps.
        page.get_by_role("tab", name="Transport").click()
        expect(page.locator("#panel-transport")).to_be_visible()
        expect(page.locator("#panel-overview")).to_be_hidden()
        settled(page)
        page.get_by_role("button", name="First").click()
        expect(counter).to_have_attribute("data-step", "1")
        expect(page.locator("#panel-transport")).to_be_visible()
        assert axe_problems(page) == []
        assert violations(page) == [] and problems == []
    finally:
        page.context.close()


def test_the_library_shows_a_challenge_reached_in_this_browser(browser, lab):
    page, problems = watched(browser, lab)
    try:
        page.goto("/")
        state = page.locator('[data-challenge-state="challenge-silent-server"]')
        expect(state).to_be_hidden()
        page.evaluate(
            """localStorage.setItem("mcp-lab:challenge:challenge-silent-server",
                                    JSON.stringify({reached: true, best: 1}))"""
        )
        page.reload()
        expect(state).to_have_text("Goal reached in this browser (fewest moves: 1)")
        expect(page.locator("#card-challenge-silent-server")).to_have_attribute(
            "data-reached", "true"
        )
        expect(page.locator('[data-challenge-state="challenge-two-searches"]')).to_be_hidden()
        assert problems == []
    finally:
        page.context.close()


def test_a_share_link_opens_the_same_scenario_in_a_fresh_browser(browser, lab):
    page, _ = watched(browser, lab)
    try:
        page.goto("/author?from=challenge-silent-server")
        text, link = page.locator("#author-text"), page.locator("#author-link")
        expect(link).to_have_value(re.compile(r"/author\?scenario=1\.[A-Za-z0-9_-]+$"))
        before = link.input_value()
        mine = text.input_value().replace(
            "Merge ticket 41 into ticket 40.", "Merge ticket 7 into 6."
        )
        paste(page, mine)
        expect(link).not_to_have_value(before)  # the link of this very text
        shared = link.input_value()
        page.get_by_role("button", name="Copy link").click()
    finally:
        page.context.close()
    fresh, problems = watched(browser, lab)
    try:
        fresh.goto(shared)
        assert fresh.locator("#author-text").input_value() == mine
        expect(fresh.locator("#author-counter")).to_have_attribute("data-step", "1")
        assert "Merge ticket 7 into 6." in mine and problems == []
    finally:
        fresh.context.close()


# Where the page shows what was typed: none of it may hold markup that acts. (The editor's own
# controls carry hx-post and inputs on purpose, so the check is scoped to what echoes input.)
ECHOED = """
() => {
  const bad = [];
  const roots = [".author-views", "#author-errors ol", "#author-preview-title",
                 "#author-start-error", "#author-saved", ".author-start select"];
  for (const root of roots) for (const top of document.querySelectorAll(root)) {
    for (const el of [top, ...top.querySelectorAll("*")]) {
      const tag = el.tagName.toLowerCase();
      if (["script", "iframe", "object", "embed", "base", "img", "video", "audio", "source",
           "marquee", "math", "style", "meta", "link", "input", "textarea", "form", "x",
           "noscript", "foreignobject"].includes(tag)) bad.push("element " + tag);
      for (const a of el.attributes) {
        const name = a.name.toLowerCase(), value = a.value.replace(/\\s/g, "").toLowerCase();
        const acts = name.startsWith("hx-") && name !== "hx-swap";  // hx-swap: the log's own
        if (name.startsWith("on") || acts || name === "style" || name === "contenteditable" ||
            name === "ws-send" || name === "formaction" ||
            /^(javascript|data|vbscript):/.test(value)) bad.push(tag + " " + name);
      }
    }
  }
  for (const s of document.querySelectorAll("script"))
    if (!(s.getAttribute("src") || "").startsWith("/static/")) bad.push("inline script");
  return bad;
}
"""
STEP_ALL = """
async () => {
  const counter = () => document.getElementById("author-counter");
  const wait = (test) => new Promise((resolve, reject) => {
    const started = Date.now();
    (function poll() {
      if (test()) return resolve();
      if (Date.now() - started > 20000) return reject(new Error("no answer"));
      setTimeout(poll, 20);
    })();
  });
  // A result htmx has swapped in but not yet settled has buttons it has not taken over: a
  // click then is the form's own submit, a page load (the editor without script). Wait for
  // the swap to settle before each click, the first included.
  const settled = () => !document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling");
  let seen = 1;
  const tabs = ["overview", "transport", "transform", "output"];
  await wait(() => counter() && settled());
  while (counter().dataset.step !== counter().dataset.last) {
    const at = counter().dataset.step;
    document.getElementById("tab-" + tabs[seen % 4]).click();
    document.getElementById("author-step-3").click();
    await wait(() => counter() && counter().dataset.step !== at && settled());
    seen += 1;
  }
  return seen;
}
"""


def inert(page: Page, where: str) -> None:
    assert page.evaluate("window.__fired") == [], where
    assert page.evaluate(ECHOED) == [], where


@pytest.mark.parametrize("csp", [True, False])
def test_no_payload_of_the_corpus_runs_on_the_editor_or_its_links(browser, lab, tmp_path, csp):
    hostile = hostile_scenario(ROOT / "scenarios" / "intro.yaml", tmp_path).read_text("utf-8")
    page, problems = watched(browser, lab, csp=csp)
    try:
        page.goto("/author")
        paste(page, hostile)
        expect(page.locator("#author-status")).to_contain_text("No errors")
        inert(page, "typed")
        assert page.evaluate(STEP_ALL) > 3
        inert(page, "every step and view")
        shared = page.locator("#author-link").input_value()
        page.goto(shared)
        assert page.locator("#author-text").input_value() == hostile
        expect(page.locator("#author-status")).to_contain_text("No errors")
        inert(page, "share link")
        # Errors echo what was typed: a payload as a value the schema refuses, and in YAML.
        paste(
            page,
            hostile.replace("versions:", f"versions: [{PAYLOADS[2]!r}]\nold:", 1)
            + f"\n{PAYLOADS[0]}: [\n",
        )
        expect(page.locator("#author-errors")).to_be_visible()
        inert(page, "errors")
        page.locator("#author-name").fill(PAYLOADS[5])
        page.get_by_role("button", name="Check").click()
        page.wait_for_load_state()
        inert(page, "file name")
        assert page.locator("#author-name").input_value() == PAYLOADS[5]
        # Every payload as each query parameter the page reads.
        for payload in PAYLOADS[:: len(PAYLOADS) // 12]:
            q = urllib.parse.quote(payload, safe="")
            for name in ("from", "scenario", "whatif", "lang"):
                page.goto(f"/author?{name}={q}")
                inert(page, f"{name}={payload}")
        if csp:
            assert violations(page) == []
        assert problems == []
    finally:
        page.context.close()
