"""One probe run: the lab's client against a real server, in one version, recorded twice.

A run is one fresh conversation (a new child process on stdio, a new session over HTTP): the
client opens it (initialize, or server/discover and a listen stream in 2026-07-28), gathers
every page of tools/list, then sends one tools/list with a cursor the server never issued. The
run is recorded as a `Session` for the checks, and as trace steps for `--trace` by the engine's
own Recorder (app.engine.recorder), so a probe's trace is the very kind of step a scenario's is
and the viewer shows it unchanged. A step's state is what the probe can know of a real server:
its serverInfo and capabilities, and the catalog as far as the client's cache holds it; the
clock is the run's wall time since it began.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from app.engine import narration
from app.engine.recorder import Recorder, session_state
from app.engine.step import ServerState, State, Step, Text
from app.mcp import jsonrpc, versions
from app.mcp.client import ClientConfig, ClientPhase, Event, MCPClient, Output
from app.mcp.clock import Clock
from app.mcp.framing import Frame
from app.mcp.host import Host, HostConfig
from app.mcp.jsonrpc import Message

from .checks import INVALID_CURSOR, Session, grade
from .http_peer import HttpPeer
from .peers import Peer, PeerGone
from .report import Run

__all__ = ["SERVER_ID", "Driver"]

SERVER_ID = "target"


class _WallClock(Clock):
    def now_ms(self) -> int:
        return int(time.monotonic() * 1000)


class _Timeout(Exception):
    pass


class Driver:
    """One run: the client, the peer and both recordings."""

    def __init__(self, peer: Peer, version: str, timeout: float):
        self.peer = peer
        self.timeout = timeout
        self.client = MCPClient(
            ClientConfig(
                server_id=SERVER_ID,
                protocol_version=version,
                name="mcp-lab-probe",
                title="MCP Discovery Lab probe",
                http=peer.transport == "http",
            ),
            _WallClock(),
        )
        self.session = Session(peer.transport, version)
        self.recorder = Recorder(version, peer.transport)
        self.host = Host([SERVER_ID], HostConfig())
        self.console: list[Text] = []  # the agent console: one line per client event it reports
        self.started = time.monotonic()
        self.events: list[Event] = []
        self._asked: dict[Any, str] = {}

    def state(self) -> State:
        """What the probe knows after a message: the client, and the server as it has shown
        itself (its serverInfo, its listChanged, the catalog as far as the cache holds it)."""
        c = self.client
        info = c.server_info or {}
        tools = (c.server_capabilities.get("tools") or {}) if c.server_capabilities else {}
        server: ServerState = {
            "name": str(info.get("name", SERVER_ID)),
            "phase": "real",
            "revision": c.cache.generation,
            "listChanged": bool(tools.get("listChanged")),
            "tools": list(c.cache.tools),
            "subscriptions": [str(c.listen_id)] if c.listening else [],
        }
        clock = int((time.monotonic() - self.started) * 1000)
        return session_state(SERVER_ID, server, c.snapshot(), self.console, clock, self.host)

    def send(self, out: Output, *, host_started: bool = False) -> None:
        self.events += out.events
        carried = list(out.events) if host_started else []  # what the host's call did
        for message in out.messages:
            if "method" in message and "id" in message:
                self._asked[message["id"]] = message["method"]
            if message.get("method") == "subscriptions/listen":
                self.session.listen_asked = True
            sent = self.peer.send(message)
            self.session.wire.append(("client", message))
            frame = Frame(self.peer.transport, sent.channel, sent.frame, sent.reply)
            self.recorder.client_message(
                SERVER_ID, message, frame, self.client, carried, self.state()
            )
            carried = []

    def pump(self, done: Callable[[], bool]) -> None:
        deadline = time.monotonic() + self.timeout
        while not done():
            left = deadline - time.monotonic()
            got = self.peer.receive(max(0.0, left))
            if got is None:
                raise _Timeout(f"no answer within {self.timeout:g} s")
            self._observe(got.message)
            c = self.client
            # What the recorder needs from before the client reads the message.
            in_gather = c.gathering.generation if c.gathering else None
            rid = got.message.get("id")
            answers = None if "method" in got.message or rid is None else c.method_of(rid)
            era, version = c.era.value, c.version
            try:
                out = c.receive(got.message)
            except jsonrpc.ProtocolError as exc:
                self.session.failure = f"the server sent an invalid message: {exc}"
                out = Output()
            if not got.synthesized:
                self.session.wire.append(("server", got.message))
            self.events += out.events
            for event in out.events:
                line = narration.console_line(SERVER_ID, event)
                if line:
                    self.console.append(line)
            self.recorder.server_message(
                SERVER_ID,
                got.message,
                Frame(self.peer.transport, got.channel, got.frame),
                c,
                out.events,
                self.state(),
                answers=answers,
                in_gather=in_gather,
                era=era,
                version=version,
            )
            legacy_ready = (
                self.client.era is versions.Era.LEGACY and self.client.phase is ClientPhase.READY
            )
            if isinstance(self.peer, HttpPeer) and legacy_ready:
                self.peer.version = self.client.version  # MCP-Protocol-Version from now on
            self.send(out)

    def _observe(self, message: Message) -> None:
        answers = None if "method" in message else self._asked.pop(message.get("id"), None)
        result = message.get("result") if isinstance(message.get("result"), dict) else None
        if answers == "tools/list" and result is not None and not self._probing_cursor:
            self.session.pages.append(result)
        if answers == "server/discover" and result is not None:
            self.session.discover_result = result
        if message.get("method") == "notifications/subscriptions/acknowledged":
            self.session.listen_ack = message
        if answers == "tools/list" and self._probing_cursor:
            self.session.invalid_cursor_reply = message

    _probing_cursor = False

    def run(self) -> Run:
        c = self.client
        try:
            self.send(c.start(), host_started=True)
            self.pump(lambda: c.phase in (ClientPhase.READY, ClientPhase.FAILED))
            if c.phase is ClientPhase.READY and c.listen_id is not None:
                self.pump(lambda: c.listening or c.listen_id not in c.in_flight)
            if c.phase is ClientPhase.READY:
                self.session.version = c.version
                self.session.era = c.era.value
                self.session.server_info = dict(c.server_info)
                self.session.capabilities = dict(c.server_capabilities)
                self.send(c.list_tools(force=True, reason="probe"), host_started=True)
                self.pump(lambda: c.gathering is None)
                self._probing_cursor = True
                self.send(c.raw_request("tools/list", {"cursor": INVALID_CURSOR}))
                self.pump(lambda: any(e.kind.startswith("manual-") for e in self.events))
            else:
                self.session.failure = "the server refused every version the client offered"
        except (_Timeout, PeerGone) as exc:
            self.session.failure = str(exc)
            self.session.silent = isinstance(exc, _Timeout)
        self.session.gather_events = [e.kind for e in self.events]
        self.session.noise = list(self.peer.noise)
        return Run(self.session, grade(self.session), self.finish())

    def finish(self) -> list[Step]:
        """The terminal step (the tools a model would be given), then every step."""
        tools = len(self.host.next_tools({SERVER_ID: self.client.cache.tools}))
        text = narration.render("terminal.end", {"tools": tools}, [])
        self.recorder.record("terminal", "host", "host", text, self.state())
        return self.recorder.trace
