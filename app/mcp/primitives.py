"""Resources, resource templates and prompts a simulated server offers: their lists, shaping,
capabilities and change notices (their methods are app.mcp.offermethods).

A server declares `resources` when it has resources or templates and `prompts` when it has
prompts (server/resources.mdx, server/prompts.mdx); a method of a capability the server did not
declare is answered -32601, as for any unknown method. The three lists are paginated like
tools/list (each is its own `Catalog`, so its cursors are opaque and its order deterministic),
and served shaped for the version: fields the version's schema lacks are left out. A resource
may carry `text`, what `resources/read` returns; it is never listed.

Change notices follow the capability flags: `notifications/resources/list_changed` and
`notifications/prompts/list_changed` only when `listChanged` was declared for them (the spec's
SHOULD), `notifications/resources/updated` only for a URI a client subscribed to: in the legacy
era with `resources/subscribe` (needs `resources.subscribe`), in 2026-07-28 on a
subscriptions/listen stream whose filter named the URI in `resourceSubscriptions` (the legacy
RPC is gone). On a modern stream a notification goes only where its filter asked for it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, Protocol

from . import jsonrpc, versions
from .answers import ServerConfig
from .catalog import Catalog
from .jsonrpc import Message, RequestId
from .lifecycle import ServerPhase

# Keys each version's schema gives these objects (Resource, ResourceTemplate, Prompt).
_BASE = frozenset({"name", "description", "annotations"})
_RESOURCE_2024 = _BASE | {"uri", "mimeType", "size"}
_TEMPLATE_2024 = _BASE | {"uriTemplate", "mimeType"}
_PROMPT_2024 = frozenset({"name", "description", "arguments"})
_ADDED_2025_06 = frozenset({"title", "_meta"})  # BaseMetadata.title, and _meta
_ADDED_2025_11 = frozenset({"icons"})


def _by_version(base: frozenset[str]) -> dict[str, frozenset[str]]:
    mid = base | _ADDED_2025_06
    return {
        "2024-11-05": base,
        "2025-03-26": base,
        "2025-06-18": mid,
        "2025-11-25": mid | _ADDED_2025_11,
        "2026-07-28": mid | _ADDED_2025_11,
    }


FIELDS: dict[str, dict[str, frozenset[str]]] = {
    "resources": _by_version(_RESOURCE_2024),
    "resourceTemplates": _by_version(_TEMPLATE_2024),
    "prompts": _by_version(_PROMPT_2024),
}
# Which capability gates each method; methods not named here are not gated by this module.
GATED: dict[str, str] = {
    "resources/list": "resources",
    "resources/templates/list": "resources",
    "resources/read": "resources",
    "resources/subscribe": "resources",
    "resources/unsubscribe": "resources",
    "prompts/list": "prompts",
    "prompts/get": "prompts",
}


def shape(kind: str, item: dict[str, Any], version: str) -> dict[str, Any]:
    """The object as this version's schema has it: unknown keys (and `text`) left out."""
    allowed = FIELDS[kind][version]
    shaped = {k: copy.deepcopy(v) for k, v in item.items() if k in allowed}
    if kind == "prompts" and "arguments" in shaped:
        keep = {"name", "description", "required"} | ({"title"} if "title" in allowed else set())
        shaped["arguments"] = [
            {k: v for k, v in a.items() if k in keep} for a in shaped["arguments"]
        ]
    return shaped


class Primitives:
    """One server's resources, templates and prompts, and who subscribed to which resource."""

    def __init__(self, config: ServerConfig):
        self.offer = config
        size, stale = config.page_size, config.stale_cursors
        self.lists: dict[str, Catalog] = {
            "resources": Catalog(config.resources or (), size, stale),
            "resourceTemplates": Catalog(config.resource_templates, size, stale),
            "prompts": Catalog(config.prompts or (), size, stale),
        }
        self.subscribed: list[str] = []  # legacy resources/subscribe, in arrival order

    def capabilities(self) -> dict[str, Any]:
        caps: dict[str, Any] = {}
        if self.offer.resources is not None or self.offer.resource_templates:
            flags = {"subscribe": self.offer.resources_subscribe}
            flags["listChanged"] = self.offer.resources_list_changed
            caps["resources"] = {k: True for k, on in flags.items() if on}
        if self.offer.prompts is not None:
            caps["prompts"] = {"listChanged": True} if self.offer.prompts_list_changed else {}
        return caps

    def offers(self, method: str) -> bool:
        gate = GATED.get(method)
        if gate is None:
            return True
        if method in ("resources/subscribe", "resources/unsubscribe"):
            return self.offer.resources_subscribe
        return gate in self.capabilities()

    def find_resource(self, uri: Any) -> dict[str, Any] | None:
        return next((r for r in self.lists["resources"].tools if r.get("uri") == uri), None)

    def snapshot(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            kind: [_ident(kind, item) for item in catalog.tools]
            for kind, catalog in self.lists.items()
            if catalog.tools
        }
        if self.subscribed:
            out["subscribed"] = list(self.subscribed)
        return out


class Serving(Protocol):
    """What the functions below need of the server that offers these primitives (an
    MCPServer): declared here so this module depends on it, not on the server that imports it."""

    config: ServerConfig
    phase: ServerPhase
    subscriptions: dict[RequestId, dict[str, bool]]
    primitives: Primitives

    def _info(self) -> dict[str, Any]: ...


def _ident(kind: str, item: dict[str, Any]) -> Any:
    return item.get({"resources": "uri", "resourceTemplates": "uriTemplate"}.get(kind, "name"))


# --------------------------------------------------------------------------- notifications
def notices(
    server: Serving, method: str, wanted: Callable[[dict[str, Any]], bool]
) -> list[Message]:
    """`method` to whoever should hear it: the legacy session, or each modern listen stream
    whose acknowledged filter `wanted` accepts (each stamped with its subscriptionId)."""
    return _notices(server, method, {}, wanted, legacy=server.phase is ServerPhase.OPERATING)


def _notices(
    server: Serving,
    method: str,
    params: dict[str, Any],
    wanted: Callable[[dict[str, Any]], bool],
    *,
    legacy: bool,
) -> list[Message]:
    if legacy:
        return [jsonrpc.notification(method, params or None)]
    return [
        jsonrpc.notification(method, {**params, "_meta": {versions.META_SUBSCRIPTION_ID: sub_id}})
        for sub_id, honoured in server.subscriptions.items()
        if wanted(honoured)
    ]


def list_changed(server: Serving, kind: str) -> list[Message]:
    """After a change of the resource or prompt list: the notice, if the flag was declared."""
    offer = server.primitives.offer
    if kind == "prompts" and offer.prompts_list_changed:
        method, key = "notifications/prompts/list_changed", "promptsListChanged"
    elif kind == "resources" and offer.resources_list_changed:
        method, key = "notifications/resources/list_changed", "resourcesListChanged"
    else:
        return []
    return notices(server, method, lambda honoured: bool(honoured.get(key)))


def resource_updated(server: Serving, uri: str) -> list[Message]:
    """notifications/resources/updated to the subscribers of `uri` only."""
    if not server.primitives.offer.resources_subscribe:
        return []
    legacy = server.phase is ServerPhase.OPERATING
    if legacy and uri not in server.primitives.subscribed:
        return []
    return _notices(
        server,
        "notifications/resources/updated",
        {"uri": uri},
        lambda honoured: uri in (honoured.get("resourceSubscriptions") or []),
        legacy=legacy,
    )


def honour(server: Serving, wanted: dict[str, Any]) -> dict[str, Any]:
    """The part of a listen filter this server can deliver (the acknowledgement echoes it)."""
    offer = server.primitives.offer
    out: dict[str, Any] = {}
    if wanted.get("toolsListChanged") and server.config.list_changed:
        out["toolsListChanged"] = True
    if wanted.get("promptsListChanged") and offer.prompts_list_changed:
        out["promptsListChanged"] = True
    if wanted.get("resourcesListChanged") and offer.resources_list_changed:
        out["resourcesListChanged"] = True
    uris = wanted.get("resourceSubscriptions")
    if offer.resources_subscribe and isinstance(uris, list) and uris:
        out["resourceSubscriptions"] = [u for u in uris if isinstance(u, str)]
    return out


# --------------------------------------------------------------------------- changes
def replace_list(server: Serving, kind: str, items: list[dict[str, Any]]) -> list[Message]:
    """Swap one list (resources, resourceTemplates, prompts); the notices this causes."""
    if not server.primitives.lists[kind].replace(items):
        return []
    # A template change is not a resource-list change: no notification names templates.
    return list_changed(server, kind) if kind != "resourceTemplates" else []


def edit_resource(server: Serving, uri: str, text: str) -> list[Message]:
    """New contents for one resource: the list is the same, only its subscribers hear of it."""
    catalog = server.primitives.lists["resources"]
    items = [{**r, "text": text} if r.get("uri") == uri else r for r in catalog.tools]
    if not catalog.replace(items):
        return []
    return resource_updated(server, uri)
