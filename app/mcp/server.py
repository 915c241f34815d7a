"""A simulated MCP server as a sans-IO state machine.

`MCPServer.receive(message)` takes one JSON-RPC message and returns the messages the server
sends back; catalog changes (`set_tools` and friends) return the list_changed notifications they
cause. Legacy peers go through initialize -> result -> notifications/initialized; modern
(2026-07-28) requests each carry their version and capabilities in params._meta, and list_changed
travels only on a subscriptions/listen stream. Tools are served in a deterministic order in pages
whose size the server chooses, behind opaque cursors.
"""

from __future__ import annotations

import base64
import copy
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from . import jsonrpc, versions
from .jsonrpc import Message
from .versions import Era

DEFAULT_INPUT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


class ServerPhase(StrEnum):
    """Legacy sessions walk these phases in order; a modern server stays STATELESS."""

    AWAITING_INITIALIZE = "awaiting-initialize"
    AWAITING_INITIALIZED = "awaiting-initialized"
    OPERATING = "operating"
    STATELESS = "stateless"


# Which client messages a legacy server accepts in each phase (h11-style table of plain data).
LEGACY_TRANSITIONS: dict[ServerPhase, dict[str, ServerPhase]] = {
    ServerPhase.AWAITING_INITIALIZE: {
        "initialize": ServerPhase.AWAITING_INITIALIZED,
        "ping": ServerPhase.AWAITING_INITIALIZE,  # ping is allowed at any time
    },
    ServerPhase.AWAITING_INITIALIZED: {
        "notifications/initialized": ServerPhase.OPERATING,
        "ping": ServerPhase.AWAITING_INITIALIZED,
    },
    ServerPhase.OPERATING: {
        "ping": ServerPhase.OPERATING,
        "tools/list": ServerPhase.OPERATING,
        "tools/call": ServerPhase.OPERATING,
        "notifications/cancelled": ServerPhase.OPERATING,
    },
}


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
    cache_scope: str = "public"
    failing_tools: frozenset[str] = field(default_factory=frozenset)
    # What a cursor issued before a catalog change means: "continue" serves the same offset of
    # the new list (pages may then mix old and new), "reject" answers -32602 so the client
    # restarts from page 1.
    stale_cursors: str = "continue"


def _encode_cursor(revision: int, offset: int) -> str:
    raw = json.dumps({"r": revision, "o": offset}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[int, int] | None:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        revision, offset = int(data["r"]), int(data["o"])
    except (ValueError, KeyError, TypeError):
        return None
    return (revision, offset) if offset > 0 else None


def demo_value(schema: dict[str, Any], seed: int) -> Any:
    """A deterministic value that fits a simple JSON Schema (type, properties, enum, items)."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][seed % len(schema["enum"])]
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: demo_value(v if isinstance(v, dict) else {}, seed) for k, v in props.items()}
    if kind == "array":
        items = schema.get("items")
        return [demo_value(items, seed)] if isinstance(items, dict) else []
    return {"string": f"demo-{seed}", "integer": seed, "number": seed + 0.5, "boolean": True}.get(
        str(kind)
    )


def shape_tool(tool: dict[str, Any], version: str) -> dict[str, Any]:
    """The tool as this version may carry it: fields the version lacks are left out."""
    allowed = versions.tool_fields(version)
    shaped = {k: copy.deepcopy(v) for k, v in tool.items() if k in allowed}
    shaped.setdefault("inputSchema", copy.deepcopy(DEFAULT_INPUT_SCHEMA))
    return shaped


class MCPServer:
    """One server process. `legacy_version` is what this session negotiated (legacy era only)."""

    def __init__(self, config: ServerConfig):
        self.config = config
        self.tools: list[dict[str, Any]] = [copy.deepcopy(t) for t in config.tools]
        self.revision = 1
        self.phase = ServerPhase.AWAITING_INITIALIZE
        self.legacy_version: str | None = None
        self.subscriptions: dict[jsonrpc.RequestId, dict[str, bool]] = {}
        self.calls = 0

    # ----------------------------------------------------------------- catalog changes
    def set_tools(self, tools: list[dict[str, Any]]) -> list[Message]:
        """Replace the catalog; returns the list_changed notifications this causes."""
        if tools == self.tools:
            return []
        self.tools = [copy.deepcopy(t) for t in tools]
        self.revision += 1
        return self._list_changed_notifications()

    def add_tool(self, tool: dict[str, Any]) -> list[Message]:
        return self.set_tools([*self.tools, tool])

    def remove_tool(self, name: str) -> list[Message]:
        return self.set_tools([t for t in self.tools if t["name"] != name])

    def update_tool(self, name: str, changes: dict[str, Any]) -> list[Message]:
        return self.set_tools([{**t, **changes} if t["name"] == name else t for t in self.tools])

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
    def receive(self, message: Message) -> list[Message]:
        """Handle one message from the client; returns what the server sends back."""
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
        if looks_modern and Era.MODERN.value in self._eras() and not in_legacy_session:
            return self._receive_modern(message, kind)
        if kind is jsonrpc.Kind.NOTIFICATION:
            return self._receive_legacy_notification(method, params)
        return self._receive_legacy_request(message)

    def _modern_versions(self) -> list[str]:
        """Versions a request with _meta may name, newest first."""
        return sorted(
            (v for v in self.config.supported_versions if v in versions.MODERN_VERSIONS),
            reverse=True,
        )

    @property
    def speaks_modern(self) -> bool:
        return Era.MODERN.value in self._eras()

    def _eras(self) -> set[str]:
        return {versions.era_of(v).value for v in self.config.supported_versions}

    def _receive_legacy_notification(self, method: str, params: dict[str, Any]) -> list[Message]:
        if method == "notifications/cancelled":
            self.subscriptions.pop(params.get("requestId", ""), None)
            return []
        allowed = LEGACY_TRANSITIONS.get(self.phase, {})
        if method in allowed:
            self.phase = allowed[method]
        return []  # notifications are never answered, even when unexpected

    def _receive_legacy_request(self, message: Message) -> list[Message]:
        method, request_id = message["method"], message["id"]
        params = message.get("params") or {}
        if method == "initialize" and self.phase is not ServerPhase.AWAITING_INITIALIZE:
            return [jsonrpc.error(request_id, jsonrpc.INVALID_REQUEST, "Already initialized")]
        if method not in _LEGACY_METHODS or not (set(self._eras()) & {Era.LEGACY.value}):
            return [jsonrpc.error(request_id, jsonrpc.METHOD_NOT_FOUND, "Method not found")]
        if method not in LEGACY_TRANSITIONS.get(self.phase, {}):
            return [
                jsonrpc.error(
                    request_id, jsonrpc.INVALID_REQUEST, f"{method} before initialization finished"
                )
            ]
        self.phase = LEGACY_TRANSITIONS[self.phase][method]
        if method == "initialize":
            return [self._initialize(request_id, params)]
        if method == "ping":
            return [jsonrpc.result(request_id, {})]
        version = self.legacy_version or versions.LATEST_LEGACY
        return [self._handle(method, request_id, params, version)]

    def _initialize(self, request_id: jsonrpc.RequestId, params: dict[str, Any]) -> Message:
        requested = params.get("protocolVersion")
        legacy = [v for v in self.config.supported_versions if v in versions.LEGACY_VERSIONS]
        # Echo a supported version; otherwise counter-offer our latest (a result, not an error).
        chosen = requested if requested in legacy else legacy[-1]
        self.legacy_version = chosen
        capabilities: dict[str, Any] = {
            "tools": {"listChanged": True} if self.config.list_changed else {}
        }
        result: dict[str, Any] = {
            "protocolVersion": chosen,
            "capabilities": capabilities,
            "serverInfo": self._info(chosen),
        }
        if self.config.instructions:
            result["instructions"] = self.config.instructions
        return jsonrpc.result(request_id, result)

    def _info(self, version: str) -> dict[str, Any]:
        return {"name": self.config.name, "version": self.config.version}

    def _receive_modern(self, message: Message, kind: jsonrpc.Kind) -> list[Message]:
        method = message["method"]
        params = message.get("params") or {}
        meta = params.get("_meta") or {}
        if kind is jsonrpc.Kind.NOTIFICATION:
            if method == "notifications/cancelled":
                self.subscriptions.pop(params.get("requestId", ""), None)
            return []
        request_id = message["id"]
        missing = [
            key
            for key in (versions.META_VERSION, versions.META_CLIENT_CAPABILITIES)
            if key not in meta
        ]
        if missing:
            return [
                jsonrpc.error(
                    request_id, jsonrpc.INVALID_PARAMS, f"Missing required _meta key: {missing[0]}"
                )
            ]
        requested = meta[versions.META_VERSION]
        modern = [v for v in self.config.supported_versions if v in versions.MODERN_VERSIONS]
        if requested not in modern:
            return [
                jsonrpc.error(
                    request_id,
                    jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
                    "Unsupported protocol version",
                    {
                        # The same list server/discover gives (the official SDK does likewise).
                        "supported": self._modern_versions(),
                        "requested": requested,
                    },
                )
            ]
        self.phase = ServerPhase.STATELESS
        if method == "server/discover":
            return [jsonrpc.result(request_id, self._discover_result(requested))]
        if method == "subscriptions/listen":
            return self._listen(request_id, params)
        if method not in ("tools/list", "tools/call"):
            return [jsonrpc.error(request_id, jsonrpc.METHOD_NOT_FOUND, "Method not found")]
        response = self._handle(method, request_id, params, requested)
        if "result" in response:
            response["result"]["resultType"] = "complete"
            response["result"].setdefault("_meta", {})[versions.META_SERVER_INFO] = self._info(
                requested
            )
        return [response]

    def _discover_result(self, version: str) -> dict[str, Any]:
        result: dict[str, Any] = {
            "resultType": "complete",
            "supportedVersions": self._modern_versions(),
            "capabilities": {"tools": {"listChanged": True} if self.config.list_changed else {}},
            "_meta": {versions.META_SERVER_INFO: self._info(version)},
        }
        if self.config.instructions:
            result["instructions"] = self.config.instructions
        result["ttlMs"] = self.config.ttl_ms
        result["cacheScope"] = self.config.cache_scope
        return result

    def _listen(self, request_id: jsonrpc.RequestId, params: dict[str, Any]) -> list[Message]:
        wanted = params.get("notifications") or {}
        # Acknowledge only what this server can deliver: here, tools list changes if declared.
        honoured = (
            {"toolsListChanged": True}
            if (wanted.get("toolsListChanged") and self.config.list_changed)
            else {}
        )
        self.subscriptions[request_id] = honoured
        return [
            jsonrpc.notification(
                "notifications/subscriptions/acknowledged",
                {"_meta": {versions.META_SUBSCRIPTION_ID: request_id}, "notifications": honoured},
            )
        ]

    # ----------------------------------------------------------------- methods
    def _handle(
        self, method: str, request_id: jsonrpc.RequestId, params: dict[str, Any], version: str
    ) -> Message:
        if method == "tools/list":
            return self._list_tools(request_id, params, version)
        return self._call_tool(request_id, params, version)

    def page(self, cursor: str | None) -> tuple[list[dict[str, Any]], str | None] | None:
        """The page a cursor points at and the next cursor; None when the cursor is invalid."""
        offset = 0
        if cursor is not None:
            decoded = _decode_cursor(cursor)
            if decoded is None:
                return None
            revision, offset = decoded
            if offset > len(self.tools) or (
                self.config.stale_cursors == "reject" and revision != self.revision
            ):
                return None
        size = max(1, self.config.page_size)
        chunk = self.tools[offset : offset + size]
        following = offset + size
        return chunk, (
            _encode_cursor(self.revision, following) if following < len(self.tools) else None
        )

    def _list_tools(
        self, request_id: jsonrpc.RequestId, params: dict[str, Any], version: str
    ) -> Message:
        cursor = params.get("cursor")
        if cursor is not None and not isinstance(cursor, str):
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, "Invalid cursor")
        found = self.page(cursor)
        if found is None:
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, "Invalid cursor")
        chunk, next_cursor = found
        result: dict[str, Any] = {"tools": [shape_tool(t, version) for t in chunk]}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        if versions.era_of(version) is Era.MODERN:
            result["ttlMs"] = self.config.ttl_ms
            result["cacheScope"] = self.config.cache_scope
        return jsonrpc.result(request_id, result)

    def _call_tool(
        self, request_id: jsonrpc.RequestId, params: dict[str, Any], version: str
    ) -> Message:
        name = params.get("name")
        tool = next((t for t in self.tools if t["name"] == name), None)
        if tool is None:
            # An unknown tool is a protocol error with -32602, not -32601 (that is for methods).
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, f"Unknown tool: {name}")
        self.calls += 1
        arguments = params.get("arguments") or {}
        missing = [k for k in tool.get("inputSchema", {}).get("required", []) if k not in arguments]
        if missing or name in self.config.failing_tools:
            text = (
                f"Missing argument: {missing[0]}"
                if missing
                else f"{name} failed: service unavailable"
            )
            return jsonrpc.result(
                request_id, {"content": [{"type": "text", "text": text}], "isError": True}
            )
        summary = (
            ", ".join(
                f"{k}={json.dumps(arguments[k], ensure_ascii=False)}" for k in sorted(arguments)
            )
            or "no arguments"
        )
        payload: dict[str, Any] = {
            "content": [{"type": "text", "text": f"{name} ran with {summary} (call {self.calls})"}],
            "isError": False,
        }
        if versions.has_structured_content(version) and "outputSchema" in tool:
            # A server that declares an outputSchema must return content that conforms to it.
            structured = demo_value(tool["outputSchema"], self.calls)
            payload["structuredContent"] = structured
            payload["content"] = [{"type": "text", "text": json.dumps(structured)}]
        return jsonrpc.result(request_id, payload)

    def snapshot(self) -> dict[str, Any]:
        return {
            "name": self.config.name,
            "phase": self.phase.value,
            "revision": self.revision,
            "listChanged": self.config.list_changed,
            # Tool dicts are never edited in place (a change replaces the list): sharing is safe.
            "tools": list(self.tools),
            "subscriptions": [str(s) for s in self.subscriptions],
        }


_LEGACY_METHODS = frozenset({"initialize", "ping", "tools/list", "tools/call"})
