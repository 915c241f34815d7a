"""`mcp-lab probe`: drive the lab's client against a real server in each version it offers.

One run is one fresh conversation (a new child process on stdio, a new session over HTTP): the
client opens it (initialize, or server/discover and a listen stream in 2026-07-28), gathers
every page of tools/list, then sends one tools/list with a cursor the server never issued. The
run is recorded twice: as a `Session` for the checks, and as trace steps for `--trace` by the
engine's own Recorder (app.engine.recorder), so a probe's trace is the very kind of step a
scenario's is and the viewer shows it unchanged. A step's state is what the probe can know of
a real server: its serverInfo and capabilities, and the catalog as far as the client's cache
holds it; the clock is the run's wall time since it began.

Without --protocol-version the probe starts with the dual-era opening (server/discover first;
a legacy server makes the client fall back to initialize), then tries initialize with each
legacy version, newest first; a version the server only counter-offers away from is not one it
offers, so it is not graded twice. The report describes the newest version offered and lists
every version's checks; the exit status is 0 when all pass, 1 when any fails, 2 when the server
cannot be reached at all.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.engine import narration
from app.engine.jsonl import jsonl_lines
from app.engine.recorder import Recorder, session_state
from app.engine.step import ServerState, State, Step, Text
from app.mcp import jsonrpc, versions
from app.mcp.client import ClientConfig, ClientPhase, Event, MCPClient, Output
from app.mcp.clock import Clock
from app.mcp.framing import Frame
from app.mcp.host import Host, HostConfig
from app.mcp.jsonrpc import Message

from .checks import INVALID_CURSOR, Check, Session, counted, grade
from .http_peer import HttpPeer
from .peers import Peer, PeerGone, StdioPeer, Unreachable

__all__ = ["ProbeReport", "probe", "report_json", "report_text"]

SERVER_ID = "target"


class _WallClock(Clock):
    def now_ms(self) -> int:
        return int(time.monotonic() * 1000)


class _Timeout(Exception):
    pass


@dataclass
class Run:
    session: Session
    checks: list[Check]
    steps: list[Step]


@dataclass
class ProbeReport:
    target: str
    runs: list[Run] = field(default_factory=list)
    unreachable: str | None = None

    @property
    def main(self) -> Run | None:
        """The run the report describes: the newest version negotiated."""
        graded = [r for r in self.runs if r.session.version in versions.VERSIONS]
        if graded:
            return max(graded, key=lambda r: versions.VERSIONS.index(str(r.session.version)))
        return self.runs[0] if self.runs else None

    @property
    def exit_code(self) -> int:
        if self.unreachable is not None:
            return 2
        return 0 if all(c.ok for r in self.runs for c in r.checks) else 1


class _Driver:
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
        self.session.gather_events = [e.kind for e in self.events]
        self.session.noise = list(self.peer.noise)
        return Run(self.session, grade(self.session), self.finish())

    def finish(self) -> list[Step]:
        """The terminal step (the tools a model would be given), then every step."""
        tools = len(self.host.next_tools({SERVER_ID: self.client.cache.tools}))
        text = narration.render("terminal.end", {"tools": tools}, [])
        self.recorder.record("terminal", "host", "host", text, self.state())
        return self.recorder.trace


def probe(
    target: list[str],
    *,
    version: str | None = None,
    timeout: float = 10.0,
) -> ProbeReport:
    """Probe a server: `target` is a URL (one item) or a command and its arguments."""
    is_url = len(target) == 1 and target[0].startswith(("http://", "https://"))
    report = ProbeReport(target[0] if is_url else " ".join(target))

    def connect() -> Peer:
        return HttpPeer(target[0], timeout=timeout) if is_url else StdioPeer(target)

    plan = [version] if version else [versions.LATEST, *reversed(versions.LEGACY_VERSIONS)]
    runs: list[Run] = []
    for requested in plan:
        try:
            peer = connect()
        except Unreachable as exc:
            report.unreachable = str(exc)
            return report
        try:
            run = _Driver(peer, requested, timeout).run()
        except Unreachable as exc:  # HTTP connects on the first POST
            if not runs:
                report.unreachable = str(exc)
                return report
            continue
        finally:
            peer.close()
        if not runs and not any(sender == "server" for sender, _ in run.session.wire):
            report.unreachable = run.session.failure or "the server did not answer"
            return report
        runs.append(run)
    if version is None:
        runs = _offered(runs)
    report.runs = runs
    return report


def _offered(runs: list[Run]) -> list[Run]:
    """In a sweep, one run per version the server offers: a legacy version it counter-offered
    away from, or one already graded, is not graded again; refusals count only when nothing
    was negotiated at all (a legacy server may refuse a version with an error)."""
    kept: list[Run] = []
    seen: set[str] = set()
    for run in runs:
        negotiated, requested = run.session.version, run.session.requested
        if negotiated is None or negotiated in seen:
            continue
        if requested in versions.LEGACY_VERSIONS and negotiated != requested:
            continue
        seen.add(negotiated)
        kept.append(run)
    return kept or runs[:1]


def report_json(report: ProbeReport) -> dict[str, Any]:
    main = report.main
    if main is None:
        return {
            "server": None,
            "protocolVersion": None,
            "pages": 0,
            "tools": [],
            "checks": [Check("reachable", False, report.unreachable or "no answer").as_json(None)],
        }
    s = main.session
    return {
        "server": s.server_info or None,
        "protocolVersion": s.version,
        "pages": len(s.pages),
        "tools": s.tools,
        "checks": [
            c.as_json(r.session.version or r.session.requested)
            for r in report.runs
            for c in r.checks
        ],
        "versions": [r.session.version for r in report.runs if r.session.version],
    }


def report_text(report: ProbeReport) -> str:
    """Every check of the newest version; for the other versions, what failed."""
    main = report.main
    if main is None:
        return f"{report.target}: unreachable: {report.unreachable}\n"
    info = main.session.server_info
    name = f"{info.get('name', '?')} {info.get('version', '')}".strip()
    lines = [f"{report.target}: {name}"]
    for run in [main, *(r for r in report.runs if r is not main)]:
        s = run.session
        label = s.version or f"{s.requested} (not negotiated)"
        failed = [c for c in run.checks if not c.ok]
        summary = f"{counted(len(s.pages), 'page')}, {counted(len(s.tools), 'tool')}"
        if run is not main:
            summary += f", {len(run.checks) - len(failed)} of {len(run.checks)} checks passed"
        lines.append(f"  {label} over {s.transport}: {summary}")
        for check in run.checks if run is main else failed:
            mark = "ok  " if check.ok else "FAIL"
            lines.append(f"    {mark} {check.id:<17} {check.detail}")
    failures = sum(1 for r in report.runs for c in r.checks if not c.ok)
    lines.append("all checks passed" if not failures else f"{counted(failures, 'check')} failed")
    return "\n".join(lines) + "\n"


def write_trace(report: ProbeReport, path: str) -> None:
    """The main run's steps as JSONL, the bytes `mcp-lab trace --format jsonl` would write."""
    main = report.main
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(jsonl_lines(main.steps if main is not None else []))


def run_probe(
    target: list[str], version: str | None, fmt: str, trace: str | None, timeout: float
) -> int:
    if not target:
        print(
            "mcp-lab probe: give a URL, or -- and the command that starts the server",
            file=sys.stderr,
        )
        return 2
    report = probe(target, version=version, timeout=timeout)
    if trace:
        write_trace(report, trace)
    if fmt == "json":
        sys.stdout.write(json.dumps(report_json(report), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(report_text(report))
    return report.exit_code
