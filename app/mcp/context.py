"""What a host puts in the model's context besides plain tool definitions: its own choices.

None of this is protocol. The spec lets a host use a server's `instructions` as a hint for the
model ("MAY be added to the system prompt"); this host either labels each server's text with the
server's configured id and puts it in the system prompt of every model request, or leaves them
out. A host with many tools may limit each agent to an allow-list of "serverId/toolName"
patterns, and may defer loading: the model is handed a few always-loaded tools plus the host's
own `search_tools` meta-tool, and a tool's full definition enters the context only after a
search found it (the "progressive discovery" of the MCP client best-practices guide). A context
budget in tokens is shown, estimated as the JSON length of a definition divided by four (a rule
of thumb, not any model's tokenizer).
"""

from __future__ import annotations

import fnmatch
import json
import math
import re
from collections.abc import Mapping
from typing import Any, TypedDict

from .snapshots import ModelTool

SEARCH_TOOL = "search_tools"  # the host's meta-tool: it is no MCP server's tool
SEARCH_DEFINITION: ModelTool = {
    "name": SEARCH_TOOL,
    "description": "Search the tools this agent may use by keywords; returns matching names, "
    "whose definitions are then loaded for the next request.",
    "input_schema": {
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
    },
}
_WORD = re.compile(r"[a-z0-9]+")


class ServerText(TypedDict):
    server: str
    text: str


class Budget(TypedDict):
    """Tokens (estimated) of tool definitions: all the agent may use, and what was handed."""

    limit: int | None
    all: int
    handed: int
    tools: int  # how many tools the agent may use
    deferred: int  # how many of them were not handed


def tokens(value: Any) -> int:
    """A rough token count of a JSON value: its compact JSON length over four."""
    return math.ceil(len(json.dumps(value, separators=(",", ":"), ensure_ascii=False)) / 4)


def system_instructions(placement: str, by_server: Mapping[str, str | None]) -> list[ServerText]:
    """The servers' instructions as this host puts them in the system prompt (or not at all)."""
    if placement != "system-prompt":
        return []
    return [{"server": sid, "text": text} for sid, text in by_server.items() if text]


def allowed_by_agent(
    agents: Mapping[str, tuple[str, ...]], agent: str | None, server_id: str, tool: str
) -> bool:
    """A host's per-agent allow-list: an agent with a list may use only the tools it names."""
    patterns = agents.get(agent or "")
    if patterns is None:
        return True
    return any(fnmatch.fnmatchcase(f"{server_id}/{tool}", p) for p in patterns)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ")))


def search(tools: list[ModelTool], query: str, limit: int) -> list[str]:
    """Keyword search over names and descriptions: the tools sharing most words with the
    query, best first (ties keep the host's order); only tools sharing at least one word."""
    wanted = _words(query)
    scored = []
    for order, tool in enumerate(tools):
        score = len(wanted & _words(f"{tool['name']} {tool['description']}"))
        if score:
            scored.append((-score, order, tool["name"]))
    return [name for _, _, name in sorted(scored)[:limit]]


def hand_over(
    tools: list[ModelTool], always: tuple[str, ...], loaded: list[str]
) -> list[ModelTool]:
    """Deferred loading: the always-loaded tools (fnmatch on the model-facing name), the ones a
    search loaded, and the search meta-tool last."""
    keep = [
        t
        for t in tools
        if t["name"] in loaded or any(fnmatch.fnmatchcase(t["name"], p) for p in always)
    ]
    return [*keep, SEARCH_DEFINITION]


def budget(all_tools: list[ModelTool], handed: list[ModelTool], limit: int | None) -> Budget:
    names = {t["name"] for t in handed}
    return {
        "limit": limit,
        "all": sum(tokens(t) for t in all_tools),
        "handed": sum(tokens(t) for t in handed),
        "tools": len(all_tools),
        "deferred": sum(1 for t in all_tools if t["name"] not in names),
    }
