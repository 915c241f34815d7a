"""Version fallback follows the spec exactly (2026-07-28 basic/versioning.mdx and
transports/stdio.mdx, Backward Compatibility): a DiscoverResult or a recognised modern error
means a modern server, so the client never falls back to initialize; -32022 is retried once in a
mutual modern version; any other error (whatever its code) means a legacy server and the client
falls back to initialize in its latest legacy version. The client is fed the server's answers by
hand, as a real peer could send them, and each answer is checked against the official schema."""

from __future__ import annotations

from typing import Any

import pytest

from app.mcp import events as ev
from app.mcp import jsonrpc, lifecycle, versions
from app.mcp.client import ClientConfig, MCPClient
from app.mcp.clock import ManualClock
from app.mcp.schemas import check_message
from app.mcp.server import MCPServer, ServerConfig
from tests.pair import initialize_request

MODERN = "2026-07-28"


def probing(**config: Any) -> tuple[MCPClient, dict[str, Any]]:
    client = MCPClient(ClientConfig("s", protocol_version=MODERN, **config), ManualClock())
    [probe] = client.start().messages
    assert probe["method"] == "server/discover"
    return client, probe


def answer(client: MCPClient, probe: dict[str, Any], error: dict[str, Any]):
    message = {"jsonrpc": "2.0", "id": probe["id"], "error": error}
    assert check_message(message, MODERN, sender="server", request_method="server/discover") == []
    return client.receive(message)


UNSUPPORTED = {
    "code": jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
    "message": "Unsupported protocol version",
}


def test_unsupported_version_listing_only_legacy_versions_does_not_fall_back():
    """The old client initialized in 2025-11-25 here: a -32022 is a modern server's answer."""
    client, probe = probing()
    data = {"supported": ["2025-11-25"], "requested": MODERN}
    out = answer(client, probe, {**UNSUPPORTED, "data": data})
    assert out.messages == []  # no initialize
    assert [type(e) for e in out.events] == [ev.VersionRefused]
    assert client.phase is lifecycle.ClientPhase.FAILED and client.era is versions.Era.MODERN


def test_unsupported_version_naming_the_version_just_refused_is_not_retried_forever():
    client, probe = probing()
    data = {"supported": [MODERN], "requested": MODERN}  # a broken server
    out = answer(client, probe, {**UNSUPPORTED, "data": data})
    assert out.messages == [] and client.phase is lifecycle.ClientPhase.FAILED


@pytest.mark.parametrize(
    "error",
    [
        {
            "code": jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY,
            "message": "Missing required client capability",
            "data": {"requiredCapabilities": {"sampling": {}}},
        },
        {"code": jsonrpc.HEADER_MISMATCH, "message": "Header mismatch"},
    ],
    ids=["-32021", "-32020"],
)
def test_other_modern_errors_end_the_probe_without_falling_back(error):
    client, probe = probing()
    out = answer(client, probe, error)
    assert out.messages == []
    assert [type(e) for e in out.events] == [ev.ModernRefused]
    assert client.phase is lifecycle.ClientPhase.FAILED


@pytest.mark.parametrize(
    "error",
    [
        {"code": jsonrpc.METHOD_NOT_FOUND, "message": "Method not found"},
        {"code": jsonrpc.INVALID_PARAMS, "message": "Invalid params"},
        {"code": jsonrpc.INVALID_REQUEST, "message": "Server not initialized"},
        {"code": -32000, "message": "Bad Request: No valid session ID provided"},
        # -32022 without the shape of UnsupportedProtocolVersionError: not recognised.
        {"code": jsonrpc.UNSUPPORTED_PROTOCOL_VERSION, "message": "something else"},
    ],
    ids=["-32601", "-32602", "-32600", "-32000", "-32022-bare"],
)
def test_any_other_error_means_a_legacy_server_and_the_client_initializes(error):
    client, probe = probing()
    message = {"jsonrpc": "2.0", "id": probe["id"], "error": error}
    out = client.receive(message)
    [initialize] = out.messages
    assert initialize["method"] == "initialize"
    assert initialize["params"]["protocolVersion"] == versions.LATEST_LEGACY
    assert check_message(initialize, versions.LATEST_LEGACY, sender="client") == []
    assert client.era is versions.Era.LEGACY


def test_a_modern_only_client_facing_a_legacy_server_fails_instead_of_crashing():
    client, probe = probing(supported_versions=(MODERN,))
    out = client.receive(
        {"jsonrpc": "2.0", "id": probe["id"], "error": {"code": -32601, "message": "nope"}}
    )
    assert out.messages == [] and client.phase is lifecycle.ClientPhase.FAILED


def test_a_discover_result_without_a_mutual_version_fails_and_stays_modern():
    client, probe = probing()
    result = {
        "resultType": "complete",
        "supportedVersions": ["2027-01-01"],
        "capabilities": {"tools": {}},
        "ttlMs": 0,
        "cacheScope": "public",
    }
    out = client.receive({"jsonrpc": "2.0", "id": probe["id"], "result": result})
    assert out.messages == [] and client.phase is lifecycle.ClientPhase.FAILED


def test_a_modern_only_server_names_its_versions_when_refusing_initialize():
    server = MCPServer(ServerConfig("s", supported_versions=(MODERN,)))
    for version in versions.LEGACY_VERSIONS:
        [refusal] = server.receive(initialize_request(version))
        assert refusal["error"]["data"] == {"supported": [MODERN], "requested": version}
        assert check_message(refusal, version, sender="server", request_method="initialize") == []


def test_the_narration_says_why_there_is_no_fallback():
    from app.engine import narration

    client, probe = probing()
    data = {"supported": ["2025-11-25"], "requested": MODERN}
    message = {"jsonrpc": "2.0", "id": probe["id"], "error": {**UNSUPPORTED, "data": data}}
    answers = client.method_of(probe["id"])
    out = client.receive(message)
    key, params = narration.for_server_message(message, answers, out.events, client, "s", None)
    assert key == "err.version-none"
    assert "does not fall back to initialize" in narration.text(key, params)["en"]
