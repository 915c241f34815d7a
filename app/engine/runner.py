"""Run a scenario against the sans-IO core and record a trace of complete-state steps.

The runner owns the world of one run: a manual clock, one MCPServer per configured server, one
MCPClient per server inside one Host, an HTTP link per server when the transport is HTTP, and a
FIFO queue of messages in flight. Each script action pushes work into the world; delivering one
message is one step, and so is anything the lab wants to show that sends nothing (a cache hit,
a clock jump, a model request). Every step is a full snapshot, so any step can be shown alone.
No wall clock and no randomness: the same file and options always give the same trace.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from app.mcp import framing, versions
from app.mcp.client import ClientConfig, MCPClient
from app.mcp.clock import ManualClock
from app.mcp.events import Event, Output
from app.mcp.host import Host, HostConfig, PreparedCall
from app.mcp.jsonrpc import Message
from app.mcp.lifecycle import ClientPhase
from app.mcp.server import MCPServer, ServerConfig
from app.mcp.tooldiff import diff_tools

from . import narration
from .actions import VERBS
from .matcher import matches
from .scenario import ACTION_VERBS, Scenario

DEFAULT_MAX_STEPS = 2000


@dataclass
class _Envelope:
    from_client: bool
    server_id: str
    message: Message
    stream: Any = None  # the listen request id whose stream carries a modern notification


def server_config(spec: dict[str, Any]) -> ServerConfig:
    """The ServerConfig for one entry of a scenario's `servers` list, with the format's defaults."""
    return ServerConfig(
        name=spec["name"],
        version=spec.get("version", "1.0.0"),
        tools=tuple(spec["tools"]),
        page_size=spec.get("pageSize", 50),
        list_changed=spec.get("listChanged", False),
        supported_versions=tuple(spec.get("supportedVersions", versions.VERSIONS)),
        instructions=spec.get("instructions"),
        ttl_ms=spec.get("ttlMs", 300_000),
        cache_scope=spec.get("cacheScope", "public"),
        failing_tools=frozenset(spec.get("failingTools", ())),
        stale_cursors=spec.get("staleCursors", "continue"),
    )


class Runner:
    def __init__(
        self,
        scenario: Scenario,
        protocol_version: str,
        transport: str,
        max_steps: int = DEFAULT_MAX_STEPS,
    ):
        if protocol_version not in versions.VERSIONS:
            raise ValueError(f"unknown protocol version {protocol_version!r}")
        if transport not in ("stdio", "http"):
            raise ValueError(f"unknown transport {transport!r}")
        self.scenario = scenario
        self.version = protocol_version
        self.era = versions.era_of(protocol_version)
        self.transport = transport
        self.max_steps = max_steps
        data = scenario.data
        self.clock = ManualClock()
        self.servers: dict[str, MCPServer] = {}
        self.clients: dict[str, MCPClient] = {}
        self.links: dict[str, framing.HttpLink] = {}
        client_cfg = data.get("client", {})
        for spec in data["servers"]:
            sid = spec["id"]
            self.servers[sid] = MCPServer(server_config(spec))
            self.clients[sid] = MCPClient(
                ClientConfig(
                    server_id=sid,
                    protocol_version=protocol_version,
                    name=client_cfg.get("name", "lab-agent"),
                    title=client_cfg.get("title", "MCP Discovery Lab agent"),
                    cache_ttl_ms=client_cfg.get("cacheTtlMs", 60_000),
                    listen=client_cfg.get("listen", True),
                    probe_discover=client_cfg.get("probe", True),
                    max_pages=client_cfg.get("maxPages", 100),
                    http=transport == "http",
                ),
                self.clock,
            )
            if transport == "http":
                # each server its own address, as separate processes would have
                port = 3001 + len(self.links)
                self.links[sid] = framing.HttpLink(
                    sid, protocol_version, authority=f"127.0.0.1:{port}"
                )
        host_cfg = data.get("host", {})
        self.host = Host(
            list(self.servers),
            HostConfig(
                user=host_cfg.get("user"),
                deny={u: tuple(p) for u, p in host_cfg.get("deny", {}).items()},
                rebuild_every_request=host_cfg.get("rebuildEveryRequest", True),
            ),
        )
        self.queue: deque[_Envelope] = deque()
        self.prepared: dict[str, PreparedCall] = {}
        self.console: list[dict[str, str]] = []  # one {en, zh, ru} per line
        self.trace: list[dict[str, Any]] = []
        self.model_prompt: str | None = None
        self._action: dict[str, Any] = {}
        self._action_start = 0
        self._action_index = -1
        self._carried: dict[str, list[Event]] = {}
        self._checkpoint_pending: dict[str, Any] | None = None

    # ----------------------------------------------------------------- snapshots
    def tool_snapshots(self) -> dict[str, list[dict[str, Any]]]:
        return {sid: c.cache.tools for sid, c in self.clients.items()}

    def _state(self) -> dict[str, Any]:
        snaps = self.tool_snapshots()
        return {
            "clockMs": self.clock.now_ms(),
            "servers": {sid: s.snapshot() for sid, s in self.servers.items()},
            "clients": {sid: c.snapshot() for sid, c in self.clients.items()},
            "host": self.host.snapshot(snaps),
            "model": {
                "tools": list(self.host.last_model_tools),  # what the last request carried
                "next": self.host.next_tools(snaps),  # what the next one would carry
                "requests": self.host.model_requests,
                "prompt": self.model_prompt,
            },
            "console": list(self.console),
        }

    # ----------------------------------------------------------------- steps
    def emit(
        self,
        kind: str,
        frm: str,
        to: str,
        *,
        message: Message | None = None,
        frame: framing.Frame | None = None,
        method: str | None = None,
        events: list[Event] | None = None,
        phrase: str,
        params: dict[str, Any] | None = None,
        era: str | None = None,
        version: str | None = None,
    ) -> None:
        if len(self.trace) >= self.max_steps:
            raise _StepCap
        state = self._state()
        step: dict[str, Any] = {
            "index": len(self.trace),
            "kind": kind,
            "from": frm,
            "to": to,
            "protocolVersion": version or self.version,
            "era": era or self.era.value,
            "transport": self.transport,
            "method": method,
            "id": None if message is None else message.get("id"),
            "message": copy.deepcopy(message),
            "frame": None if frame is None else frame.text,
            "channel": None if frame is None else frame.channel,
            "reply": None if frame is None else frame.reply,
            "events": [e.as_dict() for e in events or []],
            "state": state,
            # A step's changes are measured from the previous step's state (each is a snapshot).
            "changes": _changes(self.trace[-1]["state"], state) if self.trace else {},
            "narration": narration.render(phrase, params or {}, events or []),
            "checkpoint": None,
            "action": self._action_index,  # the script action that produced the step (-1: none)
        }
        is_first = len(self.trace) == self._action_start
        if is_first and "say" in self._action:
            step["narration"] = dict(self._action["say"])
        pending = self._checkpoint_pending
        if pending is not None and matches(step, pending["at"]) and self.trace:
            self.trace[-1]["checkpoint"] = {
                "question": pending["question"],
                "choices": [{"text": c["text"], "why": c["why"]} for c in pending["choices"]],
                "answer": pending["answer"],
                "action": self._action_index,
            }
            self._checkpoint_pending = None
        self.trace.append(step)

    def actor(self, sid: str, client: bool) -> str:
        return f"client:{sid}" if client else f"server:{sid}"

    # ----------------------------------------------------------------- delivery
    def send_from_client(self, sid: str, out: Output, *, host_started: bool = False) -> None:
        if host_started:
            # Nothing is on the wire yet: the client's first message will carry these events.
            self._carried.setdefault(sid, []).extend(out.events)
        for message in out.messages:
            self.queue.append(_Envelope(True, sid, message))

    def send_from_server(self, sid: str, messages: list[Message]) -> None:
        for message in messages:
            stream = ((message.get("params") or {}).get("_meta") or {}).get(
                versions.META_SUBSCRIPTION_ID
            )
            self.queue.append(_Envelope(False, sid, message, stream))

    def _frame(self, env: _Envelope, answers: str | None) -> framing.Frame:
        if self.transport == "stdio":
            return framing.stdio_frame(env.message, from_client=env.from_client)
        link = self.links[env.server_id]
        client = self.clients[env.server_id]
        link.version = client.version
        link.negotiated = client.phase is ClientPhase.READY
        if env.from_client:
            params = env.message.get("params") or {}
            tool = None
            if env.message.get("method") == "tools/call":
                # the definition the client holds decides the Mcp-Param-* headers
                tool = next(
                    (t for t in client.cache.tools if t["name"] == params.get("name")), None
                )
            return link.client_message(env.message, tool)
        return link.server_message(
            env.message,
            answers=answers,
            stream=env.stream,
            legacy_server=not self.servers[env.server_id].speaks_modern,
        )

    def deliver(self, index: int = 0) -> None:
        env = self.queue[index]
        del self.queue[index]
        sid, message = env.server_id, env.message
        client = self.clients[sid]
        version, era = client.version, client.era.value
        if env.from_client:
            method = message.get("method")
            frame = self._frame(env, None)
            replies = self.servers[sid].receive(message)
            kind = "request" if "id" in message else "notification"
            self.send_from_server(sid, replies)
            phrase, params = narration.for_client_message(message, client, sid)
            self.emit(
                kind,
                self.actor(sid, True),
                self.actor(sid, False),
                message=message,
                frame=frame,
                method=method,
                events=self._carried.pop(sid, []),
                phrase=phrase,
                params=params,
                era=era,
                version=version,
            )
            if method == "notifications/initialized" and self.transport == "http":
                self._open_legacy_stream(sid)
            return
        # The method this answers, from the client's own record, before the client reads it.
        answers = None if "method" in message else client.method_of(message.get("id"))
        frame = self._frame(env, answers)
        in_gather = client.gathering.generation if client.gathering else None
        out = client.receive(message)
        self.send_from_client(sid, out)
        kind = (
            "notification"
            if "method" in message
            else ("error" if "error" in message else "response")
        )
        for event in out.events:
            self.log(sid, event)
        phrase, params = narration.for_server_message(
            message, answers, out.events, client, sid, in_gather
        )
        self.emit(
            kind,
            self.actor(sid, False),
            self.actor(sid, True),
            message=message,
            frame=frame,
            method=message.get("method") or answers,
            events=out.events,
            phrase=phrase,
            params=params,
            era=era,
            version=version,
        )

    def _open_legacy_stream(self, sid: str) -> None:
        client = self.clients[sid]
        link = self.links[sid]
        if link.flavour != "streamable-http" or not (
            client.server_capabilities.get("tools") or {}
        ).get("listChanged"):
            return
        frame = link.open_legacy_stream()
        self.emit(
            "transport",
            self.actor(sid, True),
            self.actor(sid, False),
            frame=frame,
            phrase="transport.get-stream",
            params={"server": sid},
            version=client.version,
            era=client.era.value,
        )

    def settle(self) -> None:
        while self.queue:
            self.deliver()

    def log(self, sid: str, event: Event) -> None:
        line = narration.console_line(sid, event)
        if line:
            self.console.append(line)

    # ----------------------------------------------------------------- actions
    def run(self) -> Iterator[dict[str, Any]]:
        emitted = 0
        try:
            for index, action in enumerate(self.scenario.data["script"]):
                if action.get("era") not in (None, self.era.value):
                    continue
                if "versions" in action and self.version not in action["versions"]:
                    continue
                if "transports" in action and self.transport not in action["transports"]:
                    continue
                self._action = action
                self._action_index = index
                self._action_start = len(self.trace)
                self._checkpoint_pending = action.get("checkpoint")
                verb = next(k for k in action if k in ACTION_VERBS)
                VERBS[verb](self, action[verb], action)
                if verb not in ("deliver", "deliver_last") and not action.get("wait"):
                    self.settle()
                if "sayLast" in action and len(self.trace) > self._action_start:
                    self.trace[-1]["narration"] = dict(action["sayLast"])
                yield from self.trace[emitted:]
                emitted = len(self.trace)
            self._terminal("terminal.end", {"tools": len(self.host.last_model_tools)})
        except _StepCap:
            self._action = {}
            self.max_steps += 1
            self._terminal("terminal.cap", {"max": self.max_steps - 1})
        yield from self.trace[emitted:]

    def _terminal(self, phrase: str, params: dict[str, Any]) -> None:
        self._action = {}
        self._action_start = -1
        self._action_index = -1
        self.emit("terminal", "host", "host", phrase=phrase, params=params)


class _StepCap(Exception):
    pass


def _changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What the step changed: cache rows by qualified name, model tools by model name."""
    out: dict[str, Any] = {}

    def qualified(state: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {**t, "name": f"{sid}/{t['name']}"}
            for sid, c in state["clients"].items()
            for t in c["cache"]["tools"]
        ]

    cache = diff_tools(qualified(before), qualified(after))
    if any(cache.values()):
        out["cache"] = cache
    model = diff_tools(before["model"]["tools"], after["model"]["tools"])
    if any(model.values()):
        out["model"] = model
    servers = diff_tools(
        [
            {**t, "name": f"{sid}/{t['name']}"}
            for sid, s in before["servers"].items()
            for t in s["tools"]
        ],
        [
            {**t, "name": f"{sid}/{t['name']}"}
            for sid, s in after["servers"].items()
            for t in s["tools"]
        ],
    )
    if any(servers.values()):
        out["servers"] = servers
    return out


def run_trace(
    scenario: Scenario, protocol_version: str, transport: str, max_steps: int = DEFAULT_MAX_STEPS
) -> list[dict[str, Any]]:
    """The whole trace of one scenario under one version and transport."""
    return list(Runner(scenario, protocol_version, transport, max_steps).run())
