"""The CSP in a real browser: every scenario stepped through in Chromium, nothing refused.

The lab is served by the threaded `live_server` with its real headers, so Chromium enforces the
strict Content-Security-Policy. An init script (which the CSP does not govern) records every
`securitypolicyviolation` event before the page's own scripts run; console errors and page
errors are recorded too. Any of them fails the test: an inline style htmx injected, a style
attribute in a swapped fragment or an eval would show up here first.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright, expect, sync_playwright

from app.web.factory import create_app

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(e.violatedDirective + " " + (e.blockedURI || "") + " " +
                           (e.sample || "") + " at " + (e.sourceFile || "") + ":" + e.lineNumber);
});
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make browser installs it)")
    playwright: Playwright
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


class Watched:
    """A page with everything the CSP refused, and every console or page error, recorded."""

    def __init__(self, browser: Browser, base: str, locale: str = "en-US") -> None:
        self.context = browser.new_context(base_url=base, locale=locale)
        self.context.add_init_script(WATCH)
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on(
            "console",
            lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"),
        )
        self.page.on("pageerror", lambda e: self.problems.append(f"pageerror: {e}"))

    def violations(self) -> list[str]:
        return list(self.page.evaluate("window.__violations || []"))

    def close(self) -> None:
        self.context.close()


# Steps in the page itself: one round trip from Python per scenario, not three per step.
STEP_THROUGH = """
async () => {
  const status = () => document.getElementById("status");
  const settle = (test) => new Promise((resolve, reject) => {
    const started = Date.now();
    (function poll() {
      if (test()) return resolve();
      if (Date.now() - started > 5000) return reject(new Error("no answer from the server"));
      setTimeout(poll, 5);
    })();
  });
  const last = Number(status().dataset.last);
  let seen = 0;
  while (Number(status().dataset.step) < last) {
    const step = status().dataset.step;
    const open = document.querySelector("#checkpoint[data-state=open] .choice");
    if (open && !document.getElementById("feedback")) {
      open.click();
      await settle(() => document.getElementById("feedback"));
    }
    document.getElementById("btn-next").click();
    await settle(() => status().dataset.step !== step);
    seen += 1;
  }
  return seen;
}
"""


def step_through(page: Page) -> int:
    """Step from the step on show to the last, answering every question; returns steps taken."""
    expect(page.locator("body")).to_have_attribute("data-ws", "open")
    return int(page.evaluate(STEP_THROUGH))


def scenario_ids() -> list[str]:
    return sorted(create_app({"TESTING": True}).extensions["lab"].library.scenarios)


def test_every_scenario_runs_under_the_csp_without_a_violation(browser, live_server):
    watched = Watched(browser, live_server)
    try:
        page = watched.page
        page.goto("/")
        assert page.locator(".card").count() > 0
        for sid in scenario_ids():
            page.goto(f"/scenario/{sid}")
            assert step_through(page) > 0
            assert watched.violations() == [], sid
            assert watched.problems == [], sid
        page.goto("/nowhere")
        assert watched.violations() == []
    finally:
        watched.close()


def test_a_violation_would_be_seen(browser, live_server):
    """The watch works: an inline style set as an attribute is refused and recorded."""
    watched = Watched(browser, live_server)
    try:
        watched.page.goto("/")
        watched.page.evaluate("document.body.setAttribute('style', 'color: red')")
        watched.page.wait_for_function("window.__violations.length > 0")
        assert "style-src" in watched.violations()[0]
    finally:
        watched.close()
