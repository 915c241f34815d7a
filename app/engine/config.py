"""From a scenario file's `servers`, `client` and `host` sections to the core's configs.

Defaults have one home: the core's config dataclasses (ServerConfig, ClientConfig, HostConfig).
Each table below only says which file key fills which field (and how to convert it); a key the
file leaves out is not passed, so the dataclass default applies. docs/SCENARIOS.md quotes these
defaults, and a test checks that it quotes them right.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

from app.mcp.auth import AuthConfig
from app.mcp.client import ClientConfig
from app.mcp.host import HostConfig
from app.mcp.server import ServerConfig

from . import families

Convert = Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


# file key -> (config field, conversion)
SERVER_KEYS: dict[str, tuple[str, Convert]] = {
    "name": ("name", _same),
    "version": ("version", _same),
    "tools": ("tools", tuple),
    "pageSize": ("page_size", _same),
    "listChanged": ("list_changed", _same),
    "supportedVersions": ("supported_versions", tuple),
    "instructions": ("instructions", _same),
    "ttlMs": ("ttl_ms", _same),
    "pageTtlMs": ("page_ttl_ms", tuple),
    "cacheScope": ("cache_scope", _same),
    "failingTools": ("failing_tools", frozenset),
    "staleCursors": ("stale_cursors", _same),
    "resources": ("resources", tuple),
    "resourceTemplates": ("resource_templates", tuple),
    "prompts": ("prompts", tuple),
    "resourcesListChanged": ("resources_list_changed", _same),
    "resourcesSubscribe": ("resources_subscribe", _same),
    "promptsListChanged": ("prompts_list_changed", _same),
    "builtFor": ("built_for", _same),
    "auth": ("auth", lambda a: _auth(a)),
    "ignoresCursor": ("ignores_cursor", _same),
}
CLIENT_KEYS: dict[str, tuple[str, Convert]] = {
    "name": ("name", _same),
    "title": ("title", _same),
    "cacheTtlMs": ("cache_ttl_ms", _same),
    "listen": ("listen", _same),
    "probe": ("probe_discover", _same),
    "maxPages": ("max_pages", _same),
    "cache": ("cache", _same),
    "refreshOnListChanged": ("refresh_on_list_changed", _same),
    "rediscoverOnFailedCall": ("rediscover_on_failed_call", _same),
    "knownFieldsOnly": ("known_fields_only", _same),
}
HOST_KEYS: dict[str, tuple[str, Convert]] = {
    "user": ("user", _same),
    "deny": ("deny", lambda deny: {user: tuple(p) for user, p in deny.items()}),
    "rebuildEveryRequest": ("rebuild_every_request", _same),
    "confirmCalls": ("confirm_calls", _same),
    "trustedServers": ("trusted_servers", tuple),
    "serverInstructions": ("server_instructions", _same),
    "agents": ("agents", lambda agents: {name: tuple(p) for name, p in agents.items()}),
    "agent": ("agent", _same),
    "deferLoading": ("deferred", _same),
    "alwaysLoaded": ("always_loaded", tuple),
    "contextBudget": ("context_budget", _same),
    "searchResults": ("search_results", _same),
}


def _auth(spec: dict[str, Any]) -> AuthConfig:
    """A protected server's `auth` section (app.mcp.auth.AuthConfig)."""
    return AuthConfig(
        scopes_supported=tuple(spec.get("scopesSupported", ())),
        challenge_scope=spec.get("challengeScope"),
        tool_scopes=dict(spec.get("toolScopes", {})),
        call_scopes=dict(spec.get("callScopes", {})),
    )


def _fields(spec: dict[str, Any], keys: dict[str, tuple[str, Convert]]) -> dict[str, Any]:
    return {field: convert(spec[key]) for key, (field, convert) in keys.items() if key in spec}


def server_config(spec: dict[str, Any]) -> ServerConfig:
    """The ServerConfig for one entry of a scenario's `servers` list."""
    fields_ = _fields(spec, SERVER_KEYS)
    if "toolFamilies" in spec:  # dozens of tools, written compactly (app.engine.families)
        fields_["tools"] = families.tools_of(spec)
    return ServerConfig(**fields_)


def client_config(
    spec: dict[str, Any], server_id: str, version: str, transport: str
) -> ClientConfig:
    """The ClientConfig of the client talking to `server_id`, from the `client` section."""
    return ClientConfig(
        server_id=server_id,
        protocol_version=version,
        http=transport == "http",
        **_fields(spec, CLIENT_KEYS),
    )


def host_config(spec: dict[str, Any]) -> HostConfig:
    return HostConfig(**_fields(spec, HOST_KEYS))


def default_of(config: type, key: str, keys: dict[str, tuple[str, Convert]]) -> Any:
    """The default a file key gets when left out (for docs and tests)."""
    name = keys[key][0]
    return next(f.default for f in fields(config) if f.name == name)
