"""A simulated MCP server as a sans-IO session machine.

`MCPServer.receive(message)` takes one JSON-RPC message and returns the messages the server
sends back; catalog changes (`set_tools` and friends) return the list_changed notifications they
cause. Whether a message is accepted in the session's phase is the lifecycle table's business
(`app.mcp.lifecycle.SERVER_TRANSITIONS`), and nothing else moves the phase: legacy peers go
through initialize -> result -> notifications/initialized; modern (2026-07-28) requests each
carry their version and capabilities in params._meta, and list_changed travels only on a
subscriptions/listen stream. What each method answers is built by `answers` (which also holds
`ServerConfig`), pages and cursors are the catalog's (`catalog`), running a tool is
`toolcalls`', resources and prompts `primitives`'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import answers, jsonrpc, lifecycle, offermethods, primitives, versions
from .answers import ServerConfig
from .catalog import DEFAULT_INPUT_SCHEMA, Catalog, shape_tool
from .jsonrpc import Message, RequestId
from .lifecycle import SERVER_TRANSITIONS, ServerPhase
from .snapshots import ServerState
from .toolcalls import demo_value, run_tool
from .versions import Era

__all__ = [
    "DEFAULT_INPUT_SCHEMA",
    "LEGACY_TRANSITIONS",
    "MCPServer",
    "ServerConfig",
    "ServerPhase",
    "demo_value",
    "shape_tool",
]

LEGACY_TRANSITIONS = SERVER_TRANSITIONS  # the name older tests and docs use


class MCPServer:
    """One server process. `legacy_version` is what this session negotiated (legacy era only)."""

    def __init__(self, config: ServerConfig):
        self.config = config
        self.catalog = Catalog(config.tools, config.page_size, config.stale_cursors)
        self.primitives = primitives.Primitives(config)
        # The scopes of the token on the request being handled (None: no authorization in
        # play). Credentials are per-request input, so they come with each message.
        self.scopes: frozenset[str] | None = None
        self.phase = ServerPhase.AWAITING_INITIALIZE
        self.legacy_version: str | None = None
        self.subscriptions: dict[RequestId, dict[str, bool]] = {}
        self.calls = 0
        eras = {versions.era_of(v) for v in config.supported_versions}
        self.speaks_modern = Era.MODERN in eras
        self.speaks_legacy = Era.LEGACY in eras

    # The catalog's, readable and settable here (a shell that shares one catalog between
    # conversations, like app.serving, sets both when it opens one).
    @property
    def tools(self) -> list[dict[str, Any]]:
        return self.catalog.tools

    @tools.setter
    def tools(self, tools: list[dict[str, Any]]) -> None:
        self.catalog.tools = tools

    @property
    def revision(self) -> int:
        return self.catalog.revision

    @revision.setter
    def revision(self, revision: int) -> None:
        self.catalog.revision = revision

    # ----------------------------------------------------------------- catalog changes
    def set_tools(self, tools: list[dict[str, Any]]) -> list[Message]:
        """Replace the catalog; returns the list_changed notifications this causes."""
        if not self.catalog.replace(tools):
            return []
        return self._list_changed_notifications()

    def add_tool(self, tool: dict[str, Any]) -> list[Message]:
        return self.set_tools([*self.tools, tool])

    def remove_tool(self, name: str) -> list[Message]:
        return self.set_tools([t for t in self.tools if t["name"] != name])

    def update_tool(self, name: str, changes: dict[str, Any]) -> list[Message]:
        return self.set_tools([{**t, **changes} if t["name"] == name else t for t in self.tools])

    def page(self, cursor: str | None) -> tuple[list[dict[str, Any]], str | None] | None:
        return self.catalog.page(cursor)

    def _list_changed_notifications(self) -> list[Message]:
        if not self.config.list_changed:
            return []  # never notify without having declared tools.listChanged
        if self.phase is ServerPhase.OPERATING:
            return [jsonrpc.notification("notifications/tools/list_changed")]
        return [
            jsonrpc.notification(
                "notifications/tools/list_changed",
                {"_meta": {versions.META_SUBSCRIPTION_ID: sub_id}},
            )
            for sub_id, wanted in self.subscriptions.items()
            if wanted.get("toolsListChanged")
        ]

    # ----------------------------------------------------------------- receiving
    def receive(self, message: Message, *, scopes: frozenset[str] | None = None) -> list[Message]:
        """Handle one message from the client; returns what the server sends back. `scopes`:
        what the token on this request grants, when the server is protected."""
        self.scopes = scopes
        try:
            kind = jsonrpc.classify(message)
        except jsonrpc.ProtocolError as exc:
            return [jsonrpc.error(None, jsonrpc.INVALID_REQUEST, str(exc))]
        if kind in (jsonrpc.Kind.RESPONSE, jsonrpc.Kind.ERROR):
            return []
        method = message["method"]
        params = message.get("params") or {}
        meta = params.get("_meta") or {}
        looks_modern = versions.META_VERSION in meta or (
            kind is jsonrpc.Kind.REQUEST and method in ("server/discover", "subscriptions/listen")
        )
        # The first request decides the era of a connection; a legacy session stays legacy.
        in_legacy_session = self.phase not in (
            ServerPhase.AWAITING_INITIALIZE,
            ServerPhase.STATELESS,
        )
        # A server that speaks only the modern era reads every request but initialize as modern,
        # so a request without _meta gets -32602 (missing key), as 2026-07-28 says.
        only_modern = not self.speaks_legacy and method != "initialize"
        modern = (looks_modern or only_modern) and self.speaks_modern and not in_legacy_session
        if kind is jsonrpc.Kind.NOTIFICATION:
            # A stateless session has no legacy notifications: a cancellation needs no _meta.
            if modern or self.phase is ServerPhase.STATELESS:
                return self._modern_notification(method, params)
            return self._legacy_notification(method, params)
        if modern:
            return self._modern_request(message)
        return self._legacy_request(message)

    def _allows(self, move: str) -> bool:
        return lifecycle.allows(SERVER_TRANSITIONS, self.phase, move)

    def _advance(self, move: str) -> None:
        self.phase = lifecycle.advance(SERVER_TRANSITIONS, self.phase, move, side="remote")

    def _cancel(self, params: dict[str, Any]) -> None:
        self.subscriptions.pop(params.get("requestId", ""), None)

    def _legacy_notification(self, method: str, params: dict[str, Any]) -> list[Message]:
        if self._allows(method):  # notifications are never answered, even when unexpected
            self._advance(method)
            if method == "notifications/cancelled":
                self._cancel(params)
        return []

    def _legacy_request(self, message: Message) -> list[Message]:
        method, request_id = message["method"], message["id"]
        params = message.get("params") or {}
        if method == "initialize" and not self.speaks_legacy:
            # A modern-only server names its versions in the error: a legacy client has no way
            # forward, and this may be the only thing it can show its user (versioning.mdx).
            data = {
                "supported": self._modern_versions(),
                "requested": params.get("protocolVersion"),
            }
            text = "Unsupported protocol version: this server has no initialize handshake"
            return [jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, text, data)]
        known = method in lifecycle.LEGACY_METHODS and self.primitives.offers(method)
        if not known or not self.speaks_legacy:
            return [jsonrpc.error(request_id, jsonrpc.METHOD_NOT_FOUND, "Method not found")]
        if not self._allows(method):
            return [jsonrpc.error(request_id, jsonrpc.INVALID_REQUEST, _refusal(method))]
        self._advance(method)
        version = self.legacy_version or versions.LATEST_LEGACY
        return [_LEGACY_HANDLERS[method](self, request_id, params, version)]

    def _initialize(self, request_id: RequestId, params: dict[str, Any], version: str) -> Message:
        offered = self.primitives.capabilities()
        answer = answers.initialize(self.config, offered, request_id, params)
        self.legacy_version = answer["result"]["protocolVersion"]
        return answer

    def _ping(self, request_id: RequestId, params: dict[str, Any], version: str) -> Message:
        return jsonrpc.result(request_id, {})

    def _info(self) -> dict[str, Any]:
        return answers.info(self.config)

    def _modern_notification(self, method: str, params: dict[str, Any]) -> list[Message]:
        if self._allows(lifecycle.MODERN_NOTIFICATION):
            self._advance(lifecycle.MODERN_NOTIFICATION)
            if method == "notifications/cancelled":
                self._cancel(params)
        return []

    def _modern_request(self, message: Message) -> list[Message]:
        method, request_id = message["method"], message["id"]
        params = message.get("params") or {}
        meta = params.get("_meta") or {}
        for key in (versions.META_VERSION, versions.META_CLIENT_CAPABILITIES):
            if key not in meta:
                text = f"Missing required _meta key: {key}"
                return [jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, text)]
        requested = meta[versions.META_VERSION]
        if requested not in self._modern_versions():
            return [
                jsonrpc.error(
                    request_id,
                    jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
                    "Unsupported protocol version",
                    # The same list server/discover gives (the official SDK does likewise).
                    {"supported": self._modern_versions(), "requested": requested},
                )
            ]
        self._advance(lifecycle.MODERN_REQUEST)
        handler = _MODERN_HANDLERS.get(method)
        if handler is None or not self.primitives.offers(method):
            return [jsonrpc.error(request_id, jsonrpc.METHOD_NOT_FOUND, "Method not found")]
        response = handler(self, request_id, params, requested)
        if method in ("tools/list", "tools/call") and "result" in response:
            response["result"]["resultType"] = "complete"
            response["result"].setdefault("_meta", {})[versions.META_SERVER_INFO] = self._info()
        return [response]

    def _modern_versions(self) -> list[str]:
        return answers.modern_versions(self.config)

    def _discover(self, request_id: RequestId, params: dict[str, Any], version: str) -> Message:
        return answers.discover(self.config, self.primitives.capabilities(), request_id)

    def _listen(self, request_id: RequestId, params: dict[str, Any], version: str) -> Message:
        wanted = params.get("notifications") or {}
        # Acknowledge only what this server can deliver (what it declared it would notify).
        honoured = primitives.honour(self, wanted)
        self.subscriptions[request_id] = honoured
        return jsonrpc.notification(
            "notifications/subscriptions/acknowledged",
            {"_meta": {versions.META_SUBSCRIPTION_ID: request_id}, "notifications": honoured},
        )

    # ----------------------------------------------------------------- methods
    def _list_tools(self, request_id: RequestId, params: dict[str, Any], version: str) -> Message:
        return answers.list_tools(
            self.config, self.catalog, self.page, self.scopes, request_id, params, version
        )

    def _call_tool(self, request_id: RequestId, params: dict[str, Any], version: str) -> Message:
        failing = self.config.failing_tools
        answer, ran = run_tool(self.catalog, failing, self.calls + 1, request_id, params, version)
        self.calls += ran
        return answer

    def snapshot(self) -> ServerState:
        state: ServerState = {
            "name": self.config.name,
            "phase": self.phase.value,
            "revision": self.revision,
            "listChanged": self.config.list_changed,
            "tools": list(self.tools),
            "subscriptions": [str(s) for s in self.subscriptions],
        }
        if self.config.built_for:  # its tools carry that version's fields (checks allow them)
            state["builtFor"] = self.config.built_for
        offered = self.primitives.snapshot()
        if offered:  # only servers that offer more than tools say so (older traces unchanged)
            state["offers"] = offered
        return state


def _refusal(method: str) -> str:
    """Why a known legacy method is refused in this phase (the table says it is)."""
    if method == "initialize":
        return "Already initialized"
    return f"{method} before initialization finished"


Method = Callable[[MCPServer, RequestId, dict[str, Any], str], Message]
_LEGACY_HANDLERS: dict[str, Method] = {
    "initialize": MCPServer._initialize,
    "ping": MCPServer._ping,
    "tools/list": MCPServer._list_tools,
    "tools/call": MCPServer._call_tool,
}
_MODERN_HANDLERS: dict[str, Method] = {
    "server/discover": MCPServer._discover,
    "subscriptions/listen": MCPServer._listen,
    "tools/list": MCPServer._list_tools,
    "tools/call": MCPServer._call_tool,
}
_LEGACY_HANDLERS.update(offermethods.LEGACY_HANDLERS)
_MODERN_HANDLERS.update(offermethods.MODERN_HANDLERS)
