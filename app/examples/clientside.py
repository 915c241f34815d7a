"""The client's side of the Code view: the `ClientSession` (legacy) or `Client` (2026-07-28)
call that sends a step's message, with the values the step carries."""

from __future__ import annotations

import json
from typing import Any

from app.engine.step import Step, Text
from app.mcp import versions

from .texts import text

# tools/list and its kin: the call of each on ClientSession and Client
LISTS = {
    "tools/list": "list_tools",
    "prompts/list": "list_prompts",
    "resources/list": "list_resources",
    "resources/templates/list": "list_resource_templates",
}
SDK_HANDSHAKE = "2025-11-25"  # what session.initialize() always asks for


def literal(value: Any) -> str:
    """A JSON value as Python."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def _params(step: Step) -> dict[str, Any]:
    params = (step["message"] or {}).get("params")
    return params if isinstance(params, dict) else {}


def _server(step: Step, scenario: str | None) -> str:
    sid = step["to"].split(":", 1)[1]
    if step["transport"] == "http":
        return literal("http://127.0.0.1:3001/mcp")
    lab = literal(["mcp-server", scenario or "SCENARIO", "--server", sid])
    return f'StdioServerParameters(\n    command="mcp-lab",\n    args={lab},\n)'


def _initialize(step: Step) -> tuple[str, Text]:
    params = _params(step)
    version = str(params.get("protocolVersion"))
    if version == SDK_HANDSHAKE:
        code = "async with ClientSession(read, write) as session:\n"
        code += "    result = await session.initialize()"
        return code, text("code.initialize-latest")
    info = params.get("clientInfo") or {}
    code = "\n".join(
        [
            "params = types.InitializeRequestParams(",
            f"    protocol_version={literal(version)},",
            "    capabilities=types.ClientCapabilities(),",
            "    client_info=types.Implementation(",
            f"        name={literal(info.get('name'))}, version={literal(info.get('version'))}",
            "    ),",
            ")",
            "request = types.InitializeRequest(params=params)",
            "result = await session.send_request(request, types.InitializeResult)",
            "session.adopt(result)",
        ]
    )
    return code, text("code.initialize-version", version=version)


# a listen filter's keys on the wire, and Client.listen's keywords for them
FILTER = {
    "toolsListChanged": "tools_list_changed",
    "promptsListChanged": "prompts_list_changed",
    "resourcesListChanged": "resources_list_changed",
    "resourceSubscriptions": "resource_subscriptions",
}


def _listen(step: Step) -> str:
    asked = _params(step).get("notifications") or {}
    wanted = [f"{FILTER[k]}={literal(v)}" for k, v in asked.items() if k in FILTER]
    head = f"async with client.listen({', '.join(wanted)}) as subscription:"
    if len(head) > 80:
        head = "async with client.listen(\n" + "".join(f"    {w},\n" for w in wanted)
        head += ") as subscription:"
    return head + "\n    async for event in subscription:\n        ..."


def _listing(step: Step, method: str) -> tuple[str, Text]:
    call, cursor = LISTS[method], _params(step).get("cursor")
    modern = versions.era_of(step["protocolVersion"]) == "modern"
    if cursor is None:
        owner = "client" if modern else "session"
        return f"page = await {owner}.{call}()", text("code.list-first", method=method)
    if modern:
        return f"page = await client.{call}(cursor={literal(cursor)})", text("code.list-cursor")
    code = f"params = types.PaginatedRequestParams(cursor={literal(cursor)})\n"
    code += f"page = await session.{call}(params=params)"
    return code, text("code.list-cursor")


def _call(step: Step) -> tuple[str, Text]:
    params = _params(step)
    owner = "client" if versions.era_of(step["protocolVersion"]) == "modern" else "session"
    name, arguments = literal(params.get("name")), params.get("arguments") or {}
    line = f"result = await {owner}.call_tool({name}, {literal(arguments)})"
    if len(line) > 80:  # the view is narrow: one argument a line
        items = [f"    {literal(k)}: {literal(v)}," for k, v in arguments.items()]
        line = "\n".join(["arguments = {", *items, "}"])
        line += f"\nresult = await {owner}.call_tool({name}, arguments)"
    return line, text("code.call")


def client_code(step: Step, scenario: str | None) -> tuple[str, Text] | None:
    """The code and its note for a client's message, or None for one the SDK has no call for."""
    method = step["method"] or ""
    manual = any(event.get("kind") == "manual" for event in step["events"])
    if method == "initialize":
        return _initialize(step)
    if method == "notifications/initialized":
        return "await session.send_notification(types.InitializedNotification())", text(
            "code.initialized"
        )
    if method == "server/discover" and manual:
        meta = _params(step).get("_meta") or {}
        version = literal(meta.get(versions.META_VERSION, step["protocolVersion"]))
        return f"await client.session.send_discover({version})", text("code.discover-version")
    if method == "server/discover":
        code = f"server = {_server(step, scenario)}\n"
        code += 'async with Client(server, mode="auto") as client:\n'
        code += "    print(client.protocol_version)"
        return code, text("code.discover")
    if method == "subscriptions/listen":
        return _listen(step), text("code.listen")
    if method in ("resources/read", "resources/subscribe"):
        owner = "client" if versions.era_of(step["protocolVersion"]) == "modern" else "session"
        call = "read_resource" if method == "resources/read" else "subscribe_resource"
        uri = literal(_params(step).get("uri"))
        return f"result = await {owner}.{call}({uri})", text("code.resource", method=method)
    if method in LISTS:
        return _listing(step, method)
    if method == "tools/call":
        return _call(step)
    if method == "notifications/cancelled":
        code = "with anyio.move_on_after(5):\n    page = await session.list_tools(params=params)"
        return code, text("code.cancelled")
    return None
