"""The instructor's commands on a live socket: each is one atomic change of the room in the
store (a step, a version or transport, the poll and its timer, the reveal, the end, the pace).
A student's socket never gets here: `Conversation.apply` refuses these commands (DRIVING)
unless the socket carries the instructor's cookie.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from flask_babel import gettext

from app.web import commands
from app.web.classroom import pacing, timer
from app.web.classroom import room as rooms
from app.web.classroom.needs import Paces, Polls
from app.web.classroom.payload import Follower
from app.web.classroom.presence import Presence
from app.web.classroom.room import Room
from app.web.commands import Refused
from app.web.session import same_event


class Drives(Paces, Polls, Protocol):
    """What the instructor's commands use of the Classroom service."""

    @property
    def presence(self) -> Presence: ...

    def warm(self, room: Room, lang: str) -> None: ...


class Driver(Protocol):
    """The instructor's live socket as its commands see it (conversation.Conversation)."""

    @property
    def live(self) -> Drives: ...

    @property
    def f(self) -> Follower: ...

    def room(self) -> Room: ...


DRIVING = {"poll_open", "poll_close", "reveal", "end", "version", "transport", "play", "speed"}
DRIVING |= {"pace", "gather"}


def step_of(value: Any) -> int:
    """A step number from a command, else ValueError."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(value)
    return int(value)


def drive(talk: Driver, name: Any, cmd: dict[str, Any]) -> list[bytes]:
    """The instructor's commands: each is one atomic change of the room in the store."""
    live, code = talk.live, talk.f.code
    room = talk.room()
    trace = live.lab.trace(room.scenario, room.version, room.transport)
    last = len(trace) - 1
    counts = live.poll_counts(room)
    now = time.time()
    if name in ("next", "prev", "goto", "reset"):
        to = {"next": room.step + 1, "prev": room.step - 1, "reset": 0}.get(name)
        if to is None:
            to = step_of(cmd.get("step"))
        if not 0 <= to <= last:
            raise Refused(gettext("There is no step %(n)s in this scenario.", n=to + 1))
        target = to
        live.store.change(code, lambda r: rooms.move(r, now, target, counts=counts))
    elif name in ("version", "transport"):
        scenario = live.lab.scenario(room.scenario)
        value = cmd.get(name)
        if value not in getattr(scenario, name + "s"):
            raise ValueError(value)
        version = str(value) if name == "version" else room.version
        transport = str(value) if name == "transport" else room.transport
        to = same_event(trace, room.step, live.lab.trace(room.scenario, version, transport))
        _was, moved = live.store.change(
            code, lambda r: rooms.move(r, now, to, version, transport, counts=counts)
        )
        live.warm(moved, talk.f.lang)
    elif name == "poll_open":
        checkpoint = live.checkpoint(room)
        if checkpoint is None:
            raise Refused(gettext("There is no question at this step."))
        n, answer = len(checkpoint.get("choices", [])), int(checkpoint.get("answer", 0))
        limit = timer.seconds(cmd.get("seconds") or 0)
        _was, opened = live.store.change(code, lambda r: rooms.open_poll(r, now, n, answer, limit))
        live.presence.due(timer.deadline(opened))  # this process's beat closes it then
    elif name == "poll_close":
        live.store.change(code, lambda r: rooms.close_poll(r, now, counts))
    elif name == "reveal":
        if live.checkpoint(room) is None:
            raise Refused(gettext("There is no question at this step."))
        live.store.change(code, lambda r: rooms.reveal(r, now, counts))
    elif name == "end":
        live.store.change(code, lambda r: rooms.end(r, now, counts))
    elif name in ("pace", "gather"):
        pacing.drive(live, room, name, cmd, counts, last)
    elif name in ("answer", "catchup", "play", "pause", "speed"):
        return []
    else:
        raise commands.unknown(name)
    return []
