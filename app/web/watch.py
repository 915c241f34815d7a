"""The live view of real sessions: a page of `mcp-lab serve` watching a served MCP server.

`mcp-lab mcp-server ... --transport http` records every client's session as trace steps while it
happens (app.serving.sessions, through the engine's Recorder) and serves them as JSON on its own
loopback port (/lab/sessions, /lab/steps). This page, /watch?server=URL, shows them in the
viewer's own four views: the page is the viewer's `_lab.html` over a session, and its websocket
(/ws/watch) is the viewer's conversation (app.web.session: step, views, language, play) plus
two things of its own. It asks the served server every POLL_S seconds whether anything happened
(one small GET on loopback), fetches only the new steps, and while the student is at the newest
step pushes the next one as it comes (the step, the timeline, the list of sessions); a student
who stepped back stays where they are and End catches up. `{"command": "change"}` (the "Apply
the next change" button) asks the served server for its next catalog change (POST /lab/change),
so the room sees the change, the list_changed going out and the client listing again.

Why a websocket and not htmx polling of a fragment: the viewer's page already keeps one socket
whose fragments are swapped by id and whose every control (stepper, timeline, tabs, keyboard,
language) sends commands down it, so the live view is the same page with a socket that also
pushes; a polled fragment would have to rebuild those controls beside the socket.

Why `mcp-lab serve` serves the page and not the served server: the served server is an h11
shell around the sans-IO core that speaks MCP and a little JSON; templates, translations, the
CSP, the Origin check and the websocket live in the Flask app, and one lab can watch any served
server on this machine. Only http:// loopback addresses are watched, so the lab never fetches
from elsewhere. Several clients make several sessions, listed by their clientInfo; each is a
link (`session=`), and the newest is shown when none is named.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
import urllib.error
import urllib.request
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import force_locale, gettext
from simple_websocket import ConnectionClosed

from app.engine.step import Step, Text
from app.web import i18n, recorded, sock
from app.web.i18n import select_locale
from app.web.lab import Lab
from app.web.pacer import Pacer
from app.web.render import (
    Viewer,
    chrome_html,
    open_viewer,
    page_html,
    session_html,
    step_html,
    timeline_html,
)
from app.web.session import handle, tick

bp = Blueprint("watch", __name__)

LOOPBACK = ("127.0.0.1", "localhost", "::1")
POLL_S = 0.4  # how often an open page asks the served server whether anything happened
KEPT_FRAGMENTS = 64  # rendered fragments one page keeps (a live trace grows, so few repeat)
TRANSPORTS = {"streamable-http": "Streamable HTTP", "http+sse": "HTTP+SSE"}


class Unreachable(Exception):
    pass


def served_url(value: str | None) -> str | None:
    """The served server's base URL if it is an http:// loopback address, else None."""
    if not value:
        return None
    parts = urlsplit(value.strip())
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme != "http" or parts.hostname not in LOOPBACK or port is None:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"http://{host}:{port}"


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


# --------------------------------------------------------------------------- the feed


@dataclass
class WatchedSession:
    """One real client's session, as the viewer needs a scenario (like recorded.Recording).
    `watched` tells the shared partials to leave out what only a lesson has (course tools,
    the lesson summary) and to show the server's side in Transform."""

    id: str
    key: str
    title: Text
    summary: Text
    versions: list[str]
    transports: list[str]
    default_version: str
    steps: list[Step] = field(default_factory=list)
    goals: list[Text] = field(default_factory=list)
    topics: list[str] = field(default_factory=lambda: ["live"])
    misconceptions: list[Any] = field(default_factory=list)
    watched: bool = True
    server: str = ""
    client: str = ""  # the client's clientInfo, name and version, as the overview names it

    def link(self, **query: Any) -> str:
        """This session on the live view's page in another state (render.lab_url): the
        stepper's and timeline's hrefs, which /watch renders server-side."""
        return url_for("watch.page", server=self.server, session=self.key, **query)


def _texts(make: Callable[[], str]) -> Text:
    out = {}
    for lang in i18n.LANGUAGES:
        with force_locale(lang):
            out[lang] = make()
    return {"en": out["en"], "zh": out["zh"], "ru": out["ru"]}


class Feed:
    """What one page knows of a served server: its sessions and the steps of the one on show,
    fetched over loopback as they grow (only the new steps, each checked like a trace file)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.revision: int | None = None
        self.listed: dict[str, Any] = {}
        self.sessions: list[dict[str, Any]] = []
        self.shown: WatchedSession | None = None

    def refresh(self) -> bool:
        """Ask the served server what happened; whether anything did (raises Unreachable)."""
        listed = _ask(self.base, "/lab/sessions")
        if not isinstance(listed, dict) or not isinstance(listed.get("sessions"), list):
            raise Unreachable(gettext("the answer is not the lab's session list"))
        if listed.get("revision") == self.revision and self.revision is not None:
            return False
        self.revision = listed.get("revision")
        self.listed = listed
        self.sessions = [s for s in listed["sessions"] if isinstance(s, dict) and "id" in s]
        return True

    def pick(self, key: str | None) -> dict[str, Any] | None:
        """The session named `key`, else the newest one that has steps."""
        for s in self.sessions:
            if s["id"] == key:
                return s
        with_steps = [s for s in self.sessions if s.get("steps")]
        return with_steps[-1] if with_steps else None

    def show(self, summary: dict[str, Any]) -> WatchedSession:
        """The session `summary` names, its steps brought up to date."""
        key = str(summary["id"])
        if self.shown is None or self.shown.key != key:
            digest = hashlib.sha256(f"{self.base} {key}".encode()).hexdigest()[:12]
            self.shown = WatchedSession(f"watch-{digest}", key, *self._describe(summary))
            self.shown.server = self.base
        shown = self.shown
        have = len(shown.steps)
        if int(summary.get("steps") or 0) > have:
            path = f"/lab/steps?session={quote(key)}&since={have}"
            new = _ask(self.base, path)
            if not isinstance(new, list):
                raise Unreachable(gettext("the answer is not a list of steps"))
            for offset, step in enumerate(new):
                try:
                    recorded.check_step(step, have + offset)
                except recorded.TraceFileError as exc:
                    raise Unreachable(str(exc)) from None
                shown.steps.append(step)
        title, text, versions, transports, default = self._describe(summary)
        shown.title, shown.summary = title, text
        shown.versions, shown.transports, shown.default_version = versions, transports, default
        shown.client = str(summary.get("label") or "")
        return shown

    def _describe(self, s: dict[str, Any]) -> tuple[Text, Text, list[str], list[str], str]:
        server = self.listed.get("server") or {}
        name = f"{server.get('name', '?')} {server.get('version', '')}".strip()
        version = str(s.get("protocolVersion") or "?")
        label = str(s.get("label") or "?")
        transport = TRANSPORTS.get(str(s.get("transport")), str(s.get("transport")))
        title = _texts(
            lambda: gettext(
                "Live: %(client)s with %(server)s · %(version)s",
                client=label,
                server=name,
                version=version,
            )
        )
        summary = _texts(
            lambda: gettext(
                "A real client's session with the served server at %(url)s, shown as it "
                "happens: %(client)s speaks protocol version %(version)s over %(transport)s.",
                url=self.base,
                client=label,
                version=version,
                transport=transport,
            )
        )
        steps = self.shown.steps if self.shown is not None else []
        known = steps[-1]["protocolVersion"] if steps else version
        return title, summary, [known], ["http"], known


class WatchLab(Lab):
    """The viewer's Lab over one watched session: its trace is the session's steps so far, and
    fragments are cached by how long the trace was (a step's counter and timeline change as the
    session grows), a few only."""

    def __init__(self, config: Mapping[str, Any], feed: Feed) -> None:
        super().__init__(config)
        self.feed = feed
        self._kept: OrderedDict[Hashable, str] = OrderedDict()

    def scenario(self, sid: str) -> Any | None:
        shown = self.feed.shown
        return shown if shown is not None and shown.id == sid else None

    def trace(self, sid: str, version: str, transport: str) -> list[Step]:
        shown = self.feed.shown
        return list(shown.steps) if shown is not None else []

    def cached(self, key: Hashable, render: Callable[[], str]) -> str:
        shown = self.feed.shown
        key = (shown.key if shown else None, len(shown.steps) if shown else 0, key)
        html = self._kept.get(key)
        if html is None:
            html = self._kept[key] = render()
            while len(self._kept) > KEPT_FRAGMENTS:
                self._kept.popitem(last=False)
        return html


def _viewer(shown: WatchedSession, args: Mapping[str, Any], lang: str) -> Viewer:
    """A viewer of the session at the step its URL names (`step=N`, from 1, as the stepper's
    and timeline's links and a copied link give it), else at the newest step: a live page
    opened without one shows what is happening now, and follows it."""
    v = open_viewer(shown, args, lang)
    last = len(shown.steps) - 1
    v.step = min(v.step, last) if args.get("step") else last
    return v


def _sessions_html(feed: Feed, shown: WatchedSession | None, lang: str, error: str = "") -> str:
    with force_locale(lang):
        return render_template(
            "partials/_watch_sessions.html",
            lang=lang,
            base=feed.base,
            listed=feed.listed,
            sessions=feed.sessions,
            shown=shown.key if shown else None,
            error=error,
        )


def _what_changed(applied: Mapping[str, Any]) -> str:
    """+added -removed ~changed, as the served server's change reports them."""
    marks = (("+", "added"), ("-", "removed"), ("~", "changed"))
    parts = [f"{m}{n}" for m, key in marks for n in applied.get(key) or [] if isinstance(n, str)]
    return " ".join(parts) or gettext("no difference")


def _head_html(feed: Feed, shown: WatchedSession | None, lang: str, args: Mapping[str, Any]) -> str:
    """The page's header (served server, change control, sessions) in `lang`."""
    with force_locale(lang):
        return render_template(
            "partials/_watch_head.html",
            lang=lang,
            server=args.get("server") or feed.base,
            base=feed.base,
            invalid=False,
            has_lab=shown is not None,
            sessions_html=_sessions_html(feed, shown, lang),
        )


def _lab_html(lab: WatchLab, v: Viewer, pacer: Pacer) -> str:
    """The whole lab region for a session that appeared after the page was drawn."""
    return page_html(lab, v, pacer, template="partials/_watch_lab.html")


# --------------------------------------------------------------------------- HTTP


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
    context["sessions_html"] = _sessions_html(feed, shown, lang, error)
    if shown is None or not shown.steps:
        return render_template("watch.html", lang=lang, **context)
    lab = WatchLab(current_app.config, feed)
    v = _viewer(shown, request.args, lang)
    return page_html(lab, v, Pacer(), template="watch.html", **context)


@bp.post("/watch/change")
def change() -> ResponseReturnValue:
    """The change button without JavaScript: apply the next change, then show the page again."""
    if not recorded.same_origin():
        abort(403)
    base = _base()
    lang = select_locale()
    with contextlib.suppress(Unreachable):  # the sessions region says it cannot be reached
        _ask(base, "/lab/change", "POST")
    return redirect(url_for("watch.page", server=base, lang=lang), 303)


@bp.get("/watch/open")
def open_session() -> ResponseReturnValue:
    """A snapshot of the session so far in the ordinary viewer (to keep, download, hand out)."""
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


# --------------------------------------------------------------------------- the socket


class Watch:
    """One page's live conversation: the viewer's commands on the session on show, the change
    command, and what the served server reports between them."""

    def __init__(self, feed: Feed, args: Mapping[str, Any], lang: str, limit: int) -> None:
        self.feed = feed
        self.args = args
        self.lang = lang
        self.limit = limit
        self.key: str | None = args.get("session") or None
        self.lab = WatchLab(current_app.config, feed)
        self.pacer = Pacer(current_app.config["AUTOPLAY_MS"])
        self.v: Viewer | None = None
        self.titled: tuple[str, str] | None = None

    def poll(self, first: bool = False) -> list[str]:
        """The fragments the page needs after asking the served server (none when nothing
        happened): the sessions; the whole lab for a session it has not drawn; else, as the
        session grows, the newest step when the student is at the newest step (following), and
        the timeline either way."""
        before = self.feed.shown
        was_last = (
            self.v is not None and before is not None and self.v.step >= len(before.steps) - 1
        )
        try:
            if not self.feed.refresh() and not first:
                return []
            summary = self.feed.pick(self.key)
            had = (
                len(before.steps)
                if before is not None and summary is not None and before.key == summary["id"]
                else None
            )
            shown = self.feed.show(summary) if summary is not None else None
        except Unreachable as exc:
            return [_sessions_html(self.feed, self.feed.shown, self.lang, str(exc))]
        out = [_sessions_html(self.feed, shown, self.lang)]
        if shown is None or not shown.steps:
            return out
        if first or self.v is None or had is None:  # a session this page has not drawn yet
            self.key = shown.key
            self.v = _viewer(shown, self.args, self.lang)
            self.titled = (shown.title["en"], shown.default_version)
            return [*out, _lab_html(self.lab, self.v, self.pacer)]
        if (shown.title["en"], shown.default_version) != self.titled:  # the version is known now
            self.titled = (shown.title["en"], shown.default_version)
            out.append(chrome_html(self.lab, self.v))
        if len(shown.steps) > had:
            if was_last:
                self.v.step = len(shown.steps) - 1
                out.append(step_html(self.lab, self.v))
            out.append(timeline_html(self.lab, self.v))
        return out

    def change(self) -> list[str]:
        """Ask the served server for its next change, and follow the session to show it."""
        with force_locale(self.lang):
            try:
                applied = _ask(self.feed.base, "/lab/change", "POST")
                if not isinstance(applied, dict):
                    raise Unreachable(gettext("the answer is not the lab's session list"))
                alert = gettext(
                    "Change %(number)s applied: %(what)s",
                    number=applied.get("number"),
                    what=_what_changed(applied),
                )
            except Unreachable as exc:
                alert = gettext("The served server cannot be reached: %(why)s", why=str(exc))
        if self.v is not None and self.feed.shown is not None:
            self.v.step = len(self.feed.shown.steps) - 1  # at the newest step: what comes shows
        out = self.poll()
        if self.v is not None:
            out.append(session_html(self.v, self.pacer, alert=alert))
        return out

    def command(self, raw: Any) -> list[str]:
        """A command from the page: "change" here, any other the viewer's (app.web.session);
        a language switch also redraws the page's own header in that language."""
        parsed: Any = None
        if isinstance(raw, str) and len(raw) <= self.limit:
            with contextlib.suppress(ValueError, RecursionError):
                parsed = json.loads(raw)
        if isinstance(parsed, dict) and parsed.get("command") == "change":
            return self.change()
        if self.v is None:  # nothing on show yet: only the change makes sense
            return []
        out = handle(self.lab, self.v, self.pacer, raw, self.limit)
        if self.v.lang != self.lang:
            self.lang = self.v.lang
            out.append(_head_html(self.feed, self.feed.shown, self.lang, self.args))
        return out

    def converse(self, ws: Any) -> None:
        """Serve the page until it closes: commands as they come, a poll every POLL_S, and the
        player's steps when their time comes."""
        due: float | None = None
        try:
            for message in self.poll(first=True):
                ws.send(message)
            while True:
                now = time.monotonic()
                if self.pacer.playing and due is None:
                    due = now + (self.pacer.timeout() or POLL_S)
                if not self.pacer.playing:
                    due = None
                wait = POLL_S if due is None else max(0.0, min(POLL_S, due - now))
                raw = ws.receive(timeout=wait)
                if raw is not None:
                    messages = self.command(raw)
                else:
                    messages = self.poll()
                    if due is not None and time.monotonic() >= due and self.v is not None:
                        due = None
                        messages += tick(self.lab, self.v, self.pacer)
                for message in messages:
                    ws.send(message)
        except ConnectionClosed:
            return


def watch_socket(ws: Any) -> None:
    """Follow the served server the URL names until the page closes."""
    from app.web.socket import wire

    base = served_url(request.args.get("server") or current_app.config.get("WATCH_SERVER"))
    if base is None:
        ws.close(reason=1008, message="not a served server on this machine")
        return
    watch = Watch(
        Feed(base), request.args, i18n.select_locale(), current_app.config["WS_MAX_COMMAND"]
    )
    watch.converse(wire(ws))


sock.route("/ws/watch", bp=bp)(watch_socket)
