"""The agent host: several MCP clients behind one agent, and the tools it hands the model.

Tool names are unique only per server, so the host prefixes each with the server id the
configuration gives it (never serverInfo.name, which is not unique), then makes the result safe
for model APIs (^[a-zA-Z0-9_-]{1,64}$) with a reversible mapping: the model's name maps back to
(server id, tool name) through a table, not by parsing. The model's tools are rebuilt from the
clients' current snapshots for every model request (unless a scenario turns on the stale
behaviour on purpose), filtered by the user's access rules; a prepared call is checked against
the current contract before it runs. For people the host names a tool by the precedence the
spec gives (title, then annotations.title, then name) and shows only icons whose URI is https or
data:. Annotations are hints from the server: only a server the user trusts gets a read-only
tool run unattended; every other call is put to the user first.
"""

from __future__ import annotations

import copy
import fnmatch
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from . import context
from .snapshots import Collision, HostRow, HostState, ModelTool
from .tooldiff import schema_hash

MODEL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
SEPARATOR = "__"


@dataclass(frozen=True)
class HostConfig:
    user: str | None = None
    # user -> patterns of "serverId/toolName" the user may not use (fnmatch-style)
    deny: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    rebuild_every_request: bool = True
    confirm_calls: bool = False  # put calls to the user unless a trusted server's read-only
    trusted_servers: tuple[str, ...] = ()  # server ids whose annotations the user trusts
    # Context strategies, the host's own choices (app.mcp.context): where servers' instructions
    # go, per-agent allow-lists, deferred loading behind a search tool, a budget to show.
    server_instructions: str = "system-prompt"  # or "ignore"
    agents: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    agent: str | None = None
    deferred: bool = False
    always_loaded: tuple[str, ...] = ()  # model-facing names handed even when deferring
    context_budget: int | None = None  # tokens the host allows for tool definitions
    search_results: int = 5


def display_name(tool: Mapping[str, Any]) -> str:
    """The name a person sees: title, then annotations.title, then name (2025-06-18 tools.mdx)."""
    annotations = tool.get("annotations")
    from_annotations = annotations.get("title") if isinstance(annotations, Mapping) else None
    for candidate in (tool.get("title"), from_annotations, tool.get("name")):
        if isinstance(candidate, str) and candidate:
            return candidate
    return ""


def usable_icons(tool: Mapping[str, Any]) -> list[str]:
    """Icon URIs a host may fetch: https or data: only; other schemes must be rejected."""
    icons = tool.get("icons")
    if not isinstance(icons, list):
        return []
    srcs = [i.get("src") for i in icons if isinstance(i, Mapping)]
    return [s for s in srcs if isinstance(s, str) and s.startswith(("https://", "data:"))]


def approval(trusted: bool, tool: Mapping[str, Any]) -> tuple[str, str]:
    """How the host handles a call of this tool, and why: "auto" (run it) only for a trusted
    server's tool annotated read-only; otherwise "ask" the user, whatever the annotations say.
    Unset hints take the spec's defaults (readOnlyHint false, destructiveHint true)."""
    annotations = tool.get("annotations")
    if not isinstance(annotations, Mapping) or not annotations:
        return "ask", "no-hints"
    if annotations.get("readOnlyHint") is True:
        return ("auto", "trusted-read-only") if trusted else ("ask", "untrusted-read-only")
    if annotations.get("destructiveHint", True) is not False:
        return "ask", "destructive"
    return "ask", "not-read-only"


def model_safe_name(server_id: str, tool: str, taken: set[str]) -> str:
    """Prefix, replace what model APIs refuse, and keep it unique and within 64 characters."""
    candidate = _UNSAFE.sub("_", f"{server_id}{SEPARATOR}{tool}")
    if len(candidate) > 64 or candidate in taken or not candidate:
        digest = hashlib.sha256(f"{server_id}\0{tool}".encode()).hexdigest()[:8]
        candidate = f"{candidate[:55]}_{digest}"
    return candidate


@dataclass(frozen=True)
class PreparedCall:
    model_name: str
    server_id: str
    tool: str
    arguments: dict[str, Any]
    schema_hash: str


class Host:
    def __init__(self, server_ids: list[str], config: HostConfig):
        self.server_ids = list(server_ids)
        self.config = config
        self.user = config.user
        self.rebuild_every_request = config.rebuild_every_request
        self.model_requests = 0
        self._frozen_tools: list[ModelTool] | None = None
        self.last_model_tools: list[ModelTool] = []
        self.agent = config.agent
        self.server_instructions = config.server_instructions
        self.deferred = config.deferred
        self.loaded: list[str] = []  # model-facing names a search loaded (deferred loading)
        self.last_instructions: list[context.ServerText] = []
        self.last_budget: context.Budget | None = None

    def denied(self, server_id: str, tool: str) -> bool:
        patterns = self.config.deny.get(self.user or "", ())
        if not context.allowed_by_agent(self.config.agents, self.agent, server_id, tool):
            return True  # outside this agent's allow-list: the host keeps it from the agent
        return any(fnmatch.fnmatchcase(f"{server_id}/{tool}", p) for p in patterns)

    def table(self, snapshots: Mapping[str, list[dict[str, Any]]]) -> list[HostRow]:
        """One row per (server, tool) in server order, with its model-facing name."""
        rows: list[HostRow] = []
        taken: set[str] = set()
        for server_id in self.server_ids:
            for tool in snapshots.get(server_id, []):
                name = str(tool.get("name", ""))
                model_name = model_safe_name(server_id, name, taken)
                taken.add(model_name)
                rows.append(
                    {
                        "serverId": server_id,
                        "tool": name,
                        "qualified": f"{server_id}/{name}",
                        "modelName": model_name,
                        "schemaHash": schema_hash(tool),
                        "allowed": not self.denied(server_id, name),
                        "displayName": display_name(tool),
                        "icons": usable_icons(tool),
                        "approval": self.approval_of(server_id, tool),
                    }
                )
        return rows

    def approval_of(self, server_id: str, tool: Mapping[str, Any]) -> str:
        """ "auto" when calls run unattended (a host that confirms nothing, or a trusted read-only
        tool), "ask" when the host puts the call to the user first."""
        if not self.config.confirm_calls:
            return "auto"
        return approval(server_id in self.config.trusted_servers, tool)[0]

    def collisions(self, snapshots: Mapping[str, list[dict[str, Any]]]) -> list[Collision]:
        owners: dict[str, list[str]] = {}
        for server_id in self.server_ids:
            for tool in snapshots.get(server_id, []):
                owners.setdefault(str(tool.get("name", "")), []).append(server_id)
        return [{"tool": n, "servers": s} for n, s in owners.items() if len(s) > 1]

    def model_tools(self, snapshots: Mapping[str, list[dict[str, Any]]]) -> list[ModelTool]:
        """The tools array as the model would receive it now (Anthropic-style keys)."""
        by_key = {
            (s, str(t.get("name", ""))): t for s in self.server_ids for t in snapshots.get(s, [])
        }
        tools: list[ModelTool] = []
        for row in self.table(snapshots):
            if not row["allowed"]:
                continue
            tool = by_key[(row["serverId"], row["tool"])]
            tools.append(
                {
                    "name": row["modelName"],
                    "description": str(tool.get("description", "")),
                    "input_schema": tool.get("inputSchema", {"type": "object"}),  # read-only data
                }
            )
        return tools

    def next_tools(self, snapshots: Mapping[str, list[dict[str, Any]]]) -> list[ModelTool]:
        """What the next model request would carry, without making one."""
        if not self.rebuild_every_request and self._frozen_tools is not None:
            return self._frozen_tools
        tools = self.model_tools(snapshots)
        if self.deferred:
            return context.hand_over(tools, self.config.always_loaded, self.loaded)
        return tools

    def model_request(
        self,
        snapshots: Mapping[str, list[dict[str, Any]]],
        instructions: Mapping[str, str | None] | None = None,
    ) -> list[ModelTool]:
        """Build the next model request's tools (and, if this host places them, the servers'
        instructions for its system prompt). The stale variant reuses the first list forever."""
        placement = self.server_instructions
        self.last_instructions = context.system_instructions(placement, instructions or {})
        tools = self.next_tools(snapshots)
        if not self.rebuild_every_request and self._frozen_tools is None:
            self._frozen_tools = tools
        self.model_requests += 1
        self.last_model_tools = copy.deepcopy(tools)
        if self.deferred or self.config.context_budget is not None:
            every = self.model_tools(snapshots)
            self.last_budget = context.budget(every, tools, self.config.context_budget)
        return tools

    def resolve(
        self, model_name: str, snapshots: Mapping[str, list[dict[str, Any]]]
    ) -> HostRow | None:
        return next((r for r in self.table(snapshots) if r["modelName"] == model_name), None)

    def prepare_call(
        self,
        model_name: str,
        arguments: dict[str, Any],
        snapshots: Mapping[str, list[dict[str, Any]]],
    ) -> PreparedCall | None:
        row = self.resolve(model_name, snapshots)
        if row is None:
            return None
        return PreparedCall(
            model_name, row["serverId"], row["tool"], copy.deepcopy(arguments), row["schemaHash"]
        )

    def revalidate(
        self, call: PreparedCall, snapshots: Mapping[str, list[dict[str, Any]]]
    ) -> str | None:
        """None when the call may run against the current contract; otherwise why not."""
        tool = next(
            (t for t in snapshots.get(call.server_id, []) if t.get("name") == call.tool), None
        )
        if tool is None:
            return "gone"
        if self.denied(call.server_id, call.tool):
            return "denied"
        if schema_hash(tool) != call.schema_hash:
            try:
                jsonschema.validate(call.arguments, tool.get("inputSchema", {}))
            except jsonschema.ValidationError as exc:
                return f"schema-changed: {exc.message}"
            except jsonschema.SchemaError:
                return "schema-changed: the new schema is not valid JSON Schema"
        return None

    def snapshot(self, snapshots: Mapping[str, list[dict[str, Any]]]) -> HostState:
        table = self.table(snapshots)
        state: HostState = {
            "user": self.user,
            "rebuildEveryRequest": self.rebuild_every_request,
            "tools": table,
            "collisions": self.collisions(snapshots),
            "denied": [r["modelName"] for r in table if not r["allowed"]],
        }
        if self.config.agents:  # keys only a host using these strategies has
            state["agent"] = self.agent
        if self.deferred:
            state["loaded"] = list(self.loaded)
        return state
