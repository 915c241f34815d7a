"""The lab's own JSON API on a served server, beside MCP: what it serves and what happened.

- `POST /lab/change` applies the next catalog change now; answers what changed and how many
  conversations were told.
- `GET /lab/status`: the served catalog, the changes applied and planned, the open
  conversations with their clientInfo.
- `GET /lab/sessions` (with a `revision` that grows with every step recorded) and
  `GET /lab/steps?session=ID[&since=N]`: each client's session as trace steps while it happens,
  for the watch view of `mcp-lab serve` (app.web.watch).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import SplitResult, parse_qs

from app.mcp import jsonrpc

from .catalog import Change
from .conversations import Conversations
from .http_messages import HttpResponse, Push, error_response, json_response
from .sessions import SessionLog

__all__ = ["LabApi"]

# Paths this API answers, so another method on them is 405 rather than 404.
PATHS = ("/lab/change", "/lab/status", "/lab/sessions")


class LabApi:
    """Answers /lab/* for one served server."""

    def __init__(
        self,
        conversations: Conversations,
        log: SessionLog,
        change: Callable[[], tuple[Change, list[Push]]],
    ) -> None:
        self.conversations = conversations
        self.log = log
        self.change = change

    def handle(self, method: str, parts: SplitResult) -> tuple[HttpResponse, list[Push]] | None:
        """The answer to a /lab/* request, or None when the route is not the lab's."""
        route = (method, parts.path)
        if route == ("POST", "/lab/change"):
            change, pushes = self.change()
            return json_response(200, change_json(change)), pushes
        if route == ("GET", "/lab/status"):
            return json_response(200, self.status()), []
        if route == ("GET", "/lab/sessions"):
            return json_response(200, self.sessions()), []
        if route == ("GET", "/lab/steps"):
            query = parse_qs(parts.query)
            key = (query.get("session") or [""])[0]
            since = (query.get("since") or ["0"])[0]
            steps = self.log.steps(key, int(since) if since.isdigit() else 0)
            if steps is None:
                return error_response(404, jsonrpc.INVALID_REQUEST, "No such session"), []
            return json_response(200, steps), []
        return None

    def sessions(self) -> dict[str, Any]:
        served = self.conversations.served
        return {
            "revision": self.log.revision,
            "server": {"name": served.config.name, "version": served.config.version},
            "tools": len(served.tools),
            "changesApplied": len(served.applied),
            "sessions": self.log.summary(),
        }

    def status(self) -> dict[str, Any]:
        convs = self.conversations
        served = convs.served
        conversations = [
            {
                "id": c.key,
                "transport": c.transport,
                "protocolVersion": c.version,
                "client": c.client,
                "streamOpen": c.stream is not None,
            }
            for c in convs.all()
            if c is not convs.stateless
        ]
        return {
            "server": {"name": served.config.name, "version": served.config.version},
            "listChanged": served.config.list_changed,
            "tools": [t["name"] for t in served.tools],
            "changesApplied": len(served.applied),
            "changesPlanned": served.planned,
            "conversations": conversations,
        }


def change_json(change: Change) -> dict[str, Any]:
    return {
        "number": change.number,
        "source": change.source,
        "added": change.added,
        "removed": change.removed,
        "changed": change.changed,
        "notified": change.notified,
        "summary": change.describe(),
    }
