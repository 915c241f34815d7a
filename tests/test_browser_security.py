"""The CSP and our escaping in a real browser: every scenario stepped through in Chromium with
nothing refused, and a corpus of XSS payloads everywhere a student can meet text, none of which
runs.

The lab is served by the threaded `live_server` with its real headers, so Chromium enforces the
strict Content-Security-Policy. An init script (which the CSP does not govern) records every
`securitypolicyviolation` event before the page's own scripts run; console errors and page
errors are recorded too. Any of them fails the test: an inline style htmx injected, a style
attribute in a swapped fragment or an eval would show up here first.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Browser, Page, Playwright, expect, sync_playwright

from app.web.factory import create_app
from tests.conftest import served_from_a_thread
from tests.markup import representative
from tests.xss import PAYLOADS, hostile_scenario

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
        return violations(self.page)

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
      // A limit for a server that never answers, not a pace: a loaded machine takes seconds.
      if (Date.now() - started > 60000) return reject(new Error("no answer from the server"));
      setTimeout(poll, 5);
    })();
  });
  const last = Number(document.getElementById("trace").dataset.last);
  let seen = 0;
  while (Number(status().dataset.step) < last) {
    const step = status().dataset.step;
    const open = document.querySelector("#checkpoint[data-state=open] .choice");
    if (open && !document.getElementById("feedback")) {
      open.click();
      await settle(() => document.getElementById("feedback"));
    }
    const reveal = document.querySelector("#checkpoint[data-state=open] #btn-reveal");
    if (reveal) {  // the first choice was wrong: the question stays open until shown
      reveal.click();
      await settle(() => document.querySelector("#checkpoint[data-state=answered]"));
    }
    document.getElementById("btn-next").click();
    await settle(() => status().dataset.step !== step);
    seen += 1;
  }
  return seen;
}
"""


def violations(page: Page) -> list[str]:
    return list(page.evaluate("window.__violations || []"))


def step_through(page: Page) -> int:
    """Step from the step on show to the last, answering every question; returns steps taken."""
    expect(page.locator("body")).to_have_attribute("data-ws", "open")
    return int(page.evaluate(STEP_THROUGH))


def test_the_scenarios_that_show_every_feature_run_under_the_csp_without_a_violation(
    browser, live_server
):
    """The markup of every step of every scenario is checked for inline code without a browser
    (tests/test_web_pages.py); here Chromium steps through the fewest scenarios that between
    them show every kind of step, actor, transport and question, so what the page's scripts and
    htmx do with each is seen too."""
    watched = Watched(browser, live_server)
    try:
        page = watched.page
        page.goto("/")
        assert page.locator(".card").count() > 0
        for sid in representative(create_app({"TESTING": True})):
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
        watched.page.wait_for_function("() => window.__violations.length > 0")
        assert "style-src" in watched.violations()[0]
    finally:
        watched.close()


# --- The XSS corpus (tests/xss.py) in every text field, URL parameter and websocket field ---

CAPTURE = """
window.__fired = [];
window.__xss = (n) => window.__fired.push(n);
window.__sockets = [];
const Native = window.WebSocket;
window.WebSocket = function (url, protocols) {
  const socket = new Native(url, protocols);
  window.__sockets.push(socket);
  return socket;
};
window.WebSocket.prototype = Native.prototype;
Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
"""
# Markup that only an injection could have put there: handlers, script URLs, foreign elements,
# htmx attributes that fetch or evaluate, inline scripts.
ACTIVE = """
() => {
  const bad = [];
  const urlish = ["href", "src", "action", "formaction", "xlink:href", "data", "srcdoc"];
  const icon = document.querySelector("head > link[rel=icon]");  // ours: an inline SVG
  for (const el of document.querySelectorAll("*")) {
    if (el === icon) continue;
    const tag = el.tagName.toLowerCase();
    if (["iframe", "object", "embed", "base", "img", "video", "audio", "source", "marquee",
         "math", "mglyph", "foreignobject", "x", "noscript", "input", "link"].includes(tag)
        && !(tag === "link" && el.getAttribute("href").startsWith("/static/"))
        && !(tag === "input" && el.closest("form.whatif-form")))  // the What if? panel's own
      bad.push("element " + tag);
    if (tag === "script" && !(el.getAttribute("src") || "").startsWith("/static/"))
      bad.push("script " + el.outerHTML.slice(0, 80));
    if (tag === "style" || (tag === "meta" && el.hasAttribute("http-equiv")))
      bad.push("element " + tag);
    for (const a of el.attributes) {
      const name = a.name.toLowerCase(), value = a.value.trim().toLowerCase();
      if (name.startsWith("on") || name.startsWith("hx-on") || name === "style" ||
          ["hx-get", "hx-post", "hx-put", "hx-delete", "hx-patch", "formaction"].includes(name) ||
          (name === "hx-vals" && value.startsWith("js:")) ||
          (urlish.includes(name) && /^(javascript|data|vbscript):/.test(value.replace(/\\s/g, ""))))
        bad.push(tag + " " + name + "=" + a.value.slice(0, 60));
    }
  }
  return bad;
}
"""


def strings(node: object) -> list[str]:
    """Every string in a YAML document, keys included."""
    if isinstance(node, dict):
        return [*map(str, node), *(s for v in node.values() for s in strings(v))]
    if isinstance(node, list):
        return [s for item in node for s in strings(item)]
    return [node] if isinstance(node, str) else []


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("xss")
    source = Path(__file__).resolve().parent.parent / "scenarios" / "pagination.yaml"
    placed = strings(yaml.safe_load(hostile_scenario(source, folder).read_text("utf-8")))
    assert all(any(p in text for text in placed) for p in PAYLOADS)  # every payload is placed
    app = create_app({"SCENARIOS_DIR": str(folder), "AUTOPLAY_MS": 400})
    assert list(app.extensions["lab"].library.scenarios) == ["xss"]  # and the file is valid
    with served_from_a_thread(app) as url:
        yield url


def hostile_commands() -> list[str]:
    sent = []
    for n, payload in enumerate(PAYLOADS):
        field = ("command", "step", "view", "lang", "speed", "choice", "version")[n % 7]
        name = {"step": "goto", "lang": "language", "choice": "answer"}.get(field, field)
        sent.append(
            json.dumps(
                {"command": payload} if field == "command" else {"command": name, field: payload}
            )
        )
    return sent


def assert_inert(page: Page, where: str) -> None:
    assert page.evaluate("window.__fired") == [], where
    assert page.evaluate(ACTIVE) == [], where


@pytest.mark.parametrize(("lang", "csp"), [("en", False), ("zh", False), ("ru", True)])
def test_no_payload_of_the_corpus_runs_anywhere_a_student_can_reach(
    browser, hostile_server, lang, csp
):
    """With the CSP off (bypass_csp), escaping alone must hold; with it on, nothing is refused
    either, because nothing even tried to run."""
    context = browser.new_context(base_url=hostile_server, bypass_csp=not csp)
    context.add_init_script(WATCH + CAPTURE)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    try:
        page.goto(f"/?lang={lang}")
        assert page.locator(".card").count() == 1
        assert_inert(page, "library")
        page.goto(f"/scenario/xss?lang={lang}")
        assert step_through(page) > 0
        assert_inert(page, "steps")
        # Websocket fields: every payload as a command, a step, a view, a language, ...
        page.evaluate(
            "(frames) => frames.forEach((f) => window.__sockets[0].send(f))", hostile_commands()
        )
        page.evaluate("window.__sockets[0].send(JSON.stringify({command: 'goto', step: 1}))")
        expect(page.locator("#status")).to_have_attribute("data-step", "1")
        assert page.locator("#alert").count() == 1
        assert_inert(page, "websocket fields")
        # URL parameters and paths.
        for payload in PAYLOADS[:: len(PAYLOADS) // 12]:
            q = urllib.parse.quote(payload, safe="")
            page.goto(f"/scenario/xss?step={q}&view={q}&version={q}&transport={q}&lang={lang}")
            expect(page.locator("body")).to_have_attribute("data-ws", "open")
            assert_inert(page, f"url {payload}")
            page.goto(f"/{q}?lang={q}")
            assert_inert(page, f"path {payload}")
        if csp:
            assert violations(page) == []
        assert problems == []
    finally:
        context.close()


def test_the_corpus_check_sees_a_payload_that_runs(browser, hostile_server):
    """The watch works: a payload inserted as markup (with the CSP off) is caught twice."""
    context = browser.new_context(base_url=hostile_server, bypass_csp=True)
    context.add_init_script(CAPTURE)
    page = context.new_page()
    try:
        page.goto("/")
        page.evaluate(f"document.body.insertAdjacentHTML('beforeend', {json.dumps(PAYLOADS[2])})")
        page.wait_for_function("() => window.__fired.length > 0")
        assert page.evaluate("window.__fired") == [2]
        assert any("onerror" in found for found in page.evaluate(ACTIVE))
    finally:
        context.close()


ATTACKER_PAGE = """<!doctype html><title>waiting</title>
<form id="f" method="post" action="{lab}/live"><input name="scenario" value="pagination"></form>
<script>
  const ws = new WebSocket("{ws}/ws/scenario/pagination");
  ws.onopen = () => {{ document.title = "opened"; }};
  ws.onerror = () => {{ document.title = "refused"; }};
</script>"""


@pytest.fixture
def other_port(live_server: str) -> Iterator[str]:
    """A page another program serves on another port of the lab's host: same-site for the
    browser, so SameSite cookies ride along; the guard must refuse it all the same."""
    page = ATTACKER_PAGE.format(lab=live_server, ws=live_server.replace("http", "ws")).encode()

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join(5)


def test_a_page_on_another_port_can_neither_open_a_socket_nor_post(browser, other_port):
    """What Chromium itself sends from another port of 127.0.0.1 (Origin, Sec-Fetch-Site:
    same-site): the socket is refused and the form lands on the refusal page, no room made."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(other_port)
        expect(page).to_have_title("refused")
        page.evaluate("document.getElementById('f').submit()")
        expect(page.locator("h1")).to_have_text("Refused: this came from another site")
        assert "/live/" not in page.url  # not redirected to a room's present page
        assert not [c for c in context.cookies() if c["name"].startswith("mcp-lab-teach-")]
    finally:
        context.close()
