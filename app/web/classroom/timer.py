"""A poll's timer: the poll closes by itself when its time is up, whichever process is alive.

The deadline is part of the poll in the room's state in the store (room.Poll.deadline), so
every page can count down to it and every process knows it. Each process's presence beat
(presence.py) reads the rooms it holds sockets of and wakes at the earliest deadline it knows
(the process that opens a poll tells its beat at once); `close_due` then closes each poll
whose time is up with `room.time_up` through the store's compare-and-set (`store.change`: a
lock in memory, WATCH/MULTI in Redis). Several processes may try at the same moment: the first
closes the poll, and the others find it closed and change nothing, so it closes exactly once;
and if the process that opened it died, another closes it all the same. `time_up` also changes
nothing if the instructor closed, reopened or moved on meanwhile.

Pages show the seconds left as the server counted them when it rendered, never the server's
clock, which a projector's or a phone's clock need not agree with.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable
from typing import Any

from app.web.classroom import room as rooms
from app.web.classroom.needs import Polls
from app.web.classroom.room import Room, RoomError

CHOICES = (0, 30, 60, 90, 120)  # seconds a poll may run (0: until closed by hand)
SAY_AT = 10  # seconds left when a student's screen reader hears the time (and at the start)


def seconds(value: object) -> int:
    """A timer length from a command: one of CHOICES, else ValueError."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(value)
    n = int(value)
    if n not in CHOICES:
        raise ValueError(value)
    return n


def left(deadline: float, now: float | None = None) -> int:
    """Whole seconds until `deadline` (0 when it passed or there is none)."""
    if not deadline:
        return 0
    return max(0, round(deadline - (time.time() if now is None else now)))


def deadline(room: Room) -> float:
    """When the room's open poll closes by itself (0: no poll open, or no timer)."""
    poll = room.poll
    if poll is None or poll.phase != "open" or poll.step != room.step or room.ended:
        return 0.0
    return poll.deadline


def starts(room: Room, before: dict[str, Any]) -> bool:
    """Whether this change of the room (its store event's `before`) starts a poll's timer."""
    return bool(deadline(room)) and before.get("phase") != "open"


def running(room: Room) -> int:
    """Seconds left on the timer of the room's open poll (0: none runs)."""
    return left(deadline(room))


def close_due(live: Polls, found: Iterable[Room], now: float | None = None) -> float:
    """Close the polls of `found` whose time is up; the earliest deadline still ahead (0: none)."""
    now = time.time() if now is None else now
    ahead = 0.0
    for room in found:
        due = deadline(room)
        if due > now:
            ahead = min(ahead or due, due)
        elif due and room.poll is not None:
            _close(live, room.code, room.poll.id, live.poll_counts(room), now)
    return ahead


def _close(live: Polls, code: str, poll_id: int, counts: list[int] | None, now: float) -> None:
    with contextlib.suppress(KeyError, RoomError):  # the room ended or expired meanwhile
        live.store.change(code, lambda r: rooms.time_up(r, now, poll_id, counts))
