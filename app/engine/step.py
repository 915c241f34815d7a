"""The step: the typed contract between whatever records a trace and whatever shows it.

A trace is a list of complete snapshots (Python Tutor's idea): each `Step` says what crossed the
wire (message, frame), who sent it, what the receiver made of it (events), the whole `State`
after it, what changed, and the narration in every language. The engine's recorder builds
steps, `mcp-lab trace --format jsonl` prints them, the web layer renders them, the test
stand-in fakes them, and a recorded real session (`mcp-lab probe`) gives the same shape.
These TypedDicts are the one definition: docs/step.schema.json is generated from them
(`python -m app.engine.stepschema`) and a test keeps the two equal and validates every trace
the tests produce against it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict, cast

from app.mcp.context import Budget, ServerText
from app.mcp.snapshots import ClientState, HostState, ModelTool, ServerState

Message = dict[str, Any]  # a JSON-RPC message exactly as it crossed the wire
EventObject = dict[str, Any]  # app.mcp.events.Event.as_dict(): {"kind": ..., fields}

StepKind = Literal[
    "request",
    "response",
    "error",
    "notification",
    "cache-hit",
    "transport",
    "internal",
    "model-request",
    "clock",
    "terminal",
]


class Text(TypedDict):
    """One text in every language the lab speaks."""

    en: str
    zh: str
    ru: str


class Choice(TypedDict):
    text: Text
    why: Text


class Checkpoint(TypedDict):
    """A question asked before the next step is shown; `answer` indexes `choices`."""

    question: Text
    choices: list[Choice]
    answer: int
    action: int


class ToolDiff(TypedDict):
    added: list[str]
    removed: list[str]
    changed: list[str]


class Changes(TypedDict, total=False):
    """What a step changed: cache rows by qualified name, model tools, server catalogs."""

    cache: ToolDiff
    model: ToolDiff
    servers: ToolDiff


class _ModelCore(TypedDict):
    tools: list[ModelTool]  # what the last model request carried
    next: list[ModelTool]  # what the next one would carry
    requests: int
    prompt: str | None


class SearchState(TypedDict):
    """The model's last call of the host's search_tools meta-tool."""

    query: str
    found: list[str]


class ModelState(_ModelCore, total=False):
    """The model. Only when a host uses them: `instructions`, the servers' instructions the
    last request's system prompt carried; `budget`, the tokens of tool definitions (estimated)
    of all the agent may use against what was handed; `search`, the last tool search."""

    instructions: list[ServerText]
    budget: Budget
    search: SearchState


class AuthzState(TypedDict):
    """The authorization server protected servers use, and which servers those are."""

    issuer: str
    servers: list[str]
    tokens: int  # tokens it has issued so far


class _StateCore(TypedDict):
    """The complete state after a step: any step can be shown alone."""

    clockMs: int
    servers: dict[str, ServerState]
    clients: dict[str, ClientState]
    host: HostState
    model: ModelState
    console: list[Text]  # the agent's console, one line per entry, in every language


class State(_StateCore, total=False):
    """The complete state after a step: any step can be shown alone. `authz` only when a
    server is protected by an authorization server (Streamable HTTP)."""

    authz: AuthzState


# "from" is a Python keyword, hence the functional form.
Step = TypedDict(
    "Step",
    {
        "index": int,
        "kind": StepKind,
        "from": str,
        "to": str,
        "protocolVersion": str,
        "era": Literal["legacy", "modern"],
        "transport": Literal["stdio", "http"],
        "method": str | None,
        "id": int | str | None,
        "message": Message | None,
        "frame": str | None,
        "channel": str | None,
        "reply": str | None,
        "events": list[EventObject],
        "state": State,
        "changes": Changes,
        "narration": Text,
        "checkpoint": Checkpoint | None,
        "action": int,
    },
)
Step.__doc__ = "One moment of a trace (what `mcp-lab trace --format jsonl` prints per line)."

Trace = list[Step]

# The languages the lab speaks: the keys of Text, defined once here.
LANGUAGES: tuple[str, ...] = tuple(Text.__annotations__)


def in_language(text: Text, lang: str) -> str:
    """The text in `lang` (a runtime choice), English when it has none."""
    by_lang = cast(Mapping[str, str], text)
    return by_lang.get(lang) or by_lang["en"]


__all__ = [
    "LANGUAGES",
    "Changes",
    "Checkpoint",
    "ClientState",
    "HostState",
    "ModelTool",
    "ServerState",
    "State",
    "Step",
    "Text",
    "Trace",
    "in_language",
]
