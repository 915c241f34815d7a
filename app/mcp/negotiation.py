"""How the client opens a conversation: legacy initialize, or modern server/discover.

Legacy (2024-11-05 .. 2025-11-25): initialize names a version; the server echoes it or
counter-offers another in a normal result, and the client goes on only in a version it supports.
Modern (2026-07-28): server/discover asks what the server supports; -32022 lists its versions,
so the client retries once in a mutual modern one or falls back to initialize for a legacy-only
server; any other error also means a legacy server. Phases move only through the lifecycle table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import events as ev
from . import jsonrpc, lifecycle, versions
from .events import Output
from .requests import Pending
from .versions import Era

if TYPE_CHECKING:
    from .client import MCPClient


def start(client: MCPClient) -> Output:
    """Open the conversation: initialize (legacy) or server/discover (modern)."""
    if client.era is Era.LEGACY:
        return initialize(client, client.version)
    if not client.config.probe_discover:
        client.advance(lifecycle.SKIP_DISCOVERY)
        return client.after_ready()
    client.advance(lifecycle.SEND_DISCOVER)
    return _probe(client, Output())


def _probe(client: MCPClient, out: Output) -> Output:
    message = client.request("server/discover", None, Pending("server/discover"))
    out.messages.append(message)
    out.events.append(ev.ProbeSent(client.version))
    return out


def initialize(client: MCPClient, version: str) -> Output:
    client.advance(lifecycle.SEND_INITIALIZE)
    client.era, client.version = Era.LEGACY, version
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": client.info()}
    return Output(
        [client.request("initialize", params, Pending("initialize"))],
        [ev.InitializeSent(version)],
    )


def on_initialize_result(client: MCPClient, _: Pending, result: dict[str, Any]) -> Output:
    offered = result.get("protocolVersion")
    events: list[ev.Event] = []
    if offered != client.version:
        events.append(ev.CounterOffer(client.version, offered))
    supported = client.config.supported_versions
    if offered not in supported or offered not in versions.LEGACY_VERSIONS:
        client.advance(lifecycle.NO_COMMON_VERSION)
        events.append(ev.VersionRefused(offered))
        return Output(events=events)
    client.advance(lifecycle.INITIALIZED)
    client.version = str(offered)
    client.server_capabilities = result.get("capabilities") or {}
    client.server_info = result.get("serverInfo") or {}
    events.append(ev.Negotiated(client.version, client.declares_list_changed()))
    return Output([jsonrpc.notification("notifications/initialized")], events)


def on_discover_result(client: MCPClient, _: Pending, result: dict[str, Any]) -> Output:
    client.advance(lifecycle.DISCOVERED)
    client.server_capabilities = result.get("capabilities") or {}
    client.server_info = (result.get("_meta") or {}).get(versions.META_SERVER_INFO) or {}
    out = Output(
        events=[ev.Discovered(result.get("supportedVersions"), client.declares_list_changed())]
    )
    return out.extend(client.after_ready())


def on_discover_error(client: MCPClient, _: Pending, err: dict[str, Any]) -> Output:
    code = err.get("code")
    supported = client.config.supported_versions
    if code != jsonrpc.UNSUPPORTED_PROTOCOL_VERSION:
        # Any other answer means a legacy server: fall back to the handshake.
        latest = [v for v in supported if v in versions.LEGACY_VERSIONS]
        out = Output(events=[ev.FallbackLegacy(code)])
        return out.extend(initialize(client, latest[-1]))
    offered = (err.get("data") or {}).get("supported") or []
    mutual = [v for v in offered if v in versions.MODERN_VERSIONS and v in supported]
    if mutual and mutual[0] != client.version:
        client.advance(lifecycle.RETRY_VERSION)
        client.version = mutual[0]
        return _probe(client, Output(events=[ev.VersionRetry(client.version)]))
    legacy = [v for v in offered if v in versions.LEGACY_VERSIONS and v in supported]
    if legacy:
        out = Output(events=[ev.FallbackLegacy(code)])
        return out.extend(initialize(client, legacy[0]))
    client.advance(lifecycle.NO_COMMON_VERSION)
    return Output(events=[ev.VersionRefused(offered)])


def on_initialize_error(client: MCPClient, _: Pending, err: dict[str, Any]) -> Output:
    client.advance(lifecycle.INITIALIZE_ERROR)
    return Output(events=[ev.InitializeFailed(err.get("code"))])
