"""The viewer page and its partials over plain HTTP.

GET /scenario/<id>?step=N&view=&version=&transport=&lang= renders the whole viewer in exactly
that state (a deep link); N is the Nth step as displayed, counted from 1 like "Step N of M" (see
`render.url_step`). The page then opens its websocket with the same query. The same URL
asked by htmx (HX-Request), or /scenario/<id>/step, answers with only the step's regions, whole,
as a first paint draws them (app.web.pages.step_html), which is also how tests check them.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, render_template, request
from flask.typing import ResponseReturnValue
from htmx_flask import request as hx_request

from app.web.i18n import select_locale
from app.web.pacer import Pacer
from app.web.pages import page_html, step_html
from app.web.render import Viewer, gate, open_viewer, url_step
from app.web.verbs import first_question
from app.web.whatif import routes as whatif
from app.web.whatif import state as whatif_state

bp = Blueprint("viewer", __name__)


def _viewer(sid: str) -> Viewer:
    """The viewer of this URL, moved back to the first open question before its `step=N`: a
    deep link never reads past a question (the answers a browser remembers come with the
    socket's URL, which then goes on to the step asked for)."""
    lab = current_app.extensions["lab"]
    whatif_state.reopen(lab, sid, request.args.get("whatif"))
    scenario = lab.scenario(sid)
    if scenario is None:
        abort(404)
    v = open_viewer(scenario, request.args, select_locale())
    wanted = min(v.step, len(lab.trace(v.sid, v.version, v.transport)) - 1)
    v.step = 0
    v.step = gate(lab, v, wanted)
    return v


def _stopped(v: Viewer) -> str:
    """The line that says a deep link stopped at a question, or ""."""
    return first_question() if v.step < url_step(request.args.get("step")) else ""


@bp.get("/scenario/<sid>")
def page(sid: str) -> ResponseReturnValue:
    lab = current_app.extensions["lab"]
    if lab.scenario(sid) is None:
        abort(404)
    try:
        if "whatif" in request.args and not hx_request.htmx:
            return whatif.viewer_page(sid)  # a what-if of this scenario (app.web.whatif)
        v = _viewer(sid)
        if hx_request.htmx:
            return step_html(lab, v)
        return page_html(lab, v, Pacer(), alert=_stopped(v), whatif_panel=whatif.base_panel(v))
    except Exception as exc:  # a scenario that cannot run says why; the server goes on
        current_app.logger.exception("scenario %s failed", sid)
        return render_template("error.html", lang=select_locale(), code=500, error=exc), 500


@bp.get("/scenario/<sid>/step")
def step(sid: str) -> str:
    return step_html(current_app.extensions["lab"], _viewer(sid))


@bp.app_errorhandler(404)
def not_found(error: Exception) -> tuple[str, int]:
    lang = select_locale()
    return render_template("error.html", lang=lang, code=404, error=None), 404
