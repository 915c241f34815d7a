"""What each part of the classroom needs of the `Classroom` service, as Protocols.

The service (service.py) builds its relay (fanout, payload) and presence and hands them itself;
the timer, the class results, the speaker panel and a paced room's rules are handed it by their
callers. Each calls back only a little of it. Each Protocol here names that little, for one
part, so the parts depend on what they use rather than on the service that uses them, and
neither imports the other (not even for types). This module imports only the service's own
building blocks; the socket's commands name theirs beside them (drive.Drives, pacing.Talk).
"""

from __future__ import annotations

from typing import Any, Protocol

from flask import Flask

from app.engine.step import Checkpoint
from app.web.classroom.ledger import Ledger
from app.web.classroom.room import Room
from app.web.classroom.store import RoomStore
from app.web.groups import Groups
from app.web.lab import Lab


class Renders(Protocol):
    """The texts a room's frames are made of (payload.py)."""

    def poll_id(self, room: Room, step: int) -> int: ...

    def bar_html(self, room: Room, lang: str, attached: bool) -> str: ...

    def change_html(
        self, room: Room, before: dict[str, Any], lang: str, audience: str, shape: str = ""
    ) -> str: ...

    def controls_html(self, room: Room, lang: str) -> str: ...

    def ended_html(self, room: Room, lang: str, audience: str = "student") -> str: ...

    def clock_html(self, room: Room, lang: str) -> str: ...


class Relays(Renders, Protocol):
    """The texts of a room's events, counts included (fanout.py)."""

    def students_html(self, n: int, lang: str) -> str: ...

    def counts_frame(self, code: str, poll: int, counts: list[int], lang: str) -> bytes: ...


class Polls(Protocol):
    """A room's open poll, for the timer that closes it (timer.py)."""

    @property
    def store(self) -> RoomStore: ...

    def poll_counts(self, room: Room) -> list[int] | None: ...


class Hosts(Polls, Protocol):
    """Where a process's sockets sit and hear their rooms, and whose beat closes the polls
    that are due (presence.py)."""

    @property
    def app(self) -> Flask: ...

    @property
    def store(self) -> RoomStore: ...

    @property
    def groups(self) -> Groups: ...


class Records(Protocol):
    """What a room kept: its store, its ledger, and the lab its steps come from (results.py,
    speaker.py)."""

    @property
    def lab(self) -> Lab: ...

    @property
    def store(self) -> RoomStore: ...

    @property
    def ledger(self) -> Ledger: ...


class Paces(Records, Protocol):
    """A student-paced room's rules: its questions, and a student's own answer (pacing.py)."""

    def checkpoint(self, room: Room, step: int | None = None) -> Checkpoint | None: ...

    def _render(self, template: str, lang: str, **context: Any) -> str: ...
