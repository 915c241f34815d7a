"""The watch page's rendering: the viewer's Lab over a watched session, and the page's regions.

`WatchLab` is the viewer's `Lab` whose trace is the session so far. Its regions are the
viewer's (app.web.pages): keys come from the steps' data, so a part drawn for step 3 stays right
as the session grows, while a scene's drafts (whose counter and timeline depend on the trace's
length) are kept per length. Each step is checked once (its schema badge), the first time the
page needs it after it arrived. The page's own regions (its header, the sessions list, the
whole lab for a session that appeared after the page was drawn) are rendered here, so the
routes and the socket share them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar

from flask import render_template
from flask_babel import force_locale, gettext

from app.engine.step import Step
from app.web.lab import Checked, Lab, check
from app.web.pacer import Pacer
from app.web.pages import page_html
from app.web.render import Viewer, open_viewer
from app.web.watch.feed import Feed, WatchedSession

T = TypeVar("T")


class WatchLab(Lab):
    """The viewer's Lab over one watched session: its trace is the session's steps so far."""

    kept = 2_000_000  # characters of markup one page keeps

    def __init__(self, config: Mapping[str, Any], feed: Feed) -> None:
        super().__init__(config)
        self.feed = feed
        self._seen: tuple[str | None, Checked] = (None, check([]))

    def scenario(self, sid: str) -> Any | None:
        shown = self.feed.shown
        return shown if shown is not None and shown.id == sid else None

    def trace(self, sid: str, version: str, transport: str) -> list[Step]:
        shown = self.feed.shown
        return list(shown.steps) if shown is not None else []

    def checked(self, sid: str, version: str, transport: str) -> Checked:
        """The session's steps checked, each once: those that arrived since are checked now."""
        shown = self.feed.shown
        steps = shown.steps if shown is not None else []
        key = shown.key if shown is not None else None
        seen_key, seen = self._seen
        if seen_key != key or len(seen.badges) > len(steps):
            seen = check([])
        if len(seen.badges) < len(steps):
            seen = seen.extend(steps)
        self._seen = (key, seen)
        return seen

    def remember(self, key: Hashable, make: Callable[[], T]) -> T:
        """A scene's drafts, kept per length of the session (its counter and timeline grow)."""
        shown = self.feed.shown
        return super().remember((len(shown.steps) if shown else 0, key), make)


def viewer(shown: WatchedSession, args: Mapping[str, Any], lang: str) -> Viewer:
    """A viewer of the session at the step its URL names (`step=N`, from 1, as the stepper's
    and timeline's links and a copied link give it), else at the newest step: a live page
    opened without one shows what is happening now, and follows it."""
    v = open_viewer(shown, args, lang)
    last = len(shown.steps) - 1
    v.step = min(v.step, last) if args.get("step") else last
    return v


def sessions_html(feed: Feed, shown: WatchedSession | None, lang: str, error: str = "") -> str:
    """The list of the served server's sessions, the one on show marked, in `lang`."""
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


def what_changed(applied: Mapping[str, Any]) -> str:
    """+added -removed ~changed, as the served server's change reports them."""
    marks = (("+", "added"), ("-", "removed"), ("~", "changed"))
    parts = [f"{m}{n}" for m, key in marks for n in applied.get(key) or [] if isinstance(n, str)]
    return " ".join(parts) or gettext("no difference")


def head_html(feed: Feed, shown: WatchedSession | None, lang: str, args: Mapping[str, Any]) -> str:
    """The page's header (served server, change control, sessions) in `lang`."""
    with force_locale(lang):
        return render_template(
            "partials/_watch_head.html",
            lang=lang,
            server=args.get("server") or feed.base,
            base=feed.base,
            invalid=False,
            has_lab=shown is not None,
            sessions_html=sessions_html(feed, shown, lang),
        )


def lab_html(lab: WatchLab, v: Viewer, pacer: Pacer) -> str:
    """The whole lab region for a session that appeared after the page was drawn."""
    return page_html(lab, v, pacer, template="partials/_watch_lab.html")
