"""One watch page's live conversation on /ws/watch.

The socket is the viewer's conversation (app.web.session: step, views, language, play) plus two
things of its own. It asks the served server every POLL_S seconds whether anything happened
(one small GET on loopback), fetches only the new steps, and while the student is at the newest
step pushes the next one as it comes (the step, the timeline, the list of sessions); a student
who stepped back stays where they are and End catches up. `{"command": "change"}` (the "Apply
the next change" button) asks the served server for its next catalog change (POST /lab/change),
so the room sees the change, the list_changed going out and the client listing again.

Why a websocket and not htmx polling of a fragment: the viewer's page already keeps one socket
whose fragments are swapped by id and whose every control (stepper, timeline, tabs, keyboard,
language) sends commands down it, so the watch view is the same page with a socket that also
pushes; a polled fragment would have to rebuild those controls beside the socket.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from flask import current_app, render_template, request
from flask_babel import force_locale, gettext

from app.web import commands, i18n
from app.web.channel import Channel, Closed
from app.web.pacer import Pacer
from app.web.pages import frame
from app.web.render import Viewer
from app.web.session import AGAIN, apply, tick
from app.web.watch.client import Unreachable, ask, served_url
from app.web.watch.feed import Feed
from app.web.watch.render import WatchLab, head_html, lab_html, sessions_html, viewer, what_changed

POLL_S = 0.4  # how often an open page asks the served server whether anything happened


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
            return [sessions_html(self.feed, self.feed.shown, self.lang, str(exc))]
        out = [sessions_html(self.feed, shown, self.lang)]
        if shown is None or not shown.steps:
            return out
        if first or self.v is None or had is None:  # a session this page has not drawn yet
            self.key = shown.key
            self.v = viewer(shown, self.args, self.lang)
            return [*out, lab_html(self.lab, self.v, self.pacer)]
        if len(shown.steps) > had and was_last:
            self.v.step = len(shown.steps) - 1
        # what changed: the new step if followed, the timeline's marks, the title and version;
        # the alert line stays (what the student's last command was told, as the change)
        return [*out, *self._frame(None)]

    def change(self) -> list[str]:
        """Ask the served server for its next change, and follow the session to show it."""
        with force_locale(self.lang):
            try:
                applied = ask(self.feed.base, "/lab/change", "POST")
                if not isinstance(applied, dict):
                    raise Unreachable(gettext("the answer is not the lab's session list"))
                alert = gettext(
                    "Change %(number)s applied: %(what)s",
                    number=applied.get("number"),
                    what=what_changed(applied),
                )
            except Unreachable as exc:
                alert = gettext("The served server cannot be reached: %(why)s", why=str(exc))
        if self.v is not None and self.feed.shown is not None:
            self.v.step = len(self.feed.shown.steps) - 1  # at the newest step: what comes shows
        out = self.poll()
        return [*out, *self._frame(alert)]

    def command(self, raw: Any) -> list[str]:
        """A command from the page, read by the lab's one reader (app.web.commands): "change"
        here, any other the viewer's (app.web.session); a refused one is an alert."""
        with force_locale(self.lang):
            return commands.answer(raw, self.limit, self.apply, self.alert, current_app.logger)

    def apply(self, cmd: dict[str, Any]) -> list[str]:
        """Carry out one command; a language switch also redraws the page's own header."""
        if cmd["command"] == "change":
            return self.change()
        if self.v is None:  # nothing on show yet: only the change makes sense
            raise commands.Refused(gettext("No session is on show yet."))
        with force_locale(self.v.lang):
            said = apply(self.lab, self.v, self.pacer, cmd)
            out = self._frame(said, AGAIN.get(cmd["command"], ()))
        if self.v.lang != self.lang:
            self.lang = self.v.lang
            out.append(head_html(self.feed, self.feed.shown, self.lang, self.args))
        return out

    def alert(self, text: str) -> str:
        if self.v is None:  # no lab drawn yet: the alert on its own
            return render_template("partials/_alert.html", alert=text)
        return frame(self.lab, self.v, self.pacer, text)

    def _frame(self, alert: str | None = "", again: tuple[str, ...] = ()) -> list[str]:
        """What the page lacks of the session on show (app.web.pages.frame), if anything."""
        if self.v is None:
            return []
        html = frame(self.lab, self.v, self.pacer, alert, again)
        return [html] if html else []

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
        except Closed:
            return


def watch_socket(ch: Channel) -> None:
    """Follow the served server the URL names until the page closes."""
    base = served_url(request.args.get("server") or current_app.config.get("WATCH_SERVER"))
    if base is None:
        ch.close(1008, "not a served server on this machine")
        return
    watch = Watch(
        Feed(base), request.args, i18n.select_locale(), current_app.config["WS_MAX_COMMAND"]
    )
    watch.converse(ch)
