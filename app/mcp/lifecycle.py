"""The client's and the server's lifecycles as two transition tables of plain data.

h11-style: each table maps a phase to the inputs allowed in it and the phase each leads to. The
client and the server change phase only through `advance`, which looks the input up and raises a
`ProtocolError` naming the side that broke the rules when the table has no such move; there is
no other assignment of a phase anywhere. Being plain data, the tables are what the lab can draw
for students and what the tests walk exhaustively (against a table written from the spec's
lifecycle pages, not against these).

Server inputs are the methods of legacy messages; a modern (2026-07-28) message, which carries
its version in params._meta, is the input `MODERN_REQUEST` or `MODERN_NOTIFICATION`: the modern
era has no session to set up, so the first valid one makes the server stateless for good.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

from .jsonrpc import ProtocolError


class ClientPhase(StrEnum):
    NEW = "new"
    PROBING = "probing"  # modern: server/discover sent
    INITIALIZING = "initializing"  # legacy: initialize sent
    READY = "ready"
    FAILED = "failed"


class ServerPhase(StrEnum):
    """Legacy sessions walk these phases in order; a modern server stays STATELESS."""

    AWAITING_INITIALIZE = "awaiting-initialize"
    AWAITING_INITIALIZED = "awaiting-initialized"
    OPERATING = "operating"
    STATELESS = "stateless"


# Client inputs: what the host asks of it, and what it makes of the server's answers.
SEND_INITIALIZE = "send initialize"
SEND_DISCOVER = "send server/discover"
SKIP_DISCOVERY = "skip discovery"  # modern, told the server's capabilities beforehand
DISCOVERED = "server/discover result"
RETRY_VERSION = "server/discover refused the version, another is mutual"
INITIALIZED = "initialize result in a supported version"
NO_COMMON_VERSION = "no version in common"
INITIALIZE_ERROR = "initialize error"
LIST_TOOLS = "list tools"
CALL_TOOL = "call tools"
USE_OFFERINGS = "list or read resources and prompts"
SEND_BY_HAND = "send a hand-made request"  # the lab breaking the rules on purpose, any time

C = ClientPhase
CLIENT_TRANSITIONS: dict[ClientPhase, dict[str, ClientPhase]] = {
    C.NEW: {
        SEND_INITIALIZE: C.INITIALIZING,
        SEND_DISCOVER: C.PROBING,
        SKIP_DISCOVERY: C.READY,
        SEND_BY_HAND: C.NEW,
    },
    C.PROBING: {
        DISCOVERED: C.READY,
        RETRY_VERSION: C.PROBING,
        SEND_INITIALIZE: C.INITIALIZING,  # a legacy server: fall back to the handshake
        NO_COMMON_VERSION: C.FAILED,
        SEND_BY_HAND: C.PROBING,
    },
    C.INITIALIZING: {
        INITIALIZED: C.READY,
        NO_COMMON_VERSION: C.FAILED,
        INITIALIZE_ERROR: C.FAILED,
        SEND_BY_HAND: C.INITIALIZING,
    },
    C.READY: {
        LIST_TOOLS: C.READY,
        CALL_TOOL: C.READY,
        USE_OFFERINGS: C.READY,
        SEND_BY_HAND: C.READY,
    },
    C.FAILED: {SEND_BY_HAND: C.FAILED},
}

# Server inputs: a legacy message's method, or one of these for a modern message.
MODERN_REQUEST = "modern request"
MODERN_NOTIFICATION = "modern notification"

S = ServerPhase
SERVER_TRANSITIONS: dict[ServerPhase, dict[str, ServerPhase]] = {
    S.AWAITING_INITIALIZE: {
        "initialize": S.AWAITING_INITIALIZED,
        "ping": S.AWAITING_INITIALIZE,  # ping is allowed at any time
        MODERN_REQUEST: S.STATELESS,
    },
    S.AWAITING_INITIALIZED: {
        "notifications/initialized": S.OPERATING,
        "ping": S.AWAITING_INITIALIZED,
    },
    S.OPERATING: {
        "ping": S.OPERATING,
        "tools/list": S.OPERATING,
        "tools/call": S.OPERATING,
        "notifications/cancelled": S.OPERATING,
        # Methods of the resources and prompts capabilities (a server that did not declare
        # the capability answers them -32601, like an unknown method).
        "resources/list": S.OPERATING,
        "resources/templates/list": S.OPERATING,
        "resources/read": S.OPERATING,
        "resources/subscribe": S.OPERATING,
        "resources/unsubscribe": S.OPERATING,
        "prompts/list": S.OPERATING,
        "prompts/get": S.OPERATING,
    },
    S.STATELESS: {MODERN_REQUEST: S.STATELESS, MODERN_NOTIFICATION: S.STATELESS},
}

# Every legacy method some phase accepts: any other legacy method is unknown (-32601).
LEGACY_METHODS = frozenset(key for row in SERVER_TRANSITIONS.values() for key in row) - {
    MODERN_REQUEST,
    MODERN_NOTIFICATION,
}

P = TypeVar("P", ClientPhase, ServerPhase)


def allows(table: dict[P, dict[str, P]], phase: P, move: str) -> bool:
    return move in table[phase]


def advance(table: dict[P, dict[str, P]], phase: P, move: str, *, side: str) -> P:
    """The phase `move` leads to from `phase`; a ProtocolError blaming `side` if none."""
    try:
        return table[phase][move]
    except KeyError:
        raise ProtocolError(f"cannot {move} while {phase.value}", side=side) from None


def edges(table: dict[P, dict[str, P]]) -> list[tuple[str, str, str]]:
    """The table as (from phase, input, to phase) arrows, the order a diagram draws them."""
    return [(a.value, move, b.value) for a, row in table.items() for move, b in row.items()]
