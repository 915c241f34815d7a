"""A real session recorded as the steps `mcp-lab trace` prints, so the viewer can show it.

`SessionRecorder` is told each message the lab's client sent and each one the server sent back
(with the text on the wire and the client's events), and appends a complete-state step in the
trace's shape: kind, actors, the message and its frame, narration in three languages, and the
state after it (the client's snapshot, the host's tool table, what a model request would carry,
and what the server has shown of itself, which for a real server is all the lab can know). The
clock is the session's wall time in milliseconds since it began.
"""

from __future__ import annotations

import copy
import time
from typing import Any

from app.engine import narration
from app.engine.recorder import changes_between as _changes  # between two states
from app.engine.step import Text
from app.mcp.client import Event, MCPClient
from app.mcp.host import Host, HostConfig
from app.mcp.jsonrpc import Message

__all__ = ["SessionRecorder"]

Step = dict[str, Any]


class SessionRecorder:
    def __init__(self, client: MCPClient, server_id: str, transport: str):
        self.client = client
        self.server_id = server_id
        self.transport = transport
        self.host = Host([server_id], HostConfig())
        self.steps: list[Step] = []
        self.console: list[Text] = []  # one {en, zh, ru} per line
        self._asked: dict[Any, str] = {}
        self._carried: list[Event] = []
        self._started = time.monotonic()

    def _state(self) -> dict[str, Any]:
        c = self.client
        snapshots = {self.server_id: c.cache.tools}
        info = c.server_info or {}
        return {
            "clockMs": int((time.monotonic() - self._started) * 1000),
            "servers": {
                self.server_id: {
                    "name": info.get("name", self.server_id),
                    "phase": "real",
                    "revision": c.cache.generation,
                    "listChanged": bool(
                        (c.server_capabilities.get("tools") or {}).get("listChanged")
                    ),
                    "tools": list(c.cache.tools),
                    "subscriptions": [str(c.listen_id)] if c.listening else [],
                }
            },
            "clients": {self.server_id: c.snapshot()},
            "host": self.host.snapshot(snapshots),
            "model": {
                "tools": list(self.host.last_model_tools),
                "next": self.host.next_tools(snapshots),
                "requests": self.host.model_requests,
                "prompt": None,
            },
            "console": list(self.console),
        }

    def _emit(
        self,
        kind: str,
        frm: str,
        to: str,
        message: Message | None,
        frame: str | None,
        channel: str | None,
        reply: str | None,
        method: str | None,
        events: list[Event],
        phrase: tuple[str, dict[str, Any]],
    ) -> None:
        state = self._state()
        self.steps.append(
            {
                "index": len(self.steps),
                "kind": kind,
                "from": frm,
                "to": to,
                "protocolVersion": self.client.version,
                "era": self.client.era.value,
                "transport": self.transport,
                "method": method,
                "id": None if message is None else message.get("id"),
                "message": copy.deepcopy(message),
                "frame": frame,
                "channel": channel,
                "reply": reply,
                "events": [e.as_dict() for e in events],
                "state": state,
                "changes": _changes(self.steps[-1]["state"], state) if self.steps else {},
                "narration": narration.render(phrase[0], phrase[1], events),
                "checkpoint": None,
                "action": -1,
            }
        )

    def started(self, events: list[Event]) -> None:
        """Events of a host call that the next client message will carry."""
        self._carried += events

    def client_message(
        self, message: Message, frame: str, channel: str, reply: str | None = None
    ) -> None:
        if "method" in message and "id" in message:
            self._asked[message["id"]] = message["method"]
        events, self._carried = self._carried, []
        sid = self.server_id
        self._emit(
            "request"
            if "id" in message and "method" in message
            else "notification"
            if "method" in message
            else "response",
            f"client:{sid}",
            f"server:{sid}",
            message,
            frame,
            channel,
            reply,
            message.get("method"),
            events,
            narration.for_client_message(message, self.client, sid),
        )

    def server_message(
        self,
        message: Message,
        frame: str,
        channel: str,
        events: list[Event],
        in_gather: int | None,
    ) -> None:
        answers = None if "method" in message else self._asked.pop(message.get("id"), None)
        for event in events:
            line = narration.console_line(self.server_id, event)
            if line:
                self.console.append(line)
        kind = (
            "notification"
            if "method" in message
            else ("error" if "error" in message else "response")
        )
        sid = self.server_id
        self._emit(
            kind,
            f"server:{sid}",
            f"client:{sid}",
            message,
            frame,
            channel,
            None,
            message.get("method") or answers,
            events,
            narration.for_server_message(message, answers, events, self.client, sid, in_gather),
        )

    def finish(self) -> list[Step]:
        """The terminal step, then every step."""
        self._emit(
            "terminal",
            "host",
            "host",
            None,
            None,
            None,
            None,
            None,
            [],
            (
                "terminal.end",
                {"tools": len(self.host.next_tools({self.server_id: self.client.cache.tools}))},
            ),
        )
        return self.steps
