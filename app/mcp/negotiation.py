"""How the client opens a conversation: legacy initialize, or modern server/discover.

Legacy (2024-11-05 .. 2025-11-25): initialize names a version; the server echoes it or
counter-offers another in a normal result, and the client goes on only in a version it supports.
Modern (2026-07-28): server/discover asks what the server supports, and the answer decides the
era (basic/versioning.mdx, transports/stdio.mdx, Backward Compatibility). A DiscoverResult means
a modern server: the client goes on in a version both list. A recognised modern error means a
modern server too, so the client never falls back to initialize: -32022 with its `supported`
list is retried once in a mutual modern version (or the client gives up), -32021 and -32020 end
the probe. Any other error (commonly -32601 or -32602, never keyed to one code) means a legacy
server: the client falls back to the initialize handshake in its latest legacy version.
Phases move only through the lifecycle table.
"""

from __future__ import annotations

from typing import Any

from . import events as ev
from . import jsonrpc, lifecycle, listchanged, versions
from .clientcore import ClientCore
from .events import Output
from .requests import Pending
from .versions import Era


def start(client: ClientCore) -> Output:
    """Open the conversation: initialize (legacy) or server/discover (modern)."""
    if client.era is Era.LEGACY:
        return initialize(client, client.version)
    if not client.config.probe_discover:
        client.advance(lifecycle.SKIP_DISCOVERY)
        return listchanged.after_ready(client)
    client.advance(lifecycle.SEND_DISCOVER)
    return _probe(client, Output())


def _probe(client: ClientCore, out: Output) -> Output:
    client.probed.append(client.version)
    message = client.request("server/discover", None, Pending("server/discover"))
    out.messages.append(message)
    out.events.append(ev.ProbeSent(client.version))
    return out


def initialize(client: ClientCore, version: str) -> Output:
    client.advance(lifecycle.SEND_INITIALIZE)
    client.era, client.version = Era.LEGACY, version
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": client.info()}
    return Output(
        [client.request("initialize", params, Pending("initialize"))],
        [ev.InitializeSent(version)],
    )


def on_initialize_result(client: ClientCore, _: Pending, result: dict[str, Any]) -> Output:
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
    client.instructions = _instructions(result)
    events.append(ev.Negotiated(client.version, client.declares_list_changed()))
    return Output([jsonrpc.notification("notifications/initialized")], events)


def _mutual_modern(client: ClientCore, offered: Any) -> list[str]:
    """Modern versions both sides support, the client's most preferred (newest) first."""
    listed = offered if isinstance(offered, list) else []
    mine = client.config.supported_versions
    mutual = {v for v in listed if v in versions.MODERN_VERSIONS and v in mine}
    return sorted(mutual, key=versions.VERSIONS.index, reverse=True)


def on_discover_result(client: ClientCore, _: Pending, result: dict[str, Any]) -> Output:
    offered = result.get("supportedVersions")
    mutual = _mutual_modern(client, offered)
    if not mutual:
        # A modern server, but no version in common: stay modern and give up (no fallback).
        client.advance(lifecycle.NO_COMMON_VERSION)
        return Output(events=[ev.VersionRefused(offered)])
    client.advance(lifecycle.DISCOVERED)
    if client.version not in mutual:
        client.version = mutual[0]
    client.server_capabilities = result.get("capabilities") or {}
    client.server_info = (result.get("_meta") or {}).get(versions.META_SERVER_INFO) or {}
    client.instructions = _instructions(result)
    out = Output(events=[ev.Discovered(offered, client.declares_list_changed())])
    return out.extend(listchanged.after_ready(client))


def _instructions(result: dict[str, Any]) -> str | None:
    """The server's instructions, kept as the text they are (a hint for the model, untrusted)."""
    text = result.get("instructions")
    return text if isinstance(text, str) else None


def modern_error(err: dict[str, Any]) -> bool:
    """Is this error one only a modern server sends, recognised by its code and its shape?"""
    code, data = err.get("code"), err.get("data")
    if code == jsonrpc.UNSUPPORTED_PROTOCOL_VERSION:
        return (
            isinstance(data, dict)
            and isinstance(data.get("supported"), list)
            and isinstance(data.get("requested"), str)
        )
    if code == jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY:
        return isinstance(data, dict) and isinstance(data.get("requiredCapabilities"), dict)
    return code == jsonrpc.HEADER_MISMATCH


def on_discover_error(client: ClientCore, _: Pending, err: dict[str, Any]) -> Output:
    code = err.get("code")
    supported = client.config.supported_versions
    if not modern_error(err):
        # Any other answer means a legacy server: fall back to the handshake.
        latest = [v for v in supported if v in versions.LEGACY_VERSIONS]
        if not latest:
            client.advance(lifecycle.NO_COMMON_VERSION)
            return Output(events=[ev.FallbackLegacy(code), ev.VersionRefused(None)])
        out = Output(events=[ev.FallbackLegacy(code)])
        return out.extend(initialize(client, latest[-1]))
    if code != jsonrpc.UNSUPPORTED_PROTOCOL_VERSION:
        # A modern server that will not serve this client as it is: no retry helps.
        client.advance(lifecycle.NO_COMMON_VERSION)
        return Output(events=[ev.ModernRefused(code)])
    offered = err["data"]["supported"]
    mutual = [v for v in _mutual_modern(client, offered) if v not in client.probed]
    if mutual:
        client.advance(lifecycle.RETRY_VERSION)
        client.version = mutual[0]
        return _probe(client, Output(events=[ev.VersionRetry(client.version)]))
    # A modern server with no modern version in common: never initialize, even if it lists a
    # legacy version (a recognised modern error means a modern server).
    client.advance(lifecycle.NO_COMMON_VERSION)
    return Output(events=[ev.VersionRefused(offered)])


def on_initialize_error(client: ClientCore, _: Pending, err: dict[str, Any]) -> Output:
    client.advance(lifecycle.INITIALIZE_ERROR)
    return Output(events=[ev.InitializeFailed(err.get("code"))])
