"""The methods of the resources and prompts capabilities, as a simulated server answers them.

resources/list, resources/templates/list and prompts/list page their lists like tools/list (the
same opaque cursors, -32602 for an invalid one); resources/read returns a resource's `text`
(an unknown URI is -32002 until 2025-11-25, -32602 from 2026-07-28, which retired -32002);
resources/subscribe and unsubscribe exist until 2025-11-25 only (2026-07-28 replaced them with
subscriptions/listen filters); prompts/get returns the prompt's text as one user message.
2026-07-28 results carry resultType, serverInfo and, where cacheable, ttlMs and cacheScope.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import jsonrpc, versions
from .jsonrpc import Message, RequestId
from .primitives import Serving, shape
from .versions import Era

NOT_FOUND_LEGACY = -32002  # "Resource not found" until 2025-11-25; 2026-07-28 uses -32602


def _modern(version: str) -> bool:
    return versions.era_of(version) is Era.MODERN


def _finish(server: Serving, result: dict[str, Any], version: str, ttl: bool) -> dict[str, Any]:
    """2026-07-28 results carry resultType, serverInfo and (when cacheable) ttlMs/cacheScope."""
    if _modern(version):
        result["resultType"] = "complete"
        result.setdefault("_meta", {})[versions.META_SERVER_INFO] = server._info()
        if ttl:
            result["ttlMs"] = server.config.ttl_ms
            result["cacheScope"] = server.config.cache_scope
    return result


def _list(kind: str) -> Callable[[Serving, RequestId, dict[str, Any], str], Message]:
    def serve(
        server: Serving, request_id: RequestId, params: dict[str, Any], version: str
    ) -> Message:
        cursor = params.get("cursor")
        catalog = server.primitives.lists[kind]
        found = catalog.page(cursor) if cursor is None or isinstance(cursor, str) else None
        if found is None:
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, "Invalid cursor")
        chunk, next_cursor = found
        result: dict[str, Any] = {kind: [shape(kind, item, version) for item in chunk]}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return jsonrpc.result(request_id, _finish(server, result, version, ttl=True))

    return serve


list_resources = _list("resources")
list_templates = _list("resourceTemplates")
list_prompts = _list("prompts")


def read_resource(
    server: Serving, request_id: RequestId, params: dict[str, Any], version: str
) -> Message:
    uri = params.get("uri")
    found = server.primitives.find_resource(uri)
    if found is None:
        code = jsonrpc.INVALID_PARAMS if _modern(version) else NOT_FOUND_LEGACY
        return jsonrpc.error(request_id, code, "Resource not found", {"uri": uri})
    content = {"uri": found["uri"], "text": str(found.get("text", ""))}
    if "mimeType" in found:
        content["mimeType"] = found["mimeType"]
    return jsonrpc.result(request_id, _finish(server, {"contents": [content]}, version, ttl=True))


def subscribe(
    server: Serving, request_id: RequestId, params: dict[str, Any], version: str
) -> Message:
    uri = params.get("uri")
    if not isinstance(uri, str):
        return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, "uri must be a string")
    if uri not in server.primitives.subscribed:
        server.primitives.subscribed.append(uri)
    return jsonrpc.result(request_id, {})


def unsubscribe(
    server: Serving, request_id: RequestId, params: dict[str, Any], version: str
) -> Message:
    uri = params.get("uri")
    if uri in server.primitives.subscribed:
        server.primitives.subscribed.remove(uri)
    return jsonrpc.result(request_id, {})


def get_prompt(
    server: Serving, request_id: RequestId, params: dict[str, Any], version: str
) -> Message:
    name = params.get("name")
    prompt = server.primitives.lists["prompts"].find(name)
    if prompt is None:
        return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, f"Unknown prompt: {name}")
    text = str(prompt.get("text") or prompt.get("description") or name)
    message = {"role": "user", "content": {"type": "text", "text": text}}
    result: dict[str, Any] = {"messages": [message]}
    if "description" in prompt:
        result["description"] = prompt["description"]
    return jsonrpc.result(request_id, _finish(server, result, version, ttl=False))


Method = Callable[[Serving, RequestId, dict[str, Any], str], Message]
LEGACY_HANDLERS: dict[str, Method] = {
    "resources/list": list_resources,
    "resources/templates/list": list_templates,
    "resources/read": read_resource,
    "resources/subscribe": subscribe,
    "resources/unsubscribe": unsubscribe,
    "prompts/list": list_prompts,
    "prompts/get": get_prompt,
}
# 2026-07-28 replaced resources/subscribe and unsubscribe with subscriptions/listen filters.
MODERN_HANDLERS: dict[str, Method] = {
    m: h
    for m, h in LEGACY_HANDLERS.items()
    if m not in ("resources/subscribe", "resources/unsubscribe")
}
