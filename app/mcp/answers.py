"""What a simulated server answers to each method, as functions of its configuration and catalog.

The session machine (app.mcp.server) decides whether a request is answered at all in its phase
and era, and keeps what an answer changes (the negotiated version, the subscriptions, the count
of calls); these functions only build the answer: the result of initialize and of
server/discover, and a page of tools/list with its cursor and (in 2026-07-28) its cache hints,
as the token on the request may see it. `ServerConfig` is what a scenario says about a server.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import auth, jsonrpc, versions
from .catalog import Catalog, shape_tool
from .jsonrpc import Message, RequestId
from .versions import Era

__all__ = [
    "Page",
    "ServerConfig",
    "capabilities",
    "discover",
    "info",
    "initialize",
    "list_tools",
    "modern_versions",
]


@dataclass(frozen=True)
class ServerConfig:
    """What a scenario says about one server. `name` is its serverInfo.name."""

    name: str
    version: str = "1.0.0"
    tools: tuple[dict[str, Any], ...] = ()
    page_size: int = 50
    list_changed: bool = False
    supported_versions: tuple[str, ...] = versions.VERSIONS
    instructions: str | None = None
    ttl_ms: int = 300_000
    # 2026-07-28: each tools/list page's own ttlMs, in page order; pages past the end use ttl_ms.
    page_ttl_ms: tuple[int, ...] = ()
    cache_scope: str = "public"
    failing_tools: frozenset[str] = field(default_factory=frozenset)
    # What a cursor issued before a catalog change means (see app.mcp.catalog).
    stale_cursors: str = "continue"
    # Resources, templates and prompts (app.mcp.primitives); None: the capability is not declared.
    resources: tuple[dict[str, Any], ...] | None = None
    resource_templates: tuple[dict[str, Any], ...] = ()
    prompts: tuple[dict[str, Any], ...] | None = None
    resources_list_changed: bool = False
    resources_subscribe: bool = False
    prompts_list_changed: bool = False
    # Servers as found in the wild: one built for a version sends that version's tool fields
    # whatever was negotiated; one that ignores cursors serves page 1 for any cursor.
    built_for: str | None = None
    ignores_cursor: bool = False
    # A protected server (Streamable HTTP only): app.mcp.auth gates its requests.
    auth: auth.AuthConfig | None = None


Page = Callable[[str | None], tuple[list[dict[str, Any]], str | None] | None]


def capabilities(config: ServerConfig, offered: dict[str, Any]) -> dict[str, Any]:
    """Tools (with listChanged as declared), and what else the server `offered` declares."""
    tools = {"listChanged": True} if config.list_changed else {}
    return {"tools": tools, **offered}


def info(config: ServerConfig) -> dict[str, Any]:
    return {"name": config.name, "version": config.version}


def modern_versions(config: ServerConfig) -> list[str]:
    """Versions a request with _meta may name, newest first."""
    return sorted(
        (v for v in config.supported_versions if v in versions.MODERN_VERSIONS),
        reverse=True,
    )


def initialize(
    config: ServerConfig, offered: dict[str, Any], request_id: RequestId, params: dict[str, Any]
) -> Message:
    """The initialize result: the version asked for if supported, else a counter-offer of the
    latest legacy version (a result, not an error)."""
    requested = params.get("protocolVersion")
    legacy = [v for v in config.supported_versions if v in versions.LEGACY_VERSIONS]
    chosen = requested if requested in legacy else legacy[-1]
    result: dict[str, Any] = {
        "protocolVersion": chosen,
        "capabilities": capabilities(config, offered),
        "serverInfo": info(config),
    }
    if config.instructions:
        result["instructions"] = config.instructions
    return jsonrpc.result(request_id, result)


def discover(config: ServerConfig, offered: dict[str, Any], request_id: RequestId) -> Message:
    result: dict[str, Any] = {
        "resultType": "complete",
        "supportedVersions": modern_versions(config),
        "capabilities": capabilities(config, offered),
        "_meta": {versions.META_SERVER_INFO: info(config)},
    }
    if config.instructions:
        result["instructions"] = config.instructions
    result["ttlMs"] = config.ttl_ms
    result["cacheScope"] = config.cache_scope
    return jsonrpc.result(request_id, result)


def list_tools(
    config: ServerConfig,
    catalog: Catalog,
    page: Page,
    scopes: frozenset[str] | None,
    request_id: RequestId,
    params: dict[str, Any],
    version: str,
) -> Message:
    """A page of tools/list, shaped for `version`; an unknown cursor is -32602. `page` is the
    server's way to the catalog's pages (a test may put a broken server's in its place);
    `scopes`, what the request's token grants on a protected server."""
    cursor = None if config.ignores_cursor else params.get("cursor")
    protected = config.auth is not None and bool(config.auth.tool_scopes)
    if config.auth is not None and scopes is not None:
        # The list this token may see (2026-07-28: it MAY vary by authorization).
        page = catalog.view(auth.visible(catalog.tools, config.auth, scopes)).page
    found = page(cursor) if cursor is None or isinstance(cursor, str) else None
    if found is None:
        return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, "Invalid cursor")
    chunk, next_cursor = found
    shaped_for = config.built_for or version
    result: dict[str, Any] = {"tools": [shape_tool(t, shaped_for) for t in chunk]}
    if next_cursor is not None:
        result["nextCursor"] = next_cursor
    if versions.era_of(version) is Era.MODERN:
        # Each page is cached on its own, under its own ttlMs; the scope is one per list.
        index = catalog.page_index(cursor)
        page_ttls = config.page_ttl_ms
        result["ttlMs"] = page_ttls[index] if index < len(page_ttls) else config.ttl_ms
        # A list that depends on the token is private: no cache may share it across tokens.
        result["cacheScope"] = "private" if protected else config.cache_scope
    return jsonrpc.result(request_id, result)
