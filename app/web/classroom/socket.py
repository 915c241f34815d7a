"""A live socket: who is on it (instructor or student), and its seat in the room.

The socket is the lab's one channel (app.web.channel, opened by `upgrade.route`). It is the
instructor's when it carries the cookie of one of the room's instructor devices, else a
student's; a student's vote counts only with a student cookie the room issued. It takes a seat
(presence.py), joins the room's groups, and is served by its `Conversation`
(conversation.py). The socket never learns or sends the instructor's secret.

How a socket is closed tells its page what to do (static/js/classroom-link.js): 1013 while the
store is away (retry with backoff), 1008 "room is full" (retry a few times), 1008 "room ended"
(stop: the class is over, or the store lost the room).
"""

from __future__ import annotations

from flask import Blueprint, current_app, request

from app.web import i18n, upgrade
from app.web.channel import Channel
from app.web.classroom import codes
from app.web.classroom.conversation import Conversation
from app.web.classroom.fanout import Follower
from app.web.classroom.presence import ENDED, OUTAGE
from app.web.classroom.room import Room
from app.web.classroom.store import StoreUnavailable, instructors_group, room_group
from app.web.overview import SHAPES
from app.web.render import VIEWS

bp = Blueprint("classroom_socket", __name__)

FULL = "room is full"  # a close reason (1008): the room has as many students as it takes


def instructor_cookie(code: str) -> str:
    return f"mcp-lab-teach-{code}"


def is_instructor(room: Room) -> bool:
    token = request.cookies.get(instructor_cookie(room.code))
    return any(codes.matches(token, digest) for digest in room.tokens)


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
        live.warm(room, lang, (audience,))  # its kind of page, not every kind
        talk.serve()
    except StoreUnavailable:
        current_app.logger.warning("live socket %s: the room store went away", room.code)
        ch.close(*OUTAGE)
    finally:
        for group in groups:
            live.groups.discard(group, ch)
        presence.leave(room.code, ch)


upgrade.route(bp, "/live/<code>/ws")(classroom_socket)
