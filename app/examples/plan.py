"""A lesson's trace read as what a real client has to do to live through it: a list of acts.

The lab's simulated client reacts by itself (a list_changed starts a walk, a -32602 on a call
starts a re-list and a retry); a script written with the official SDK has to say each of those
things. So the acts come from the trace, not from the scenario's script: every conversation the
trace shows on the wire becomes one act, numbered by the step (as the viewer counts, from 1)
where it starts. A walk is one act however many pages it takes; time that passes in the lesson
and host-only steps (notes, prepared calls) have no wire traffic and give at most a `Pause`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.engine.step import Step, Trace


@dataclass(frozen=True)
class Act:
    step: int  # the viewer's step number (trace index + 1) where the act starts


@dataclass(frozen=True)
class Open(Act):
    server: str
    era: str  # "legacy" or "modern", as the client opens it
    version: str  # the version the client asks for
    probe: bool = False  # modern: server/discover first
    listen: bool = False  # modern: subscriptions/listen for tool changes


@dataclass(frozen=True)
class Walk(Act):
    server: str
    pages: tuple[int, ...] = ()  # only these pages, the others still fresh; () for all of them


@dataclass(frozen=True)
class Cached(Act):
    server: str


@dataclass(frozen=True)
class Change(Act):
    server: str
    notifies: bool  # a list_changed reaches the client afterwards


@dataclass(frozen=True)
class Call(Act):
    server: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Offer(Act):
    """The host builds a model request from what its clients know."""


@dataclass(frozen=True)
class Pause(Act):
    ms: int


@dataclass(frozen=True)
class ListWithCursor(Act):
    server: str
    cursor: str


@dataclass(frozen=True)
class DiscoverWith(Act):
    server: str
    version: str


@dataclass(frozen=True)
class Beyond(Act):
    """A hand-made request of the lesson that the script leaves out."""

    server: str
    method: str


def server_of(step: Step) -> str | None:
    """The server id a step concerns, from its `client:ID` or `server:ID` end."""
    for end in (step["from"], step["to"]):
        if end.startswith(("client:", "server:")):
            return end.split(":", 1)[1]
    return None


def _params(step: Step) -> dict[str, Any]:
    message = step["message"] or {}
    params = message.get("params")
    return params if isinstance(params, dict) else {}


def _kinds(step: Step) -> set[str]:
    return {str(event.get("kind")) for event in step["events"]}


def _opening(trace: Trace, step: Step, sid: str) -> Open:
    n = step["index"] + 1
    if step["method"] == "initialize":
        return Open(n, sid, "legacy", str(_params(step).get("protocolVersion")))
    listen = any(
        s["kind"] == "request"
        and s["method"] == "subscriptions/listen"
        and s["from"] == f"client:{sid}"
        and "manual" not in _kinds(s)
        for s in trace
    )
    probe = step["method"] == "server/discover"
    return Open(n, sid, "modern", step["protocolVersion"], probe=probe, listen=listen)


def _notifies(trace: Trace, after: int, sid: str) -> bool:
    """Whether a list_changed reaches client:sid before the server's next change."""
    for step in trace[after + 1 :]:
        if step["kind"] == "internal" and step["from"] == f"server:{sid}":
            return False
        if step["method"] == "notifications/tools/list_changed" and step["to"] == f"client:{sid}":
            return True
    return False


def _hand_made(step: Step, sid: str) -> Act:
    n, params = step["index"] + 1, _params(step)
    if step["method"] == "tools/list" and isinstance(params.get("cursor"), str):
        return ListWithCursor(n, sid, params["cursor"])
    if step["method"] == "server/discover":
        meta = params.get("_meta") or {}
        version = meta.get("io.modelcontextprotocol/protocolVersion", step["protocolVersion"])
        return DiscoverWith(n, sid, str(version))
    if step["method"] == "tools/call":
        return Call(n, sid, str(params.get("name")), dict(params.get("arguments") or {}))
    return Beyond(n, sid, str(step["method"]))


class _Walks:
    """The walks in progress, one per server: where their act is and which pages went out.
    A walk ends when its list is published, discarded or abandoned; a 2026 walk that reuses
    fresh pages from the cache becomes a walk of only the pages it fetched."""

    def __init__(self, acts: list[Act]):
        self.acts = acts
        self.open: dict[str, tuple[int, list[int], bool]] = {}

    def start(self, step: int, sid: str) -> None:
        self.end(sid)
        self.open[sid] = (len(self.acts), [], False)
        self.acts.append(Walk(step, sid))

    def see(self, step: Step, sid: str) -> None:
        if sid not in self.open:
            return
        at, fetched, partial = self.open[sid]
        for event in step["events"]:
            if event.get("kind") == "page" and step["kind"] == "response":
                fetched.append(int(event["page"]))
            partial = partial or event.get("kind") == "page-cached"
        self.open[sid] = (at, fetched, partial)
        if _kinds(step) & {"published", "gather-discarded", "gather-abandoned"}:
            self.end(sid)

    def end(self, sid: str) -> None:
        if sid in self.open:
            at, fetched, partial = self.open.pop(sid)
            walk = self.acts[at]
            assert isinstance(walk, Walk)
            self.acts[at] = Walk(walk.step, sid, tuple(fetched) if partial else ())


# What a client opens a conversation with, or answers: no act of their own.
_OPENING = {"initialize", "server/discover", "subscriptions/listen"}


def _changes_tools(step: Step, script: list[Any] | None) -> bool:
    """Whether a server's internal step is a tool catalog change `mcp-lab mcp-server` can make:
    the served server applies the scenario's server_change actions, in order, and nothing else."""
    if script is None:
        return True
    action = script[step["action"]] if 0 <= step["action"] < len(script) else {}
    return isinstance(action, dict) and "server_change" in action


def plan(trace: Trace, script: list[Any] | None = None) -> list[Act]:
    """The acts of a trace, in the order the trace shows them (`script`: the scenario's actions,
    which tell a tool catalog change from other things a server does on its own)."""
    acts: list[Act] = []
    walks = _Walks(acts)
    opened: set[str] = set()
    beyond: set[tuple[int, str]] = set()
    last_clock = 0
    for step in trace:
        n, kind, sid = step["index"] + 1, step["kind"], server_of(step)
        clock = step["state"]["clockMs"]
        if kind == "clock" and clock > last_clock:
            acts.append(Pause(n, clock - last_clock))
        last_clock = clock
        if kind == "model-request":
            acts.append(Offer(n))
        elif kind == "cache-hit" and sid is not None:
            acts.append(Cached(n, sid))
        elif kind == "internal" and sid is not None and step["from"] == f"server:{sid}":
            if _changes_tools(step, script):
                acts.append(Change(n, sid, _notifies(trace, step["index"], sid)))
            else:
                acts.append(Beyond(n, sid, "server"))
        elif kind == "request" and sid is not None and step["from"] == f"client:{sid}":
            if "manual" in _kinds(step):
                acts.append(_hand_made(step, sid))
                continue
            if "auth-challenged" in _kinds(step):
                continue  # refused for want of a token, and sent again once it has one
            if sid not in opened:
                opened.add(sid)
                acts.append(_opening(trace, step, sid))
            if step["method"] == "tools/list":
                if sid not in walks.open or _params(step).get("cursor") is None:
                    walks.start(n, sid)  # a walk, or one that starts again from page 1
            elif step["method"] == "tools/call":
                params = _params(step)
                acts.append(Call(n, sid, str(params["name"]), dict(params.get("arguments") or {})))
            elif step["method"] not in _OPENING and (step["action"], step["method"]) not in beyond:
                beyond.add((step["action"], str(step["method"])))  # once for a walk's pages
                acts.append(Beyond(n, sid, str(step["method"])))
        if sid is not None and step["method"] == "tools/list":
            walks.see(step, sid)
    return acts
