"""The instructor's pages beside the projector, and each student's own end of the lesson.

Contract: `/live/<code>/speaker` is the speaker view (instructor's devices only, 403 for anyone
else); `/live/<code>/results.json` gives the class results to the instructor as
{"questions": [{"step", "counts", "right", "rightShare", "topWrong"}]}; `/live/history` lists
the rooms this browser started, with their results.
"""

from __future__ import annotations

import time
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request

from app.web import i18n
from app.web.classroom import history, results, speaker
from app.web.classroom.room import Room
from app.web.classroom.routes import STUDENT, find_room, page_context
from app.web.classroom.service import Classroom
from app.web.classroom.socket import is_instructor

bp = Blueprint("classroom_pages", __name__)


def _live() -> Classroom:
    live: Classroom = current_app.extensions["classroom"]
    return live


def _instructor(code: str) -> Room:
    room = find_room(code)
    if not is_instructor(room):
        abort(403)
    return room


def _no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/live/<code>/speaker", endpoint="speaker")
def speaker_view(code: str) -> Any:
    room = find_room(code)
    lang = i18n.select_locale()
    if not is_instructor(room):
        return render_template("classroom/forbidden.html", lang=lang, room=room), 403
    if room.ended:
        shown = results.shown(_live(), room, lang)
        return render_template("classroom/results.html", lang=lang, room=room, results=shown)
    context = page_context(room, "instructor")
    live = _live()
    context |= {
        "controls": live.controls_html(room, lang),
        "students_html": live.students_html(live.store.present(room.code), lang),
    }
    return _no_store(Response(render_template("classroom/speaker.html", **context)))


@bp.get("/live/<code>/speaker/panel")
def speaker_panel(code: str) -> Any:
    room = _instructor(code)
    lang = i18n.select_locale()
    if room.ended:
        note = render_template("classroom/_ended_note.html", lang=lang, room=room)
        return _no_store(Response(note))
    context = speaker.context(_live(), room, lang)
    return _no_store(Response(render_template("classroom/_speaker.html", lang=lang, **context)))


@bp.get("/live/<code>/results.json")
def results_json(code: str) -> Any:
    room = _instructor(code)
    return _no_store(jsonify({"questions": results.questions(_live(), room)}))


@bp.get("/live/<code>/results")
def results_page(code: str) -> Any:
    return _results(code, "classroom/results.html")


@bp.get("/live/<code>/results/part")
def results_part(code: str) -> Any:
    """The results alone, for the projector's results screen."""
    return _results(code, "classroom/_results.html")


def _results(code: str, template: str) -> Response:
    room = _instructor(code)
    lang = i18n.select_locale()
    shown = results.shown(_live(), room, lang)
    return _no_store(Response(render_template(template, lang=lang, room=room, results=shown)))


@bp.get("/live/<code>/mine")
def mine(code: str) -> Any:
    """A student's own summary of the lesson (by their join cookie) and a link to go on alone."""
    room = find_room(code)
    lang = i18n.select_locale()
    voter = request.cookies.get(STUDENT, "")[:64]
    own = results.own(_live(), room, voter) if voter else None
    return _no_store(
        Response(render_template("classroom/_mine.html", lang=lang, room=room, own=own))
    )


@bp.get("/live/history")
def rooms_run() -> Any:
    lang = i18n.select_locale()
    owner = request.cookies.get(history.OWNER, "")
    live = _live()
    ran = history.rooms(live.ledger, owner) if owner else []
    for entry in ran:
        scenario = live.lab.scenario(str(entry.get("scenario", "")))
        entry["title"] = i18n.pick(scenario.title, lang) if scenario is not None else ""
        when = float(entry.get("created", 0) or 0)
        entry["when"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(when)) if when else ""
        entry["open"] = live.get(str(entry["code"])) is not None
    return _no_store(Response(render_template("classroom/history.html", lang=lang, rooms=ran)))
