"""The server's side of the Code view (the low-level `Server` of the official SDK: its handlers
and notification calls) and the host's own code for a model request.

Where the SDK answers by itself (the handshake's result, server/discover, an unknown method, a
version it does not speak) the code shown is what configures that answer, or nothing."""

from __future__ import annotations

from typing import Any

from app.engine.step import Step, Text
from app.mcp import versions

from .clientside import literal
from .texts import text

# list method: (Server's handler keyword, its result type, the result's field)
HANDLERS = {
    "tools/list": ("on_list_tools", "ListToolsResult", "tools"),
    "prompts/list": ("on_list_prompts", "ListPromptsResult", "prompts"),
    "resources/list": ("on_list_resources", "ListResourcesResult", "resources"),
    "resources/templates/list": (
        "on_list_resource_templates",
        "ListResourceTemplatesResult",
        "resource_templates",
    ),
}
# list_changed notifications: (ServerSession's call, the 2026 event published on the bus)
CHANGED = {
    "notifications/tools/list_changed": ("send_tool_list_changed", "ToolsListChanged"),
    "notifications/prompts/list_changed": ("send_prompt_list_changed", "PromptsListChanged"),
    "notifications/resources/list_changed": (
        "send_resource_list_changed",
        "ResourcesListChanged",
    ),
}


def _result(step: Step) -> dict[str, Any]:
    result = (step["message"] or {}).get("result")
    return result if isinstance(result, dict) else {}


def _error(step: Step) -> dict[str, Any] | None:
    error = (step["message"] or {}).get("error")
    return error if isinstance(error, dict) else None


def _raise(error: dict[str, Any]) -> str:
    code = {-32602: "types.INVALID_PARAMS", -32601: "types.METHOD_NOT_FOUND"}.get(
        error.get("code", 0), str(error.get("code"))
    )
    message = literal(error.get("message", ""))
    return f"raise MCPError(\n    code={code},\n    message={message},\n)"


def _server_line(info: dict[str, Any], *handlers: str) -> str:
    lines = [f"    {literal(info.get('name', 'server'))},"]
    lines.append(f"    version={literal(info.get('version', '1.0.0'))},")
    lines += [f"    {handler}," for handler in handlers]
    return "server = Server(\n" + "\n".join(lines) + "\n)"


def _initialize(step: Step) -> tuple[str, Text]:
    result = _result(step)
    listed = bool(((result.get("capabilities") or {}).get("tools") or {}).get("listChanged"))
    code = _server_line(result.get("serverInfo") or {}, "on_list_tools=list_tools")
    code += "\noptions = server.create_initialization_options(\n"
    code += f"    NotificationOptions(tools_changed={listed})\n)"
    code += "\nawait server.run(read, write, options)"
    return code, text("code.initialize-result")


def _discover(step: Step) -> tuple[str, Text]:
    result = _result(step)
    info = (result.get("_meta") or {}).get(versions.META_SERVER_INFO) or {}
    listed = bool(((result.get("capabilities") or {}).get("tools") or {}).get("listChanged"))
    handlers = ["on_list_tools=list_tools"]
    if listed:
        handlers.append("on_subscriptions_listen=ListenHandler(bus)")
    code = ("bus = InMemorySubscriptionBus()\n" if listed else "") + _server_line(info, *handlers)
    return code, text("code.discover-result")


def _listing(step: Step, request: Step | None) -> tuple[str, Text]:
    handler, result_type, field = HANDLERS[step["method"] or "tools/list"]
    error, result = _error(step), _result(step)
    if error is not None:
        return _raise(error), text("code.list-error")
    asked = (request["message"] or {}) if request is not None else {}
    request_params = asked.get("params") or {}
    extras = []
    if "ttlMs" in result:  # 2026-07-28: how long the page stays fresh, and for whom
        extras += [f"ttl_ms={result['ttlMs']}", f"cache_scope={literal(result.get('cacheScope'))}"]
    name = handler.removeprefix("on_")
    header = f"async def {name}(ctx, params):"
    if request_params.get("cursor") is None and result.get("nextCursor") is None:
        fields = [f"{field}=ALL", *extras]  # one page holds them all
        body = []
    else:
        fields = [f"{field}=page", "next_cursor=more", *extras]
        body = [
            "    start = offset_of(params.cursor if params else None)",
            "    page = ALL[start : start + PAGE_SIZE]",
            "    end = start + len(page)",
            "    more = cursor_for(end) if end < len(ALL) else None",
        ]
    body += [f"    return types.{result_type}(", *(f"        {f}," for f in fields), "    )"]
    return "\n".join([header, *body]), text("code.list-result", method=step["method"])


def _call(step: Step) -> tuple[str, Text]:
    error, result = _error(step), _result(step)
    if error is not None:
        return _raise(error), text("code.call-error")
    texts = [b.get("text") for b in result.get("content") or [] if b.get("type") == "text"]
    content = f'[types.TextContent(type="text", text={literal(texts[0] if texts else "")})]'
    failed = ", is_error=True" if result.get("isError") else ""
    code = "async def call_tool(ctx, params):\n"
    if len(content) < 70:
        code += f"    content = {content}\n"
    else:  # the view is narrow
        code += '    content = [\n        types.TextContent(\n            type="text",\n'
        code += f"            text={literal(texts[0] if texts else '')},\n        )\n    ]\n"
    code += f"    return types.CallToolResult(content=content{failed})"
    return code, text("code.call-iserror" if failed else "code.call-result")


def server_code(step: Step, request: Step | None) -> tuple[str, Text] | None:
    """The code and note for a server's message, or None where the SDK sends it by itself."""
    method = step["method"] or ""
    if step["kind"] == "error" and method not in HANDLERS and method != "tools/call":
        return None  # a refused handshake, an unknown method, a version it does not speak
    if method == "initialize":
        return _initialize(step)
    if method == "server/discover":
        return _discover(step)
    if method == "notifications/subscriptions/acknowledged":
        code = "server = Server(name, on_subscriptions_listen=ListenHandler(bus))"
        return code, text("code.acknowledged")
    if method in HANDLERS:
        return _listing(step, request)
    if method == "tools/call":
        return _call(step)
    if method == "resources/read":
        contents = _result(step).get("contents") or [{}]
        uri, body = literal(contents[0].get("uri")), literal(contents[0].get("text", ""))
        code = "async def read_resource(ctx, params):\n    contents = types.TextResourceContents(\n"
        code += f"        uri={uri},\n        text={body},\n    )\n"
        code += "    return types.ReadResourceResult(contents=[contents])"
        return code, text("code.read-result")
    if method == "resources/subscribe":
        code = "async def subscribe_resource(ctx, params):\n    watch(params.uri)\n"
        code += "    return types.EmptyResult()"
        return code, text("code.subscribe-result")
    if method == "notifications/resources/updated":
        uri = literal((((step["message"] or {}).get("params")) or {}).get("uri"))
        if versions.era_of(step["protocolVersion"]) == "modern":
            return f"await bus.publish(ResourceUpdated(uri={uri}))", text("code.updated-modern")
        return f"await session.send_resource_updated({uri})", text("code.updated-legacy")
    if method in CHANGED:
        legacy_call, event = CHANGED[method]
        if versions.era_of(step["protocolVersion"]) == "modern":
            return f"await bus.publish({event}())", text("code.list-changed-modern")
        return f"await session.{legacy_call}()", text("code.list-changed-legacy")
    return None


def host_tools(step: Step) -> str:
    """What the host runs to hand the model its tools: no MCP, its own names."""
    del step  # the same code whatever the tools are
    return "\n".join(
        [
            "tools = [",
            "    {",
            '        "name": f"{server_id}__{tool.name}",',
            '        "description": tool.description,',
            '        "input_schema": tool.input_schema,',
            "    }",
            "    for server_id, listed in known.items()",
            "    for tool in listed",
            "]",
        ]
    )


__all__ = ["host_tools", "server_code"]
