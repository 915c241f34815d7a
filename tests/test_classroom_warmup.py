"""The warm-up: while the instructor shows the join code, the lesson's steps are drawn ahead,
so a step goes out to the class without being drawn first, and says what it would have said
drawn on demand."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from flask import Flask

from app.web.classroom import room as rooms
from app.web.classroom.payload import seat
from app.web.classroom.store import room_event
from app.web.classroom.warmup import AUDIENCES, PICTURES
from app.web.factory import create_app

LESSON = ("pagination", "2025-11-25", "stdio")
# A part that loads apart is drawn once per content, with the address of the first step that
# drew it: a warmed process may name another step whose part is the same (same key, same body).
PART = re.compile(r'data-load="part/\d+/')
PARTS = re.compile(r'data-load="(part/\d+/[^"]+)"')


def same_parts(frames: list[str]) -> list[str]:
    return [PART.sub('data-load="part/N/', frame) for frame in frames]


def walk(app: Flask, lang: str) -> list[str]:
    """Every step's frame for every kind of following page, as a room steps through."""
    live, lab = app.extensions["classroom"], app.extensions["lab"]
    room = rooms.new_room("WARM01", *LESSON, "", 0.0)
    frames: list[str] = []
    for step in range(1, len(lab.trace(*LESSON))):
        after = rooms.move(room, 0.0, step)
        before: dict[str, Any] = room_event(room, after)["before"]
        for audience in AUDIENCES:
            for picture in PICTURES:
                f = seat(room.code, lang, audience, True, picture)
                frames.append(live.payloads.step(after, before, f))
        room = after
    return frames


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_warmed_lesson_sends_each_step_undrawn_and_the_same_as_drawn(lang: str) -> None:
    cold, warm = create_app({"TESTING": True}), create_app({"TESTING": True})
    with cold.test_request_context("/"):
        drawn = walk(cold, lang)
    live = warm.extensions["classroom"]
    live.warmup.run(rooms.new_room("WARM01", *LESSON, "", 0.0), lang)

    def refuse(*args: object, **kwargs: object) -> str:
        raise AssertionError("a step was drawn when it went out")

    live.change_html = refuse
    with warm.test_request_context("/"):
        sent = walk(warm, lang)
    assert same_parts(sent) == same_parts(drawn)
    # and where a warmed frame names another step's part, both addresses load the same body
    client = warm.test_client()
    query = f"?version={LESSON[1]}&transport={LESSON[2]}&lang={lang}"
    for ours, theirs in zip(sent, drawn, strict=True):
        for a, b in zip(PARTS.findall(ours), PARTS.findall(theirs), strict=True):
            if a != b:
                base = f"/scenario/{LESSON[0]}/"
                assert client.get(base + a + query).data == client.get(base + b + query).data


def test_each_lesson_is_warmed_once_per_language_and_only_for_the_audience_that_opened() -> None:
    app = create_app({"TESTING": True})
    warmup = app.extensions["classroom"].warmup
    ran: list[tuple[str, tuple[str, ...]]] = []
    warmup.run = lambda room, lang, audiences: ran.append((lang, audiences))
    room = rooms.new_room("WARM02", *LESSON, "", 0.0)
    warmup.start(room, "zh", ("student",))  # a student's socket in Chinese
    warmup.start(room, "zh", ("student",))  # and another: nothing more to draw
    warmup.start(room, "zh", AUDIENCES)  # the instructor's lesson change: the rest
    deadline = time.monotonic() + 30
    while len(ran) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)  # (a third run would have started by now)
    assert sorted(ran) == [("zh", ("instructor",)), ("zh", ("student",))]
