"""A live socket: who is on it (instructor or student), and the loop that serves it.

The socket is the lab's one channel (app.web.channel, opened by `upgrade.route`); its tag is
a `Follower` (room, language, audience, and whether a student follows the class), which tells
the room's group sends (fanout.py) which frame it takes. The loop: send the room's state, then
answer every command (read by app.web.commands) while the channel writes, between commands,
the frames the room's group sends queued for it.

Commands are JSON objects. A student may browse the steps the class has reached ("detached"),
catch up, vote, pick a view or a language, and say which picture of the overview its page
displays; anything that would change the room is refused unless the socket carries the
instructor's cookie. The socket never learns or sends the
instructor's secret. A vote counts only from a student the room issued (its student cookie).

How a socket is closed tells its page what to do (static/js/classroom-link.js): 1013 while the
store is away (retry with backoff), 1008 "room is full" (retry a few times), 1008 "room ended"
(stop: the class is over, or the store lost the room).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from flask import Blueprint, current_app, request
from flask_babel import force_locale, gettext

from app.web import commands, i18n, upgrade
from app.web.channel import Channel
from app.web.classroom import codes, frames, pacing, timer
from app.web.classroom import room as rooms
from app.web.classroom.fanout import Follower
from app.web.classroom.payload import seat
from app.web.classroom.presence import ENDED, OUTAGE
from app.web.classroom.room import Room, RoomError
from app.web.classroom.store import StoreUnavailable, instructors_group, room_group
from app.web.commands import Refused
from app.web.overview import SHAPES
from app.web.render import VIEWS
from app.web.session import same_event

if TYPE_CHECKING:
    from app.web.classroom.service import Classroom

bp = Blueprint("classroom_socket", __name__)

FULL = "room is full"  # a close reason (1008): the room has as many students as it takes
DRIVING = {"poll_open", "poll_close", "reveal", "end", "version", "transport", "play", "speed"}
DRIVING |= {"pace", "gather"}


def instructor_cookie(code: str) -> str:
    return f"mcp-lab-teach-{code}"


def is_instructor(room: Room) -> bool:
    token = request.cookies.get(instructor_cookie(room.code))
    return any(codes.matches(token, digest) for digest in room.tokens)


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(value)
    return int(value)


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
            return self.drive(name, cmd)
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
            choice = _int(cmd.get("choice"))
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
            to = _int(cmd.get("step"))
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

    def drive(self, name: Any, cmd: dict[str, Any]) -> list[bytes]:
        """The instructor's commands: each is one atomic change of the room in the store."""
        live, code = self.live, self.f.code
        room = self.room()
        trace = live.lab.trace(room.scenario, room.version, room.transport)
        last = len(trace) - 1
        counts = live.poll_counts(room)
        now = time.time()
        if name in ("next", "prev", "goto", "reset"):
            to = {"next": room.step + 1, "prev": room.step - 1, "reset": 0}.get(name)
            if to is None:
                to = _int(cmd.get("step"))
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
            live.warm(moved, self.f.lang)
        elif name == "poll_open":
            checkpoint = live.checkpoint(room)
            if checkpoint is None:
                raise Refused(gettext("There is no question at this step."))
            n, answer = len(checkpoint.get("choices", [])), int(checkpoint.get("answer", 0))
            limit = timer.seconds(cmd.get("seconds") or 0)
            _was, opened = live.store.change(
                code, lambda r: rooms.open_poll(r, now, n, answer, limit)
            )
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

    def serve(self) -> None:
        """Send the room's state, then answer commands until the socket closes."""
        ch = self.ch
        for frame in self.full():
            ch.send_frame(frame)
        while True:
            raw = ch.receive()
            for frame in self.handle(raw):
                ch.send_frame(frame)


def classroom_socket(ch: Channel, code: str) -> None:
    live = current_app.extensions["classroom"]
    try:
        if not live.groups.listening:  # it would miss the room's steps: try again later
            raise StoreUnavailable("the group layer is not listening")
        room = live.get(codes.normalize(code))
        if room is None or room.ended:  # a page of a room that ended (or the store lost)
            ch.close(1008, ENDED)
            return
        audience = "instructor" if is_instructor(room) else "student"
        voter = codes.student_id(request.cookies.get(codes.STUDENT_COOKIE))
        if voter is not None and (audience != "student" or not live.store.known(room.code, voter)):
            voter = None  # an id this room never issued (or an instructor's browser) votes nothing
    except StoreUnavailable:
        current_app.logger.warning("live socket %s: the room store is unavailable", code[:12])
        ch.close(*OUTAGE)
        return
    lang = i18n.select_locale()
    asked = request.args.get("view", "")
    shape = request.args.get("shape", "")
    talk = Conversation(
        live,
        ch,
        Follower(room.code, lang, audience, shape=shape if shape in SHAPES else ""),
        asked if asked in VIEWS else "overview",
        voter,
    )
    groups = [room_group(room.code)]
    if audience == "instructor":
        groups.append(instructors_group(room.code))
    presence = live.presence
    try:
        seated = presence.enter(room.code, ch, audience, voter)
        if audience == "student" and seated > live.capacity:
            ch.close(1008, FULL)  # the page tries again a few times, then says to reload
            return
        for group in groups:
            live.groups.add(group, ch)
        live.warm(room, lang)
        talk.serve()
    except StoreUnavailable:
        current_app.logger.warning("live socket %s: the room store went away", room.code)
        ch.close(*OUTAGE)
    finally:
        for group in groups:
            live.groups.discard(group, ch)
        presence.leave(room.code, ch)


upgrade.route(bp, "/live/<code>/ws")(classroom_socket)
