"""The legacy server's transition table, exercised exhaustively: every phase x every message."""

from __future__ import annotations

import itertools

import pytest

from app.mcp.server import LEGACY_TRANSITIONS, MCPServer, ServerConfig, ServerPhase
from tests.pair import tools

CLIENT_MESSAGES = [
    "initialize",
    "notifications/initialized",
    "ping",
    "tools/list",
    "tools/call",
    "notifications/cancelled",
    "resources/list",
]
PHASES = [ServerPhase.AWAITING_INITIALIZE, ServerPhase.AWAITING_INITIALIZED, ServerPhase.OPERATING]


def server_in(phase: ServerPhase) -> MCPServer:
    server = MCPServer(ServerConfig("s", tools=tools("a")))
    if phase is not ServerPhase.AWAITING_INITIALIZE:
        server.receive(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "c", "version": "1"},
                },
            }
        )
    if phase is ServerPhase.OPERATING:
        server.receive({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert server.phase is phase
    return server


def message(method: str) -> dict:
    params: dict = {}
    if method == "initialize":
        params = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"},
        }
    elif method == "tools/call":
        params = {"name": "a", "arguments": {}}
    elif method == "notifications/cancelled":
        params = {"requestId": 9}
    if method.startswith("notifications/"):
        return {"jsonrpc": "2.0", "method": method, "params": params}
    return {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}


@pytest.mark.parametrize(("phase", "method"), list(itertools.product(PHASES, CLIENT_MESSAGES)))
def test_every_message_in_every_phase_follows_the_table(phase, method):
    server = server_in(phase)
    replies = server.receive(message(method))
    allowed = LEGACY_TRANSITIONS[phase]
    if method.startswith("notifications/"):
        assert replies == []  # a notification is never answered, allowed or not
        assert server.phase is allowed.get(method, phase)
        return
    [reply] = replies
    assert reply["id"] == 7
    if method in allowed:
        assert "result" in reply, reply
        assert server.phase is allowed[method]
    else:
        assert "error" in reply
        expected = -32601 if method == "resources/list" else -32600
        assert reply["error"]["code"] == expected
        assert server.phase is phase


def test_the_table_is_plain_data_reaching_operating_only_through_the_handshake():
    reachable = {ServerPhase.AWAITING_INITIALIZE}
    frontier = [ServerPhase.AWAITING_INITIALIZE]
    while frontier:
        for target in LEGACY_TRANSITIONS.get(frontier.pop(), {}).values():
            if target not in reachable:
                reachable.add(target)
                frontier.append(target)
    assert reachable == set(PHASES)
    assert {m for p in PHASES for m in LEGACY_TRANSITIONS[p] if m.startswith("tools/")} == {
        "tools/list",
        "tools/call",
    }
    assert not any(
        m.startswith("tools/") for m in LEGACY_TRANSITIONS[ServerPhase.AWAITING_INITIALIZED]
    )
