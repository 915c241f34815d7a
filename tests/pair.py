"""A client and a server joined by a fake link, for core tests (h11's ConnectionPair idea)."""

from __future__ import annotations

from typing import Any

from app.mcp.client import ClientConfig, MCPClient
from app.mcp.clock import ManualClock
from app.mcp.events import Event, Output
from app.mcp.server import MCPServer, ServerConfig


def tools(*names: str, schema: dict[str, Any] | None = None) -> tuple[dict[str, Any], ...]:
    return tuple(
        {"name": n, "description": f"{n} tool", "inputSchema": schema or {"type": "object"}}
        for n in names
    )


def initialize_request(version: str, request_id: int = 1) -> dict[str, Any]:
    """A legacy client's opening request, as the lab's own client would send it."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"},
        },
    }


class Pair:
    def __init__(self, version: str, server: ServerConfig, **client: Any):
        self.clock = ManualClock()
        self.server = MCPServer(server)
        self.client = MCPClient(ClientConfig("srv", protocol_version=version, **client), self.clock)
        self.wire: list[tuple[str, dict[str, Any]]] = []
        self.events: list[Event] = []
        self.queue: list[tuple[str, dict[str, Any]]] = []

    def send(self, out: Output) -> None:
        self.events += out.events
        self.queue += [("c2s", m) for m in out.messages]

    def notify(self, messages: list[dict[str, Any]]) -> None:
        self.queue += [("s2c", m) for m in messages]

    def step(self) -> None:
        direction, message = self.queue.pop(0)
        self.wire.append((direction, message))
        if direction == "c2s":
            self.queue += [("s2c", m) for m in self.server.receive(message)]
        else:
            self.send(self.client.receive(message))

    def settle(self, limit: int = 500) -> None:
        for _ in range(limit):
            if not self.queue:
                return
            self.step()
        raise AssertionError("the pair never went quiet")

    def connect(self) -> Pair:
        self.send(self.client.start())
        self.settle()
        return self

    def methods(self, direction: str = "c2s") -> list[str]:
        return [m.get("method", "") for d, m in self.wire if d == direction]

    def kinds(self) -> list[type[Event]]:
        """The classes of the client's events so far, in order."""
        return [type(e) for e in self.events]
