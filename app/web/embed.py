"""The lesson for a course page: /embed/<id>, the viewer without the site around it.

`/embed/<id>` takes the viewer's query (step, version, transport, view, lang) and renders the
same lesson through the same partials and the same websocket, in `embed.html`: no masthead, no
library links, a body that is as tall as its content so the frame can be sized to it. Its
script (static/js/embed.js) reports to the parent page with postMessage, only to the origins of
LAB_FRAME_ANCESTORS and never to "*"; the CSP's frame-ancestors lets only those origins frame
it. The course page's side is static/js/mcp-lab-embed.js, documented in docs/EMBEDDING.md.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, make_response, render_template

from app.web.course import frame_origins
from app.web.pacer import Pacer
from app.web.pages import page_html
from app.web.viewer import _viewer

bp = Blueprint("embed", __name__)


@bp.get("/embed/<sid>")
def lesson(sid: str) -> Response:
    lab, v = current_app.extensions["lab"], _viewer(sid)
    try:
        html, status = page_html(lab, v, Pacer(), template="embed.html"), 200
    except Exception as exc:  # a scenario that cannot run says why, inside the frame
        current_app.logger.exception("scenario %s failed", sid)
        html, status = render_template("error.html", lang=v.lang, code=500, error=exc), 500
    return make_response(html, status)  # framing: frame-ancestors of app.web.security


@bp.app_context_processor
def embed_origins() -> dict[str, str]:
    """The origins an embedded lesson may post its events to, for the page's data attribute."""
    return {"embed_origins": " ".join(frame_origins(current_app.config))}
