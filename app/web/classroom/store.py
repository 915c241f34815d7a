"""Where rooms live: one interface, an in-memory store for one process and a Redis store for many.

The web layer never reaches a room's followers itself: it asks the store to `change` a room
(one atomic read-modify-write of a pure `room` function), and the store announces the result
with a group send (app.web.groups) to the room's group, `room_group(code)`, whose members are
every process's followers of the room. The memory store sends under the room's lock, so events
arrive in `seq` order; the Redis store (redis_store.py) sets and publishes in one MULTI, so they
do there too. Votes and the seats of students present (seats.py) are kept on the side (they
change often and must not contend with the room's own writes); counts go to the instructors'
group only.

Events are small JSON-able dicts: {"kind": "room", "room": <Room json>, "before": {...}},
{"kind": "votes", "poll": id, "counts": [...]}, {"kind": "students", "n": total}.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from app.web.classroom.errors import StoreUnavailable as StoreUnavailable
from app.web.classroom.room import Room
from app.web.classroom.seats import MemorySeats, Seats
from app.web.groups import Groups

Clock = Callable[[], float]
# How long an ended room stays readable (its results CSV) before it is forgotten.
ENDED_KEEP = 3600.0


def room_group(code: str) -> str:
    """The group of everyone following room `code` (students and instructors)."""
    return f"classroom:{code}"


def instructors_group(code: str) -> str:
    """The group of the instructors of room `code`: counts of votes and students go there."""
    return f"classroom:{code}:instructors"


def room_event(before: Room, after: Room) -> dict[str, Any]:
    """The event that tells followers how the room went from `before` to `after`."""
    return {
        "kind": "room",
        "room": after.to_json(),
        "before": {
            "step": before.step,
            "version": before.version,
            "transport": before.transport,
            "phase": before.phase(),
            "seq": before.seq,
            "poll": before.poll.id if before.poll is not None else 0,
            "paced": before.paced,
        },
    }


class RoomStore(Protocol):
    """What the web layer needs of a store; memory and Redis implement it the same way."""

    idle: float

    @property
    def seats(self) -> Seats: ...

    def create(self, room: Room) -> bool: ...
    def get(self, code: str) -> Room | None: ...
    def change(self, code: str, move: Callable[[Room], Room]) -> tuple[Room, Room]: ...
    def admit(self, code: str, student: str, nick: str | None = None) -> None: ...
    def students(self, code: str) -> dict[str, str]: ...
    def known(self, code: str, student: str) -> bool: ...
    def vote(self, code: str, poll: int, voter: str, choice: int, choices: int) -> list[int]: ...
    def counts(self, code: str, poll: int, choices: int) -> list[int]: ...
    def voters(self, code: str, poll: int) -> dict[str, int]: ...
    def present(self, code: str) -> int: ...
    def alive(self, codes: list[str]) -> set[str]: ...
    def close(self) -> None: ...


class MemoryStore:
    """Rooms in this process's memory: the default for `make run` on one machine."""

    def __init__(self, groups: Groups, idle: float = 4 * 3600, clock: Clock = time.time) -> None:
        self.groups = groups
        self.idle = idle
        self.clock = clock
        self._rooms: dict[str, Room] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._votes: dict[tuple[str, int], dict[str, int]] = {}
        self._students: dict[str, dict[str, str]] = {}
        self.seats = MemorySeats()
        self._lock = threading.Lock()

    def _expired(self, room: Room) -> bool:
        keep = min(self.idle, ENDED_KEEP) if room.ended else self.idle
        return self.clock() - room.touched > keep

    def _sweep(self) -> None:
        for code, room in list(self._rooms.items()):
            if self._expired(room):
                self._forget(code)

    def _forget(self, code: str) -> None:
        self._rooms.pop(code, None)
        self._locks.pop(code, None)
        self.seats.forget(code)
        self._students.pop(code, None)
        for key in [k for k in self._votes if k[0] == code]:
            del self._votes[key]

    def create(self, room: Room) -> bool:
        with self._lock:
            self._sweep()
            if room.code in self._rooms:
                return False
            self._rooms[room.code] = room
            self._locks[room.code] = threading.Lock()
            return True

    def get(self, code: str) -> Room | None:
        with self._lock:
            room = self._rooms.get(code)
            if room is not None and self._expired(room):
                self._forget(code)
                return None
            return room

    def change(self, code: str, move: Callable[[Room], Room]) -> tuple[Room, Room]:
        if self.get(code) is None:
            raise KeyError(code)
        lock = self._locks.get(code)
        if lock is None:
            raise KeyError(code)
        with lock:
            before = self._rooms[code]
            after = move(before)
            self._rooms[code] = after
            if after.seq != before.seq:
                self.groups.send(room_group(code), room_event(before, after))
        return before, after

    def admit(self, code: str, student: str, nick: str | None = None) -> None:
        """Make `student` (a student cookie's id) one of the room's students; `nick`, when
        given, is the name they chose (None keeps the one they had)."""
        with self._lock:
            known = self._students.setdefault(code, {})
            known[student] = known.get(student, "") if nick is None else nick

    def students(self, code: str) -> dict[str, str]:
        """The room's students, in the order they first came: id → nickname ("" for none)."""
        with self._lock:
            return dict(self._students.get(code, {}))

    def known(self, code: str, student: str) -> bool:
        with self._lock:
            return student in self._students.get(code, {})

    def vote(self, code: str, poll: int, voter: str, choice: int, choices: int) -> list[int]:
        with self._lock:
            self._votes.setdefault((code, poll), {})[voter] = choice
        counts = self.counts(code, poll, choices)
        self.groups.send(instructors_group(code), {"kind": "votes", "poll": poll, "counts": counts})
        return counts

    def counts(self, code: str, poll: int, choices: int) -> list[int]:
        counts = [0] * choices
        for choice in list(self._votes.get((code, poll), {}).values()):
            if 0 <= choice < choices:
                counts[choice] += 1
        return counts

    def voters(self, code: str, poll: int) -> dict[str, int]:
        """Who voted in `poll`: student id → choice."""
        with self._lock:
            return dict(self._votes.get((code, poll), {}))

    def present(self, code: str) -> int:
        """The open student sockets of the room (presence.py keeps them)."""
        return self.seats.count(code)

    def alive(self, codes: list[str]) -> set[str]:
        """Those of `codes` whose room the store still has."""
        return {code for code in codes if self.get(code) is not None}

    def close(self) -> None:
        self.groups.close()
