"""A poll's timer: the poll closes by itself when its time is up.

The deadline is part of the poll (room.Poll.deadline), so every page can count down to it;
the process that opened the poll closes it then (a greenlet under gevent, a thread otherwise),
with `room.time_up`, which changes nothing if the instructor closed, reopened or moved on
meanwhile. Pages show the seconds left as the server counted them when it rendered, never
the server's clock, which a projector's clock need not agree with.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from app.web.classroom import room as rooms
from app.web.classroom.room import RoomError
from app.web.classroom.store import StoreUnavailable

if TYPE_CHECKING:
    from app.web.classroom.service import Classroom

CHOICES = (0, 30, 60, 90, 120)  # seconds a poll may run (0: until closed by hand)


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


def arm(live: Classroom, code: str, poll_id: int, after: float) -> None:
    """Close poll `poll_id` of room `code` once `after` seconds have passed."""

    def fire() -> None:
        try:
            room = live.get(code)
            if room is None:
                return
            counts = live.poll_counts(room)
            live.store.change(code, lambda r: rooms.time_up(r, time.time(), poll_id, counts))
        except (KeyError, RoomError, StoreUnavailable):
            live.app.logger.warning("live: the timer of poll %s in %s failed", poll_id, code)

    timer = threading.Timer(after + 0.05, fire)
    timer.daemon = True
    timer.start()
