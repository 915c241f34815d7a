"""The commands of one live socket, and the loop that answers them.

The socket's tag is a `Follower` (room, language, audience, and whether a student follows the
class), which tells the room's group sends (fanout.py) which frame it takes. The loop: send the
room's state, then answer every command (read by app.web.commands) while the channel writes,
between commands, the frames the room's group sends queued for it.

Commands are JSON objects. A student may browse the steps the class has reached ("detached"),
catch up, vote, pick a view or a language, and say which picture of the overview its page
displays; anything that would change the room is refused unless the socket carries the
instructor's cookie (the instructor's commands: drive.py). A vote counts only from a student
the room issued (its student cookie).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flask import current_app
from flask_babel import force_locale, gettext

from app.web import commands, i18n
from app.web.channel import Channel
from app.web.classroom import frames, pacing, timer
from app.web.classroom.drive import DRIVING, drive, step_of
from app.web.classroom.fanout import Follower
from app.web.classroom.payload import seat
from app.web.classroom.room import Room, RoomError
from app.web.classroom.service import Classroom
from app.web.classroom.store import StoreUnavailable
from app.web.commands import Refused
from app.web.overview import SHAPES
from app.web.render import VIEWS


def _local(html: str) -> bytes:
    return frames.text_frame(frames.marker(None, "local") + html)


def _alert(live: Any, lang: str, message: str) -> bytes:
    with force_locale(lang):
        return _local(live._render("partials/_alert.html", lang, alert=message))


class Conversation:
    """The commands of one live socket; `handle` returns the frames to write back. Its state
    (what it shows) lives here and in its channel's tag, for as long as the socket is open."""

    def __init__(
        self, live: Classroom, ch: Channel, f: Follower, view: str, voter: str | None
    ) -> None:
        self.live = live
        self.ch = ch
        self.f = f
        self.view = view
        self.voter = voter
        self.passed: set[int] = set()  # questions answered right in a student-paced room
        self.become()

    def become(self, **changes: Any) -> None:
        """Change what this socket is for the room's sends (language, attached, step)."""
        was, f = self.f, replace(self.f, **changes)
        self.f = f
        self.ch.tag = seat(f.code, f.lang, f.audience, f.attached, f.shape)
        if f.attached != was.attached or (not f.attached and f.step != was.step):
            self.live.presence.follow(f.code, self.ch, f.attached, f.step)  # (the roster)

    def room(self) -> Room:
        room = self.live.get(self.f.code)
        if room is None:
            raise Refused(gettext("This room has expired."))
        return room

    def full(self) -> list[bytes]:
        """The room's state; for a student, with the countdown of a timed poll, rendered for
        this socket now (the state's frame is shared by every student who joins with it)."""
        room, f = self.room(), self.f
        frame = self.live.full_frame(room, f)
        if f.audience == "student" and timer.running(room):
            return [frame, self.live.clock_frame(room, f.lang)]
        return [frame]

    def handle(self, raw: Any) -> list[bytes]:
        lang = self.f.lang
        with force_locale(lang):
            return commands.answer(
                raw,
                current_app.config["WS_MAX_COMMAND"],
                self._apply,
                lambda text: _alert(self.live, lang, text),
                current_app.logger,
            )

    def _apply(self, cmd: dict[str, Any]) -> list[bytes]:
        try:
            return self.apply(cmd)
        except StoreUnavailable:
            raise Refused(
                gettext("The classroom service is not answering. Try again in a moment.")
            ) from None
        except RoomError:
            raise Refused(gettext("The room cannot do that now.")) from None

    def apply(self, cmd: dict[str, Any]) -> list[bytes]:
        name = cmd.get("command")
        f = self.f
        if name == "sync":
            return self.full()
        if name == "view":
            if cmd.get("view") not in VIEWS:
                raise ValueError(cmd.get("view"))
            self.view = cmd["view"]
            html = self.live._render("partials/_tabs.html", f.lang, view=self.view)
            return [_local(html)]
        if name == "shape":  # the page displays the overview's other picture now: redraw
            if cmd.get("shape") not in SHAPES:
                raise ValueError(cmd.get("shape"))
            self.become(shape=cmd["shape"])
            return self.full()
        if name == "language":
            lang = i18n.valid(cmd.get("lang"))
            if lang is None:
                raise ValueError(cmd.get("lang"))
            self.become(lang=lang)
            return self.page()
        if f.audience == "instructor":
            return drive(self, name, cmd)
        if name in DRIVING or name not in {"next", "prev", "goto", "reset", "catchup", "answer"}:
            if name in DRIVING:
                raise Refused(gettext("Only the instructor can do that."))
            raise commands.unknown(name)
        return self.browse(name, cmd)

    def page(self) -> list[bytes]:
        room = self.room()
        if self.f.audience == "student" and not self.f.attached:
            return [frames.text_frame(self.live.local_html(room, self.f)), *self.full()]
        return self.full()

    def browse(self, name: str, cmd: dict[str, Any]) -> list[bytes]:
        """A student's own moves: within the steps the class has reached, and voting."""
        f, room = self.f, self.room()
        if name == "answer" and room.paced:
            return pacing.answer(self, room, cmd)
        if name == "answer":
            poll = room.poll
            if poll is None or poll.step != room.step or poll.phase != "open":
                raise Refused(gettext("The poll is not open."))
            choice = step_of(cmd.get("choice"))
            if not 0 <= choice < poll.choices:
                raise ValueError(choice)
            if self.voter is None:  # one vote per student: a socket without one casts none
                raise Refused(
                    gettext("Only students who joined the room vote: open its join link.")
                )
            self.live.store.vote(room.code, poll.id, self.voter, choice, poll.choices)
            self.live.cast(room, poll.id, self.voter, choice)  # kept as cast: first answers
            html = self.live._render(
                "classroom/_voted.html", f.lang, poll_id=poll.id, choice=choice
            )
            return [_local(html)]
        if name == "catchup":
            self.become(attached=True)
            return self.full()
        here = room.step if f.attached else f.step
        to = {"next": here + 1, "prev": here - 1, "reset": 0}.get(name)
        if to is None:
            to = step_of(cmd.get("step"))
        if room.paced:
            pacing.may_go(self, room, here, to)
        elif to > room.step:
            raise Refused(gettext("The class has not got there yet."))
        if to < 0:
            raise Refused(gettext("This is the first step."))
        if to == room.step:  # back where the class is: follow it again
            self.become(attached=True)
            return self.full()
        self.become(attached=False, step=to)
        return [frames.text_frame(self.live.local_html(room, self.f))]

    def serve(self) -> None:
        """Send the room's state, then answer commands until the socket closes."""
        ch = self.ch
        for frame in self.full():
            ch.send_frame(frame)
        while True:
            raw = ch.receive()
            for frame in self.handle(raw):
                ch.send_frame(frame)
