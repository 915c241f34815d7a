"""A simulated MCP client (the part of an agent host that talks to one server), sans-IO.

Calls return an `Output`: the messages to send and the events that explain what happened. The
client negotiates (legacy initialize, or modern server/discover with a fallback to initialize for
a legacy server), gathers every page of tools/list before it swaps its cached list in one go,
refuses a repeated cursor, serves cache hits while the TTL on the injected clock lasts (the
server's ttlMs in the modern era), re-lists from page 1 on list_changed, refreshes once more when
a notification arrives mid-refresh, drops responses from an abandoned gather by generation
number, re-discovers once when a tools/call names a tool the server no longer has, and on
Streamable HTTP in the modern era leaves out tools with invalid x-mcp-header annotations.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from . import jsonrpc, params, versions
from .clock import Clock
from .jsonrpc import Message, RequestId
from .versions import Era


class ClientPhase(StrEnum):
    NEW = "new"
    PROBING = "probing"  # modern: server/discover sent
    INITIALIZING = "initializing"  # legacy: initialize sent
    READY = "ready"
    FAILED = "failed"


@dataclass(frozen=True)
class Event:
    """Something the client did or noticed; `kind` keys narration, `detail` fills it in."""

    kind: str
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class Output:
    messages: list[Message] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def extend(self, other: Output) -> Output:
        self.messages += other.messages
        self.events += other.events
        return self


@dataclass(frozen=True)
class ClientConfig:
    server_id: str
    protocol_version: str = versions.LATEST
    supported_versions: tuple[str, ...] = versions.VERSIONS
    name: str = "lab-agent"
    title: str = "MCP Discovery Lab agent"
    version: str = "1.0.0"
    cache_ttl_ms: int = 60_000  # legacy: the client's own policy; modern: the server's ttlMs
    listen: bool = True
    probe_discover: bool = True
    max_pages: int = 100
    http: bool = False  # on Streamable HTTP, where x-mcp-header annotations bind (2026-07-28)


def schema_hash(tool: dict[str, Any]) -> str:
    """A short fingerprint of a tool's input contract, to spot a changed schema at a glance."""
    canonical = json.dumps(tool.get("inputSchema", {}), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:8]


def diff_tools(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> dict[str, list[str]]:
    before = {t["name"]: t for t in old}
    after = {t["name"]: t for t in new}
    return {
        "added": [n for n in after if n not in before],
        "removed": [n for n in before if n not in after],
        "changed": [n for n in after if n in before and after[n] != before[n]],
    }


@dataclass
class _Pending:
    method: str
    generation: int = 0
    cursor: str | None = None
    call: dict[str, Any] | None = None
    manual: bool = False


@dataclass
class _Gathering:
    generation: int
    reason: str
    pages: list[list[dict[str, Any]]] = field(default_factory=list)
    cursors: list[str] = field(default_factory=list)
    next_cursor: str | None = None
    ttl_ms: int | None = None
    scope: str | None = None
    restarted: bool = False
    changed_meanwhile: bool = False  # a list_changed arrived: the pages may mix two catalogs


@dataclass
class Cache:
    generation: int = 0
    tools: list[dict[str, Any]] = field(default_factory=list)
    fetched_at_ms: int | None = None
    ttl_ms: int | None = None
    scope: str | None = None
    valid: bool = False


class MCPClient:
    def __init__(self, config: ClientConfig, clock: Clock):
        self.config = config
        self.clock = clock
        self.phase = ClientPhase.NEW
        self.version = config.protocol_version
        self.era = versions.era_of(config.protocol_version)
        self.server_capabilities: dict[str, Any] = {}
        self.server_info: dict[str, Any] = {}
        self.cache = Cache()
        self.gathering: _Gathering | None = None
        self.pending_refresh = False
        self.listen_id: RequestId | None = None
        self.listening = False
        self._next_id = 1
        self._generations = 0
        self._pending: dict[RequestId, _Pending] = {}
        self._retried: set[str] = set()
        self._awaiting_rediscovery: list[dict[str, Any]] = []

    # ----------------------------------------------------------------- helpers
    def _request(self, method: str, params: dict[str, Any] | None, pending: _Pending) -> Message:
        request_id = self._next_id
        self._next_id += 1
        self._pending[request_id] = pending
        if self.era is Era.MODERN:
            given = params or {}
            params = {**given, "_meta": {**self._meta(), **given.get("_meta", {})}}
        return jsonrpc.request(request_id, method, params)

    def _meta(self) -> dict[str, Any]:
        return {
            versions.META_VERSION: self.version,
            versions.META_CLIENT_INFO: self._info(),
            versions.META_CLIENT_CAPABILITIES: {},
        }

    def _info(self) -> dict[str, Any]:
        info = {"name": self.config.name, "version": self.config.version}
        if "title" in versions.implementation_fields(self.version):
            info["title"] = self.config.title
        return info

    def method_of(self, request_id: RequestId) -> str | None:
        pending = self._pending.get(request_id)
        return pending.method if pending else None

    @property
    def in_flight(self) -> list[RequestId]:
        return list(self._pending)

    def cache_fresh(self) -> bool:
        c = self.cache
        if not c.valid or c.fetched_at_ms is None or c.ttl_ms is None:
            return False
        return self.clock.now_ms() < c.fetched_at_ms + c.ttl_ms

    # ----------------------------------------------------------------- handshake
    def start(self) -> Output:
        """Open the conversation: initialize (legacy) or server/discover (modern)."""
        if self.phase is not ClientPhase.NEW:
            raise jsonrpc.ProtocolError("start() called twice", side="local")
        if self.era is Era.LEGACY:
            return self._initialize(self.version)
        if not self.config.probe_discover:
            self.phase = ClientPhase.READY
            return self._after_ready()
        self.phase = ClientPhase.PROBING
        return Output(
            [self._request("server/discover", None, _Pending("server/discover"))],
            [Event("probe", {"version": self.version})],
        )

    def _initialize(self, version: str) -> Output:
        self.era, self.version = Era.LEGACY, version
        self.phase = ClientPhase.INITIALIZING
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": self._info()}
        return Output(
            [self._request("initialize", params, _Pending("initialize"))],
            [Event("initialize", {"version": version})],
        )

    def _after_ready(self) -> Output:
        """Modern: open the listen stream if the server can tell us about list changes."""
        out = Output()
        tools_cap = self.server_capabilities.get("tools") or {}
        if self.era is Era.MODERN and self.config.listen and tools_cap.get("listChanged"):
            message = self._request(
                "subscriptions/listen",
                {"notifications": {"toolsListChanged": True}},
                _Pending("subscriptions/listen"),
            )
            self.listen_id = message["id"]
            out.messages.append(message)
            out.events.append(Event("listen", {"id": message["id"]}))
        return out

    # ----------------------------------------------------------------- receiving
    def receive(self, message: Message) -> Output:
        kind = jsonrpc.classify(message)
        if kind is jsonrpc.Kind.NOTIFICATION:
            return self._notification(message)
        if kind is jsonrpc.Kind.REQUEST:
            return Output(
                [jsonrpc.error(message["id"], jsonrpc.METHOD_NOT_FOUND, "Method not found")]
            )
        request_id = message.get("id")
        pending = self._pending.pop(request_id, None) if request_id is not None else None
        if pending is None:
            return Output(events=[Event("unexpected-response", {"id": request_id})])
        if pending.manual:
            outcome = "error" if kind is jsonrpc.Kind.ERROR else "result"
            detail = message.get("error") or {}
            return Output(
                events=[
                    Event(
                        f"manual-{outcome}", {"method": pending.method, "code": detail.get("code")}
                    )
                ]
            )
        if kind is jsonrpc.Kind.ERROR:
            return self._error(pending, message["error"])
        result = message["result"]
        handler = {
            "initialize": self._initialized,
            "server/discover": self._discovered,
            "tools/list": self._page,
            "tools/call": self._called,
            "subscriptions/listen": self._listen_closed,
        }[pending.method]
        return handler(pending, result)

    def _initialized(self, _: _Pending, result: dict[str, Any]) -> Output:
        offered = result.get("protocolVersion")
        events = []
        if offered != self.version:
            events.append(Event("counter-offer", {"requested": self.version, "offered": offered}))
        if offered not in self.config.supported_versions or offered not in versions.LEGACY_VERSIONS:
            self.phase = ClientPhase.FAILED
            events.append(Event("version-refused", {"offered": offered}))
            return Output(events=events)
        self.version = str(offered)
        self.server_capabilities = result.get("capabilities") or {}
        self.server_info = result.get("serverInfo") or {}
        self.phase = ClientPhase.READY
        events.append(
            Event(
                "negotiated",
                {"version": self.version, "listChanged": self._declares_list_changed()},
            )
        )
        return Output([jsonrpc.notification("notifications/initialized")], events)

    def _declares_list_changed(self) -> bool:
        return bool((self.server_capabilities.get("tools") or {}).get("listChanged"))

    def _discovered(self, _: _Pending, result: dict[str, Any]) -> Output:
        self.server_capabilities = result.get("capabilities") or {}
        self.server_info = (result.get("_meta") or {}).get(versions.META_SERVER_INFO) or {}
        self.phase = ClientPhase.READY
        out = Output(
            events=[
                Event(
                    "discovered",
                    {
                        "versions": result.get("supportedVersions"),
                        "listChanged": self._declares_list_changed(),
                    },
                )
            ]
        )
        return out.extend(self._after_ready())

    def _error(self, pending: _Pending, err: dict[str, Any]) -> Output:
        code = err.get("code")
        if pending.method == "server/discover":
            if code == jsonrpc.UNSUPPORTED_PROTOCOL_VERSION:
                offered = (err.get("data") or {}).get("supported") or []
                mutual = [
                    v
                    for v in offered
                    if v in versions.MODERN_VERSIONS and v in self.config.supported_versions
                ]
                if mutual and mutual[0] != self.version:
                    self.version = mutual[0]
                    self.phase = ClientPhase.NEW
                    return Output(
                        events=[Event("version-retry", {"version": self.version})]
                    ).extend(self.start())
                legacy = [
                    v
                    for v in offered
                    if v in versions.LEGACY_VERSIONS and v in self.config.supported_versions
                ]
                if legacy:
                    return Output(events=[Event("fallback-legacy", {"code": code})]).extend(
                        self._initialize(legacy[0])
                    )
                self.phase = ClientPhase.FAILED
                return Output(events=[Event("version-refused", {"offered": offered})])
            # Any other answer means a legacy server: fall back to the handshake.
            latest = [v for v in self.config.supported_versions if v in versions.LEGACY_VERSIONS]
            return Output(events=[Event("fallback-legacy", {"code": code})]).extend(
                self._initialize(latest[-1])
            )
        if pending.method == "initialize":
            self.phase = ClientPhase.FAILED
            return Output(events=[Event("initialize-failed", {"code": code})])
        if pending.method == "tools/list":
            return self._page_error(pending, err)
        if pending.method == "tools/call" and pending.call is not None:
            return self._call_error(pending.call, err)
        return Output(events=[Event("error", {"code": code, "method": pending.method})])

    # ----------------------------------------------------------------- discovery
    def list_tools(self, *, force: bool = False, reason: str = "discover") -> Output:
        """The host asks for the tools: a cache hit sends nothing; otherwise gather every page."""
        if self.phase is not ClientPhase.READY:
            raise jsonrpc.ProtocolError(f"cannot list tools while {self.phase.value}", side="local")
        if not force and self.cache_fresh():
            left = self.cache.fetched_at_ms + self.cache.ttl_ms - self.clock.now_ms()  # type: ignore[operator]
            return Output(
                events=[
                    Event("cache-hit", {"generation": self.cache.generation, "ttlLeftMs": left})
                ]
            )
        events = []
        if self.cache.valid and not force and self.cache.fetched_at_ms is not None:
            events.append(Event("cache-expired", {"generation": self.cache.generation}))
        return Output(events=events).extend(self.refresh(reason=reason))

    def refresh(self, *, reason: str, restart: bool = False) -> Output:
        """Re-list from page 1. Mid-gather: queue one more refresh, or abandon it (restart)."""
        if self.gathering is not None and not restart:
            self.pending_refresh = True
            return Output(
                events=[
                    Event(
                        "refresh-queued",
                        {"generation": self.gathering.generation, "reason": reason},
                    )
                ]
            )
        if self.gathering is not None:
            abandoned = self.gathering.generation
            self.gathering = None
            out = Output(events=[Event("gather-abandoned", {"generation": abandoned})])
            return out.extend(self._start_gather(reason))
        return self._start_gather(reason)

    def _start_gather(self, reason: str) -> Output:
        self._generations += 1
        gen = self._generations
        self.gathering = _Gathering(generation=gen, reason=reason)
        message = self._list_request(None, gen)
        return Output([message], [Event("gather-start", {"generation": gen, "reason": reason})])

    def _list_request(self, cursor: str | None, gen: int) -> Message:
        params = None if cursor is None else {"cursor": cursor}
        return self._request("tools/list", params, _Pending("tools/list", gen, cursor))

    def _page(self, pending: _Pending, result: dict[str, Any]) -> Output:
        g = self.gathering
        if g is None or g.generation != pending.generation:
            return Output(
                events=[
                    Event(
                        "stale-response",
                        {
                            "generation": pending.generation,
                            "current": g.generation if g else self.cache.generation,
                        },
                    )
                ]
            )
        tools = result.get("tools") or []
        g.pages.append(tools)
        if "ttlMs" in result:
            ttl = int(result["ttlMs"])
            g.ttl_ms = ttl if g.ttl_ms is None else min(g.ttl_ms, ttl)
            g.scope = result.get("cacheScope")
        next_cursor = result.get("nextCursor")
        page_event = Event(
            "page",
            {
                "generation": g.generation,
                "page": len(g.pages),
                "names": [t.get("name") for t in tools],
                "nextCursor": next_cursor,
            },
        )
        # Only an absent nextCursor ends the list: "" is a cursor like any other.
        if next_cursor is not None:
            if next_cursor in g.cursors:
                self.gathering = None
                return Output(
                    events=[page_event, Event("repeated-cursor", {"cursor": next_cursor})]
                )
            if len(g.pages) >= self.config.max_pages:
                self.gathering = None
                return Output(events=[page_event, Event("page-cap", {"pages": len(g.pages)})])
            g.cursors.append(next_cursor)
            g.next_cursor = next_cursor
            return Output([self._list_request(next_cursor, g.generation)], [page_event])
        return Output(events=[page_event]).extend(self._publish(g))

    def _publish(self, g: _Gathering) -> Output:
        self.gathering = None
        new_tools = [t for page in g.pages for t in page]
        out = Output()
        if g.changed_meanwhile:
            # No cross-page consistency is promised: pages fetched across a change may mix two
            # catalogs, so this gather is not published; the refresh queued behind it replaces it.
            out.events.append(
                Event(
                    "gather-discarded", {"generation": g.generation, "kept": self.cache.generation}
                )
            )
        elif g.generation > self.cache.generation:  # an older gather never overwrites a newer one
            if self.era is Era.MODERN and self.config.http:
                new_tools = self._drop_invalid_headers(new_tools, out)
            changes = diff_tools(self.cache.tools if self.cache.generation else [], new_tools)
            ttl = g.ttl_ms if self.era is Era.MODERN else self.config.cache_ttl_ms
            self.cache = Cache(
                g.generation,
                new_tools,
                self.clock.now_ms(),
                ttl if ttl is not None else 0,
                g.scope,
                True,
            )
            out.events.append(
                Event(
                    "published",
                    {
                        "generation": g.generation,
                        "count": len(new_tools),
                        "pages": len(g.pages),
                        **changes,
                    },
                )
            )
        if self.pending_refresh:
            self.pending_refresh = False
            out.extend(self._start_gather("list_changed during refresh"))
        elif self._awaiting_rediscovery:
            out.extend(self._retry_calls())
        return out

    def _drop_invalid_headers(
        self, tools: list[dict[str, Any]], out: Output
    ) -> list[dict[str, Any]]:
        """A client on Streamable HTTP MUST leave out a tool whose x-mcp-header annotations are
        invalid (and SHOULD warn), so one bad definition does not cost the other tools."""
        kept = []
        for tool in tools:
            reasons = params.invalid_header_params(tool.get("inputSchema"))
            if reasons:
                out.events.append(
                    Event("tool-dropped", {"name": tool.get("name"), "reason": "; ".join(reasons)})
                )
            else:
                kept.append(tool)
        return kept

    def _page_error(self, pending: _Pending, err: dict[str, Any]) -> Output:
        g = self.gathering
        event = Event("list-error", {"code": err.get("code"), "cursor": pending.cursor})
        if g is None or g.generation != pending.generation:
            return Output(events=[event])
        if (
            err.get("code") == jsonrpc.INVALID_PARAMS
            and pending.cursor is not None
            and not g.restarted
        ):
            # The cursor went stale: drop what was gathered and start again from page 1, once.
            self.gathering = None
            out = self._start_gather("cursor rejected")
            assert self.gathering is not None
            self.gathering.restarted = True
            return Output(events=[event]).extend(out)
        self.gathering = None
        return Output(events=[event, Event("gather-failed", {"generation": g.generation})])

    # ----------------------------------------------------------------- notifications
    def _notification(self, message: Message) -> Output:
        method = message["method"]
        if method == "notifications/subscriptions/acknowledged":
            self.listening = True
            honoured = (message.get("params") or {}).get("notifications") or {}
            return Output(events=[Event("listen-acknowledged", {"notifications": honoured})])
        if method == "notifications/tools/list_changed":
            declared = self._declares_list_changed()
            self.cache.valid = False  # the notification beats any TTL
            if self.gathering is not None:
                self.gathering.changed_meanwhile = True
            out = Output(events=[Event("list-changed", {"declared": declared})])
            return out.extend(self.refresh(reason="list_changed"))
        return Output(events=[Event("notification", {"method": method})])

    def _listen_closed(self, _: _Pending, result: dict[str, Any]) -> Output:
        self.listening = False
        return Output(events=[Event("listen-closed", {})])

    def raw_request(self, method: str, params: dict[str, Any] | None) -> Output:
        """A request scripted by hand (a bad cursor, say); its answer changes nothing."""
        message = self._request(method, params, _Pending(method, manual=True))
        return Output([message], [Event("manual", {"method": method})])

    # ----------------------------------------------------------------- calls
    def call_tool(self, name: str, arguments: dict[str, Any]) -> Output:
        if self.phase is not ClientPhase.READY:
            raise jsonrpc.ProtocolError(f"cannot call tools while {self.phase.value}", side="local")
        call = {"name": name, "arguments": copy.deepcopy(arguments)}
        message = self._request("tools/call", dict(call), _Pending("tools/call", call=call))
        return Output([message], [Event("call", {"name": name})])

    def _called(self, pending: _Pending, result: dict[str, Any]) -> Output:
        assert pending.call is not None
        name = pending.call["name"]
        kind = "call-tool-error" if result.get("isError") else "call-ok"
        text = " ".join(
            c.get("text", "") for c in result.get("content", []) if c.get("type") == "text"
        )
        return Output(events=[Event(kind, {"name": name, "text": text})])

    def _call_error(self, call: dict[str, Any], err: dict[str, Any]) -> Output:
        name = call["name"]
        events = [
            Event(
                "call-rejected",
                {"name": name, "code": err.get("code"), "message": err.get("message")},
            )
        ]
        if err.get("code") == jsonrpc.INVALID_PARAMS and name not in self._retried:
            # Maybe our list is stale: re-discover once, then retry if the tool still exists.
            self._retried.add(name)
            self._awaiting_rediscovery.append(call)
            return Output(events=events).extend(self.refresh(reason="unknown tool", restart=False))
        return Output(events=[*events, Event("call-abandoned", {"name": name})])

    def _retry_calls(self) -> Output:
        out = Output()
        names = {t["name"] for t in self.cache.tools}
        calls, self._awaiting_rediscovery = self._awaiting_rediscovery, []
        for call in calls:
            if call["name"] in names:
                out.events.append(Event("call-retry", {"name": call["name"]}))
                out.extend(self.call_tool(call["name"], call["arguments"]))
            else:
                out.events.append(Event("call-abandoned", {"name": call["name"], "gone": True}))
        return out

    # ----------------------------------------------------------------- state
    def snapshot(self) -> dict[str, Any]:
        c, g = self.cache, self.gathering
        return {
            "phase": self.phase.value,
            "protocolVersion": self.version,
            "era": self.era.value,
            "serverInfo": copy.deepcopy(self.server_info),
            "serverCapabilities": copy.deepcopy(self.server_capabilities),
            "listening": self.listening,
            "cache": {
                "generation": c.generation,
                "tools": list(c.tools),  # replaced wholesale on publish, never edited in place
                "fetchedAtMs": c.fetched_at_ms,
                "ttlMs": c.ttl_ms,
                "expiresAtMs": (c.fetched_at_ms + c.ttl_ms)
                if c.fetched_at_ms is not None and c.ttl_ms is not None
                else None,
                "cacheScope": c.scope,
                "valid": c.valid,
                "fresh": self.cache_fresh(),
            },
            "gathering": None
            if g is None
            else {
                "generation": g.generation,
                "reason": g.reason,
                "pages": [[t.get("name") for t in page] for page in g.pages],
                "nextCursor": g.next_cursor,
            },
            "pendingRefresh": self.pending_refresh,
            "inFlight": [str(i) for i in self._pending],
        }
