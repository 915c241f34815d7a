"""The teaching loop in a real browser: questions that cannot be skipped or read ahead, answers
that last, a stage whose packets land, and a page that fits a projector and a phone.

One Chromium for the module (Debian's, through Playwright), a fresh context per test so each
starts with empty storage, the lab served by conftest's `live_server`. The cache scenario asks
"What goes on the wire?" just before its first cache hit: the mark of that hit is what must
not give the answer away. Sizes are measured, not eyeballed: CSS pixels of the actor names, the
rectangles of the packet and of its receiver, and what lies inside the viewport.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from app.web.factory import create_app
from app.web.render import open_viewer
from tests.conftest import default_engine
from tests.test_browser_viewer import ARTIFACTS, axe_problems

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 853, "height": 480}  # 1280×720 at 150 %: device scale factor 1.5
DESK = {"width": 1280, "height": 720}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def cache_trace() -> dict:
    """The cache lesson as the page opens it: its questions and its first cache hit."""
    app = create_app({"LAB_ENGINE": default_engine()})
    lab = app.extensions["lab"]
    v = open_viewer(lab.scenario("cache"), {}, "en")
    trace = lab.trace("cache", v.version, v.transport)
    questions = [s["index"] for s in trace if s["checkpoint"]]
    hit = next(s["index"] for s in trace if s["kind"] == "cache-hit")
    wire = max(q for q in questions if q < hit)  # "What goes on the wire?"
    return {"trace": trace, "questions": questions, "hit": hit, "wire": wire}


@pytest.fixture
def new_page(browser: Browser, live_server: str) -> Iterator:
    contexts = []

    def new_page(path: str, viewport: dict | None = None, **options) -> Page:
        context = browser.new_context(viewport=viewport or DESK, base_url=live_server, **options)
        contexts.append(context)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.goto(path)
        connected(page)
        return page

    yield new_page
    for context in contexts:
        context.close()


def connected(page: Page) -> None:
    expect(page.locator("body")).to_have_attribute("data-ws", "open")


def at_step(page: Page, n: int) -> None:
    expect(page.locator("#status")).to_have_attribute("data-step", str(n))


def answer_right(page: Page, trace: list[dict], index: int) -> None:
    at_step(page, index)
    page.locator(f"#choice-{trace[index]['checkpoint']['answer']}").click()
    expect(page.locator("#checkpoint")).to_have_attribute("data-state", "answered")


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def reach_the_wire_question(page: Page, cache: dict) -> None:
    """Answer the questions before "What goes on the wire?" and stop at it."""
    for q in cache["questions"]:
        if q == cache["wire"]:
            break
        page.locator("#btn-end").evaluate("b => b.click()")  # End: stops at the next question
        answer_right(page, cache["trace"], q)
    page.locator("#btn-end").evaluate("b => b.click()")
    at_step(page, cache["wire"])


def test_an_open_question_gives_nothing_away_and_cannot_be_skipped(new_page, cache_trace):
    cache = cache_trace
    page = new_page("/scenario/cache?lang=en")
    reach_the_wire_question(page, cache)
    expect(page.locator("#question")).to_contain_text("What goes on the wire?")
    hit = page.locator(f"#mark-{cache['hit']}")
    # the next mark is a place, not a kind: no class, title or accessible name tells it
    expect(hit).to_have_class(re.compile(r"\bunknown\b"))
    assert "cache" not in (hit.get_attribute("title") or "")
    timeline = page.locator("#timeline").aria_snapshot()
    assert "cache hit" not in timeline and f"Step {cache['hit'] + 1}" in timeline
    later = page.locator("#timeline").inner_html().split(f'id="mark-{cache["wire"] + 1}"')[1]
    assert "k-cache-hit" not in later and "cache hit" not in later
    colours = page.evaluate(
        """(from) => [...document.querySelectorAll('#timeline .mark')].slice(from)
             .map(m => getComputedStyle(m).backgroundColor)""",
        cache["wire"] + 1,
    )
    assert len(set(colours)) == 1  # one neutral look for every step not reached
    # Next's link does not skip it either
    href = page.locator("#btn-next").get_attribute("href")
    assert f"step={cache['wire'] + 1}&" in href

    # End, a later mark and a deep link all stop here, and say so in one line
    for go in (
        lambda: page.keyboard.press("End"),
        lambda: hit.click(),
        lambda: page.keyboard.press("ArrowRight"),
    ):
        page.locator("#question").focus()
        go()
        expect(page.locator("#alert")).to_have_text("⚠ Answer this question first.")
        at_step(page, cache["wire"])
    deep = new_page(f"/scenario/cache?lang=en&step={cache['hit'] + 3}")
    at_step(deep, cache["questions"][0])
    expect(deep.locator("#alert")).to_have_text("⚠ Answer this question first.")
    expect(deep.locator("#question")).to_be_focused()  # a page that opens on a question
    # going back is free
    page.keyboard.press("ArrowLeft")
    at_step(page, cache["wire"] - 1)
    expect(page.locator("#alert")).to_be_empty()
    assert axe_problems(page) == []
    assert page.errors == [] and deep.errors == []


def test_a_wrong_answer_says_why_and_the_student_tries_again(new_page, cache_trace):
    trace, first = cache_trace["trace"], cache_trace["questions"][0]
    checkpoint = trace[first]["checkpoint"]
    wrong = next(i for i in range(len(checkpoint["choices"])) if i != checkpoint["answer"])
    page = new_page("/scenario/cache?lang=en")
    page.keyboard.press("End")
    at_step(page, first)
    page.locator(f"#choice-{wrong}").click()
    feedback = page.locator("#feedback")
    expect(feedback).to_contain_text("Not quite.")
    expect(page.locator("#checkpoint")).to_have_attribute("data-state", "open")
    expect(page.locator(f"#choice-{wrong}")).to_be_focused()  # focus stays where it was
    right_text = checkpoint["choices"][checkpoint["answer"]]["text"]["en"]
    assert right_text not in feedback.inner_text()  # the answer is not printed at once
    expect(page.locator("#panel-output #next-locked")).to_have_count(1)
    page.keyboard.press("ArrowRight")
    expect(page.locator("#alert")).to_have_text("⚠ Answer this question first.")
    page.locator(f"#choice-{checkpoint['answer']}").click()
    expect(page.locator("#checkpoint")).to_have_attribute("data-state", "answered")
    said = feedback.inner_text()
    assert said.startswith("Right.") and not re.match(r"Right\.\s*Right", said)
    page.locator("#btn-next").click()
    at_step(page, first + 1)

    # in Chinese and Russian the verdict is said once too; "Show the answer" closes it
    for lang, verdict in (("zh", "正确"), ("ru", "Верно")):
        other = new_page(f"/scenario/cache?lang={lang}")
        other.keyboard.press("End")
        at_step(other, first)
        other.locator("#btn-reveal").click()
        expect(other.locator("#checkpoint")).to_have_attribute("data-state", "answered")
        expect(other.locator("#feedback")).to_be_focused()  # not the body: the button is gone
        text = other.locator("#feedback").inner_text()
        assert text.count(verdict) <= 1, text
        assert other.errors == []


def test_answers_survive_a_reload_a_reconnect_and_a_later_visit(new_page, browser, live_server):
    app = create_app({"LAB_ENGINE": default_engine()})
    lab = app.extensions["lab"]
    v = open_viewer(lab.scenario("pagination"), {}, "en")
    trace = lab.trace("pagination", v.version, v.transport)
    first = next(s["index"] for s in trace if s["checkpoint"])

    routes = []
    context = browser.new_context(viewport=DESK, base_url=live_server)
    try:
        page = context.new_page()
        page.route_web_socket(
            re.compile(r"/ws/scenario/"), lambda ws: routes.append((ws, ws.connect_to_server()))
        )
        page.goto(f"/scenario/pagination?lang=en&step={first + 1}")
        connected(page)
        answer_right(page, trace, first)
        stored = page.evaluate(
            """() => Object.keys(localStorage).filter(k => k.startsWith('mcp-lab:answer:'))"""
        )
        assert len(stored) == 1
        assert re.fullmatch(
            rf"mcp-lab:answer:pagination:{v.version}:{v.transport}:q-[0-9a-f]{{12}}", stored[0]
        )
        assert page.evaluate(f"localStorage.getItem('{stored[0]}')") == str(
            trace[first]["checkpoint"]["answer"]
        )

        # a dropped socket: the server learns the answer again from the new socket's URL
        routes[-1][0].close(code=1001, reason="test drops the socket")
        expect(page.locator("body")).to_have_attribute("data-ws", "closed")
        connected(page)
        assert "answers=q-" in routes[-1][0].url
        expect(page.locator("#checkpoint")).to_have_attribute("data-state", "answered")
        page.keyboard.press("ArrowRight")
        at_step(page, first + 1)
        expect(page.locator("#alert")).to_be_empty()

        # a reload, and next week a deep link past the question: both answered, both go on
        page.reload()
        connected(page)
        at_step(page, first + 1)
        page.goto(f"/scenario/pagination?lang=en&step={first + 3}")
        connected(page)
        at_step(page, first + 2)
        page.goto(f"/scenario/pagination?lang=en&step={first + 1}")
        connected(page)
        expect(page.locator("#checkpoint")).to_have_attribute("data-state", "answered")
        expect(page.locator(f"#mark-{first + 1}")).not_to_have_class(re.compile("unknown"))
        shot(page, "answered-after-reload")
        # Reset starts over: the answers are forgotten here and in the browser
        page.locator("#btn-reset").click()
        at_step(page, 0)
        assert (
            page.evaluate(
                "Object.keys(localStorage).filter(k => k.startsWith('mcp-lab:answer:')).length"
            )
            == 0
        )
    finally:
        context.close()


def test_keyboard_tabs_move_between_views_and_focus_never_falls_to_the_body(new_page):
    page = new_page("/scenario/pagination?lang=en&step=2", viewport={"width": 900, "height": 900})
    tab = page.locator("#tab-overview")
    tab.focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#tab-transport")).to_be_focused()
    expect(page.locator("#tabs")).to_have_attribute("data-view", "transport")
    at_step(page, 1)  # the arrow moved the tab, not the scenario
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#tab-code")).to_be_focused()  # it wraps around
    expect(page.locator("#tab-code")).to_have_attribute("tabindex", "0")
    expect(page.locator("#tab-overview")).to_have_attribute("tabindex", "-1")

    page.locator("#btn-prev").focus()
    page.keyboard.press("Enter")
    at_step(page, 0)
    expect(page.locator("#btn-prev")).to_be_focused()  # now disabled, still holding the focus
    page.locator("#btn-next").focus()
    page.keyboard.press("Enter")
    at_step(page, 1)
    assert page.evaluate("document.activeElement.id") == "btn-next"

    page.keyboard.press("?")
    expect(page.locator("#shortcuts")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#shortcuts")).to_be_hidden()
    expect(page.locator("#btn-next")).to_be_focused()  # back where it was
    page.locator("#btn-keys").click()
    page.locator("#shortcuts-close").click()
    expect(page.locator("#btn-keys")).to_be_focused()
    assert page.errors == []


RECT = "e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"


# The packet's shape as it was when its journey began: it rests where it lands, and
# static/js/viewer.js plays the journey from data-sx/sy (user units, which it derives from the
# lit wire) to that landing point.
START = """p => {
  const r = p.querySelector('.shape').getBoundingClientRect();
  const at = p.transform.baseVal.consolidate().matrix, k = p.getScreenCTM().a;
  const dx = (Number(p.dataset.sx) - at.e) * k, dy = (Number(p.dataset.sy) - at.f) * k;
  return [r.left + dx, r.top + dy, r.right + dx, r.bottom + dy];
}"""


def gap(a: list[float], b: list[float]) -> float:
    """The distance between two rectangles (0 when they touch or overlap)."""
    dx = max(b[0] - a[2], a[0] - b[2], 0)
    dy = max(b[1] - a[3], a[1] - b[3], 0)
    return (dx * dx + dy * dy) ** 0.5


def test_every_packet_travels_the_whole_way_and_lands_on_its_receiver(new_page, cache_trace):
    trace = cache_trace["trace"]
    travels = [s for s in trace if s["kind"] in ("request", "response", "notification")]
    picks = [next(s for s in travels if s["kind"] == k) for k in ("request", "response")]
    picks.append(next(s for s in travels if s["kind"] == "notification"))
    for viewport, shape in ((DESK, "wide"), (PHONE, "tall")):
        page = new_page("/scenario/cache?lang=en", viewport=viewport)
        for s in picks:
            page.locator(f"#mark-{s['index']}").evaluate("m => m.click()")
            at_step(page, s["index"])
            stage = page.locator(f"#panel-overview svg.stage.{shape}")
            packet = stage.locator(".packet")
            body = packet.locator(".shape")
            sender = stage.locator(f'[data-actor="{s["from"]}"] > rect')
            receiver = stage.locator(f'[data-actor="{s["to"]}"] > rect')
            expect(packet).to_have_class(re.compile(r"\blanded\b"))  # the journey is over
            late = body.evaluate(RECT)
            early = packet.evaluate(START)  # where the journey began (never sampled mid-way)
            assert gap(early, sender.evaluate(RECT)) <= 6, (shape, s["kind"], early)
            assert gap(early, receiver.evaluate(RECT)) > gap(late, receiver.evaluate(RECT))
            assert gap(late, receiver.evaluate(RECT)) <= 6, (shape, s["kind"], late)
            if s["kind"] == "notification":
                assert stage.locator(".edge.active").evaluate(
                    "e => getComputedStyle(e).strokeDasharray"
                ) not in ("none", "")
                diamond = (
                    "e => document.querySelector(e.getAttribute('href')).getAttribute('transform')"
                )
                assert body.evaluate(diamond) == "rotate(45)"  # the picture's diamond
        assert page.errors == []


def test_a_window_turned_into_a_phone_shows_the_step_on_show_in_the_tall_picture(
    new_page, cache_trace
):
    """A page's socket sends the moving parts of the picture the page displays only; when the
    other picture shows (a phone turned, a window made narrow), it shows the step on show."""
    trace = cache_trace["trace"]
    kinds = [s["kind"] for s in trace[: min(cache_trace["questions"])]]
    n = max(i for i, kind in enumerate(kinds) if kind != kinds[i - 1] and i > 1)

    def shows(shape: str, index: int) -> None:
        motion = page.locator(f"svg.stage.{shape} #ov-{shape[0]}-m")
        expect(motion).to_have_class(re.compile(rf"\bk-{trace[index]['kind']}\b"))
        head = str(trace[index]["method"])[:10]
        expect(page.locator(f"svg.stage.{shape} .packet-label")).to_contain_text(head)

    page = new_page("/scenario/cache?lang=en")  # a desk: the wide picture
    for _ in range(n):
        page.keyboard.press("ArrowRight")
    at_step(page, n)
    shows("wide", n)
    page.set_viewport_size(PHONE)
    expect(page.locator("svg.stage.tall")).to_be_visible()
    shows("tall", n)
    page.keyboard.press("ArrowLeft")
    at_step(page, n - 1)
    shows("tall", n - 1)
    page.set_viewport_size(DESK)  # and back: the wide picture is brought up to date too
    expect(page.locator("svg.stage.wide")).to_be_visible()
    shows("wide", n - 1)
    assert page.errors == []


def test_a_cache_hit_loops_inside_the_client_and_reduced_motion_lands_without_travel(
    new_page, cache_trace
):
    trace, hit = cache_trace["trace"], cache_trace["hit"]
    page = new_page("/scenario/cache?lang=en", reduced_motion="reduce")
    for q in cache_trace["questions"]:
        if q > hit:
            break
        page.keyboard.press("End")
        answer_right(page, trace, q)
    page.keyboard.press("ArrowRight")
    at_step(page, hit)
    stage = page.locator("#panel-overview svg.stage.wide")
    expect(stage.locator(".loop")).to_have_count(1)
    expect(stage.locator(".packet")).to_have_count(0)
    expect(stage.locator(".edge.active")).to_have_count(0)
    expect(stage.locator(".loop-label")).to_contain_text("nothing on the wire")
    page.keyboard.press("ArrowLeft")
    request = next(s for s in trace if s["kind"] == "request")
    page.locator(f"#mark-{request['index']}").click()
    at_step(page, request["index"])
    packet = stage.locator(".packet")
    expect(packet).to_have_class(re.compile(r"\blanded\b"))  # at once: no journey
    receiver = stage.locator(f'[data-actor="{request["to"]}"] > rect')
    assert gap(packet.locator(".shape").evaluate(RECT), receiver.evaluate(RECT)) <= 6
    assert packet.locator(".packet-body").evaluate("b => b.getAnimations().length") == 0


NAME_PX = """() => [...document.querySelectorAll('#panel-overview svg.stage')]
  .filter(s => s.getBoundingClientRect().width > 0)
  .flatMap(s => [...s.querySelectorAll('.actor .name')])
  .map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)"""


def inside(page: Page, selector: str) -> bool:
    box = page.locator(selector).first.evaluate(RECT)
    size = page.viewport_size
    return box[0] >= 0 and box[1] >= 0 and box[2] <= size["width"] and box[3] <= size["height"]


def visible_stage(page: Page) -> str:
    shape = page.evaluate(
        """() => [...document.querySelectorAll('#panel-overview svg.stage')]
             .find(s => s.getBoundingClientRect().width > 0).dataset.shape"""
    )
    return f"#panel-overview svg.stage.{shape}"


def test_a_projector_at_150_percent_shows_stage_narration_and_next_together(new_page, cache_trace):
    page = new_page("/scenario/handshake?lang=ru", viewport=PROJECTOR, device_scale_factor=1.5)
    expect(page.locator("#checkpoint")).to_have_attribute("data-state", "open")
    for region in (visible_stage(page), "#narration", "#btn-next", "#question"):
        assert inside(page, region), region
    assert page.evaluate("window.scrollY") == 0
    assert min(page.evaluate(NAME_PX)) >= 12
    shot(page, "projector-150-ru-question")
    page = new_page(
        f"/scenario/cache?lang=en&step={cache_trace['questions'][0]}",
        viewport=PROJECTOR,
        device_scale_factor=1.5,
    )
    for _ in range(3):  # stepping never scrolls the page
        page.keyboard.press("ArrowRight")
        for region in (visible_stage(page), "#narration", "#btn-next"):
            assert inside(page, region), region
    assert page.evaluate("window.scrollY") == 0
    assert axe_problems(page) == []


def test_the_presenter_layout_projects_a_large_stage_and_p_toggles_it(new_page, live_server):
    page = new_page("/scenario/collisions?lang=en&present=1", viewport=DESK)
    expect(page.locator("body")).to_have_class(re.compile(r"\bpresent\b"))
    assert min(page.evaluate(NAME_PX)) >= 16
    narration = page.locator("#narration p")
    assert narration.evaluate("p => parseFloat(getComputedStyle(p).fontSize)") >= 20
    stage = page.locator(visible_stage(page)).evaluate(RECT)
    assert stage[2] - stage[0] >= 0.6 * DESK["width"]
    for region in (visible_stage(page), "#narration", "#btn-next"):
        assert inside(page, region), region
    expect(page.locator("#masthead")).to_be_hidden()
    page.keyboard.press("2")  # the views are a key away
    expect(page.locator("#panel-transport")).to_be_visible()
    expect(page.locator("#panel-overview")).to_be_hidden()
    page.keyboard.press("1")
    shot(page, "presenter-en")
    assert axe_problems(page) == []
    page.keyboard.press("p")
    expect(page.locator("body")).not_to_have_class(re.compile(r"\bpresent\b"))
    expect(page).not_to_have_url(re.compile("present=1"))
    expect(page.locator("#masthead")).to_be_visible()
    page.keyboard.press("P")
    expect(page).to_have_url(re.compile("present=1"))


def test_a_phone_shows_a_readable_stage_with_next_in_reach_and_big_tap_targets(
    new_page, cache_trace
):
    page = new_page("/scenario/handshake?lang=ru&step=1", viewport=PHONE, has_touch=True)
    assert visible_stage(page).endswith("tall")
    assert min(page.evaluate(NAME_PX)) >= 11
    assert inside(page, visible_stage(page)) and inside(page, "#btn-next")
    small = page.evaluate(
        """() => [...document.querySelectorAll(
              '#controls a, #controls button, #controls select, #timeline .mark, #tabs button,'
              + ' #checkpoint button')]
            .filter(e => e.getBoundingClientRect().width > 0)
            .filter(e => { const r = e.getBoundingClientRect();
                           return r.width < 44 || r.height < 44; })
            .map(e => e.id + ' ' + Math.round(e.getBoundingClientRect().width) + 'x'
                      + Math.round(e.getBoundingClientRect().height))"""
    )
    assert small == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "phone-ru-question")
    assert axe_problems(page) == []

    # tool names in tables stay whole: one line each, the table scrolls in its frame instead
    app = create_app({"LAB_ENGINE": default_engine()})
    v = open_viewer(app.extensions["lab"].scenario("collisions"), {}, "en")
    last = len(app.extensions["lab"].trace("collisions", v.version, v.transport))
    from tests.test_web_pages import answers

    page = new_page(
        f"/scenario/collisions?lang=en&view=transform&step={last}&{answers(app, 'collisions')}",
        viewport=PHONE,
    )
    at_step(page, last - 1)
    lines = page.evaluate(
        """() => [...document.querySelectorAll('#panel-transform table.cache td code')]
             .map(c => c.getClientRects().length)"""
    )
    assert lines and max(lines) <= 1, lines
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "phone-transform")
