"""The recorder: turns what happened (message, frame, events, state) into steps of a trace.

It knows nothing of scenarios or of how the messages were produced, so the same recorder writes
the trace of a simulated run (app.engine.runner) and of a real session with a real peer (a
probe of a live server, a live view): give it each message as it crosses the wire, with the
frame that carried it, the events of the client that sent or received it, and the state after
it, and it returns the `Step` (app.engine.step), numbered, with its changes since the step
before and its narration in every language.

    recorder = Recorder(version="2025-11-25", transport="http")
    recorder.client_message("files", request, frame, client, events, state_after)
    recorder.server_message("files", response, frame, client, events, state_after,
                            answers="tools/list", in_gather=1)
    recorder.record("internal", "host", "host", narration.render(...), state_after)
    recorder.trace  # list[Step]

A real session has no simulated world to take its state from: `session_state` builds it from
what the recording side can see (one client, the server it talks to, the lab's own Host over
the client's cache). `peer_message` records a message between peers the lab does not model
(a real client as its served server sees it, in app.serving.sessions), with narration the caller
wrote, as the same kind of step.

A trace longer than `max_steps` raises `StepCap`, so a runaway scenario ends in a terminal
step, never in an endless loop.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from app.mcp import versions
from app.mcp.client import MCPClient
from app.mcp.events import Event
from app.mcp.framing import Frame
from app.mcp.host import Host, HostConfig
from app.mcp.jsonrpc import Message
from app.mcp.tooldiff import diff_tools

from . import narration
from .step import Changes, ClientState, ServerState, State, Step, StepKind, Text, ToolDiff

DEFAULT_MAX_STEPS = 2000


class StepCap(Exception):
    """The trace reached its step cap."""


def actor(server_id: str, client: bool) -> str:
    """The actor id of a step: `client:<server id>` or `server:<server id>`."""
    return f"client:{server_id}" if client else f"server:{server_id}"


def message_kind(message: Message) -> StepKind:
    if "method" in message:
        return "request" if "id" in message else "notification"
    return "error" if "error" in message else "response"


class Recorder:
    def __init__(self, version: str, transport: str, max_steps: int = DEFAULT_MAX_STEPS):
        self.version = version
        self.era = versions.era_of(version).value
        self.transport = transport
        self.max_steps = max_steps
        self.trace: list[Step] = []
        self.action = -1  # the script action producing the steps (-1: none, e.g. a real session)

    def record(
        self,
        kind: StepKind,
        frm: str,
        to: str,
        narration_text: Text,
        state: State,
        *,
        message: Message | None = None,
        frame: Frame | None = None,
        method: str | None = None,
        events: list[Event] | None = None,
        era: str | None = None,
        version: str | None = None,
    ) -> Step:
        """Append one step and return it."""
        if len(self.trace) >= self.max_steps:
            raise StepCap
        step: Step = {
            "index": len(self.trace),
            "kind": kind,
            "from": frm,
            "to": to,
            "protocolVersion": version or self.version,
            "era": "modern" if (era or self.era) == "modern" else "legacy",
            "transport": "http" if self.transport == "http" else "stdio",
            "method": method,
            "id": None if message is None else message.get("id"),
            "message": copy.deepcopy(message),
            "frame": None if frame is None else frame.text,
            "channel": None if frame is None else frame.channel,
            "reply": None if frame is None else frame.reply,
            "events": [e.as_dict() for e in events or []],
            "state": state,
            # A step's changes are measured from the previous step's state (each is a snapshot).
            "changes": changes(self.trace[-1]["state"], state) if self.trace else {},
            "narration": narration_text,
            "checkpoint": None,
            "action": self.action,
        }
        self.trace.append(step)
        return step

    def client_message(
        self,
        server_id: str,
        message: Message,
        frame: Frame | None,
        client: MCPClient,
        events: list[Event],
        state: State,
    ) -> Step:
        """A message the client sent (record it before the client reads the answer)."""
        phrase, params = narration.for_client_message(message, client, server_id)
        sent = _Sent(server_id, True, message, frame, events, message.get("method"))
        return self._message(
            sent, narration.render(phrase, params, events), state, client.era.value, client.version
        )

    def server_message(
        self,
        server_id: str,
        message: Message,
        frame: Frame | None,
        client: MCPClient,
        events: list[Event],
        state: State,
        *,
        answers: str | None,
        in_gather: int | None,
        era: str,
        version: str,
    ) -> Step:
        """A message the server sent, with the events of the client that read it.

        `answers` is the method of the request a response answers, `in_gather` the generation
        the client was gathering before it read the message, `era`/`version` the client's
        before it read it (reading an initialize result can change them).
        """
        phrase, params = narration.for_server_message(
            message, answers, events, client, server_id, in_gather
        )
        sent = _Sent(server_id, False, message, frame, events, message.get("method") or answers)
        return self._message(sent, narration.render(phrase, params, events), state, era, version)

    def peer_message(
        self,
        server_id: str,
        message: Message,
        frame: Frame | None,
        state: State,
        *,
        from_client: bool,
        narration_text: Text,
        method: str | None,
        era: str | None = None,
        version: str | None = None,
        events: list[Event] | None = None,
    ) -> Step:
        """A message between a client and its server when no `MCPClient` of the lab took part
        (a real client seen from its server's side): the caller says what it means, in words
        and, where the engine's event types fit, in `events`."""
        sent = _Sent(server_id, from_client, message, frame, list(events or []), method)
        return self._message(sent, narration_text, state, era, version)

    def _message(
        self, sent: _Sent, text: Text, state: State, era: str | None, version: str | None
    ) -> Step:
        return self.record(
            message_kind(sent.message),
            actor(sent.server_id, sent.from_client),
            actor(sent.server_id, not sent.from_client),
            text,
            state,
            message=sent.message,
            frame=sent.frame,
            method=sent.method,
            events=sent.events,
            era=era,
            version=version,
        )


@dataclass(frozen=True)
class _Sent:
    """One message crossing between a client and its server, as the recorder needs it."""

    server_id: str
    from_client: bool
    message: Message
    frame: Frame | None
    events: list[Event]
    method: str | None


def _qualified(rows: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [{**t, "name": f"{sid}/{t['name']}"} for sid, tools in rows.items() for t in tools]


def _diff(old: list[dict[str, Any]] | list[Any], new: list[Any]) -> ToolDiff | None:
    found = diff_tools(old, new)
    if not any(found.values()):
        return None
    return {"added": found["added"], "removed": found["removed"], "changed": found["changed"]}


def changes(before: State, after: State) -> Changes:
    """What a step changed: cache rows and server catalogs by qualified name, model tools."""

    def caches(state: State) -> list[dict[str, Any]]:
        return _qualified({sid: c["cache"]["tools"] for sid, c in state["clients"].items()})

    def catalogs(state: State) -> list[dict[str, Any]]:
        return _qualified({sid: s["tools"] for sid, s in state["servers"].items()})

    out: Changes = {}
    cache = _diff(caches(before), caches(after))
    if cache is not None:
        out["cache"] = cache
    model = _diff(before["model"]["tools"], after["model"]["tools"])
    if model is not None:
        out["model"] = model
    servers = _diff(catalogs(before), catalogs(after))
    if servers is not None:
        out["servers"] = servers
    return out


def session_state(
    server_id: str,
    server: ServerState,
    client: ClientState,
    console: list[Text],
    clock_ms: int,
    host: Host | None = None,
) -> State:
    """The complete state of one real session: one client and the server it talks to, as far
    as the side that records can see them. The host's table and the tools a model would be
    given are what the lab's own Host makes of the client's cache (`host` keeps its count of
    model requests across steps; a fresh one when None)."""
    host = host if host is not None else Host([server_id], HostConfig())
    snapshots = {server_id: list(client["cache"]["tools"])}
    return {
        "clockMs": clock_ms,
        "servers": {server_id: server},
        "clients": {server_id: client},
        "host": host.snapshot(snapshots),
        "model": {
            "tools": list(host.last_model_tools),
            "next": host.next_tools(snapshots),
            "requests": host.model_requests,
            "prompt": None,
        },
        "console": list(console),
    }
