"""A live room as plain data, and the moves an instructor can make on it (sans-IO).

A `Room` is what every process must agree on: the scenario, version and transport on show, the
step (an index into that trace), the poll of the step, the steps whose answer was revealed, the
digests of the instructor's secret and of one-time device keys, and a sequence number `seq`
that grows with every change, so a follower can tell a missed or reordered broadcast from the
next one. The functions here take a room and return a new one; they never touch a clock, a
socket or a store (the store applies them atomically and publishes the result). Votes are not
kept here: they change far more often than the room, so the store counts them on the side.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from typing import Any

PHASES = ("idle", "open", "closed", "revealed")


class RoomError(Exception):
    """A move the room cannot make now (its text is shown to the instructor)."""


@dataclass(frozen=True)
class Poll:
    """The poll of one step's question: `id` names its votes in the store."""

    id: int
    step: int
    choices: int
    answer: int
    phase: str = "open"
    deadline: float = 0.0  # when its timer closes it (0: no timer)


@dataclass(frozen=True)
class Room:
    code: str
    scenario: str
    version: str
    transport: str
    tokens: tuple[str, ...]  # digests of the instructors' secrets (one per device)
    created: float
    touched: float
    step: int = 0
    seq: int = 0
    poll: Poll | None = None
    # Polls of this room, newest last, with the counts they ended with (for the CSV).
    history: tuple[dict[str, Any], ...] = ()
    revealed: tuple[tuple[str, str, int], ...] = ()  # (version, transport, step)
    device_keys: tuple[str, ...] = ()
    ended: bool = False
    paced: bool = False  # students step at their own pace (the room's step is the instructor's)
    gathered: int = 0  # how many times the instructor brought everyone back to one step

    def phase(self, step: int | None = None) -> str:
        """The question phase at `step` (the room's step by default) as the room sees it."""
        step = self.step if step is None else step
        if (self.version, self.transport, step) in self.revealed:
            return "revealed"
        if self.poll is not None and self.poll.step == step:
            return self.poll.phase
        return "idle"

    def to_json(self) -> str:
        # Field by field, not dataclasses.asdict: asdict deep-copies the history first, and
        # this runs on every change of every room (a step, a vote's poll), 31 µs against 7.
        data = {name: getattr(self, name) for name in _ROOM_FIELDS}
        if self.poll is not None:
            data["poll"] = vars(self.poll)
        return json.dumps(data, separators=(",", ":"))

    @staticmethod
    def from_json(text: str | bytes) -> Room:
        data = json.loads(text)
        poll = data.pop("poll")
        data["history"] = tuple(data.get("history", ()))
        data["revealed"] = tuple(tuple(r) for r in data.get("revealed", ()))
        data["device_keys"] = tuple(data.get("device_keys", ()))
        data["tokens"] = tuple(data.get("tokens", ()))
        return Room(**data, poll=Poll(**poll) if poll else None)


_ROOM_FIELDS = tuple(f.name for f in fields(Room))


def _bump(room: Room, now: float, **changes: Any) -> Room:
    if room.ended:
        raise RoomError("ended")
    return replace(room, seq=room.seq + 1, touched=now, **changes)


def polls(room: Room, counts: list[int] | None) -> tuple[dict[str, Any], ...]:
    """History with the room's poll recorded (or updated) with its final counts."""
    poll = room.poll
    if poll is None:
        return room.history
    record = {
        "poll": poll.id,
        "version": room.version,
        "transport": room.transport,
        "step": poll.step,
        "answer": poll.answer,
        "counts": list(counts or [0] * poll.choices),
    }
    kept = tuple(h for h in room.history if h.get("poll") != poll.id)
    return (*kept, record)


def move(
    room: Room,
    now: float,
    step: int,
    version: str | None = None,
    transport: str | None = None,
    counts: list[int] | None = None,
) -> Room:
    """The room at another step (and maybe version/transport); an open poll closes."""
    history = polls(room, counts)
    return _bump(
        room,
        now,
        step=step,
        version=version or room.version,
        transport=transport or room.transport,
        poll=None,
        history=history,
    )


def open_poll(room: Room, now: float, choices: int, answer: int, seconds: int = 0) -> Room:
    """Open the poll of the room's step (again, if it was closed: its votes are kept); with
    `seconds`, its timer closes it that long after now."""
    if room.phase() == "revealed":
        raise RoomError("revealed")
    deadline = now + seconds if seconds > 0 else 0.0
    if room.poll is not None and room.poll.step == room.step:
        if room.poll.phase == "open":
            raise RoomError("open")
        return _bump(room, now, poll=replace(room.poll, phase="open", deadline=deadline))
    poll_id = max([h["poll"] for h in room.history] + [0]) + 1
    return _bump(room, now, poll=Poll(poll_id, room.step, choices, answer, deadline=deadline))


def time_up(room: Room, now: float, poll_id: int, counts: list[int] | None = None) -> Room:
    """The timer of poll `poll_id` ran out: close it, if it is still that poll, open and due
    (the instructor may have closed, reopened or moved on meanwhile)."""
    poll = room.poll
    if poll is None or poll.id != poll_id or poll.phase != "open" or not poll.deadline:
        return room
    if now < poll.deadline:
        return room
    return close_poll(room, now, counts)


def pace(room: Room, now: float, paced: bool) -> Room:
    """Let each student step at their own pace, or (False) have them follow again."""
    if room.paced == paced:
        return room
    return _bump(room, now, paced=paced)


def gather(room: Room, now: float, step: int, counts: list[int] | None = None) -> Room:
    """Bring everyone to `step`: the room follows the instructor again from there."""
    moved = move(room, now, step, counts=counts)
    return replace(moved, paced=False, gathered=room.gathered + 1)


def close_poll(room: Room, now: float, counts: list[int] | None = None) -> Room:
    if room.poll is None or room.poll.phase != "open":
        raise RoomError("not open")
    poll = replace(room.poll, phase="closed")
    return _bump(room, now, poll=poll, history=polls(replace(room, poll=poll), counts))


def reveal(room: Room, now: float, counts: list[int] | None = None) -> Room:
    """Show the answer of the step's question to everyone; voting ends."""
    key = (room.version, room.transport, room.step)
    if key in room.revealed:
        raise RoomError("revealed")
    poll = room.poll
    if poll is not None and poll.step == room.step:
        poll = replace(poll, phase="revealed")
        history = polls(replace(room, poll=poll), counts)
    else:
        history = room.history
    return _bump(room, now, poll=poll, history=history, revealed=(*room.revealed, key))


def end(room: Room, now: float, counts: list[int] | None = None) -> Room:
    """The room ends: nothing moves any more, the results stay readable until it expires."""
    room = _bump(room, now, history=polls(room, counts))
    return replace(room, ended=True, poll=None)


def add_device_key(room: Room, now: float, key_digest: str) -> Room:
    """Remember a one-time key for a second instructor device (at most a few pending)."""
    return replace(room, touched=now, device_keys=(*room.device_keys[-4:], key_digest))


def use_device_key(room: Room, key_digest: str, token_digest: str) -> Room:
    """Spend a one-time key: the device that had it becomes an instructor with its own secret."""
    if key_digest not in room.device_keys:
        raise RoomError("unknown key")
    keys = tuple(k for k in room.device_keys if k != key_digest)
    return replace(room, device_keys=keys, tokens=(*room.tokens[-7:], token_digest))


def new_room(
    code: str, scenario: str, version: str, transport: str, token: str, now: float
) -> Room:
    """A room at its first step; `token` is the digest of its instructor's secret."""
    return Room(code, scenario, version, transport, (token,), created=now, touched=now)
