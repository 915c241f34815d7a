"""A live socket: who is on it (instructor or student), and the loop that serves it.

The route builds simple-websocket's Server itself, as flask-sock does, for two reasons: the
handshake must not offer permessage-deflate (a compressed stream cannot take the shared,
pre-encoded frames of fanout.py), and the Server's wake-up event is the follower's own bell,
so one wait serves both directions: a command arriving and a frame queued by the relay.

The loop: wait for the bell, write every queued frame (the delta or, detached, the notice),
then carry out every command that came in. Commands are JSON objects. A student may browse
the steps the class has reached ("detached"), catch up, vote, and pick a view or a language;
anything that would change the room is refused unless the socket carries the instructor's
cookie. The socket never learns or sends the instructor's secret.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import time
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, current_app, request
from flask_babel import force_locale, gettext
from simple_websocket import ConnectionClosed, Server

from app.web import i18n
from app.web.classroom import codes, frames
from app.web.classroom import room as rooms
from app.web.classroom.fanout import CLOSE, Follower
from app.web.classroom.room import Room, RoomError
from app.web.classroom.store import StoreUnavailable
from app.web.render import VIEWS
from app.web.session import same_event

if TYPE_CHECKING:
    from app.web.classroom.service import Classroom

bp = Blueprint("classroom_socket", __name__)

DRIVING = {"poll_open", "poll_close", "reveal", "end", "version", "transport", "play", "speed"}
PING_EVERY = 25.0


def instructor_cookie(code: str) -> str:
    return f"mcp-lab-teach-{code}"


def is_instructor(room: Room) -> bool:
    token = request.cookies.get(instructor_cookie(room.code))
    return any(codes.matches(token, digest) for digest in room.tokens)


class Refused(Exception):
    pass


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
    """The commands of one live socket; `handle` returns the frames to write back."""

    def __init__(self, live: Classroom, f: Follower, view: str) -> None:
        self.live = live
        self.f = f
        self.view = view

    def room(self) -> Room:
        room = self.live.get(self.f.code)
        if room is None:
            raise Refused(gettext("This room has expired."))
        return room

    def full(self) -> list[bytes]:
        return [self.live.full_frame(self.room(), self.f)]

    def handle(self, raw: Any) -> list[bytes]:
        f = self.f
        with force_locale(f.lang):
            try:
                if not isinstance(raw, str) or len(raw) > current_app.config["WS_MAX_COMMAND"]:
                    raise Refused(gettext("Commands must be small JSON text frames."))
                cmd = json.loads(raw)
                if not isinstance(cmd, dict):
                    raise Refused(gettext("A command must be a JSON object."))
                return self.apply(cmd)
            except Refused as exc:
                return [_alert(self.live, f.lang, str(exc))]
            except StoreUnavailable:
                return [
                    _alert(
                        self.live,
                        f.lang,
                        gettext("The classroom service is not answering. Try again in a moment."),
                    )
                ]
            except RoomError:
                return [_alert(self.live, f.lang, gettext("The room cannot do that now."))]
            except json.JSONDecodeError:
                return [_alert(self.live, f.lang, gettext("That command is not valid JSON."))]
            except (ValueError, TypeError, KeyError):
                return [_alert(self.live, f.lang, gettext("Bad value in that command."))]

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
        if name == "language":
            lang = i18n.valid(cmd.get("lang"))
            if lang is None:
                raise ValueError(cmd.get("lang"))
            f.lang = lang
            return self.page()
        if f.audience == "instructor":
            return self.drive(name, cmd)
        if name in DRIVING or name not in {"next", "prev", "goto", "reset", "catchup", "answer"}:
            if name in DRIVING:
                raise Refused(gettext("Only the instructor can do that."))
            raise Refused(gettext("Unknown command: %(name)s", name=str(name)[:40]))
        return self.browse(name, cmd)

    def page(self) -> list[bytes]:
        room = self.room()
        if self.f.audience == "student" and not self.f.attached:
            return [frames.text_frame(self.live.local_html(room, self.f)), *self.full()]
        return self.full()

    def browse(self, name: str, cmd: dict[str, Any]) -> list[bytes]:
        """A student's own moves: within the steps the class has reached, and voting."""
        f, room = self.f, self.room()
        if name == "answer":
            poll = room.poll
            if poll is None or poll.step != room.step or poll.phase != "open":
                raise Refused(gettext("The poll is not open."))
            choice = _int(cmd.get("choice"))
            if not 0 <= choice < poll.choices:
                raise ValueError(choice)
            self.live.store.vote(room.code, poll.id, f.voter, choice, poll.choices)
            html = self.live._render(
                "classroom/_voted.html", f.lang, poll_id=poll.id, choice=choice
            )
            return [_local(html)]
        if name == "catchup":
            f.attached = True
            return self.full()
        here = room.step if f.attached else f.step
        to = {"next": here + 1, "prev": here - 1, "reset": 0}.get(name)
        if to is None:
            to = _int(cmd.get("step"))
        if to > room.step:
            raise Refused(gettext("The class has not got there yet."))
        if to < 0:
            raise Refused(gettext("This is the first step."))
        if to == room.step:  # back where the class is: follow it again
            f.attached = True
            return self.full()
        f.attached, f.step = False, to
        return [frames.text_frame(self.live.local_html(room, f))]

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
            live.store.change(code, lambda r: rooms.open_poll(r, now, n, answer))
        elif name == "poll_close":
            live.store.change(code, lambda r: rooms.close_poll(r, now, counts))
        elif name == "reveal":
            if live.checkpoint(room) is None:
                raise Refused(gettext("There is no question at this step."))
            live.store.change(code, lambda r: rooms.reveal(r, now, counts))
        elif name == "end":
            live.store.change(code, lambda r: rooms.end(r, now, counts))
        elif name in ("answer", "catchup", "play", "pause", "speed"):
            return []
        else:
            raise Refused(gettext("Unknown command: %(name)s", name=str(name)[:40]))
        return []


def serve(ws: Any, f: Follower, talk: Conversation) -> None:
    """Write queued frames and carry out commands until the socket closes or is dropped.

    Every write holds `f.writing`, so the relay's own direct writes (Follower.offer) never
    interleave with the handler's, and a frame queued before is always written first.
    """
    sock = f.sock
    # No local may keep a frame once written: this function's frame lives as long as the
    # socket, and a whole-state frame is tens of kilobytes per follower.
    with f.writing:
        sock.sendall(b"".join(talk.full()))
    idle_since = time.monotonic()
    while True:
        woke = f.bell.wait(timeout=PING_EVERY)
        f.bell.clear()
        if f.dropped:
            return
        if _write_pending(ws, f):
            return
        while ws.input_buffer:
            answers = b"".join(talk.handle(ws.input_buffer.pop(0)))
            with f.writing:
                sock.sendall(answers)
            del answers
        if not ws.connected:
            return
        if not woke and time.monotonic() - idle_since >= PING_EVERY:
            with f.writing:
                sock.sendall(frames.PING)
        idle_since = time.monotonic()


def _write_pending(ws: Any, f: Follower) -> bool:
    """Write the follower's queue and pending counts; True when the room has ended."""
    with f.writing:
        while f.frames:
            item = f.frames.popleft()
            if item is CLOSE:
                ws.close(reason=1000, message="room ended")
                return True
            f.sock.sendall(f.pick(item))
        for make in f.take_latest():
            f.sock.sendall(make())
    return False


def classroom_socket(code: str) -> Response:
    live = current_app.extensions["classroom"]
    try:
        room = live.get(codes.normalize(code))
    except StoreUnavailable:
        current_app.logger.warning("live socket %s: the room store is unavailable", code[:12])
        room = None
    instructor = room is not None and is_instructor(room)
    lang = i18n.select_locale()
    asked = request.args.get("view", "")
    view = asked if asked in VIEWS else "overview"
    voter = request.cookies.get("mcp-lab-student") or secrets.token_hex(8)
    f = Follower(
        code=room.code if room else "",
        lang=lang,
        audience="instructor" if instructor else "student",
        voter=voter[:64],
        limit=int(current_app.config.get("LIVE_QUEUE", 16)),
    )
    # No permessage-deflate: the fan-out writes the same uncompressed frame to every socket.
    # (in place: the Server keeps the environ it is given, and a copy would be one more
    # dict per socket for as long as it is open)
    environ = request.environ
    environ.pop("HTTP_SEC_WEBSOCKET_EXTENSIONS", None)
    options = dict(current_app.config.get("SOCK_SERVER_OPTIONS", {}))
    options.pop("ping_interval", None)
    ws = Server(environ, event_class=lambda: f.bell, **options)
    f.sock = ws.sock
    counted = False
    try:
        if room is None or room.ended:
            ws.close(reason=1008, message="no such room")
        else:
            if f.audience == "student":
                counted = True
                if live.store.present(room.code, +1) > live.capacity:
                    ws.close(reason=1013, message="room is full")
                    return _done(ws)
            live.hub.add(f)
            live.warm(room, f.lang)
            serve(ws, f, Conversation(live, f, view))
    except (ConnectionClosed, OSError):
        pass
    except StoreUnavailable:
        current_app.logger.warning("live socket %s: the room store went away", f.code)
    finally:
        live.hub.remove(f)
        if counted:
            with contextlib.suppress(StoreUnavailable):  # the count expires with the room
                live.store.present(f.code, -1)
    return _done(ws)


def _done(ws: Any) -> Response:
    with contextlib.suppress(Exception):  # already closed
        ws.close()

    class WebSocketResponse(Response):  # as flask-sock ends a websocket request
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            if ws.mode == "gunicorn":
                raise StopIteration()
            if ws.mode == "werkzeug":
                return super().__call__(*args, **kwargs)
            return []

    return WebSocketResponse()


bp.add_url_rule("/live/<code>/ws", view_func=classroom_socket, websocket=True)
