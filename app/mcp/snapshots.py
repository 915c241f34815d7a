"""The shapes of the core's snapshots: what a client, a server and the host say about themselves.

Each `snapshot()` of the sans-IO core returns one of these TypedDicts: plain JSON data, a full
copy of the object's visible state, so a step can carry it and any step can be shown alone.
The step contract (app.engine.step) is built from them.
"""

from __future__ import annotations

from typing import Any, TypedDict

Tool = dict[str, Any]  # a tool definition exactly as the server sent it


class _ServerCore(TypedDict):
    name: str
    phase: str
    revision: int
    listChanged: bool
    tools: list[Tool]
    subscriptions: list[str]


class ServerState(_ServerCore, total=False):
    """A server. `offers` (only when it offers resources, templates or prompts): the URIs,
    URI templates and prompt names it lists, and the URIs a legacy client subscribed to."""

    offers: dict[str, list[Any]]
    builtFor: str  # the version whose tool fields it sends whatever was negotiated


class CachedPageState(TypedDict):
    """One cached tools/list page: the cursor that fetched it (null: page 1) is its key."""

    page: int
    cursor: str | None
    tools: list[Any]  # the names on the page
    nextCursor: str | None
    fetchedAtMs: int
    ttlMs: int
    expiresAtMs: int
    fresh: bool


class _CacheCore(TypedDict):
    generation: int
    tools: list[Tool]
    fetchedAtMs: int | None
    ttlMs: int | None
    expiresAtMs: int | None
    cacheScope: str | None
    valid: bool
    fresh: bool


class CacheState(_CacheCore, total=False):
    """The client's cache. `ttlMs` is its pages' shortest lifetime and `expiresAtMs` when the
    first of them goes stale; each page's own are in `pages` (absent in a session recorded
    without them)."""

    pages: list[CachedPageState]


class GatheringState(TypedDict):
    generation: int
    reason: str
    pages: list[list[Any]]  # the names on each page gathered so far
    nextCursor: str | None


class _ClientCore(TypedDict):
    phase: str
    protocolVersion: str
    era: str
    serverInfo: dict[str, Any]
    serverCapabilities: dict[str, Any]
    listening: bool
    cache: CacheState
    gathering: GatheringState | None
    pendingRefresh: bool
    inFlight: list[str]


class ListState(TypedDict):
    """One of the client's other lists (resources, resourceTemplates, prompts)."""

    generation: int
    items: list[dict[str, Any]]
    pages: int
    valid: bool
    ttlMs: int | None
    cacheScope: str | None
    gathering: int | None


class ClientState(_ClientCore, total=False):
    """A client. Keys it has only once it holds such things: the server's `instructions`, its
    other `lists`, the `contents` of resources it read (by URI), and the URIs it `subscribed`
    to."""

    instructions: str
    lists: dict[str, ListState]
    contents: dict[str, str]
    subscribed: list[str]
    authorization: AuthorizationState


class AuthorizationState(TypedDict):
    """The access token a client holds for a protected server, and the scopes it grants."""

    token: str
    scopes: list[str]


class HostRow(TypedDict):
    serverId: str
    tool: str
    qualified: str
    modelName: str
    schemaHash: str
    allowed: bool
    displayName: str  # what a person sees: title, then annotations.title, then name
    icons: list[str]  # the icon URIs the host accepts (https or data: only)
    approval: str  # "auto" or "ask": whether a call runs unattended or is put to the user


class Collision(TypedDict):
    tool: str
    servers: list[str]


class _HostCore(TypedDict):
    user: str | None
    rebuildEveryRequest: bool
    tools: list[HostRow]
    collisions: list[Collision]
    denied: list[str]


class HostState(_HostCore, total=False):
    """The host. Only a host with per-agent allow-lists has `agent`; only one that defers
    loading has `loaded`, the model-facing names a search loaded."""

    agent: str | None
    loaded: list[str]


class ModelTool(TypedDict):
    """A tool as the model receives it (Anthropic-style keys)."""

    name: str
    description: str
    input_schema: dict[str, Any]
