"""A live lesson in a real browser: one instructor and three students in one Chromium.

The instructor starts a room from the library's "Teach this live" button and lands on the
present page; three students (one on a phone viewport, one reading Chinese) join by typing the
code into /join. The instructor steps and every student follows; one student looks back and
catches up; one reloads mid-lesson and lands on the room's step; a poll is opened, answered by
all three, counted on the instructor's screen and revealed everywhere; a driving command forged
on a student's own socket changes nothing; and nothing on a student's page can reach the
instructor's secret.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.test_browser_viewer import (  # noqa: F401 (fixtures)
    ARGS,
    WIDE,
    axe_problems,
    browser,
    connected,
    playwright,
    shot,
)

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}


def step_of(page: Page) -> str:
    return page.locator("#counter .count").inner_text()


class Devices:
    """The browser contexts of one test (one device each), each with a page that keeps the
    script errors it met in `page.errors`."""

    def __init__(self, chromium, base: str) -> None:
        self.browser, self.base, self.made = chromium, base, []

    def __call__(self, **options) -> Page:
        made = self.browser.new_context(base_url=self.base, **options)
        self.made.append(made)
        page = made.new_page()
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        return page

    def close(self) -> None:
        for made in self.made:
            made.close()


def test_a_class_follows_votes_and_cannot_drive(browser, live_server: str):  # noqa: F811
    context = Devices(browser, live_server)
    try:
        teacher = context(viewport=WIDE)
        teacher.goto("/?lang=en")
        teacher.locator("#teach-pagination").click()
        expect(teacher).to_have_url(re.compile(r"/live/[A-Z2-9]{6}/present(\?.*)?$"))
        connected(teacher)
        code = teacher.locator("#room-code").inner_text().strip()
        expect(teacher.locator("svg.qr")).to_be_visible()
        token = next(c["value"] for c in teacher.context.cookies() if c["name"].endswith(code))
        assert next(c for c in teacher.context.cookies() if c["name"].endswith(code))["httpOnly"]

        students = []
        for options, typed in (
            ({"viewport": WIDE}, code),
            ({"viewport": PHONE, "is_mobile": True, "has_touch": True}, code.lower()),
            ({"viewport": WIDE, "locale": "zh-CN"}, f"{code[:3]} {code[3:]}".lower()),
        ):
            page = context(**options)
            page.goto("/join?code=nope42")
            expect(page.locator("#code-error")).to_be_visible()
            page.fill("#code", typed)
            page.locator("form.join-form button[type=submit]").click()
            expect(page).to_have_url(re.compile(rf"/live/{code}(\?.*)?$"))
            connected(page)
            students.append(page)
        ann, phone, mei = students
        expect(mei.locator("#live-bar")).to_contain_text("正在跟随老师")
        expect(teacher.locator("[data-students]")).to_have_attribute("data-students", "3")

        for _ in range(3):
            teacher.keyboard.press("ArrowRight")
        expect(teacher.locator("#counter")).to_contain_text("Step 4 of")
        for page in (ann, phone):
            expect(page.locator("#counter")).to_contain_text("Step 4 of")
        expect(mei.locator("#counter")).to_contain_text("4")

        ann.locator("#btn-prev").click()
        expect(ann.locator("#counter")).to_contain_text("Step 3 of")
        expect(ann.locator("#btn-catchup")).to_be_visible()
        teacher.keyboard.press("ArrowRight")
        expect(phone.locator("#counter")).to_contain_text("Step 5 of")
        expect(ann.locator("#counter")).to_contain_text("Step 3 of")  # left alone
        expect(ann.locator("#live-bar")).to_contain_text("class is at step 5")
        ann.keyboard.press("c")
        expect(ann.locator("#counter")).to_contain_text("Step 5 of")

        phone.reload()
        connected(phone)
        expect(phone.locator("#counter")).to_contain_text("Step 5 of")

        # Step on to the first question.
        for n in range(6, 20):
            if teacher.locator("#checkpoint[data-state=idle]").count():
                break
            teacher.keyboard.press("ArrowRight")
            expect(teacher.locator("#counter")).to_contain_text(f"Step {n} of")
        expect(teacher.locator("#checkpoint")).to_have_attribute("data-state", "idle")
        teacher.get_by_role("button", name="Open poll").click()
        for page in students:
            expect(page.locator("#checkpoint")).to_have_attribute("data-state", "open")
        ann.locator("#choice-0").click()
        phone.locator("#choice-1").click()
        mei.locator("#choice-1").click()
        expect(ann.locator("#choice-0")).to_have_attribute("aria-pressed", "true")
        ann.locator("#choice-1").click()  # changes her mind
        expect(ann.locator("#vote-status")).to_contain_text("choice 2")
        counts = teacher.locator("[data-choice='1'][data-count]")
        expect(counts).to_have_attribute("data-count", "3")
        expect(teacher.locator("[data-choice='0'][data-count]")).to_have_attribute(
            "data-count", "0"
        )
        shot(teacher, "live-present-poll")
        shot(phone, "live-phone-poll")

        # A student's own socket sends the instructor's commands: nothing moves.
        before = step_of(teacher)
        ann.evaluate(
            """() => { const ws = document.body['htmx-internal-data'].webSocket;
                 for (const c of ['reveal', 'end', 'next', 'poll_close'])
                   ws.send(JSON.stringify({command: c}), document.body); }"""
        )
        expect(ann.locator("#alert")).to_contain_text("Only the instructor")
        expect(teacher.locator("#checkpoint")).to_have_attribute("data-state", "open")

        teacher.get_by_role("button", name="Reveal answer").click()
        for page in students:
            expect(page.locator("#checkpoint")).to_have_attribute("data-state", "revealed")
            expect(page.locator("#feedback")).to_be_visible()
        # The forged commands were sent (and refused) before the instructor's reveal: had one
        # counted, it would have reached every screen before the reveal did.
        expect(teacher.locator("#checkpoint")).to_have_attribute("data-state", "revealed")
        assert step_of(teacher) == before
        expect(mei.locator("#feedback")).to_contain_text("答案")

        # Nothing a student's page holds or can ask for carries the instructor's secret.
        for page in students:
            assert token not in page.content()
            assert token not in page.evaluate("document.cookie")
        status = ann.request.get(f"/live/{code}/present").status
        assert status == 403
        assert axe_problems(phone) == []
        assert axe_problems(teacher) == []
        for page in (teacher, *students):
            assert page.errors == []
    finally:
        context.close()


PROJECTOR = {"width": 853, "height": 480}  # 1280×720 at 150 %


def within(page: Page, selector: str) -> bool:
    """The element is visible and wholly inside the viewport."""
    box = page.locator(selector).first.bounding_box()
    size = page.viewport_size
    assert size is not None
    return (
        box is not None
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"] + 1
        and box["y"] + box["height"] <= size["height"] + 1
    )


def test_the_projector_opens_on_the_join_screen_then_shows_stage_story_and_code(
    browser,  # noqa: F811
    live_server: str,
):
    made = browser.new_context(base_url=live_server, viewport=PROJECTOR, device_scale_factor=1.5)
    try:
        page = made.new_page()
        page.goto("/?lang=en")
        page.locator("#teach-pagination").click()
        connected(page)
        # A fresh room: the code and the QR fill the projector for the class to join.
        expect(page.locator("body")).to_have_class(re.compile(r"\bjoin-large\b"))
        assert within(page, "#room-code") and within(page, "svg.qr")
        join = page.get_by_role("button", name=re.compile("Join screen"))
        expect(join).to_have_attribute("aria-pressed", "true")
        # The first step closes it; the stage, the story, Next and the code share the screen.
        page.keyboard.press("ArrowRight")
        expect(page.locator("#counter")).to_contain_text("Step 2 of")
        expect(page.locator("body")).not_to_have_class(re.compile(r"\bjoin-large\b"))
        expect(join).to_have_attribute("aria-pressed", "false")
        for selector in ("#panel-overview svg.stage >> visible=true", "#btn-next", "#room-code"):
            assert within(page, selector), selector
        # The narration starts on screen (a long one scrolls within the story column).
        top = page.locator("#narration").bounding_box()
        assert top is not None and 0 <= top["y"] <= PROJECTOR["height"] - 60
        # J brings the join screen back for latecomers, Escape puts it away.
        page.keyboard.press("j")
        expect(page.locator("body")).to_have_class(re.compile(r"\bjoin-large\b"))
        assert within(page, "svg.qr")
        page.keyboard.press("Escape")
        expect(page.locator("body")).not_to_have_class(re.compile(r"\bjoin-large\b"))
        assert page.evaluate("document.querySelectorAll('[id]').length") == page.evaluate(
            "new Set([...document.querySelectorAll('[id]')].map(e => e.id)).size"
        ), "ids are unique"
    finally:
        made.close()
