"""Student-paced rooms: each student steps on their own, questions gate them as in a lesson.

The instructor switches a room to "each at their own pace" (`pace`); a student may then step
past the class's step up to the end, except past a question they have not answered right
(the lesson's rule; an answer revealed to the room counts as answered). Their answers are
checked on their own socket and say why, as a lesson's do. "Bring everyone to step N"
(`gather`) moves the room there and back to following: pages that were browsing on their own
see the room's `gathered` count grow in their bar and catch up by themselves.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from flask_babel import gettext

from app.web.classroom import frames, results
from app.web.classroom import room as rooms
from app.web.classroom.needs import Paces
from app.web.classroom.payload import Follower
from app.web.classroom.room import Room
from app.web.commands import Refused


class Talk(Protocol):
    """A student's live socket as its pace's rules see it (conversation.Conversation)."""

    @property
    def live(self) -> Paces: ...

    @property
    def f(self) -> Follower: ...

    @property
    def voter(self) -> str | None: ...

    @property
    def passed(self) -> set[int]:
        """The questions this student answered right (a student-paced room)."""


def _choice(value: Any, choices: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(value)
    choice = int(value)
    if not 0 <= choice < choices:
        raise ValueError(choice)
    return choice


def may_go(talk: Talk, room: Room, here: int, to: int) -> None:
    """Refuse a student's move from `here` to `to` that the room's pace does not allow."""
    trace = talk.live.lab.trace(room.scenario, room.version, room.transport)
    if to >= len(trace):
        raise Refused(gettext("This is the last step."))
    for at in range(max(here, 0), to):
        asked = trace[at].get("checkpoint")
        if asked and at not in talk.passed and room.phase(at) != "revealed":
            raise Refused(gettext("Answer the question first: a right answer lets you go on."))


def answer(talk: Talk, room: Room, cmd: dict[str, Any]) -> list[bytes]:
    """A student's own answer at their step: right lets them go on, wrong says why."""
    f = talk.f
    here = room.step if f.attached else f.step
    checkpoint = talk.live.checkpoint(room, here)
    if checkpoint is None:
        raise Refused(gettext("There is no question at this step."))
    choices = checkpoint.get("choices", [])
    choice = _choice(cmd.get("choice"), len(choices))
    right = choice == int(checkpoint.get("answer", 0))
    if right:
        talk.passed.add(here)
    if talk.voter:  # kept for the class results, as a poll's votes are
        item = results.self_item(talk.voter, room.version, room.transport, here, choice)
        live = talk.live
        live.ledger.append(results.self_log(room.code), item, results.VOTES_KEPT, live.store.idle)
    html = talk.live._render(
        "classroom/_selfcheck.html",
        f.lang,
        choice=choice,
        right=right,
        why=choices[choice].get("why"),
    )
    return [frames.text_frame(frames.marker(None, "local") + html)]


def drive(live: Paces, room: Room, name: str, cmd: dict[str, Any], counts: Any, last: int) -> None:
    """The instructor's `pace` (each at their own pace) and `gather` (bring everyone to a step)."""
    now = time.time()
    if name == "pace":
        live.store.change(room.code, lambda r: rooms.pace(r, now, True))
        return
    value = cmd.get("step", room.step)
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(value)
    step = int(value)
    if not 0 <= step <= last:
        raise Refused(gettext("There is no step %(n)s in this scenario.", n=step + 1))
    live.store.change(room.code, lambda r: rooms.gather(r, now, step, counts))
