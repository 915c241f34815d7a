"""The roster of a room, for the instructor's speaker view: who came, under which nickname,
who is looking back on their own, where each student is in a student-paced room, who left.

Every student socket writes a line to the room's ledger when it joins, moves or leaves; the
roster is those lines folded, oldest first. A student is named by the nickname they gave at
join, else "Student n" in the order they first came (anonymous by default). Their identity in
the ledger is a digest of their join cookie, never the cookie itself. The projector shows the
count only (the roster is read by the speaker view, for the instructor's devices).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

KEPT = 20000
NICK = "mcp-lab-nick"  # the cookie with the nickname a student gave at join ("" anonymous)


def nickname(text: str | None) -> str:
    """A nickname as the roster shows it: spaces collapsed, at most 24 characters."""
    return " ".join((text or "").split())[:24]


def roster_log(code: str) -> str:
    return f"roster:{code}"


def who(voter: str) -> str:
    """A student's name in the ledger: a short digest of their join cookie."""
    return hashlib.sha256(voter.encode()).hexdigest()[:12]


def line(voter: str, event: str, step: int = 0, nick: str = "") -> str:
    """One ledger line: `event` is join, leave, back (looking back at `step`), follow, or at
    (a student-paced student at `step`)."""
    item: dict[str, Any] = {"w": who(voter), "e": event, "s": step}
    if nick:
        item["n"] = nick
    return json.dumps(item, separators=(",", ":"), ensure_ascii=False)


@dataclass
class Seat:
    """One student as the roster shows them."""

    who: str
    number: int
    nick: str = ""
    sockets: int = 0
    step: int | None = None  # their own step (None: with the class)

    @property
    def present(self) -> bool:
        return self.sockets > 0


def fold(lines: list[str]) -> list[Seat]:
    """The roster from the ledger's lines, in the order students first came."""
    seats: dict[str, Seat] = {}
    for raw in lines:
        try:
            item = json.loads(raw)
            key, event = str(item["w"]), str(item["e"])
            step = int(item.get("s", 0))
        except (ValueError, KeyError, TypeError):
            continue
        seat = seats.get(key)
        if seat is None:
            seat = seats[key] = Seat(key, len(seats) + 1)
        if item.get("n"):
            seat.nick = str(item["n"])[:24]
        if event == "join":
            seat.sockets += 1
        elif event == "leave":
            seat.sockets = max(0, seat.sockets - 1)
            if not seat.sockets:
                seat.step = None
        elif event in ("back", "at"):
            seat.step = step
        elif event == "follow":
            seat.step = None
    return list(seats.values())


def spread(seats: list[Seat], class_step: int, steps: int) -> list[int]:
    """How many present students are at each step (those following are at the class's)."""
    out = [0] * steps
    for seat in seats:
        if seat.present:
            at = class_step if seat.step is None else seat.step
            out[min(max(at, 0), steps - 1)] += 1
    return out
