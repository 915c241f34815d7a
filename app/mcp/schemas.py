"""Check any JSON-RPC message the lab produces against the official schema of its MCP version.

The official schemas (loaded and closed by `schema_files`) are the reference: the envelope goes
against `JSONRPCRequest`/`JSONRPCNotification`/the response types and the payload against the
definition whose `method` const matches, both found by reading the schema rather than from a
hand-kept table; a field the version lacks fails there too, since the loaded schemas are closed.
On top of that come the rules the schemas cannot say: `jsonrpc` and a non-null `id` where the older
method types forget them, the spec's tool-name guidance and `resultType` values. `check_message`
returns human-readable problems (worded by `schema_errors`), empty when the message is valid.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from typing import Any, Literal

from app.mcp.schema_errors import CLOSED, schema_problems, show
from app.mcp.schema_files import VERSIONS, SchemaFile, load, result_definitions

__all__ = ["check_message", "is_valid", "tool_name_problems"]

Sender = Literal["client", "server"]

_TOOL_NAME = re.compile(r"[A-Za-z0-9._-]{1,128}")
_TOOL_NAME_CHAR = re.compile(r"[A-Za-z0-9._-]")
_TOOL_NAME_MAX = 128

# Whether check_message adds the spec's tool-name advice to the schema's verdict.
NAME_GUIDANCE: ContextVar[bool] = ContextVar("name_guidance", default=True)

# The schema types `resultType` as a plain string; its documentation names these two values.
_RESULT_TYPES = ("complete", "input_required")


# --------------------------------------------------------------------------- public API


def tool_name_problems(name: str) -> list[str]:
    """The spec's SHOULD rules for a tool name: 1 to 128 characters from A-Z a-z 0-9 _ - ."""
    if not isinstance(name, str):
        return [f"tool name must be a string, not {type(name).__name__}"]
    problems: list[str] = []
    if not name:
        problems.append("tool name is empty; the spec says 1 to 128 characters")
    elif len(name) > _TOOL_NAME_MAX:
        problems.append(
            f"tool name {show(name)} is longer than the {_TOOL_NAME_MAX} characters the spec allows"
        )
    if name and _TOOL_NAME.fullmatch(name) is None:
        bad = list(dict.fromkeys(char for char in name if not _TOOL_NAME_CHAR.fullmatch(char)))
        if bad:
            listed = ", ".join(f"{char!a} (U+{ord(char):04X})" for char in bad[:8])
            more = f" and {len(bad) - 8} more" if len(bad) > 8 else ""
            problems.append(
                f"tool name {show(name)} contains {listed}{more}; "
                "the spec allows only A-Z a-z 0-9 _ - ."
            )
    return problems


def check_message(
    message: dict[str, Any],
    version: str,
    *,
    sender: Sender,
    request_method: str | None = None,
    closed: bool = True,
    name_guidance: bool = True,
) -> list[str]:
    """Every problem with one JSON-RPC message under one protocol version; [] when valid.

    `sender` says which side produced it (it selects ClientRequest vs ServerRequest, ...);
    `request_method` is the method of the request a response answers, without which a result is
    checked only as an envelope. `closed=False` checks against the official schema alone, which
    allows fields a version does not define (a server built for a newer version sends them).
    `name_guidance=False` leaves out the tool-name advice, which is no part of the schema (a
    grader that weighs it by version, as `mcp-lab probe` does, checks it on its own).
    """
    token = CLOSED.set(closed)
    names = NAME_GUIDANCE.set(name_guidance)
    try:
        return _check(message, version, sender, request_method)
    finally:
        CLOSED.reset(token)
        NAME_GUIDANCE.reset(names)


def _check(
    message: dict[str, Any], version: str, sender: Sender, request_method: str | None
) -> list[str]:
    if sender not in ("client", "server"):
        raise ValueError(f"sender must be 'client' or 'server', not {sender!r}")
    if version not in VERSIONS:
        return [f"unknown protocol version {version!r}; known: {', '.join(VERSIONS)}"]
    if not isinstance(message, dict):
        return [f"a JSON-RPC message is a JSON object, not {type(message).__name__}"]
    schema = load(version)
    problems: list[str] = []
    kind = _kind(schema, message, problems)
    if kind is None:
        return problems
    _check_jsonrpc(message, kind, problems)
    if kind in ("request", "notification"):
        _check_method_message(schema, message, sender, kind, problems)
    elif kind == "result":
        _check_result(schema, message, sender, request_method, problems)
    else:
        _check_error(schema, message, problems)
    return list(dict.fromkeys(problems))


def is_valid(
    message: dict[str, Any],
    version: str,
    *,
    sender: Sender,
    request_method: str | None = None,
) -> bool:
    """True when `check_message` finds nothing wrong."""
    return not check_message(message, version, sender=sender, request_method=request_method)


# --------------------------------------------------------------------------- the checks


def _kind(schema: SchemaFile, message: dict[str, Any], problems: list[str]) -> str | None:
    if "method" in message:
        if "id" in message:
            return "request"
        method = message["method"]
        is_request = any(method in table for table in schema.requests.values())
        is_notification = any(method in table for table in schema.notifications.values())
        return "request" if is_request and not is_notification else "notification"
    if "result" in message:
        if "error" in message:
            problems.append("a response carries either result or error, never both")
        return "result"
    if "error" in message:
        return "error"
    problems.append("not a JSON-RPC message: it has no method, result or error")
    return None


def _check_jsonrpc(message: dict[str, Any], kind: str, problems: list[str]) -> None:
    if "jsonrpc" not in message:
        problems.append('missing "jsonrpc": "2.0"')
    elif message["jsonrpc"] != "2.0":
        problems.append(f'"jsonrpc" must be "2.0", not {message["jsonrpc"]!r}')
    if kind in ("request", "result") and "id" not in message:
        what = "a request" if kind == "request" else "a response"
        problems.append(f"{what} must carry an id")
    if "id" in message and message["id"] is None:
        problems.append("id must not be null (MCP forbids null ids)")


def _other(sender: str) -> str:
    return "server" if sender == "client" else "client"


def _unknown_method(schema: SchemaFile, method: str, sender: str, kind: str) -> str:
    if method not in schema.all_methods():
        return f"method {method} does not exist in protocol version {schema.version}"
    if kind == "request" and method in schema.notifications[sender]:
        return f"{method} is a notification in protocol version {schema.version}: it takes no id"
    if kind == "notification" and method in schema.requests[sender]:
        return f"{method} is a request in protocol version {schema.version}: it needs an id"
    return f"{method} is not a {kind} the {sender} sends in protocol version {schema.version}"


def _check_method_message(
    schema: SchemaFile, message: dict[str, Any], sender: str, kind: str, problems: list[str]
) -> None:
    """A request or a notification: its envelope, then the definition its method names."""
    envelope = "JSONRPCRequest" if kind == "request" else "JSONRPCNotification"
    problems.extend(schema_problems(schema.version, envelope, message, ""))
    method = message.get("method")
    if not isinstance(method, str):
        return
    table = schema.requests if kind == "request" else schema.notifications
    definition = table[sender].get(method)
    if definition is None:
        problems.append(_unknown_method(schema, method, sender, kind))
        return
    problems.extend(schema_problems(schema.version, definition, message, ""))
    params = message.get("params")
    if not NAME_GUIDANCE.get():
        return
    if method == "tools/call" and isinstance(params, dict) and isinstance(params.get("name"), str):
        problems.extend(f"params.name: {problem}" for problem in tool_name_problems(params["name"]))


def _check_result(
    schema: SchemaFile,
    message: dict[str, Any],
    sender: str,
    request_method: str | None,
    problems: list[str],
) -> None:
    envelope = "JSONRPCResultResponse" if schema.has("JSONRPCResultResponse") else "JSONRPCResponse"
    problems.extend(schema_problems(schema.version, envelope, message, ""))
    result = message.get("result")
    if not isinstance(result, dict):
        return
    declares_result_type = "resultType" in schema.defs["Result"].get("properties", {})
    result_type = result.get("resultType")
    if declares_result_type and "resultType" in result and result_type not in _RESULT_TYPES:
        problems.append(
            f"result.resultType: {result_type!r} is neither "
            f"{' nor '.join(repr(value) for value in _RESULT_TYPES)}"
        )
    if request_method is None:
        return
    asker = _other(sender)
    request_definition = schema.requests[asker].get(request_method)
    if request_definition is None:
        problems.append(_unknown_method(schema, request_method, asker, "request"))
        return
    definition, allowed = result_definitions(schema.defs, request_definition)
    if result_type == "input_required" and schema.has("InputRequiredResult"):
        if "InputRequiredResult" in allowed:
            definition = "InputRequiredResult"
            if "inputRequests" not in result and "requestState" not in result:
                problems.append(
                    "result: an InputRequiredResult needs inputRequests or requestState"
                )
        else:
            problems.append(
                f"result: {request_method} cannot answer with resultType 'input_required' "
                f"in protocol version {schema.version}"
            )
    problems.extend(schema_problems(schema.version, definition, result, "result"))
    tools = result.get("tools")
    if request_method == "tools/list" and isinstance(tools, list) and NAME_GUIDANCE.get():
        for index, tool in enumerate(tools):
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                problems.extend(
                    f"result.tools[{index}]: {problem}"
                    for problem in tool_name_problems(tool["name"])
                )


def _check_error(schema: SchemaFile, message: dict[str, Any], problems: list[str]) -> None:
    envelope = "JSONRPCErrorResponse" if schema.has("JSONRPCErrorResponse") else "JSONRPCError"
    problems.extend(schema_problems(schema.version, envelope, message, ""))
    error = message.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    if type(code) is not int or code not in schema.error_definitions:
        return
    definition, whole = schema.error_definitions[code]
    if whole:
        problems.extend(schema_problems(schema.version, definition, message, ""))
    else:
        problems.extend(schema_problems(schema.version, definition, error, "error"))
