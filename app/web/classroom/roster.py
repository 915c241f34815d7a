"""A room's roster, for the instructor's devices: who its students are, under which name, who
follows the class, who is looking back (or, in a student-paced room, where each is), who left,
and who answered the open poll.

One source says who is here: the room's live seats (seats.py, kept by presence.py), over every
process still beating, so the students of a process killed with `kill -9` leave the roster as
they leave the count. The rest is derived: the students are those the room issued a student
cookie to (`store.admit`, in the order they first came, with the nickname given at /join), and
"answered" is the poll's votes. A student with a seat that follows is following; one whose
seats all look back is looking back at their step; one with no seat left. A student is named by
their nickname, else "Student n" by the order they came (anonymous by default), and pages see a
digest of their id, never the id itself (it is their cookie). The projector shows counts only.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from app.web.classroom import seats
from app.web.classroom.room import Room
from app.web.classroom.store import RoomStore

NICK = "mcp-lab-nick"  # the cookie with the nickname a student gave at join ("" anonymous)
FOLLOWING, LOOKING_BACK, LEFT = "following", "looking back", "left"


def nickname(text: str | None) -> str:
    """A nickname as the roster shows it: spaces collapsed, at most 24 characters."""
    return " ".join((text or "").split())[:24]


def who(student: str) -> str:
    """A student's name in pages: a short digest of their id (their cookie's value)."""
    return hashlib.sha256(student.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Student:
    """One student of a room as the speaker view shows them."""

    who: str  # a digest of their id
    number: int  # in the order they first came, from 1
    nick: str  # "" when they gave none
    state: str  # FOLLOWING, LOOKING_BACK or LEFT
    step: int | None  # their own step when looking back (or at their own pace), else None
    answered: bool  # voted in the poll asked

    @property
    def present(self) -> bool:
        return self.state != LEFT


def students(store: RoomStore, room: Room) -> list[Student]:
    """The room's roster, in the order its students first came (see the module docstring)."""
    here: dict[str, list[seats.Seat]] = {}
    for value in store.seats.gather(room.code):
        seat = seats.parse(value)
        if seat.student:
            here.setdefault(seat.student, []).append(seat)
    poll = room.poll if room.poll is not None and room.poll.step == room.step else None
    voted = store.voters(room.code, poll.id) if poll is not None else {}
    out = []
    for number, (student, nick) in enumerate(store.students(room.code).items(), 1):
        held = here.get(student, [])
        back = [s.step for s in held if not s.following and s.step is not None]
        if any(s.following for s in held):
            state, step = FOLLOWING, None
        else:
            state, step = (LOOKING_BACK, min(back, default=None)) if held else (LEFT, None)
        out.append(Student(who(student), number, nick, state, step, student in voted))
    return out


def spread(roll: list[Student], class_step: int, steps: int) -> list[int]:
    """How many present students are at each step (those following are at the class's)."""
    out = [0] * steps
    for student in roll:
        if student.present:
            at = class_step if student.step is None else student.step
            out[min(max(at, 0), steps - 1)] += 1
    return out
