"""The client's other lists: resources, resource templates and prompts, and resource contents.

Each list is gathered like tools/list (every page, following nextCursor until it is absent,
refusing a repeated cursor, up to the page cap) into a numbered generation that replaces the
previous one in one go; a list the server never declared a capability for is not asked for.
`notifications/resources/list_changed` and `notifications/prompts/list_changed` make the list
stale, and a list the host has listed before is listed again from page 1. The resource-template
list has no notification of its own, so it is not re-listed on them.

`notifications/resources/updated` is about one resource, not the list: the client reads that
resource again (resources/read, as the spec's message flow shows) and leaves the list alone. A
client gets it only by subscribing: in the legacy era `resources/subscribe` (only if the server
declared `resources.subscribe`), in 2026-07-28 a subscriptions/listen stream whose filter names
the URI in `resourceSubscriptions`; its acknowledgement says which URIs the server took.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import lifecycle
from . import listevents as le
from .clientcore import ClientCore
from .events import Output
from .held import Listing
from .jsonrpc import Message
from .requests import Pending
from .versions import Era


@dataclass(frozen=True)
class Kind:
    key: str  # the result's array, and the list's name in the lab
    method: str
    ident: str  # the field that names an item
    capability: str
    notification: str | None  # its list_changed notification
    flag: str | None  # its subscriptions/listen filter field


KINDS: dict[str, Kind] = {
    k.key: k
    for k in (
        Kind(
            "resources",
            "resources/list",
            "uri",
            "resources",
            "notifications/resources/list_changed",
            "resourcesListChanged",
        ),
        Kind(
            "resourceTemplates", "resources/templates/list", "uriTemplate", "resources", None, None
        ),
        Kind(
            "prompts",
            "prompts/list",
            "name",
            "prompts",
            "notifications/prompts/list_changed",
            "promptsListChanged",
        ),
    )
}
BY_METHOD = {k.method: k for k in KINDS.values()}
NOTIFICATIONS = frozenset(
    {"notifications/resources/updated"} | {k.notification for k in KINDS.values() if k.notification}
)


def _declared(client: ClientCore, kind: Kind) -> dict[str, Any] | None:
    caps = client.server_capabilities.get(kind.capability)
    return caps if isinstance(caps, dict) else None


def listen_filter(client: ClientCore) -> dict[str, Any]:
    """What the opening subscriptions/listen asks for: each list_changed the server declared."""
    wanted: dict[str, Any] = {}
    if client.declares_list_changed():
        wanted["toolsListChanged"] = True
    for kind in (KINDS["prompts"], KINDS["resources"]):  # the spec's order of the filter
        caps = _declared(client, kind)
        if kind.flag and caps is not None and caps.get("listChanged"):
            wanted[kind.flag] = True
    return wanted


def expects_notifications(client: ClientCore) -> bool:
    """Will this (legacy) server have notifications of its own to send about tools, resources
    or prompts? Then a Streamable HTTP client opens its GET stream for them."""
    return bool(listen_filter(client)) or bool(
        (_declared(client, KINDS["resources"]) or {}).get("subscribe")
    )


# --------------------------------------------------------------------------- listing
def list_kind(client: ClientCore, key: str, reason: str = "host asked") -> Output:
    """The host asks for one list: gather every page of it (nothing, if it is not offered)."""
    kind = KINDS[key]
    if _declared(client, kind) is None:
        return Output(events=[le.ListNotOffered(key)])
    client.advance(lifecycle.USE_OFFERINGS)
    listing = client.lists.listings.setdefault(key, Listing())
    listing.gathers += 1  # each list numbers its own generations, as tools/list does
    listing.gathering, listing.got, listing.cursors = listing.gathers, [], []
    listing.reason = reason
    started = le.ListGatherStarted(key, listing.gathers, reason)
    return Output([_request(client, kind, None, listing.gathers)], [started])


def _request(client: ClientCore, kind: Kind, cursor: str | None, generation: int) -> Message:
    given = None if cursor is None else {"cursor": cursor}
    return client.request(kind.method, given, Pending(kind.method, generation, cursor))


def on_page(client: ClientCore, pending: Pending, result: dict[str, Any]) -> Output:
    kind = BY_METHOD[pending.method]
    listing = client.lists.listings[kind.key]
    if listing.gathering != pending.generation:
        return Output()  # an answer to a gather that was given up: nothing to do with it
    items = [i for i in result.get(kind.key) or [] if isinstance(i, dict)]
    listing.got.append(items)
    next_cursor = result.get("nextCursor")
    names = [i.get(kind.ident) for i in items]
    page = le.ListPage(kind.key, pending.generation, len(listing.got), names, next_cursor)
    out = Output(events=[page])
    if next_cursor is None:
        return out.extend(_publish(client, kind, listing, result))
    if next_cursor in listing.cursors or len(listing.got) >= client.config.max_pages:
        listing.gathering = None
        why = "repeated-cursor" if next_cursor in listing.cursors else "page-cap"
        return out.extend(Output(events=[le.ListStopped(kind.key, pending.generation, why)]))
    listing.cursors.append(next_cursor)
    return out.extend(Output([_request(client, kind, next_cursor, pending.generation)]))


def _publish(client: ClientCore, kind: Kind, listing: Listing, result: dict[str, Any]) -> Output:
    new = [item for page in listing.got for item in page]
    before = {i.get(kind.ident) for i in listing.items} if listing.generation else set()
    after = {i.get(kind.ident) for i in new}
    listing.generation, listing.items, listing.pages = listing.gathering or 0, new, len(listing.got)
    listing.gathering, listing.got, listing.valid = None, [], True
    if client.era is Era.MODERN:
        listing.ttl_ms = max(0, int(result.get("ttlMs") or 0))
        listing.scope = result.get("cacheScope")
    added = [i.get(kind.ident) for i in new if i.get(kind.ident) not in before]
    removed = sorted(str(x) for x in before - after)
    published = le.ListPublished(
        kind.key, listing.generation, len(new), listing.pages, added, removed
    )
    return Output(events=[published])


def on_page_error(client: ClientCore, pending: Pending, err: dict[str, Any]) -> Output:
    kind = BY_METHOD[pending.method]
    listing = client.lists.listings[kind.key]
    if listing.gathering == pending.generation:
        listing.gathering = None
    stopped = le.ListStopped(kind.key, pending.generation, "error", err.get("code"))
    return Output(events=[stopped])


# --------------------------------------------------------------------------- reading
def read(client: ClientCore, uri: str) -> Output:
    client.advance(lifecycle.USE_OFFERINGS)
    pending = Pending("resources/read", subject=uri)
    return Output([client.request("resources/read", {"uri": uri}, pending)])


def on_read(client: ClientCore, pending: Pending, result: dict[str, Any]) -> Output:
    contents = [c for c in result.get("contents") or [] if isinstance(c, dict)]
    text = "".join(str(c.get("text", "")) for c in contents)
    uri = pending.subject or ""
    client.lists.contents[uri] = text
    return Output(events=[le.ResourceRead(uri, text)])


def on_read_error(client: ClientCore, pending: Pending, err: dict[str, Any]) -> Output:
    return Output(events=[le.ResourceReadFailed(pending.subject, err.get("code"))])


# --------------------------------------------------------------------------- subscribing
def subscribe(client: ClientCore, uri: str) -> Output:
    """Ask for updates of one resource, as the era does it (see the module's docstring)."""
    if not (_declared(client, KINDS["resources"]) or {}).get("subscribe"):
        return Output(events=[le.SubscribeRefused(uri)])
    client.advance(lifecycle.USE_OFFERINGS)
    if client.era is Era.LEGACY:
        pending = Pending("resources/subscribe", subject=uri)
        return Output([client.request("resources/subscribe", {"uri": uri}, pending)])
    # 2026-07-28: a subscription of its own; a client MAY hold several concurrently.
    wanted = {"notifications": {"resourceSubscriptions": [uri]}}
    message = client.request("subscriptions/listen", wanted, Pending("subscriptions/listen"))
    return Output([message])


def on_subscribed(client: ClientCore, pending: Pending, result: dict[str, Any]) -> Output:
    uri = pending.subject or ""
    if uri not in client.lists.subscribed:
        client.lists.subscribed.append(uri)
    return Output(events=[le.Subscribed(uri)])


def acknowledged(client: ClientCore, honoured: dict[str, Any]) -> list[le.Subscribed]:
    """A listen acknowledgement that names resource URIs: those subscriptions now hold."""
    uris = honoured.get("resourceSubscriptions")
    taken = [u for u in uris if isinstance(u, str)] if isinstance(uris, list) else []
    for uri in taken:
        if uri not in client.lists.subscribed:
            client.lists.subscribed.append(uri)
    return [le.Subscribed(uri) for uri in taken]


# --------------------------------------------------------------------------- notifications
def on_notification(client: ClientCore, message: Message) -> Output:
    method = message["method"]
    if method == "notifications/resources/updated":
        uri = (message.get("params") or {}).get("uri")
        out = Output(events=[le.ResourceUpdated(uri)])
        # One resource changed: read it again; the list of resources is still right.
        return out.extend(read(client, uri)) if isinstance(uri, str) else out
    kind = next(k for k in KINDS.values() if k.notification == method)
    listing = client.lists.listings.get(kind.key)
    relist = listing is not None and (listing.generation > 0 or listing.gathering is not None)
    if listing is not None:
        listing.valid = False
    out = Output(events=[le.ListInvalidated(kind.key, relist)])
    return out.extend(list_kind(client, kind.key, "list_changed")) if relist else out


# --------------------------------------------------------------------------- state
def snapshot(client: ClientCore) -> dict[str, Any]:
    """The lists, contents and subscriptions this client holds; {} when it holds none."""
    held = client.lists
    out: dict[str, Any] = {}
    lists = {}
    for key, listing in held.listings.items():
        entry: dict[str, Any] = {
            "generation": listing.generation,
            "items": [dict(i) for i in listing.items],
            "pages": listing.pages,
            "valid": listing.valid,
            "ttlMs": listing.ttl_ms,
            "cacheScope": listing.scope,
            "gathering": listing.gathering,
        }
        lists[key] = entry
    if lists:
        out["lists"] = lists
    if held.contents:
        out["contents"] = dict(held.contents)
    if held.subscribed:
        out["subscribed"] = list(held.subscribed)
    return out
