"""The live classroom over HTTP: start a room, join it, present it, and its results.

Contract (course pages and scripts rely on it): `POST /live` with `scenario`, `version` and
`transport` creates a room and answers 303 to `/live/<code>/present`, setting the instructor's
cookie; `GET /join` is a form with one field, `code` (case, spaces and dashes forgiven), that
leads to `/live/<code>`, the student's view; an unknown code is said on the form itself.

The instructor's secret travels only in an HttpOnly, SameSite=Strict cookie scoped to the
room's path. A second instructor device is added with a one-time link, minted on request from
the present page and shown once; opening it sets the cookie there and the key is spent.
"""

from __future__ import annotations

import contextlib
import csv
import io
import time
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext
from werkzeug.wrappers import Response as BaseResponse

from app.web import i18n
from app.web.classroom import codes, history, roster
from app.web.classroom import results as class_results
from app.web.classroom import room as rooms
from app.web.classroom.fanout import Follower
from app.web.classroom.room import Room, RoomError
from app.web.classroom.service import Classroom
from app.web.classroom.socket import instructor_cookie, is_instructor
from app.web.classroom.store import StoreUnavailable
from app.web.render import VIEWS

bp = Blueprint("classroom", __name__)
STUDENT = codes.STUDENT_COOKIE


@bp.errorhandler(StoreUnavailable)
def _unavailable(exc: StoreUnavailable) -> tuple[str, int]:
    current_app.logger.warning("live: the room store is unavailable: %s", exc)
    lang = i18n.select_locale()
    page = render_template("classroom/unavailable.html", lang=lang, retry=request.method == "GET")
    return page, 503


def _live() -> Classroom:
    live: Classroom = current_app.extensions["classroom"]
    return live


def find_room(code: str) -> Room:
    """The room at `code` (404 if none; a code typed loosely redirects to its normal form)."""
    normal = codes.normalize(code)
    room = _live().get(normal)
    if room is None:  # ended and forgotten, lost by the store, or mistyped: say which room
        lang = i18n.select_locale()
        shown = normal or code[:20]
        abort(Response(render_template("classroom/gone.html", lang=lang, code=shown), 404))
    if normal != code:
        abort(redirect(url_for(request.endpoint or "classroom.student", code=normal), 308))
    return room


def _instructor_cookie(response: BaseResponse, room: Room, token: str) -> None:
    response.set_cookie(
        instructor_cookie(room.code),
        token,
        max_age=int(_live().store.idle),
        path=f"/live/{room.code}",
        httponly=True,
        samesite="Strict",
        secure=request.is_secure,
    )


@bp.post("/live")
def create() -> BaseResponse:
    lab = current_app.extensions["lab"]
    scenario = lab.scenario(str(request.values.get("scenario", "")))
    if scenario is None:
        abort(404)
    version = request.values.get("version", "")
    transport = request.values.get("transport", "")
    if version not in scenario.versions:
        version = getattr(scenario, "default_version", scenario.versions[-1])
    if transport not in scenario.transports:
        transport = scenario.transports[0]
    room, token = _live().create(scenario.id, version, transport)
    response = redirect(url_for("classroom.present", code=room.code), 303)
    _instructor_cookie(response, room, token)
    owner = request.cookies.get(history.OWNER) or history.new_owner()
    with contextlib.suppress(StoreUnavailable):
        started = {"code": room.code, "scenario": room.scenario, "version": version}
        history.started(_live().ledger, owner, started | {"transport": transport})
    response.set_cookie(
        history.OWNER,
        owner,
        max_age=history.KEEP_SECONDS,
        path="/live",
        httponly=True,
        samesite="Lax",
        secure=request.is_secure,
    )
    return response


@bp.get("/join")
def join() -> tuple[str, int] | BaseResponse:
    lang = i18n.select_locale()
    typed = request.args.get("code")
    if typed is None:
        return render_template("classroom/join.html", lang=lang, typed="", error=None), 200
    code = codes.normalize(typed)
    room = _live().get(code)
    if room is None:
        error = gettext("No room has the code %(code)s. Check it and try again.", code=typed[:20])
        nick = request.args.get("nick", "")[:24]
        context = {"typed": typed[:20], "error": error, "nick": nick}
        return render_template("classroom/join.html", lang=lang, **context), 404
    response = redirect(url_for("classroom.student", code=room.code))
    nick = roster.nickname(request.args.get("nick"))
    response.set_cookie(
        roster.NICK, nick, max_age=24 * 3600, path="/live", httponly=True, samesite="Lax"
    )
    return response


def page_context(room: Room, audience: str) -> dict[str, Any]:
    live = _live()
    lang = i18n.select_locale()
    view = request.args.get("view") if request.args.get("view") in VIEWS else "overview"
    f = Follower(room.code, lang, audience)
    counts = live.poll_counts(room) if audience == "instructor" else None
    c = live.cursor(room, lang, audience)
    return {
        "lang": lang,
        "room": room,
        "view": view,
        "scenario": live.lab.scenario(room.scenario),
        "regions": live.regions(room, c, counts),
        "views": VIEWS,
        "marker": live.full_html(room, f).split("</div>", 1)[0] + "</div>",
        "v": SimpleViewer(room),
    }


class SimpleViewer:
    """What the shared partials read of a viewer (`v.sid`, `v.version`, `v.transport`), and
    `v.scenario.link` for their links (render.lab_url): a live page's language links stay on
    the live page instead of leaving the room for the scenario's own viewer."""

    def __init__(self, room: Room) -> None:
        self.sid, self.version, self.transport = room.scenario, room.version, room.transport
        self.code = room.code
        self.scenario = self

    def link(self, **query: Any) -> str:
        lang = query.get("lang")
        endpoint = request.endpoint or "classroom.student"
        return url_for(endpoint, code=self.code, **({"lang": lang} if lang else {}))


def _ended(room: Room) -> tuple[str, int]:
    """The class has ended: this student's own summary, and the lesson to go on alone."""
    lang = i18n.select_locale()
    voter = request.cookies.get(STUDENT, "")[:64]
    own = class_results.own(_live(), room, voter) if voter else None
    return render_template("classroom/ended.html", lang=lang, room=room, own=own), 410


@bp.get("/live/<code>")
def student(code: str) -> Any:
    room = find_room(code)
    if room.ended:
        return _ended(room)
    live = _live()
    if live.store.present(room.code) >= live.capacity:
        return render_template("classroom/full.html", lang=i18n.select_locale(), room=room), 503
    context = page_context(room, "student")
    context["bar"] = live.bar_html(room, context["lang"], attached=True)
    context["clock"] = live.clock_html(room, context["lang"])
    response = Response(render_template("classroom/student.html", **context))
    student = codes.student_id(request.cookies.get(STUDENT))
    if student is None:
        student = codes.new_student()
        response.set_cookie(STUDENT, student, max_age=24 * 3600, httponly=True, samesite="Lax")
    # This browser is one of the room's students: it votes, and the roster names it by the
    # nickname given at /join (its cookie; none keeps the name it had).
    nick = request.cookies.get(roster.NICK)
    live.store.admit(room.code, student, None if nick is None else roster.nickname(nick))
    return response


@bp.get("/live/<code>/present")
def present(code: str) -> Any:
    room = find_room(code)
    if not is_instructor(room):
        lang = i18n.select_locale()
        return render_template("classroom/forbidden.html", lang=lang, room=room), 403
    if room.ended:
        return redirect(url_for("classroom_pages.results_page", code=room.code))
    live = _live()
    context = page_context(room, "instructor")
    lang = context["lang"]
    context |= {
        "qr": live.qr(room, lang),
        "join_page": live.public_url("classroom.join"),
        "unreachable": live.unreachable(),
        "join_url": live.join_url(room),
        "students": live.store.present(room.code),
        "controls": live.controls_html(room, lang),
        "students_html": live.students_html(live.store.present(room.code), lang),
    }
    return render_template("classroom/present.html", **context)


@bp.post("/live/<code>/device")
def device(code: str) -> Any:
    """Mint a one-time link that makes another device this room's instructor."""
    room = find_room(code)
    if not is_instructor(room):
        abort(403)
    key = codes.new_token()
    _live().store.change(
        room.code, lambda r: rooms.add_device_key(r, time.time(), codes.digest(key))
    )
    link = url_for("classroom.teach", code=room.code, key=key, _external=True)
    lang = i18n.select_locale()
    qr = codes.qr_svg(link, gettext("QR code of the instructor link"))
    response = Response(
        render_template("classroom/device.html", lang=lang, room=room, link=link, qr=qr)
    )
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/live/<code>/teach")
def teach(code: str) -> Any:
    """A one-time instructor link: spend the key, set this device's cookie, present."""
    room = find_room(code)
    key, token = request.args.get("key", ""), codes.new_token()
    try:
        _live().store.change(
            room.code, lambda r: rooms.use_device_key(r, codes.digest(key), codes.digest(token))
        )
    except RoomError:
        lang = i18n.select_locale()
        return render_template("classroom/forbidden.html", lang=lang, room=room, spent=True), 403
    response = redirect(url_for("classroom.present", code=room.code), 303)
    _instructor_cookie(response, room, token)
    return response


@bp.post("/live/<code>/end")
def end(code: str) -> Any:
    room = find_room(code)
    if not is_instructor(room):
        abort(403)
    live = _live()
    counts = live.poll_counts(room)
    with contextlib.suppress(RoomError):
        _, room = live.store.change(room.code, lambda r: rooms.end(r, time.time(), counts))
    owner = request.cookies.get(history.OWNER)
    if owner:
        with contextlib.suppress(StoreUnavailable):
            history.ended(live.ledger, owner, room.code, class_results.questions(live, room))
    return redirect(url_for("classroom_pages.results_page", code=room.code), 303)


@bp.get("/live/<code>/results.csv")
def results(code: str) -> Response:
    """Every poll of the room: one row per choice, with its votes (instructor only)."""
    room = find_room(code)
    if not is_instructor(room):
        abort(403)
    out = io.StringIO()
    class_results.write_csv(csv.writer(out), _live(), room, i18n.select_locale())
    response = Response(out.getvalue(), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="room-{room.code}.csv"'
    return response
