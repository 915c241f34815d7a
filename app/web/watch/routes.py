"""The watch view's URLs: /watch (the page), /watch/change and /watch/open, and /ws/watch.

/watch?server=URL[&session=ID][&step=N] renders the served server's sessions and, in the
viewer's four views, the one named (else the newest that has steps); the page then opens
/ws/watch with the same query (app.web.watch.socket). /watch/change is the change button's
path without JavaScript; /watch/open copies the session so far into the ordinary viewer.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any
from urllib.parse import quote

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from app.web import recorded, upgrade
from app.web.i18n import select_locale
from app.web.pacer import Pacer
from app.web.pages import page_html
from app.web.watch.client import Unreachable, ask, served_url
from app.web.watch.feed import Feed
from app.web.watch.render import WatchLab, sessions_html, viewer
from app.web.watch.socket import watch_socket

bp = Blueprint("watch", __name__)


def _base() -> str:
    base = served_url(request.values.get("server") or current_app.config.get("WATCH_SERVER"))
    if base is None:
        abort(400)
    return base


@bp.get("/watch")
def page() -> str:
    lang = select_locale()
    given = request.args.get("server") or current_app.config.get("WATCH_SERVER") or ""
    base = served_url(given)
    context: dict[str, Any] = {
        "server": given,
        "base": base,
        "invalid": bool(given) and base is None,
    }
    if base is None:
        return render_template("watch.html", lang=lang, **context)
    feed = Feed(base)
    error = ""
    try:
        feed.refresh()
        summary = feed.pick(request.args.get("session"))
        shown = feed.show(summary) if summary is not None else None
    except Unreachable as exc:
        error, shown = str(exc), None
    context["sessions_html"] = sessions_html(feed, shown, lang, error)
    if shown is None or not shown.steps:
        return render_template("watch.html", lang=lang, **context)
    lab = WatchLab(current_app.config, feed)
    v = viewer(shown, request.args, lang)
    return page_html(lab, v, Pacer(), template="watch.html", **context)


@bp.post("/watch/change")
def change() -> ResponseReturnValue:
    """The change button without JavaScript: apply the next change, then show the page again.
    (Only the lab's own page gets here: app.web.security guards every POST.)"""
    base = _base()
    lang = select_locale()
    with contextlib.suppress(Unreachable):  # the sessions region says it cannot be reached
        ask(base, "/lab/change", "POST")
    return redirect(url_for("watch.page", server=base, lang=lang), 303)


@bp.get("/watch/open")
def open_session() -> ResponseReturnValue:
    """A snapshot of the session so far in the ordinary viewer (to keep, download, hand out)."""
    base = _base()
    key = request.args.get("session", "")
    try:
        steps = ask(base, "/lab/steps?session=" + quote(key))
    except Unreachable:
        abort(502)
    if not isinstance(steps, list) or not steps:
        abort(404)
    data = "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in steps).encode()
    try:
        rec = recorded.recording(recorded.parse_trace(data), base)
    except recorded.TraceFileError:
        abort(502)
    recorded.add(current_app._get_current_object(), rec)  # type: ignore[attr-defined]
    lang = select_locale()
    return redirect(url_for("viewer.page", sid=rec.id, step=len(steps), lang=lang), 303)


# The socket's route sits on this blueprint so its URL keeps its name (watch.watch_socket),
# registered by call so the handler stays importable for tests (as app.web.socket does).
upgrade.route(bp, "/ws/watch")(watch_socket)
