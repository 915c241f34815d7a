"""Lifecycle transitions checked against the spec's words, not against our own table.

The oracle tables below were written from the lifecycle pages of the specification
(docs/specification/<v>/basic/lifecycle.mdx, 2024-11-05 .. 2025-11-25, and the 2026-07-28 page
that drops the handshake), one row per moment the page describes. The phases are reached by
sending real messages, never by setting a phase, and every (moment, message) pair is checked.
The lab's own tables in app.mcp.lifecycle are only checked for being plain data.
"""

from __future__ import annotations

import itertools

import pytest

from app.mcp import lifecycle, versions
from app.mcp.client import ClientConfig, MCPClient
from app.mcp.clock import ManualClock
from app.mcp.jsonrpc import ProtocolError
from app.mcp.server import MCPServer, ServerConfig
from tests.pair import Pair, initialize_request, tools

ACCEPT, REFUSE, UNKNOWN = "accepted", "refused (-32600)", "unknown method (-32601)"

# Legacy server, from the lifecycle page:
# - "The initialization phase MUST be the first interaction between client and server."
# - "The client SHOULD NOT send requests other than pings before the server has responded to
#   the initialize request."
# - "After successful initialization, the client MUST send an initialized notification to
#   indicate it is ready to begin normal operations."; operation follows that notification.
# - ping: "Either party can send a ping at any time" (basic/utilities/ping), and initialize is
#   sent once, as the first interaction: a second one is out of place in any later moment.
SPEC_LEGACY_SERVER: dict[str, dict[str, str]] = {
    "nothing received yet": {
        "initialize": ACCEPT,
        "ping": ACCEPT,
        "tools/list": REFUSE,
        "tools/call": REFUSE,
        "resources/list": UNKNOWN,
    },
    "initialize answered, initialized not received": {
        "initialize": REFUSE,
        "ping": ACCEPT,
        "tools/list": REFUSE,
        "tools/call": REFUSE,
        "resources/list": UNKNOWN,
    },
    "initialized received (operation)": {
        "initialize": REFUSE,
        "ping": ACCEPT,
        "tools/list": ACCEPT,
        "tools/call": ACCEPT,
        "resources/list": UNKNOWN,
    },
}
# What the initialized notification does in each moment: only after initialize is answered
# does it start operation; notifications never get an answer.
SPEC_INITIALIZED_STARTS_OPERATION = {
    "nothing received yet": False,
    "initialize answered, initialized not received": True,
    "initialized received (operation)": False,
}


def legacy_server_at(moment: str) -> MCPServer:
    server = MCPServer(ServerConfig("s", tools=tools("a")))
    if moment != "nothing received yet":
        [reply] = server.receive(initialize_request("2025-11-25", request_id=0))
        assert "result" in reply
    if moment == "initialized received (operation)":
        assert server.receive({"jsonrpc": "2.0", "method": "notifications/initialized"}) == []
    return server


def request(method: str, *, meta: bool = False) -> dict:
    params: dict = {}
    if method == "initialize":
        params = initialize_request("2025-11-25")["params"]
    elif method == "tools/call":
        params = {"name": "a", "arguments": {}}
    if meta:
        params["_meta"] = {
            versions.META_VERSION: "2026-07-28",
            versions.META_CLIENT_CAPABILITIES: {},
        }
    return {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}


def outcome(reply: dict) -> str:
    if "result" in reply:
        return ACCEPT
    return {-32600: REFUSE, -32601: UNKNOWN}.get(reply["error"]["code"], str(reply["error"]))


CASES = [(m, r) for m, row in SPEC_LEGACY_SERVER.items() for r in row]


@pytest.mark.parametrize(("moment", "method"), CASES)
def test_a_legacy_server_accepts_and_refuses_what_the_lifecycle_page_says(moment, method):
    server = legacy_server_at(moment)
    [reply] = server.receive(request(method))
    assert reply["id"] == 7
    assert outcome(reply) == SPEC_LEGACY_SERVER[moment][method]


@pytest.mark.parametrize("moment", list(SPEC_INITIALIZED_STARTS_OPERATION))
def test_the_initialized_notification_starts_operation_only_after_initialize(moment):
    server = legacy_server_at(moment)
    assert server.receive({"jsonrpc": "2.0", "method": "notifications/initialized"}) == []
    [reply] = server.receive(request("tools/list"))
    operating = moment == "initialized received (operation)"
    assert ("result" in reply) is (operating or SPEC_INITIALIZED_STARTS_OPERATION[moment])


# 2026-07-28: "there is no initialization phase": every request carries its protocol version
# and client capabilities in params._meta and stands alone, so the very first request may be
# tools/list; a request without them is invalid (-32602).
SPEC_MODERN_FIRST_REQUEST = {
    "server/discover": ACCEPT,
    "tools/list": ACCEPT,
    "tools/call": ACCEPT,
}


@pytest.mark.parametrize(("method", "expected"), SPEC_MODERN_FIRST_REQUEST.items())
def test_a_modern_server_needs_no_handshake_before_any_request(method, expected):
    server = MCPServer(ServerConfig("s", tools=tools("a"), supported_versions=("2026-07-28",)))
    [reply] = server.receive(request(method, meta=True))
    assert outcome(reply) == expected
    [bare] = MCPServer(ServerConfig("s", supported_versions=("2026-07-28",))).receive(
        request("tools/list")
    )
    assert bare["error"]["code"] == -32602


# Legacy client, the same page: no request but ping before the initialize response; normal
# operation (tools/list, tools/call) once initialized has been sent.
SPEC_LEGACY_CLIENT = {
    "initialize sent, not answered": {"tools/list": False, "tools/call": False},
    "initialize answered (initialized sent)": {"tools/list": True, "tools/call": True},
}


@pytest.mark.parametrize(
    ("moment", "method"), [(m, r) for m, row in SPEC_LEGACY_CLIENT.items() for r in row]
)
def test_the_legacy_client_sends_only_what_the_lifecycle_page_allows(moment, method):
    pair = Pair("2025-11-25", ServerConfig("s", tools=tools("a")))
    pair.send(pair.client.start())
    if moment == "initialize answered (initialized sent)":
        pair.settle()
        assert pair.methods()[-1] == "notifications/initialized"
    ask = (
        pair.client.list_tools if method == "tools/list" else lambda: pair.client.call_tool("a", {})
    )
    if SPEC_LEGACY_CLIENT[moment][method]:
        out = ask()
        assert [m["method"] for m in out.messages] == [method]
    else:
        with pytest.raises(ProtocolError) as error:
            ask()
        assert error.value.side == "local"


@pytest.mark.parametrize(
    "table", [lifecycle.CLIENT_TRANSITIONS, lifecycle.SERVER_TRANSITIONS], ids=["client", "server"]
)
def test_each_table_is_plain_data_every_phase_reachable_from_the_first(table):
    phases = list(table)
    assert set(phases) == set(type(phases[0]))  # a row for every phase
    for row in table.values():
        assert all(isinstance(k, str) and type(v) is type(phases[0]) for k, v in row.items())
    reachable, frontier = {phases[0]}, [phases[0]]
    while frontier:
        for target in table[frontier.pop()].values():
            if target not in reachable:
                reachable.add(target)
                frontier.append(target)
    assert reachable == set(phases)
    arrows = lifecycle.edges(table)
    assert len(arrows) == sum(len(row) for row in table.values())
    assert all(isinstance(part, str) for arrow in arrows for part in arrow)


def test_a_move_the_table_lacks_raises_and_names_the_side():
    client = MCPClient(ClientConfig("s", protocol_version="2025-11-25"), ManualClock())
    client.start()
    with pytest.raises(ProtocolError) as error:
        client.start()  # a second opening while the first is unanswered
    assert error.value.side == "local"
    assert "initializing" in str(error.value)
    assert list(itertools.chain(*lifecycle.edges(lifecycle.CLIENT_TRANSITIONS)))
