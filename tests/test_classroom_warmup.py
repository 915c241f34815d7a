"""The warm-up: while the instructor shows the join code, the lesson's steps are drawn ahead,
so a step goes out to the class without being drawn first, and says what it would have said
drawn on demand."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from app.web.classroom import room as rooms
from app.web.classroom.payload import seat
from app.web.classroom.store import room_event
from app.web.classroom.warmup import AUDIENCES, PICTURES
from app.web.factory import create_app

LESSON = ("pagination", "2025-11-25", "stdio")


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
        assert walk(warm, lang) == drawn
