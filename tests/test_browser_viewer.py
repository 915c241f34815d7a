"""The lab in a real browser: Playwright for Python driving Debian's headless Chromium.

One browser for the session, one fresh context per test, the lab served from a thread by the
`live_server` fixture. Each test follows what a student or an instructor does: open the library,
open pagination, step to the end by keyboard, read each view, follow a deep link, switch to zh
and ru, lose the socket and come back to the same step, and run axe-core on what they saw.
Screenshots go to test-artifacts/ (git-ignored) for a human to look at.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin

import pytest
from playwright.sync_api import Browser, Page, Playwright, expect, sync_playwright

from app.web.factory import create_app

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
AXE_URL = "/static/vendor/axe.min.js"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WIDE = {"width": 1400, "height": 900}
NARROW = {"width": 900, "height": 900}


# Module scope, not session: Playwright's sync API keeps an asyncio loop running in this thread
# while it is open, which would break later test modules that run their own event loop.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make browser installs it)")
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    yield browser
    browser.close()


@pytest.fixture
def open_page(browser: Browser, live_server: str) -> Iterator:
    contexts = []

    def open_page(path: str, viewport: dict | None = None, **options) -> Page:
        context = browser.new_context(viewport=viewport or WIDE, base_url=live_server, **options)
        contexts.append(context)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.goto(path)
        return page

    yield open_page
    for context in contexts:
        context.close()


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def connected(page: Page) -> None:
    expect(page.locator("body")).to_have_attribute("data-ws", "open")


def at_step(page: Page, n: int) -> None:
    expect(page.locator("#status")).to_have_attribute("data-step", str(n))


def axe_problems(page: Page) -> list[str]:
    # By URL from our own static/, as the CSP allows (an inlined copy would be refused).
    page.add_script_tag(url=urljoin(page.url, AXE_URL))
    found = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
             .map(v => ({id: v.id, impact: v.impact, help: v.help,
                         where: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))"""
    )
    return [
        f"{v['impact']}: {v['id']} ({v['help']}) at {v['where']}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


def reveal(page: Page) -> None:
    """Close the question on show: "Show the answer" when the last choice was wrong."""
    if page.locator("#btn-reveal").count():
        page.locator("#btn-reveal").click()
    expect(page.locator("#checkpoint")).to_have_attribute("data-state", "answered")


def walk_to(page: Page, index: int) -> None:
    """Go to step `index`, closing each question that stops the way."""
    for _ in range(20):
        page.locator(f"#mark-{index}").click()
        page.wait_for_function(
            "i => document.getElementById('status').dataset.step === String(i)"
            " || document.getElementById('alert').textContent.trim() !== ''",
            arg=index,
        )
        if page.locator("#status").get_attribute("data-step") == str(index):
            return
        reveal(page)
    raise AssertionError(f"step {index} not reached")


def test_library_opens_pagination_and_keyboard_steps_to_the_end_through_every_view(open_page):
    page = open_page("/", locale="en-US")
    expect(page.locator("h1")).to_contain_text("How does an AI agent find its tools?")
    shot(page, "library-en")
    assert axe_problems(page) == []
    page.locator("#card-pagination a.card-link").click()
    expect(page).to_have_url(re.compile(r"/scenario/pagination\?step=1&view=overview"))
    connected(page)

    last = int(page.locator("#trace").get_attribute("data-last"))
    seen = {"tools/list": False, "nextCursor": False, "added": False, "question": False}
    for n in range(1, last + 1):
        if (
            page.locator("#checkpoint:not([hidden])").count()
            and not page.locator("#feedback").count()
        ):
            seen["question"] = True
            page.keyboard.press("ArrowRight")  # refused until the question is answered
            expect(page.locator("#alert")).to_contain_text("Answer this question first")
            page.locator("#choice-0").focus()
            page.keyboard.press("Enter")
            expect(page.locator("#feedback")).to_be_visible()
            reveal(page)
        page.keyboard.press("ArrowRight")
        at_step(page, n)
        current = page.locator("#panel-transport .frame.current")
        if current.count():
            text = current.inner_text()
            seen["tools/list"] |= "tools/list" in text
            seen["nextCursor"] |= "nextCursor" in text
        seen["added"] |= page.locator("#panel-transform tr.added").count() > 0
    assert all(seen.values()), seen
    expect(page.locator("#counter")).to_contain_text(f"Step {last + 1} of {last + 1}")
    expect(page.locator("#btn-next")).to_have_attribute("aria-disabled", "true")
    expect(
        page.locator("#panel-transform table.cache").first.locator("tbody tr")
    ).not_to_have_count(0)
    expect(page.locator("#panel-output pre.json")).to_contain_text('"input_schema"')
    shot(page, "viewer-end-wide")

    page.keyboard.press("Home")
    at_step(page, 0)
    page.keyboard.press("End")
    at_step(page, last)
    page.set_viewport_size(NARROW)
    for key, view in (("2", "transport"), ("3", "transform"), ("4", "output"), ("1", "overview")):
        page.keyboard.press(key)
        expect(page.locator(f"#panel-{view}")).to_be_visible()
        expect(
            page.locator("#panel-transform" if view != "transform" else "#panel-output")
        ).to_be_hidden()
        expect(page).to_have_url(re.compile(f"view={view}"))
    page.keyboard.press("?")
    expect(page.locator("#shortcuts")).to_be_visible()
    shot(page, "shortcut-sheet")
    page.keyboard.press("Escape")
    expect(page.locator("#shortcuts")).to_be_hidden()
    assert page.errors == []


def test_a_deep_link_restores_the_exact_state_and_the_url_follows_each_step(open_page):
    # step=6 is the sixth step as the page counts them ("Шаг 6 из …"), index 5 inside
    url = "/scenario/pagination?step=6&view=transform&version=2026-07-28&transport=http&lang=ru"
    page = open_page(url, viewport=NARROW)
    connected(page)
    at_step(page, 5)
    expect(page.locator("html")).to_have_attribute("lang", "ru")
    expect(page.locator("#counter")).to_contain_text("Шаг 6 из")
    expect(page.locator("#panel-transform")).to_be_visible()
    expect(page.locator("#panel-overview")).to_be_hidden()
    expect(page.locator("#sel-version")).to_have_value("2026-07-28")
    expect(page.locator("#sel-transport")).to_have_value("http")
    page.locator("#btn-next").click()
    at_step(page, 6)
    expect(page.locator("#counter")).to_contain_text("Шаг 7 из")
    expect(page).to_have_url(
        re.compile(r"step=7&view=transform&version=2026-07-28&transport=http&lang=ru")
    )
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.locator("#btn-copy").click()
    expect(page.locator("#conn")).to_have_text("Ссылка скопирована")
    assert page.evaluate("navigator.clipboard.readText()") == page.url
    page.select_option("#sel-transport", "stdio")
    expect(page.locator("#trace")).to_have_attribute("data-transport", "stdio")
    expect(page.locator("#panel-transport")).to_be_hidden()
    page.keyboard.press("2")
    expect(page.locator("#panel-transport .frame.current pre.wire")).not_to_contain_text(
        "POST /mcp"
    )
    shot(page, "deep-link-ru-narrow")


def test_switching_to_zh_and_ru_translates_the_interface_and_is_remembered(open_page, live_server):
    page = open_page("/scenario/pagination?step=3", locale="en-US")
    connected(page)
    page.locator("#lang-zh").click()
    expect(page.locator("html")).to_have_attribute("lang", "zh")
    expect(page.locator("#counter")).to_contain_text("第 3 步，共")
    expect(page.locator("#masthead .brand")).to_have_text("MCP 工具发现实验室")
    expect(page.locator("#btn-next")).to_contain_text("下一步")
    at_step(page, 2)
    assert axe_problems(page) == []
    shot(page, "viewer-zh")
    page.locator("#lang-ru").click()
    expect(page.locator("#counter")).to_contain_text("Шаг 3 из")
    expect(page.locator("#panel-transform h2")).to_have_text("Преобразование")
    expect(page).to_have_url(re.compile("lang=ru"))
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "ru")
    expect(page.locator("h1")).to_have_text("Как ИИ-агент находит свои инструменты?")
    shot(page, "library-ru")


def test_a_dropped_socket_reconnects_and_resumes_the_same_step(open_page, browser, live_server):
    routes = []

    def proxy(ws):
        routes.append((ws, ws.connect_to_server()))

    context = browser.new_context(viewport=WIDE, base_url=live_server)
    try:
        page = context.new_page()
        page.route_web_socket(re.compile(r"/ws/scenario/"), proxy)
        page.goto("/scenario/pagination?step=0")
        connected(page)
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        at_step(page, 2)
        routes[-1][0].close(code=1001, reason="test drops the socket")
        expect(page.locator("#conn")).to_have_text("Connection lost, reconnecting…")
        expect(page.locator("#conn")).to_have_text("Connected")
        assert len(routes) == 2 and "step=3" in routes[1][0].url  # the third step, index 2
        page.keyboard.press("ArrowRight")
        at_step(page, 3)
        routes[-1][1].send("{this is not json")
        expect(page.locator("#alert")).to_contain_text("That command is not valid JSON.")
        page.keyboard.press("ArrowRight")
        at_step(page, 4)
        shot(page, "after-reconnect")
    finally:
        context.close()


def test_axe_finds_nothing_serious_in_dark_narrow_and_reduced_motion_views(open_page):
    page = open_page(
        "/scenario/pagination?step=5&view=transport",
        viewport=NARROW,
        color_scheme="dark",
        reduced_motion="reduce",
    )
    connected(page)
    assert axe_problems(page) == []
    shot(page, "viewer-dark-narrow")
    page.keyboard.press("1")
    packet = page.locator("#panel-overview svg.stage:visible .packet")
    expect(packet).to_have_count(1)
    expect(packet).to_have_class(re.compile(r"\blanded\b"))
    assert packet.locator(".packet-body").evaluate("p => p.getAnimations().length") == 0
    page.locator("#theme-toggle").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    expect(page.locator("#theme-toggle")).to_have_text("Theme: light")


def test_everything_is_reachable_by_tab_with_a_visible_focus_ring(open_page):
    page = open_page("/scenario/pagination?step=0")
    question = page.locator("#timeline .has-q").first.get_attribute("id").removeprefix("mark-")
    page.goto(f"/scenario/pagination?step={int(question) + 1}")
    connected(page)
    names = set()
    for _ in range(60):
        page.keyboard.press("Tab")
        focused = page.evaluate(
            """() => { const e = document.activeElement;
                 return {id: e.id, outline: getComputedStyle(e).outlineStyle}; }"""
        )
        if focused["id"]:
            names.add(focused["id"])
            assert focused["outline"] != "none", focused
    assert {
        "btn-next",
        "btn-prev",
        "btn-play",
        "sel-speed",
        "sel-version",
        "btn-copy",
        "lang-zh",
        "theme-toggle",
        "choice-0",
    } <= names


def test_space_plays_at_the_server_pace_and_pauses_again(open_page):
    page = open_page("/scenario/pagination?step=0")
    connected(page)
    page.keyboard.press("Space")
    expect(page.locator("#btn-play")).to_have_attribute("aria-pressed", "true")
    # The live server paces autoplay at 400 ms a step: wait until it has moved on twice (each
    # step shows for 400 ms only, so expect's widening poll could miss an exact one).
    page.wait_for_function("() => Number(document.getElementById('status').dataset.step) >= 2")
    page.keyboard.press("Space")
    expect(page.locator("#btn-play")).to_have_attribute("aria-pressed", "false")
    paused_at = page.locator("#status").get_attribute("data-step")
    page.wait_for_timeout(900)
    at_step(page, int(paused_at))


def tab_to(page: Page, element_id: str, presses: int = 40) -> None:
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == element_id:
            return
    raise AssertionError(f"#{element_id} is not reachable by Tab")


def test_the_lesson_opens_by_keyboard_and_see_step_jumps_to_the_step_that_refutes_a_myth(
    open_page,
):
    page = open_page("/scenario/pagination?step=0", locale="en-US")
    connected(page)
    lesson = page.locator("#lesson")
    expect(lesson).not_to_have_attribute("open", "")
    expect(page.locator("#lesson-toggle")).to_contain_text("Lesson")
    tab_to(page, "lesson-toggle")
    page.keyboard.press("Enter")
    expect(lesson).to_have_attribute("open", "")
    expect(lesson.locator(".goals li").first).to_be_visible()

    link = page.locator("#myth-0-goto")
    n = int(re.search(r"[?&]step=(\d+)", link.get_attribute("href")).group(1))  # from 1
    expect(link).to_have_text(f"See step {n} →")
    tab_to(page, "myth-0-goto")
    page.keyboard.press("Enter")
    at_step(page, n - 1)
    expect(page.locator("#counter")).to_contain_text(f"Step {n} of")
    expect(page).to_have_url(re.compile(f"step={n}&"))
    expect(page.locator("#timeline .mark[aria-current=step]")).to_have_id(f"mark-{n - 1}")
    expect(link).to_have_attribute("aria-current", "step")  # the myth this step refutes
    expect(page.locator("#myth-1-goto")).not_to_have_attribute("aria-current", "step")
    assert axe_problems(page) == []
    shot(page, "lesson-en-wide")

    # A language change re-sends the lesson inside the open panel: still open, now in Chinese.
    page.locator("#lang-zh").click()
    expect(page.locator("#lesson-toggle")).to_contain_text("本课要点")
    expect(lesson).to_have_attribute("open", "")
    second = page.locator("#myth-1-goto")
    m = int(re.search(r"[?&]step=(\d+)", second.get_attribute("href")).group(1))
    expect(second).to_have_text(f"查看第 {m} 步 →")
    second.focus()
    page.keyboard.press("Enter")
    # The jump ends at the step, or at a question on the way: answer it, and jump again.
    status = "document.getElementById('status').dataset.step"
    stopped = (
        f"() => {status} === '{m - 1}' || !!document.querySelector('#checkpoint[data-state=open]')"
    )
    page.wait_for_function(stopped)
    while (at := page.locator("#status").get_attribute("data-step")) != str(m - 1):
        reveal(page)
        second.click()
        page.wait_for_function(f"at => {status} !== at", arg=at)
        page.wait_for_function(stopped)
    at_step(page, m - 1)
    expect(page.locator("#counter")).to_contain_text(f"第 {m} 步")
    shot(page, "lesson-zh-wide")

    # Narrow and dark, in Russian: the jump brings the step into sight below the open panel.
    page.set_viewport_size(NARROW)
    page.locator("#lang-ru").click()
    expect(page.locator("#lesson-toggle")).to_contain_text("Об уроке")
    page.emulate_media(color_scheme="dark")
    page.locator("#myth-0-goto").scroll_into_view_if_needed()
    page.locator("#myth-0-goto").click()
    at_step(page, n - 1)
    expect(page.locator(".story")).to_be_in_viewport()
    expect(page).to_have_url(re.compile(f"step={n}&.*lang=ru"))
    assert axe_problems(page) == []
    page.locator("#lesson").scroll_into_view_if_needed()
    shot(page, "lesson-ru-dark-narrow")
    assert page.errors == []


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_phone_sized_viewer_never_scrolls_sideways(open_page, lang):
    # long tool names, cursors and method names must wrap inside their panels
    for view in ("overview", "transport", "transform", "output"):
        page = open_page(
            f"/scenario/collisions?step=13&lang={lang}&view={view}",
            viewport={"width": 320, "height": 720},
        )
        connected(page)
        widths = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert widths[0] <= widths[1], f"{view} is {widths[0]}px wide in a {widths[1]}px screen"
    shot(page, f"phone-{lang}")


def test_an_open_question_keeps_the_next_model_request_out_of_the_output_view(open_page):
    # list-changed-add over stdio asks which tools the next model request will carry
    page = open_page("/scenario/list-changed-add?version=2025-11-25&transport=stdio&lang=en")
    connected(page)
    questions = page.locator("#timeline .has-q")
    walk_to(page, int(page.locator("#timeline .has-q").first.get_attribute("id")[5:]))
    while True:  # the last question: the marks name it once the ones before are answered
        last = int(questions.last.get_attribute("id").removeprefix("mark-"))
        walk_to(page, last)
        if "next model request" in page.locator("#question").inner_text():
            break
        reveal(page)
    expect(page.locator("#question")).to_contain_text("next model request")
    output = page.locator("#panel-output")
    expect(output.locator("#next-locked")).to_be_visible()
    expect(output.locator("#next-locked")).to_have_text("? Answer the question to see this.")
    expect(output.locator("pre.json")).to_have_count(0)
    assert "orders__search_invoices" not in output.aria_snapshot()
    assert "orders__search_invoices" not in output.inner_html()
    assert not re.search(r"next request \(\d+\)", output.inner_text())
    shot(page, "question-locks-output-en-wide")
    page.locator("#checkpoint .choice").first.click()
    expect(page.locator("#feedback")).to_be_visible()
    reveal(page)
    expect(output.locator("#next-locked")).to_have_count(0)
    expect(output.locator("pre.json")).to_contain_text("orders__search_invoices")
    expect(output.locator("h3").first).to_contain_text("next request (3)")
    assert "orders__search_invoices" in output.aria_snapshot()
    assert axe_problems(page) == []
    assert page.errors == []


def test_at_a_question_focus_goes_to_the_question_and_space_neither_answers_nor_plays(
    open_page,
):
    page = open_page("/scenario/pagination?lang=en")
    connected(page)
    question = int(page.locator("#timeline .has-q").first.get_attribute("id").removeprefix("mark-"))
    page.goto(f"/scenario/pagination?step={question}&lang=en")  # the step before the question
    connected(page)
    page.keyboard.press("ArrowRight")
    at_step(page, question)
    expect(page.locator("#question")).to_be_focused()
    expect(page.locator("#question")).to_have_attribute("tabindex", "-1")
    page.keyboard.press("Space")
    page.keyboard.press("Space")
    page.wait_for_timeout(900)  # two autoplay beats at the live server's pace
    expect(page.locator("#feedback")).to_have_count(0)
    expect(page.locator("#checkpoint")).to_have_attribute("data-state", "open")
    expect(page.locator("#btn-play")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#checkpoint .choice[aria-pressed=true]")).to_have_count(0)
    at_step(page, question)
    shot(page, "question-focused-en-wide")
    page.keyboard.press("Tab")  # the choices come next, and answering is deliberate
    expect(page.locator("#choice-0")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#feedback")).to_be_visible()
    reveal(page)
    page.keyboard.press("ArrowRight")
    at_step(page, question + 1)
    assert page.errors == []


# Both pictures of the stage (wide and tall), each shown in turn while it is measured.
OVERFLOWS = """() => {
  const out = [];
  document.querySelectorAll("#panel-overview svg.stage").forEach((svg) => {
    svg.style.display = "block";
    svg.querySelectorAll("g.actor, g.badge").forEach((g) => {
      const box = g.querySelector(":scope > rect").getBBox();
      g.querySelectorAll(":scope > text, :scope > svg > text").forEach((t) => {
        const b = t.getBBox();
        if (b.x < box.x + 2 || b.x + b.width > box.x + box.width - 2)
          out.push(svg.dataset.shape + ": " + t.textContent.trim());
      });
    });
    svg.style.display = "";
  });
  return out;
}"""


def crowded_steps() -> list[dict]:
    """Real steps of list-changed-add with every count at two digits, a long user name and each
    client phase: the longest the overview's boxes have to hold."""
    import copy

    from tests.conftest import default_engine

    app = create_app({"LAB_ENGINE": default_engine()})
    trace = app.extensions["lab"].trace("list-changed-add", "2025-11-25", "stdio")
    steps = []
    for phase in ("new", "probing", "initializing", "ready", "failed"):
        step = copy.deepcopy(trace[-1])
        state = step["state"]
        tool = state["model"]["tools"][0]
        state["model"]["tools"] = [tool] * 22
        state["model"]["requests"] = 24
        state["host"]["tools"] = state["host"]["tools"][:1] * 23
        state["host"]["user"] = "margarita.ivanovna"
        for server in state["servers"].values():
            server["tools"] = server["tools"][:1] * 24
        for client in state["clients"].values():
            client["phase"], client["protocolVersion"] = phase, "2025-11-25"
        # long ids and names are cut short with an ellipsis, in every language
        for part in ("servers", "clients"):
            (only,) = state[part].values()
            state[part] = {"warehouse-inventory": only}
        state["servers"]["warehouse-inventory"]["name"] = "Warehouse Inventory Server"
        step["from"] = step["to"] = "host"
        steps.append(step)
    return steps


def overview_html(steps: list[dict], index: int, lang: str) -> str:
    """The overview of step `index` of `steps` (a trace made up here), as a first paint draws it."""
    from flask_babel import force_locale

    from app.web import overview
    from app.web.draw import Canvas
    from app.web.pages import env
    from app.web.scene import Scene
    from tests.conftest import default_engine

    app = create_app({"LAB_ENGINE": default_engine()})
    lab = app.extensions["lab"]
    base = ("list-changed-add", "2025-11-25", "stdio", lang)
    draft = overview.draft(base, steps[index], "stdio", False, "")
    scene = Scene(*base, 0, 0)
    with app.test_request_context(), force_locale(lang):
        return Canvas(lab.cached, env(lab, scene), "page").whole(draft)


@pytest.mark.parametrize("lang", ["en", "zh", "ru"])
def test_every_line_of_the_overview_fits_inside_its_box(open_page, live_server, lang):
    page = open_page(f"/scenario/list-changed-add?step=18&lang={lang}&version=2025-11-25")
    connected(page)
    assert page.evaluate(OVERFLOWS) == []
    page.locator("#panel-overview").screenshot(path=str(ARTIFACTS / f"overview-{lang}.png"))
    steps = crowded_steps()
    css = f'<link rel="stylesheet" href="{live_server}/static/css/lab.css">'
    for i in range(len(steps)):
        page.set_content(f'{css}<div class="lab">{overview_html(steps, i, lang)}</div>')
        assert page.evaluate(OVERFLOWS) == [], steps[i]["state"]["clients"]
    page.locator("#panel-overview").screenshot(path=str(ARTIFACTS / f"overview-crowded-{lang}.png"))


def test_a_step_swaps_the_stages_moving_parts_and_keeps_the_picture(open_page):
    """Over the socket a step changes the stage part by part: the pictures stay the very same
    nodes, and the parts that came (nested <svg>s, which htmx parses as SVG) are drawn."""
    page = open_page("/scenario/pagination?step=1&lang=en")
    connected(page)
    page.evaluate(
        "() => document.querySelectorAll('svg.stage').forEach(s => { s.dataset.kept = 'yes'; })"
    )
    page.keyboard.press("ArrowRight")
    at_step(page, 1)
    expect(page.locator("svg.stage.wide .packet")).to_have_class(re.compile(r"\blanded\b"))
    drawn = page.evaluate(
        """() => {
          const m = document.getElementById('ov-w-m');
          const shape = m.querySelector('.packet .shape');
          return {
            kept: [...document.querySelectorAll('svg.stage')].every(s => s.dataset.kept === 'yes'),
            svg: m.namespaceURI === 'http://www.w3.org/2000/svg',
            width: shape.getBBox().width,
          };
        }"""
    )
    assert drawn == {"kept": True, "svg": True, "width": drawn["width"]} and drawn["width"] > 0
    assert page.errors == []
