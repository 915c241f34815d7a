"""A class in front of a projector (issue 18), in one Chromium: the instructor's projector at
1280x720 at 150 % (853x480 CSS px), a speaker view on a tablet, and three students (a phone in
English with a nickname, a phone in Chinese, a laptop in Russian).

The projector keeps the stage, the narration, the question with its counts and the poll's
buttons inside its viewport in every state of the poll; keys drive it (O, R, B, H, S,
PageDown). The speaker view has the answer key, the notes, the next step, "n of N answered" and
the roster with nicknames. A timed poll closes by itself; the class results show on the
projector and as JSON; a student-paced room lets students step on their own until the
instructor brings everyone back; ending the room asks first, then the projector shows the
results and each student their own summary. Assertions are on states and positions, never on
timings.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from tests.test_browser_classroom import PHONE, PROJECTOR, Devices, within
from tests.test_browser_viewer import (  # noqa: F401 (fixtures)
    ARGS,
    axe_problems,
    browser,
    connected,
    playwright,
)

pytestmark = pytest.mark.browser
TABLET = {"width": 820, "height": 1180}
LAPTOP = {"width": 1280, "height": 800}
ON_SCREEN = ("#panel-overview .stage >> visible=true", "#narration", "#question", "#btn-reveal")


def on_screen(page: Page) -> None:
    for selector in (*ON_SCREEN, "[data-choice='0'][data-count]"):
        assert within(page, selector), selector
    poll = page.locator("#btn-poll-open, #btn-poll-close").first
    box = poll.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PROJECTOR["height"] + 1


def open_menu(page: Page) -> None:
    """Open the room's menu (it stays open while the controls are redrawn)."""
    if page.locator("#room-menu[open]").count() == 0:
        page.locator("#room-menu > summary").click()
    expect(page.locator("#room-menu")).to_have_attribute("open", "")


def test_a_class_with_a_projector_a_speaker_view_and_three_students(browser, live_server: str):  # noqa: F811
    context = Devices(browser, live_server)
    try:
        projector = context(viewport=PROJECTOR, device_scale_factor=1.5)
        # The first page of a cold server loads and checks the whole library: give it time.
        projector.goto("/?lang=en", timeout=120_000)
        projector.locator("#teach-pagination").click()
        connected(projector)
        code = projector.locator("#room-code").inner_text().strip()
        cookies = projector.context.cookies()

        speaker = context(viewport=TABLET)
        speaker.context.add_cookies(cookies)
        speaker.goto(f"/live/{code}/speaker?lang=en")
        connected(speaker)
        expect(speaker.locator("#roster")).to_be_attached()

        students = []
        for options, nick in (
            ({"viewport": PHONE, "is_mobile": True, "has_touch": True}, "Ann"),
            ({"viewport": PHONE, "is_mobile": True, "has_touch": True, "locale": "zh-CN"}, ""),
            ({"viewport": LAPTOP, "locale": "ru-RU"}, "Влад"),
        ):
            page = context(**options)
            page.goto("/join")
            box = page.locator("#code").bounding_box()
            assert box is not None and box["x"] + box["width"] <= page.viewport_size["width"]
            page.fill("#code", code)
            if nick:
                page.fill("#nick", nick)
            page.locator("form.join-form button[type=submit]").click()
            connected(page)
            students.append(page)
        ann, mei, vlad = students
        expect(projector.locator("[data-students]")).to_have_attribute("data-students", "3")
        # A following student has no Next to press; Catch up shows only when looking back.
        expect(ann.locator("#btn-next")).to_be_hidden()

        # PageDown steps, as a presenter's clicker sends it, up to the first question.
        for n in range(2, 20):
            if projector.locator("#checkpoint[data-state=idle]").count():
                break
            projector.keyboard.press("PageDown")
            expect(projector.locator("#counter")).to_contain_text(f"Step {n} of")
        expect(projector.locator("#checkpoint")).to_have_attribute("data-state", "idle")
        on_screen(projector)
        # The speaker view has what the projector must not show before the reveal.
        expect(speaker.locator("#key-title")).to_be_visible()
        expect(speaker.locator("#notes")).to_contain_text("paging")
        expect(speaker.locator("#next-step")).to_be_visible()
        expect(projector.locator(".feedback")).to_have_count(0)
        expect(speaker.locator("#roster .seat")).to_have_count(3)
        expect(speaker.locator("#roster")).to_contain_text("Ann")
        expect(speaker.locator("#roster")).to_contain_text("Влад")
        expect(speaker.locator("#roster")).to_contain_text("Student 2")

        # A timed poll counts down on the projector; closed by hand (O) before its time, its
        # timer changes nothing when it runs out (tests/test_classroom_class.py).
        projector.select_option("#sel-timer", "30")
        projector.keyboard.press("o")
        expect(projector.locator("#poll-timer")).to_be_visible()
        left = int(projector.locator("#poll-timer").get_attribute("data-left") or 0)
        assert 0 < left <= 30 and within(projector, "#poll-timer")
        on_screen(projector)
        # Each student counts down too, in their language, under the question; a screen reader
        # hears the time once as the poll opens (and at 10 s), not every second.
        for page, words in ((ann, "Poll closes in"), (mei, "投票"), (vlad, "Опрос закроется")):
            expect(page.locator("#poll-clock")).to_be_visible()
            expect(page.locator("#poll-clock .clock-text")).to_contain_text(words)
        expect(ann.locator("#poll-clock-say")).to_contain_text("The poll closes in")
        projector.keyboard.press("o")
        for page in (projector, ann):
            expect(page.locator("#checkpoint")).to_have_attribute("data-state", "closed")
        expect(ann.locator("#poll-clock")).to_be_hidden()
        on_screen(projector)
        projector.select_option("#sel-timer", "0")

        # H hides the bars until the reveal; O opens the poll again, without a timer.
        projector.keyboard.press("h")
        expect(projector.locator("body")).to_have_class(re.compile(r"\bhide-bars\b"))
        projector.keyboard.press("o")
        for page in (projector, *students):
            expect(page.locator("#checkpoint")).to_have_attribute("data-state", "open")
        on_screen(projector)
        ann.locator("#choice-1").click()
        mei.locator("#choice-1").click()
        expect(projector.locator("[data-choice='1'][data-count]")).to_have_attribute(
            "data-count", "2"
        )
        expect(projector.locator("[data-choice='1'][data-count]")).to_be_hidden()
        expect(speaker.locator("#answered")).to_contain_text("2 of 3 answered")
        expect(speaker.locator(".seat[data-answered='1']")).to_have_count(2)
        vlad.locator("#choice-0").click()
        # The results screen on the projector keeps an unrevealed answer to itself.
        projector.keyboard.press("s")
        expect(projector.locator("#class-results .result")).to_contain_text("not revealed yet")
        expect(projector.locator("#class-results .right-answer")).to_have_count(0)
        projector.keyboard.press("Escape")
        # R reveals: the bars come back, the answer shows everywhere.
        projector.keyboard.press("r")
        for page in (projector, *students):
            expect(page.locator("#checkpoint")).to_have_attribute("data-state", "revealed")
        expect(projector.locator("[data-choice='1'][data-count]")).to_be_visible()
        on_screen(projector)
        expect(mei.locator("#feedback")).to_contain_text("答案")
        expect(projector.locator("#btn-reveal")).to_be_disabled()
        assert axe_problems(projector) == [] and axe_problems(speaker) == []
        assert axe_problems(mei) == []

        # ? lists the room's keys.
        projector.keyboard.press("?")
        expect(projector.locator("#shortcuts")).to_contain_text("PageDown")
        projector.keyboard.press("Escape")
        expect(projector.locator("#shortcuts")).to_be_hidden()

        # B blanks the projector and brings it back.
        projector.keyboard.press("b")
        expect(projector.locator("#blank")).to_be_visible()
        projector.keyboard.press("b")
        expect(projector.locator("#blank")).to_be_hidden()

        # The class results, on demand (S) and as JSON for the instructor only.
        projector.keyboard.press("s")
        result = projector.locator("#class-results .result").first
        expect(result).to_contain_text("33 %")
        expect(result).to_contain_text("Most chosen wrong answer")
        projector.keyboard.press("Escape")
        expect(projector.locator("#class-results")).to_be_hidden()
        data = json.loads(projector.request.get(f"/live/{code}/results.json").text())
        (question,) = data["questions"]
        assert question["counts"][:2] == [1, 2] and question["right"] == 0
        assert question["rightShare"] == 0.3333 and question["topWrong"] == 1
        assert ann.request.get(f"/live/{code}/results.json").status == 403
        assert ann.request.get(f"/live/{code}/speaker").status == 403

        projector.keyboard.press("PageDown")
        expect(projector.locator("#btn-reveal")).to_be_disabled()

        # Each at their own pace: students step past the class; the speaker view shows where.
        open_menu(projector)
        projector.locator("#btn-paced").click()
        expect(ann.locator("#live-bar")).to_have_attribute("data-paced", "1")
        for _ in range(2):
            ann.locator("#btn-next").click()
        expect(ann.locator("#live-bar")).to_have_attribute("data-attached", "0")
        expect(speaker.locator("#spread li")).not_to_have_count(0)
        # Bring everyone back: every page follows the room's step again.
        open_menu(speaker)
        speaker.locator("#btn-follow").click()
        for page in students:
            expect(page.locator("#live-bar")).to_have_attribute("data-attached", "1")
            expect(page.locator("#live-bar")).to_have_attribute("data-paced", "0")
        step = projector.locator("#counter .count").inner_text()
        expect(ann.locator("#counter .count")).to_have_text(step)

        # End room asks first; then the projector shows the results, students their own.
        open_menu(projector)
        projector.locator("#btn-end-room").click()
        expect(projector.locator("#btn-end-confirm")).to_be_visible()
        projector.locator("#btn-end-confirm").click()
        expect(projector.locator("#class-results .result")).to_have_count(1)
        for page in students:
            expect(page.locator("#live-bar.ended")).to_be_visible()
            expect(page.locator("#go-on")).to_be_visible()
        expect(ann.locator("#own-summary")).to_contain_text("1 of the class's 1 questions")
        expect(ann.locator("#conn")).to_have_text("")
        history = projector.request.get("/live/history").text()
        assert code in history and "33 %" in history
        for page in (projector, speaker, *students):
            assert page.errors == []
    finally:
        context.close()
