"""A simulated MCP client (the part of an agent host that talks to one server), sans-IO.

Calls return an `Output`: the messages to send and the events that explain what happened. This
module is the client's face and its switchboard over a `ClientCore` (app.mcp.clientcore: its
state, its phase that moves only through the lifecycle table, its one `Requests`), and an
answer is routed by the method it answers to the module whose job it is: `negotiation`
(initialize, server/discover), `gathering` (tools/list pages, the cache), `listchanged`
(subscriptions/listen, notifications) and `calls` (tools/call and its one retry).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from . import calls, clientauth, gathering, jsonrpc, lifecycle, listchanged, lists, negotiation
from . import events as ev
from .clientcore import ClientConfig, ClientCore
from .events import Event, Output
from .jsonrpc import Message
from .lifecycle import ClientPhase
from .requests import Pending
from .snapshots import ClientState
from .tooldiff import diff_tools, schema_hash

__all__ = [
    "ClientConfig",
    "ClientPhase",
    "Event",
    "MCPClient",
    "Output",
    "diff_tools",
    "schema_hash",
]


Handler = Callable[[ClientCore, Pending, dict[str, Any]], Output]


def _on_call_error(client: ClientCore, pending: Pending, err: dict[str, Any]) -> Output:
    """A refused call: calls decides what it means; a call that now waits for a fresh list
    sends the client re-listing (gathering), and the retry follows the publish."""
    out = calls.on_error(client, pending, err)
    if calls.waits_for_rediscovery(client, pending):
        out.extend(gathering.refresh(client, reason="unknown tool"))
    return out


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
    "tools/call": _on_call_error,
    "resources/list": lists.on_page_error,
    "resources/templates/list": lists.on_page_error,
    "prompts/list": lists.on_page_error,
    "resources/read": lists.on_read_error,
}


class MCPClient(ClientCore):
    """The client's face (what the host asks) and its switchboard (what the server sends)."""

    # ----------------------------------------------------------------- shared by the modules
    def after_ready(self) -> Output:
        return listchanged.after_ready(self)

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
