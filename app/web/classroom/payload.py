"""What a follower of a room receives when the room moves: the one seam between the fan-out
(which only moves bytes) and what the frames contain.

`Payloads.step(room, before, follower)` is the text of the frame a follower gets for a room event:
for the instructor, the regions and parts that changed (decided from their keys,
app.web.classroom.render.change) and the controls; for a student who follows the class, the regions
and parts that changed (of the overview picture its page displays); for a student browsing on their
own ("detached"), a notice of where the class is. The fan-out asks once per kind of follower
(audience, language, attached, picture) and encodes the answer once for all of them.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from app.web.classroom import frames, timer
from app.web.classroom.needs import Renders
from app.web.classroom.room import Room

KEPT = 512  # delta bodies kept: shared by every room on the same scenario, language and step


@dataclass(frozen=True, slots=True)
class Follower:
    """Who a live socket is, for what a room sends it: the tag of its channel. Followers that
    compare equal get the same frame, so `step` (where a detached student browses, which no
    room frame depends on) is left out of the comparison."""

    code: str
    lang: str
    audience: str = "student"
    attached: bool = True  # a student who follows the class (False: browsing on their own)
    shape: str = ""  # the overview picture the page displays ("wide", "tall"; "": both)
    step: int = field(default=0, compare=False)


@functools.lru_cache(maxsize=4096)
def seat(code: str, lang: str, audience: str, attached: bool, shape: str = "") -> Follower:
    """The one `Follower` object of each kind, shared by every channel of that kind as its tag,
    so a group send finds a kind's frame by identity rather than by comparing followers."""
    return Follower(code, lang, audience, attached, shape)


class Payloads:
    """The frames' text per room event and kind of follower (see the module docstring)."""

    def __init__(self, live: Renders) -> None:
        self.live = live
        self._bodies: OrderedDict[Hashable, str] = OrderedDict()

    def step(self, room: Room, before: dict[str, Any], f: Follower) -> str:
        live = self.live
        if f.audience == "student" and not f.attached:
            notice = frames.marker(room.seq, "notice", room.step)
            return notice + live.bar_html(room, f.lang, attached=False)
        mark = frames.marker(room.seq, "delta", room.step)
        # The change is the same for every room at the same place in the same lesson (and for
        # the instructor's page, when no poll's counts are in it): kept, and drawn ahead by
        # the warm-up (warmup.py).
        now = (room.version, room.transport, room.step, room.phase(), live.poll_id(room, room.step))
        key = (room.scenario, _place(before), before.get("paced"), now, room.paced, f.lang, f.shape)

        def change() -> str:
            return live.change_html(room, before, f.lang, f.audience, f.shape)

        if f.audience == "instructor":
            counted = room.poll is not None and room.poll.step == room.step
            body = change() if counted else self._body((*key, f.audience), change)
            return mark + body + live.controls_html(room, f.lang)
        # A following student's page already says "Following your instructor": the change is
        # all it needs.
        body = self._body(key, change)
        # A room that went student-paced (or came back from it) says so in the bar.
        paced = room.paced or room.gathered
        clock = live.clock_html(room, f.lang) if timer.starts(room, before) else ""
        return mark + body + clock + (live.bar_html(room, f.lang, attached=True) if paced else "")

    def ended(self, room: Room, f: Follower) -> str:
        return self.live.ended_html(room, f.lang, f.audience)

    def _body(self, key: Hashable, make: Callable[[], str]) -> str:
        body = self._bodies.get(key)
        if body is None:
            body = self._bodies[key] = make()
            while len(self._bodies) > KEPT:
                self._bodies.popitem(last=False)
        return body


def _place(before: dict[str, Any]) -> tuple[Any, ...]:
    """Where the room was, as a store event says it."""
    return tuple(before[k] for k in ("version", "transport", "step", "phase", "poll"))
