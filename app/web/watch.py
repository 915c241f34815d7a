"""The live view of real sessions: a page of `mcp-lab serve` watching a served MCP server.

`mcp-lab mcp-server ... --transport http` records every client's session as trace steps while it
happens (app.serving.live) and serves them at /lab/sessions and /lab/steps. This page, /watch,
asks that server (only on a loopback address, so the lab never fetches from elsewhere) every two
seconds through htmx: each session with the client's clientInfo name and version, its protocol
version and transport, and its latest messages with the exact bytes that carried them. A button
applies the served server's next catalog change (/lab/change), so the room sees the
list_changed and the re-list arrive. "Open in the four views" copies the session so far into
the ordinary viewer (app.web.recorded), at its latest step.
"""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import quote, urlsplit

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from app.web import recorded
from app.web.i18n import select_locale

bp = Blueprint("watch", __name__)

LOOPBACK = ("127.0.0.1", "localhost", "::1")
SHOWN = 12  # latest messages listed per session


class Unreachable(Exception):
    pass


def served_url(value: str | None) -> str | None:
    """The served server's base URL if it is an http:// loopback address, else None."""
    if not value:
        return None
    parts = urlsplit(value.strip())
    if parts.scheme != "http" or parts.hostname not in LOOPBACK or parts.port is None:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"http://{host}:{parts.port}"


def _ask(base: str, path: str, method: str = "GET") -> Any:
    req = urllib.request.Request(base + path, method=method, data=b"" if method == "POST" else None)
    try:
        with urllib.request.urlopen(req, timeout=3) as response:
            return json.loads(response.read())
    except (OSError, ValueError, urllib.error.URLError) as exc:
        raise Unreachable(str(getattr(exc, "reason", exc))) from None


def _base() -> str:
    base = served_url(request.values.get("server") or current_app.config.get("WATCH_SERVER"))
    if base is None:
        abort(400)
    return base


@bp.get("/watch")
def page() -> str:
    lang = select_locale()
    given = request.args.get("server") or current_app.config.get("WATCH_SERVER") or ""
    return render_template(
        "watch.html",
        lang=lang,
        server=given,
        base=served_url(given),
        invalid=bool(given) and served_url(given) is None,
    )


@bp.get("/watch/sessions")
def sessions() -> str:
    lang = select_locale()
    base = _base()
    try:
        status = _ask(base, "/lab/status")
        listed = _ask(base, "/lab/sessions")
        latest = {
            s["id"]: (_ask(base, "/lab/steps?session=" + quote(s["id"])) or [])[-SHOWN:]
            for s in listed.get("sessions", [])
        }
    except Unreachable as exc:
        return render_template(
            "partials/_watch_sessions.html", lang=lang, error=str(exc), base=base
        )
    return render_template(
        "partials/_watch_sessions.html",
        lang=lang,
        error=None,
        base=base,
        status=status,
        sessions=listed.get("sessions", []),
        latest=latest,
    )


@bp.post("/watch/change")
def change() -> ResponseReturnValue:
    if not recorded.same_origin():
        abort(403)
    base = _base()
    lang = select_locale()
    with contextlib.suppress(Unreachable):  # the sessions region says it cannot be reached
        _ask(base, "/lab/change", "POST")
    return redirect(url_for("watch.page", server=base, lang=lang), 303)


@bp.get("/watch/open")
def open_session() -> ResponseReturnValue:
    base = _base()
    key = request.args.get("session", "")
    try:
        steps = _ask(base, "/lab/steps?session=" + quote(key))
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
