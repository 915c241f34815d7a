"""A watched session as the viewer needs a scenario, kept up to date from the served server.

`Feed` is what one page knows of a served server: its sessions (asked for by revision, so an
idle server costs one small GET) and the steps of the session on show, fetched only from where
the page left off and each checked like a trace file (`recorded.check_step`) before the
viewer sees it. `WatchedSession` carries those steps with the fields a scenario has, so the
viewer's templates render it as they render a lesson.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from flask import url_for
from flask_babel import force_locale, gettext

from app.engine.step import Step, Text
from app.web import i18n, recorded
from app.web.watch.client import Unreachable, ask

TRANSPORTS = {"streamable-http": "Streamable HTTP", "http+sse": "HTTP+SSE", "stdio": "stdio"}


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
        """This session on the watch page in another state (render.lab_url): the stepper's
        and timeline's hrefs, which /watch renders server-side."""
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
        listed = ask(self.base, "/lab/sessions")
        if not isinstance(listed, dict) or not isinstance(listed.get("sessions"), list):
            raise Unreachable(gettext("the answer is not the lab's session list"))
        if listed.get("revision") == self.revision and self.revision is not None:
            return False
        self.revision = listed.get("revision")
        self.listed = listed
        self.sessions = [s for s in listed["sessions"] if isinstance(s, dict) and "id" in s]
        found = newest(self.sessions)
        self.listed["newest"] = found["id"] if found is not None else None  # marked in the list
        return True

    def pick(self, key: str | None) -> dict[str, Any] | None:
        """The session named `key`, else the newest one (by when it started) that has steps."""
        for s in self.sessions:
            if s["id"] == key:
                return s
        with_steps = [s for s in self.sessions if s.get("steps")]
        return newest(with_steps)

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
            new = ask(self.base, path)
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
        wire = "stdio" if s.get("transport") == "stdio" else "http"
        return title, summary, [known], [wire], known


def newest(sessions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The session that started last (a served server and a tap say when: startedMs on their
    own clock); without that, the last listed."""
    if not sessions:
        return None
    started = [s for s in sessions if isinstance(s.get("startedMs"), int)]
    return max(started, key=lambda s: s["startedMs"]) if started else sessions[-1]
