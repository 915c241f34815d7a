"""A simulated MCP client (the part of an agent host that talks to one server), sans-IO.

Calls return an `Output`: the messages to send and the events that explain what happened. This
module is the client's face and its switchboard: its phase moves only through the lifecycle
table (`app.mcp.lifecycle.CLIENT_TRANSITIONS`), its open requests live in one `Requests`, and an
answer is routed by the method it answers to the module whose job it is: `negotiation`
(initialize, server/discover), `gathering` (tools/list pages, the cache), `listchanged`
(subscriptions/listen, notifications) and `calls` (tools/call and its one retry).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import (
    calls,
    clientauth,
    gathering,
    jsonrpc,
    lifecycle,
    listchanged,
    lists,
    negotiation,
    versions,
)
from . import events as ev
from .clock import Clock
from .events import Event, Output
from .gathering import Cache, Gathering
from .jsonrpc import Message, RequestId
from .lifecycle import ClientPhase
from .requests import Pending, Requests
from .snapshots import ClientState
from .tooldiff import diff_tools, schema_hash
from .versions import Era

__all__ = [
    "ClientConfig",
    "ClientPhase",
    "Event",
    "MCPClient",
    "Output",
    "diff_tools",
    "schema_hash",
]


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
    # The client's policy, each a habit real clients differ in (none is a rule of the spec):
    cache: bool = True  # False: every list goes to the server, whatever the TTL says
    refresh_on_list_changed: bool = True  # False: list_changed is read and ignored
    rediscover_on_failed_call: bool = True  # False: an unknown-tool error is only reported
    http: bool = False  # on Streamable HTTP, where x-mcp-header annotations bind (2026-07-28)
    known_fields_only: bool = False  # keep only the tool fields this version defines


Handler = Callable[["MCPClient", Pending, dict[str, Any]], Output]

# Which module handles the answer to each method the client sends (result, error).
RESULT_HANDLERS: dict[str, Handler] = {
    "initialize": negotiation.on_initialize_result,
    "server/discover": negotiation.on_discover_result,
    "tools/list": gathering.on_page,
    "tools/call": calls.on_result,
    "subscriptions/listen": listchanged.on_listen_closed,
    "resources/list": lists.on_page,
    "resources/templates/list": lists.on_page,
    "prompts/list": lists.on_page,
    "resources/read": lists.on_read,
    "resources/subscribe": lists.on_subscribed,
}
ERROR_HANDLERS: dict[str, Handler] = {
    "initialize": negotiation.on_initialize_error,
    "server/discover": negotiation.on_discover_error,
    "tools/list": gathering.on_page_error,
    "tools/call": calls.on_error,
    "resources/list": lists.on_page_error,
    "resources/templates/list": lists.on_page_error,
    "prompts/list": lists.on_page_error,
    "resources/read": lists.on_read_error,
}


class MCPClient:
    def __init__(self, config: ClientConfig, clock: Clock):
        self.config = config
        self.clock = clock
        self.phase = ClientPhase.NEW
        self.version = config.protocol_version
        self.era = versions.era_of(config.protocol_version)
        self.server_capabilities: dict[str, Any] = {}
        self.server_info: dict[str, Any] = {}
        self.requests = Requests()
        self.cache = Cache()
        self.gathering: Gathering | None = None
        self.generations = 0
        self.pending_refresh = False
        self.listen_id: RequestId | None = None
        self.listening = False
        self.retried: set[str] = set()
        self.probed: list[str] = []  # versions server/discover was sent in (each at most once)
        self.awaiting_rediscovery: list[dict[str, Any]] = []
        self.instructions: str | None = None  # what initialize or server/discover said
        self.lists = lists.ClientLists()  # resources, templates, prompts, contents
        self.auth = clientauth.ClientAuth()  # the token for a protected server (HTTP only)

    # ----------------------------------------------------------------- shared by the modules
    def advance(self, move: str) -> None:
        """Move along the lifecycle table; a move it lacks is our own mistake (local)."""
        self.phase = lifecycle.advance(lifecycle.CLIENT_TRANSITIONS, self.phase, move, side="local")

    def request(self, method: str, params: dict[str, Any] | None, pending: Pending) -> Message:
        """A request with the next id, tracked until answered; modern ones carry _meta."""
        request_id = self.requests.open(pending)
        if self.era is Era.MODERN:
            given = params or {}
            params = {**given, "_meta": {**self._meta(), **given.get("_meta", {})}}
        return jsonrpc.request(request_id, method, params)

    def _meta(self) -> dict[str, Any]:
        return {
            versions.META_VERSION: self.version,
            versions.META_CLIENT_INFO: self.info(),
            versions.META_CLIENT_CAPABILITIES: {},
        }

    def info(self) -> dict[str, Any]:
        info = {"name": self.config.name, "version": self.config.version}
        if "title" in versions.implementation_fields(self.version):
            info["title"] = self.config.title
        return info

    def declares_list_changed(self) -> bool:
        return bool((self.server_capabilities.get("tools") or {}).get("listChanged"))

    def after_ready(self) -> Output:
        return listchanged.after_ready(self)

    def method_of(self, request_id: Any) -> str | None:
        return self.requests.method_of(request_id)

    @property
    def in_flight(self) -> list[RequestId]:
        return self.requests.in_flight

    def cache_fresh(self) -> bool:
        return gathering.cache_fresh(self)

    # ----------------------------------------------------------------- what the host asks
    def start(self) -> Output:
        """Open the conversation: initialize (legacy) or server/discover (modern)."""
        return negotiation.start(self)

    def list_tools(self, *, force: bool = False, reason: str = "discover") -> Output:
        """The host asks for the tools: a cache hit sends nothing; otherwise gather every page."""
        return gathering.list_tools(self, force=force, reason=reason)

    def refresh(self, *, reason: str, restart: bool = False) -> Output:
        """Re-list from page 1. Mid-gather: queue one more refresh, or abandon it (restart)."""
        return gathering.refresh(self, reason=reason, restart=restart)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> Output:
        return calls.call_tool(self, name, arguments)

    def lists_of(self, key: str) -> Output:
        """The host asks for resources, resourceTemplates or prompts: every page of that list."""
        return lists.list_kind(self, key)

    def take_token(self, token: str, scope: str) -> Output:
        """Hold a new access token (a protected server, HTTP); see app.mcp.clientauth."""
        return clientauth.take_token(self, token, scope)

    def read_resource(self, uri: str) -> Output:
        return lists.read(self, uri)

    def subscribe_resource(self, uri: str) -> Output:
        """Ask to hear when one resource changes (resources/subscribe, or a listen filter)."""
        return lists.subscribe(self, uri)

    def cancel(self, request_id: RequestId, reason: str) -> Output:
        """Give up on a request still in flight, as the transport of this version does it.

        2026-07-28 over Streamable HTTP: closing the request's response stream is the
        cancellation (no notification is sent, and no answer can arrive any more). Everywhere
        else: notifications/cancelled with the request's id and a reason; the server may have
        answered already, so the record stays and a late answer is recognised and ignored.
        """
        pending = self.requests.get(request_id)
        if pending is None or pending.cancelled:
            return Output()
        generation = pending.generation if pending.method == "tools/list" else None
        if self.era is Era.MODERN and self.config.http:
            self.requests.close(request_id)
            closed = ev.RequestCancelled(request_id, pending.method, reason, generation, True)
            return Output(events=[closed])
        pending.cancelled = True
        params = {"requestId": request_id, "reason": reason}
        message = jsonrpc.notification("notifications/cancelled", params)
        return Output(
            [message], [ev.RequestCancelled(request_id, pending.method, reason, generation)]
        )

    def raw_request(self, method: str, params: dict[str, Any] | None) -> Output:
        """A request scripted by hand (a bad cursor, say); its answer changes nothing."""
        self.advance(lifecycle.SEND_BY_HAND)
        message = self.request(method, params, Pending(method, manual=True))
        return Output([message], [ev.ManualSent(method)])

    # ----------------------------------------------------------------- what the server sends
    def receive(self, message: Message) -> Output:
        kind = jsonrpc.classify(message)
        if kind is jsonrpc.Kind.NOTIFICATION:
            return listchanged.on_notification(self, message)
        if kind is jsonrpc.Kind.REQUEST:
            return Output(
                [jsonrpc.error(message["id"], jsonrpc.METHOD_NOT_FOUND, "Method not found")]
            )
        request_id = message.get("id")
        pending = self.requests.close(request_id)
        if pending is None:
            return Output(events=[ev.UnexpectedResponse(request_id)])
        if kind is jsonrpc.Kind.ERROR:
            err = message["error"]
            if pending.manual:
                return Output(events=[ev.ManualError(pending.method, err.get("code"))])
            handler = ERROR_HANDLERS.get(pending.method)
            if handler is None:
                return Output(events=[ev.RequestFailed(err.get("code"), pending.method)])
            return handler(self, pending, err)
        if pending.manual:
            return Output(events=[ev.ManualResult(pending.method)])
        if pending.cancelled and pending.method != "tools/list":
            return Output(events=[ev.UnexpectedResponse(request_id)])  # unwanted: ignored
        return RESULT_HANDLERS[pending.method](self, pending, message["result"])

    # ----------------------------------------------------------------- state
    def snapshot(self) -> ClientState:
        state: ClientState = {
            "phase": self.phase.value,
            "protocolVersion": self.version,
            "era": self.era.value,
            "serverInfo": copy.deepcopy(self.server_info),
            "serverCapabilities": copy.deepcopy(self.server_capabilities),
            "listening": self.listening,
            "cache": gathering.cache_snapshot(self),
            "gathering": gathering.gathering_snapshot(self),
            "pendingRefresh": self.pending_refresh,
            "inFlight": [str(i) for i in self.requests.in_flight],
        }
        # Keys a client has only once it holds such things (older traces stay as they were).
        if self.instructions is not None:
            state["instructions"] = self.instructions
        state.update(lists.snapshot(self))  # type: ignore[typeddict-item]
        state.update(clientauth.snapshot(self))  # type: ignore[typeddict-item]
        return state
