"""What a tap saw: each client's session with the real server, as trace steps and a report card.

A tap sees every message of a session in both directions. Each goes to the session's
`SessionObserver` (app.mcp.observer), which says what it means as the engine's events and keeps
a mirror of the client as the wire shows it; the step is written by the engine's `Recorder`,
narrated from phrases.yaml by app.engine.observed (as the served server's own sessions are), and
the observation goes to the client's report card (app.tap.card). The server's side of a step's
state is what crossed: its serverInfo and capabilities, and the catalog as far as the client
holds it. A message the tap could not read (not JSON, too large) is forwarded all the same by
the relay and noted here as an internal step.

`TapLog` holds the sessions of one tap under one lock (the HTTP relay feeds it from a thread
per connection) and answers what the watch view asks of a served server: `summary`, `steps`
and a `revision` that grows with every step. At most MAX_SESSIONS sessions are kept, oldest
dropped; a session keeps at most MAX_STEPS steps (its card goes on counting).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.bounded_json import JsonRefused
from app.engine import observed
from app.engine.phrasebook import joined, text
from app.engine.recorder import Recorder, StepCap, session_state
from app.engine.step import ServerState, State, Step, Text
from app.mcp import versions
from app.mcp.framing import Frame
from app.mcp.host import Host, HostConfig
from app.mcp.jsonrpc import Message, RequestId
from app.mcp.lifecycle import ClientPhase
from app.mcp.observer import Observation, SessionObserver
from app.mcp.versions import Era
from app.probe.levels import Check
from app.serving.sessions import listing

from .card import ClientCard

__all__ = ["SERVER_ID", "TapLog", "TapSession", "Unread"]

SERVER_ID = "upstream"  # the real server's actor id in a tap's steps
MAX_STEPS = 2000
MAX_SESSIONS = 50


@dataclass(frozen=True)
class Unread:
    """Why the tap could not read a message it forwarded: a rule of the bounded JSON reader
    ("syntax", "size", "depth", "binary"), "type" (JSON, no object) or "line" (a stdio line
    longer than the bound), with the bound."""

    reason: str
    limit: int = 0

    @classmethod
    def refused(cls, exc: JsonRefused) -> Unread:
        return cls(exc.reason, exc.limit)

    @property
    def params(self) -> dict[str, Any]:
        return {"limit": self.limit}

    @property
    def english(self) -> str:
        return text(f"tap.why-{self.reason}", self.params)["en"]


class TapSession:
    """One client's session through the tap."""

    def __init__(self, key: str, transport: str, started_ms: int) -> None:
        self.key = key
        self.transport = transport  # "stdio", "streamable-http", "http+sse"
        self.started_ms = started_ms
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        self.observer = SessionObserver()
        self.recorder = Recorder(versions.LATEST, "stdio" if transport == "stdio" else "http")
        self.host = Host([SERVER_ID], HostConfig())
        self.console: list[Text] = []
        self.card = ClientCard()
        self.notes: list[str] = []  # messages forwarded unread
        self.full = False
        self.closed = False

    @property
    def steps(self) -> list[Step]:
        return self.recorder.trace

    @property
    def version(self) -> str | None:
        mirror = self.observer.mirror
        known = mirror.era is Era.MODERN or mirror.phase is ClientPhase.READY
        return mirror.version if known else None

    def state(self, now: int) -> State:
        mirror = self.observer.mirror
        tools = mirror.server_capabilities.get("tools")
        server: ServerState = {
            "name": str(mirror.server_info.get("name", SERVER_ID)),
            "phase": "real",
            "revision": mirror.cache.generation,
            "listChanged": isinstance(tools, dict) and bool(tools.get("listChanged")),
            "tools": list(mirror.cache.tools),
            "subscriptions": [],
        }
        client = mirror.snapshot(now)
        return session_state(SERVER_ID, server, client, self.console, now, self.host)

    def _write(self, seen: Observation, frame: Frame | None, now: int) -> None:
        mirror = self.observer.mirror
        self.console += observed.console_lines(seen, mirror)
        if self.full:
            return
        try:
            self.recorder.peer_message(
                SERVER_ID,
                seen.message,
                frame,
                self.state(now),
                from_client=seen.from_client,
                narration_text=observed.narrate(seen, mirror),
                events=seen.events,
                method=seen.answers,
                era=mirror.era.value,
                version=mirror.version,
            )
        except StepCap:
            self.full = True

    def message(self, from_client: bool, message: Message, frame: Frame | None, now: int) -> None:
        observer = self.observer
        seen = (
            observer.client_sent(message, now)
            if from_client
            else observer.server_sent(message, now)
        )
        self.card.see(seen, observer.mirror)
        self._write(seen, frame, now)

    def stream_closed(self, rid: RequestId, now: int) -> None:
        seen = self.observer.stream_closed(rid, now)
        if seen is not None:
            self.card.see(seen, self.observer.mirror)

    def unread(self, from_client: bool, unread: Unread, frame: Frame | None, now: int) -> None:
        """A message forwarded unchanged that the tap could not read: an internal step."""
        who = "client" if from_client else "server"
        if len(self.notes) < MAX_SESSIONS:
            self.notes.append(f"from the {who}: {unread.english}")
        if self.full:
            return
        said = joined(text(f"tap.unread-{who}"), text(f"tap.why-{unread.reason}", unread.params))
        actor = f"{who}:{SERVER_ID}"
        mirror = self.observer.mirror
        try:
            self.recorder.record(
                "internal",
                actor,
                actor,
                said,
                self.state(now),
                frame=frame,
                era=mirror.era.value,
                version=mirror.version,
            )
        except StepCap:
            self.full = True

    def end(self) -> None:
        """The client ended the session (closed stdin, DELETE, or its last stream)."""
        if not self.closed:
            self.closed = True
            self.card.ended(self.observer.mirror)

    def checks(self) -> list[Check]:
        return self.card.checks(self.observer.mirror)


class TapLog:
    """The sessions one tap has seen, under one lock."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream  # the server's command or URL, as the report names it
        self.lock = threading.RLock()
        self.sessions: OrderedDict[str, TapSession] = OrderedDict()
        self.aliases: dict[str, str] = {}  # a session id learnt later -> the session's key
        self.last_plain: str | None = None  # the newest session opened without a session id
        self.notes: list[str] = []  # what the tap could not read, beside any session
        self._modern: dict[str, int] = {}  # sessions begun so far per 2026 client name
        self.revision = 0
        self._started = time.monotonic()

    def now(self) -> int:
        return int((time.monotonic() - self._started) * 1000)

    def session(self, key: str, transport: str) -> TapSession:
        """The session under `key`, opened when first seen (call with the lock held)."""
        key = self.aliases.get(key, key)
        found = self.sessions.get(key)
        if found is None:
            if key.startswith("init:"):
                self.last_plain = key
            found = self.sessions[key] = TapSession(key, transport, self.now())
            while len(self.sessions) > MAX_SESSIONS:
                self.sessions.popitem(last=False)
        return found

    def message(
        self, key: str, transport: str, from_client: bool, message: Message, frame: Frame | None
    ) -> TapSession:
        with self.lock:
            session = self.session(key, transport)
            session.message(from_client, message, frame, self.now())
            self.revision += 1
            return session

    def unread(
        self, key: str, transport: str, from_client: bool, unread: Unread, frame: Frame | None
    ) -> None:
        with self.lock:
            self.session(key, transport).unread(from_client, unread, frame, self.now())
            self.revision += 1

    def modern_key(self, base: str, discover: bool) -> str:
        """The session of a 2026-07-28 client named `base` (stateless: its clientInfo is all
        that ties its requests together). A server/discover after the session has begun is a
        new client starting (the same program run again): a new session."""
        with self.lock:
            count = self._modern.get(base, 1)
            key = base if count == 1 else f"{base}#{count}"
            current = self.sessions.get(key)
            if discover and current is not None and current.steps:
                count += 1
                self._modern[base] = count
                key = f"{base}#{count}"
            return key

    def broken(self, why: str) -> None:
        """The tap stopped reading a stream (it still forwards it): said in the report."""
        with self.lock:
            if len(self.notes) < MAX_SESSIONS:
                self.notes.append(why)

    def alias(self, key: str, of: str) -> None:
        """The session `of` is known as `key` from now on (a session id its server gave it)."""
        with self.lock:
            self.aliases[key] = self.aliases.get(of, of)

    def stream_closed(self, key: str, rid: RequestId) -> None:
        with self.lock:
            found = self.sessions.get(self.aliases.get(key, key))
            if found is not None:
                found.stream_closed(rid, self.now())

    def end(self, key: str) -> None:
        with self.lock:
            found = self.sessions.get(self.aliases.get(key, key))
            if found is not None:
                found.end()

    # ----------------------------------------------------------------- what the watch view asks
    def summary(self) -> list[dict[str, Any]]:
        with self.lock:
            return [listing(s) for s in self.sessions.values()]

    def steps(self, key: str, since: int = 0) -> list[Step] | None:
        with self.lock:
            session = self.sessions.get(key)
            return None if session is None else list(session.steps[max(0, since) :])

    def server(self) -> dict[str, Any]:
        """The real server as the newest session has shown it."""
        with self.lock:
            for session in reversed(self.sessions.values()):
                info = session.observer.mirror.server_info
                if info:
                    return {"name": info.get("name", "?"), "version": info.get("version", "")}
            return {"name": self.upstream, "version": ""}
