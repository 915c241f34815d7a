"""The viewer page and its partials over plain HTTP.

GET /scenario/<id>?step=N&view=&version=&transport=&lang= renders the whole viewer in exactly
that state (a deep link); N is the Nth step as displayed, counted from 1 like "Step N of M" (see
`render.url_step`). The page then opens its websocket with the same query. The same URL
asked by htmx (HX-Request), or /scenario/<id>/step, answers with only the step's fragments:
the bytes a socket would send, which is also how tests check the partials.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, render_template, request
from htmx_flask import request as hx_request

from app.web.i18n import select_locale
from app.web.pacer import Pacer
from app.web.render import Viewer, open_viewer, page_html, step_html

bp = Blueprint("viewer", __name__)


def _viewer(sid: str) -> Viewer:
    scenario = current_app.extensions["lab"].scenario(sid)
    if scenario is None:
        abort(404)
    return open_viewer(scenario, request.args, select_locale())


@bp.get("/scenario/<sid>")
def page(sid: str) -> str | tuple[str, int]:
    lab, v = current_app.extensions["lab"], _viewer(sid)
    try:
        if hx_request.htmx:
            return step_html(lab, v)
        return page_html(lab, v, Pacer())
    except Exception as exc:  # a scenario that cannot run says why; the server goes on
        current_app.logger.exception("scenario %s failed", sid)
        return render_template("error.html", lang=v.lang, code=500, error=exc), 500


@bp.get("/scenario/<sid>/step")
def step(sid: str) -> str:
    return step_html(current_app.extensions["lab"], _viewer(sid))


@bp.app_errorhandler(404)
def not_found(error: Exception) -> tuple[str, int]:
    lang = select_locale()
    return render_template("error.html", lang=lang, code=404, error=None), 404
