"""One served scenario server: the catalog all its sessions share, and the changes it goes through.

A real server process has one tool catalog however many clients it talks to, but the sans-IO
`MCPServer` holds one conversation (a legacy session's phase, a modern listen stream's
subscription). `ServedServer` therefore opens one `MCPServer` per conversation, all started from
the same tools and revision, and applies every change to all of them at once; each returns the
list_changed notifications its own conversation is owed (a legacy session's, or the event for a
listen stream that asked for it), which the shell routes to that conversation's channel.

Changes are the scenario's `server_change` actions for this server, in script order; once they
are used up (or when the scenario has none) the server alternates adding and removing a
generated tool, so `--change-every` keeps producing changes a client can see. A server whose
scenario leaves `listChanged` unset declares it when it is served with changes (otherwise a
client could never be told); an explicit `listChanged: false` is kept, and then the catalog
changes silently, which is that lesson's point.
"""

from __future__ import annotations

import copy
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any

from app.engine.runner import server_config
from app.engine.scenario import load_scenario, scenario_path
from app.mcp.client import diff_tools
from app.mcp.jsonrpc import Message
from app.mcp.server import MCPServer, ServerConfig

__all__ = ["Change", "ServedServer", "UnknownServer", "load_served", "server_spec"]


class UnknownServer(LookupError):
    """The scenario has no server with the requested id."""


@dataclass(frozen=True)
class Change:
    """One applied change: its number (from 1), where it came from and what it did."""

    number: int
    source: str  # "scenario" (a server_change action) or "generated"
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    notified: int = 0  # how many conversations were sent a list_changed

    def describe(self) -> str:
        parts = [f"+{n}" for n in self.added] + [f"-{n}" for n in self.removed]
        parts += [f"~{n}" for n in self.changed]
        return f"change {self.number} ({self.source}): {' '.join(parts) or 'no difference'}"


def changed_catalog(tools: list[dict[str, Any]], action: dict[str, Any]) -> list[dict[str, Any]]:
    """The catalog after a server_change action: removals, then updates by name, then additions
    (the order the scenario engine applies them in)."""
    removed = set(action.get("remove", []))
    result = [copy.deepcopy(t) for t in tools if t["name"] not in removed]
    for update in action.get("update", []):
        result = [{**t, **update} if t["name"] == update["name"] else t for t in result]
    return result + copy.deepcopy(list(action.get("add", [])))


def server_spec(scenario_id_or_path: str, server_id: str) -> tuple[dict[str, Any], list[Any]]:
    """The scenario's entry for `server_id` and its whole script.

    Raises ScenarioInvalid for a broken file, FileNotFoundError for an unknown scenario and
    UnknownServer for a server id the scenario does not define.
    """
    scenario = load_scenario(scenario_path(scenario_id_or_path))
    specs: list[dict[str, Any]] = scenario.data["servers"]
    for spec in specs:
        if spec["id"] == server_id:
            return spec, list(scenario.data.get("script", []))
    known = ", ".join(str(s["id"]) for s in specs)
    raise UnknownServer(f"scenario {scenario.id!r} has no server {server_id!r} (it has: {known})")


class ServedServer:
    """The shared catalog of one served server and the conversations open on it."""

    def __init__(
        self,
        spec: dict[str, Any],
        changes: list[dict[str, Any]] | None = None,
        *,
        announce_changes: bool = False,
    ):
        config: ServerConfig = server_config(spec)
        if announce_changes and "listChanged" not in spec:
            config = replace(config, list_changed=True)
        self.server_id = str(spec["id"])
        self.config = config
        self.tools: list[dict[str, Any]] = [copy.deepcopy(t) for t in config.tools]
        self.revision = 1
        self.conversations: list[MCPServer] = []
        self.applied: list[Change] = []
        self._plan: deque[dict[str, Any]] = deque(changes or [])
        self._generated = 0

    @property
    def planned(self) -> int:
        """Scenario changes not applied yet."""
        return len(self._plan)

    def open(self) -> MCPServer:
        """A new conversation, seeing the catalog as it is now."""
        server = MCPServer(self.config)
        server.tools = [copy.deepcopy(t) for t in self.tools]
        server.revision = self.revision
        self.conversations.append(server)
        return server

    def close(self, server: MCPServer) -> None:
        if server in self.conversations:
            self.conversations.remove(server)

    def _next_tools(self) -> tuple[str, list[dict[str, Any]]]:
        if self._plan:
            return "scenario", changed_catalog(self.tools, self._plan.popleft())
        self._generated += 1
        n = (self._generated + 1) // 2
        name = f"lab_extra_{n}"
        if self._generated % 2 == 1:
            extra = {
                "name": name,
                "description": f"A tool the lab added while serving (change {self._generated}).",
                "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
            }
            return "generated", [*self.tools, extra]
        return "generated", [t for t in self.tools if t["name"] != name]

    def change(self) -> tuple[Change, list[tuple[MCPServer, list[Message]]]]:
        """Apply the next change to every conversation; returns it and who must be told what."""
        source, tools = self._next_tools()
        diff = diff_tools(self.tools, tools)
        self.tools = tools
        self.revision += 1
        owed: list[tuple[MCPServer, list[Message]]] = []
        for server in self.conversations:
            notes = server.set_tools(tools)
            server.revision = self.revision  # set_tools skips the bump when nothing differs
            if notes:
                owed.append((server, notes))
        change = Change(
            len(self.applied) + 1,
            source,
            diff["added"],
            diff["removed"],
            diff["changed"],
            notified=len(owed),
        )
        self.applied.append(change)
        return change, owed


def load_served(
    scenario_id_or_path: str, server_id: str, *, announce_changes: bool = False
) -> ServedServer:
    """The served server for `server_id` of a scenario, with its scripted changes."""
    spec, script = server_spec(scenario_id_or_path, server_id)
    changes = [
        action
        for action in script
        if isinstance(action, dict) and action.get("server_change") == server_id
    ]
    return ServedServer(spec, changes, announce_changes=announce_changes)
