"""A lesson's steps drawn ahead of the class, while the instructor shows the join code.

When a socket of a room opens (or the room changes version or transport), one background worker
per scenario, version, transport, language and audience draws every step's regions (the markup
cache every room on that lesson shares) and then walks the lesson as an instructor pressing
Next would: the change from each step to the next, as that audience's pages get it (each
picture of the overview), lands in the relay's cache of bodies (payload.py). Only the audiences
a socket of that language opened for: a class's students in a second language need no
instructor's page drawn in it. A step then goes out to the class without being drawn first:
what was drawing before the first byte left is gone from a step's latency, and from the busy
second it shares with the class. A room that goes another way (a poll opened, a step skipped)
draws on demand, as before.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol

from flask import Flask

from app.web.classroom import room as rooms
from app.web.classroom.payload import Payloads, seat
from app.web.classroom.render import Cursor, regions
from app.web.classroom.room import Room
from app.web.classroom.store import room_event
from app.web.lab import Lab
from app.web.overview import SHAPES

AUDIENCES = ("student", "instructor")
PICTURES = ("", *SHAPES)  # a page that has not said which picture it shows, then each


class Warms(Protocol):
    """What the warm-up needs of the classroom (app.web.classroom.service.Classroom)."""

    @property
    def lab(self) -> Lab: ...

    @property
    def payloads(self) -> Payloads: ...


class Warmup:
    """Draws each lesson once per process, language and audience, in the background."""

    def __init__(self, app: Flask, live: Warms) -> None:
        self.app = app
        self.live = live
        self._done: set[tuple[str, str, str, str, str]] = set()
        self._lock = threading.Lock()

    def start(self, room: Room, lang: str, audiences: tuple[str, ...] = AUDIENCES) -> None:
        """Draw `room`'s lesson in `lang` for `audiences` (the kinds of page a socket of that
        language and audience follows with) unless this process has, or is doing it."""
        todo: list[str] = []
        with self._lock:
            for audience in audiences:
                key = (room.scenario, room.version, room.transport, lang, audience)
                if key not in self._done:
                    self._done.add(key)
                    todo.append(audience)
        if todo:
            threading.Thread(
                target=self.run, args=(room, lang, tuple(todo)), name="live-warm", daemon=True
            ).start()

    def run(self, room: Room, lang: str, audiences: tuple[str, ...] = AUDIENCES) -> None:
        sid, version, transport = room.scenario, room.version, room.transport
        try:
            with self.app.test_request_context("/"):
                self._regions(sid, version, transport, lang, audiences)
                self._changes(room, lang, audiences)
        except Exception:  # a render bug shows when the step is sent; never kill the process
            self.app.logger.exception("warming %s %s %s %s failed", sid, version, transport, lang)

    def _regions(
        self, sid: str, version: str, transport: str, lang: str, audiences: tuple[str, ...]
    ) -> None:
        lab = self.live.lab
        for step in range(len(lab.trace(sid, version, transport))):
            for audience in audiences:
                at = Cursor(sid, version, transport, step, lang, audience=audience)
                regions(lab, at, target="room")  # as a room draws them (bodies load apart)
            time.sleep(0)  # a greenlet under gevent: let the sockets run between steps

    def _changes(self, room: Room, lang: str, audiences: tuple[str, ...]) -> None:
        """Each step's change from the one before, as a fresh room of this lesson steps."""
        lab, payloads = self.live.lab, self.live.payloads
        at = rooms.new_room(room.code, room.scenario, room.version, room.transport, "", 0.0)
        followers = [
            seat(room.code, lang, audience, True, picture)
            for audience in audiences
            for picture in PICTURES
        ]
        for step in range(1, len(lab.trace(room.scenario, room.version, room.transport))):
            after = rooms.move(at, 0.0, step)
            before = room_event(at, after)["before"]
            for follower in followers:
                payloads.step(after, before, follower)
            at = after
            time.sleep(0)
