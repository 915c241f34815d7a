"""Bodies a page loads when it shows them: what a socket's messages leave out to stay small.

A step's message over the socket carries a Transport log entry's summary, not its JSON-RPC
message and bytes; the Output view's tools array; a narration's term definitions. They are
kilobytes that never change for a given step and language, and that most followers of a
classroom never open, so the page asks for them by plain GET when they come into sight (htmx
`intersect`, or a disclosure's `toggle`). The answers are the same partial templates a first
paint inlines, cacheable like static files.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, current_app, make_response, render_template, request
from flask_babel import force_locale

from app.engine import glossary
from app.engine.step import Step
from app.web.i18n import select_locale
from app.web.render import open_viewer

bp = Blueprint("bodies", __name__)

MAX_TERMS = 40


def _cacheable(html: str) -> Response:
    response = make_response(html)
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


def _step(sid: str, index: int) -> tuple[Step, dict[str, Any] | None, str]:
    """The step `index` of the trace the query names, its schema badge and the language, or
    404."""
    lab = current_app.extensions["lab"]
    scenario = lab.scenario(sid)
    if scenario is None:
        abort(404)
    lang = select_locale()
    v = open_viewer(scenario, request.args, lang)
    trace = lab.trace(v.sid, v.version, v.transport)
    if not 0 <= index < len(trace):
        abort(404)
    badge = lab.checked(v.sid, v.version, v.transport).badges[index]
    return trace[index], badge, lang


@bp.get("/scenario/<sid>/frame/<int:index>")
def frame(sid: str, index: int) -> Response:
    """A Transport log entry's body: schema check, JSON-RPC message, bytes, HTTP answer."""
    step, badge, lang = _step(sid, index)
    with force_locale(lang):
        html = render_template("partials/_frame_body.html", lang=lang, s=step, badge=badge)
    return _cacheable(html)


@bp.get("/scenario/<sid>/tools/<int:index>")
def tools(sid: str, index: int) -> Response:
    """The tools array the next model request carries after step `index` (the Output view)."""
    step, _, lang = _step(sid, index)
    model: Any = step["state"].get("model") or {}
    listed = model["next"] if "next" in model else model.get("tools") or []
    with force_locale(lang):
        html = render_template("partials/_tools_json.html", lang=lang, tools=listed)
    return _cacheable(html)


@bp.get("/glossary/terms")
@bp.get("/scenario/<sid>/terms")  # the same, under a trace's address (a room's data-load)
def terms(sid: str = "") -> Response:
    """The definitions of the glossary terms named in `keys` (a narration's "Terms")."""
    lang = select_locale()
    keys = str(request.args.get("keys", ""))[:2000].split(",")[:MAX_TERMS]
    known = {e.key: e for e in glossary.entries()}
    found = [known[k] for k in keys if k in known]
    with force_locale(lang):
        html = render_template("partials/_term_list.html", lang=lang, found=found)
    return _cacheable(html)


@bp.get("/scenario/<sid>/part/<int:index>/<pid>")
def part(sid: str, index: int, pid: str) -> Response:
    """A part of the Transform, Output or Code view of step `index` that a room's message sent
    as a placeholder."""
    from app.web.pages import whole_part  # the renderer, which imports this module's routes

    lab = current_app.extensions["lab"]
    scenario = lab.scenario(sid)
    if scenario is None or len(pid) > 40:
        abort(404)
    v = open_viewer(scenario, request.args, select_locale())
    if not 0 <= index < len(lab.trace(v.sid, v.version, v.transport)):
        abort(404)
    html = whole_part(lab, v, index, ("panel-transform", "panel-output", "panel-code"), pid)
    if html is None:
        abort(404)
    return _cacheable(html)
