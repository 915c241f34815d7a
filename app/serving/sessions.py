"""Each real client's session with a served server, recorded as trace steps while it happens.

`SessionLog.observe` is an endpoint observer: every `Exchange` (a message with the HTTP text that
carried it) goes to the session's `SessionObserver` (app.mcp.observer), which says what it means
as the engine's own events and keeps a mirror of the client as the wire shows it (the version
it negotiated, the walk of tools/list under way, the last complete list as its cache); the
step is written by the engine's `Recorder`, narrated by app.engine.observed from phrases.yaml,
so a live session is the very kind of step a scenario's trace is and the viewer's four views
show it. The lab's Host over the mirrored cache gives the host table and the tools a model
would be given; the console says what the server did: sessions opened, walks served whole,
changes applied, notifications sent.

A catalog change is an internal step in every open session. Sessions are keyed by conversation;
a modern client's stateless requests and its listen stream are one session, keyed by its
clientInfo. A session keeps at most MAX_STEPS steps (the recorder's cap) and at most
MAX_SESSIONS sessions are kept, oldest dropped. `revision` grows with every step recorded, so a
page can ask cheaply whether anything happened. Time is the log's own monotonic clock, given to
the observer with each message (the observer keeps none).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from app.engine import observed
from app.engine.recorder import Recorder, StepCap, session_state
from app.engine.step import ServerState, State, Step, Text
from app.mcp import versions
from app.mcp.framing import Frame
from app.mcp.host import Host, HostConfig
from app.mcp.lifecycle import ClientPhase
from app.mcp.observer import SessionObserver
from app.mcp.versions import Era

from .catalog import Change, ServedServer
from .conversations import Exchange

__all__ = ["Listed", "SessionLog", "listing"]

MAX_STEPS = 2000
MAX_SESSIONS = 50


@dataclass
class _Session:
    """One client's session: what its observer made of it, and the recorder of its steps."""

    key: str
    transport: str
    recorder: Recorder
    host: Host
    observer: SessionObserver = field(default_factory=SessionObserver)
    console: list[Text] = field(default_factory=list)
    full: bool = False  # the recorder reached its cap: later messages are not recorded
    started_ms: int = 0  # on the log's clock, so the newest session can be told
    started: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    @property
    def steps(self) -> list[Step]:
        return self.recorder.trace

    @property
    def version(self) -> str | None:
        """The session's version: a 2026 request names it; a legacy one is known once the
        server has answered initialize."""
        mirror = self.observer.mirror
        known = mirror.era is Era.MODERN or mirror.phase is ClientPhase.READY
        return mirror.version if known else None


class Listed(Protocol):
    """A recorded session as the watch view lists it (this log's, and a tap's)."""

    key: str
    transport: str
    started: str
    started_ms: int
    observer: SessionObserver

    @property
    def steps(self) -> list[Step]: ...

    @property
    def version(self) -> str | None: ...


def listing(s: Listed) -> dict[str, Any]:
    """One session of GET /lab/sessions: who, which version and transport, since when."""
    return {
        "id": s.key,
        "client": dict(s.observer.mirror.client_info),
        "label": observed.label(s.observer.mirror),
        "protocolVersion": s.version,
        "transport": s.transport,
        "steps": len(s.steps),
        "last": (s.steps[-1]["method"] if s.steps else None),
        "started": s.started,
        "startedMs": s.started_ms,
    }


class SessionLog:
    """The sessions of one served server, as steps."""

    def __init__(self, served: ServedServer):
        self.served = served
        self.sid = served.server_id
        self.sessions: OrderedDict[str, _Session] = OrderedDict()
        self._started = time.monotonic()
        self.revision = 0  # bumps on every new step, so a page can ask "anything new?"

    # ----------------------------------------------------------------- recording
    def _key(self, exchange: Exchange) -> str:
        if exchange.conversation == "stateless" or exchange.conversation.startswith("listen:"):
            name = exchange.client.get("name", "?")
            return f"modern:{name}/{exchange.client.get('version', '?')}"
        return exchange.conversation

    def _session(self, exchange: Exchange) -> _Session:
        key = self._key(exchange)
        session = self.sessions.get(key)
        if session is None:
            wire = "stdio" if exchange.transport == "stdio" else "http"
            recorder = Recorder(versions.LATEST, wire, max_steps=MAX_STEPS)
            host = Host([self.sid], HostConfig())
            session = _Session(key, exchange.transport, recorder, host, started_ms=self._now())
            self.sessions[key] = session
            while len(self.sessions) > MAX_SESSIONS:
                self.sessions.popitem(last=False)
        mirror = session.observer.mirror
        if exchange.client and not mirror.client_info:  # the transport knew it from before
            mirror.client_info = dict(exchange.client)
        return session

    def _now(self) -> int:
        return int((time.monotonic() - self._started) * 1000)

    def _state(self, session: _Session, now: int) -> State:
        server: ServerState = {
            "name": self.served.config.name,
            "phase": "serving",
            "revision": self.served.revision,
            "listChanged": self.served.config.list_changed,
            "tools": list(self.served.tools),
            "subscriptions": [],
        }
        client = session.observer.mirror.snapshot(now)
        return session_state(self.sid, server, client, session.console, now, session.host)

    def _record(self, session: _Session, write: Callable[[], Any]) -> None:
        if session.full:
            return
        try:
            write()
        except StepCap:
            session.full = True
            return
        self.revision += 1

    def observe(self, exchange: Exchange) -> None:
        session = self._session(exchange)
        now = self._now()
        observer, message = session.observer, exchange.message
        from_client = exchange.sender == "client"
        seen = (
            observer.client_sent(message, now)
            if from_client
            else observer.server_sent(message, now)
        )
        mirror = observer.mirror
        session.console += observed.console_lines(seen, mirror)
        wire = "stdio" if exchange.transport == "stdio" else "http"
        frame = Frame(wire, exchange.channel, exchange.frame) if exchange.frame else None
        self._record(
            session,
            lambda: session.recorder.peer_message(
                self.sid,
                message,
                frame,
                self._state(session, now),
                from_client=from_client,
                narration_text=observed.narrate(seen, mirror),
                events=seen.events,
                method=seen.answers,
                era=mirror.era.value,
                version=mirror.version,
            ),
        )

    def changed(self, change: Change) -> None:
        """A catalog change: one internal step in every session."""
        found = {"added": change.added, "removed": change.removed, "changed": change.changed}
        text = observed.narrate_change(found, self.served.config.list_changed)
        now = self._now()
        for session in self.sessions.values():
            session.console.append(observed.console_change(change.number, found))
            self._record(session, self._internal_step(session, text, now))
        self.revision += 1  # the count of changes applied moved, sessions or not

    def _internal_step(self, session: _Session, text: Text, now: int) -> Callable[[], Any]:
        """Writing a step on the server's side alone (a catalog change), for `_record`."""
        server_actor = f"server:{self.sid}"
        mirror = session.observer.mirror

        def write() -> Step:
            state = self._state(session, now)
            return session.recorder.record(
                "internal",
                server_actor,
                server_actor,
                text,
                state,
                era=mirror.era.value,
                version=mirror.version,
            )

        return write

    # ----------------------------------------------------------------- reading
    def summary(self) -> list[dict[str, Any]]:
        return [listing(s) for s in self.sessions.values()]

    def steps(self, key: str, since: int = 0) -> list[Step] | None:
        """The session's steps from index `since` on (all of them by default), or None."""
        session = self.sessions.get(key)
        return None if session is None else list(session.steps[max(0, since) :])
