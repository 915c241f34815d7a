"""Running a simulated tool: the result a scenario server gives for a tools/call.

An unknown tool is a protocol error (-32602, not -32601, which is for methods). Arguments that do
not fit the tool's inputSchema (a missing required one, a wrong type) are a protocol error
(-32602) up to 2025-06-18 and a tool error (`isError: true`, a normal result the model can read
and correct) from 2025-11-25 on (SEP-1303). A tool the scenario marks as failing is a tool error
in every version; otherwise the text says what ran with which arguments, and a tool with an
outputSchema (2025-06-18 on) returns structuredContent that fits it.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from . import jsonrpc, versions
from .catalog import Catalog
from .jsonrpc import Message, RequestId


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


def argument_problem(schema: Any, arguments: Any) -> str | None:
    """Why `arguments` do not fit the tool's inputSchema, or None when they do."""
    if not isinstance(arguments, dict):
        return "arguments must be an object"
    if not isinstance(schema, dict):
        return None
    missing = [k for k in schema.get("required", []) if k not in arguments]
    if missing:
        return f"missing argument: {missing[0]}"
    validator_class = jsonschema.validators.validator_for(schema, jsonschema.Draft202012Validator)
    try:
        error = jsonschema.exceptions.best_match(validator_class(schema).iter_errors(arguments))
    except jsonschema.SchemaError:
        return None  # the server's own schema is broken: nothing to hold the client to
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where or 'arguments'}: {error.message}"


def structured_problem(schema: Any, value: Any) -> str | None:
    """Why structuredContent does not fit the tool's outputSchema, or None when it does."""
    if not isinstance(schema, dict):
        return None
    validator_class = jsonschema.validators.validator_for(schema, jsonschema.Draft202012Validator)
    try:
        error = jsonschema.exceptions.best_match(validator_class(schema).iter_errors(value))
    except jsonschema.SchemaError:
        return "the outputSchema itself is not valid JSON Schema"
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where or 'structuredContent'}: {error.message}"


def _text_result(request_id: RequestId, text: str, *, error: bool) -> Message:
    return jsonrpc.result(
        request_id, {"content": [{"type": "text", "text": text}], "isError": error}
    )


def run_tool(
    catalog: Catalog,
    failing: frozenset[str],
    call_number: int,
    request_id: RequestId,
    params: dict[str, Any],
    version: str,
) -> tuple[Message, bool]:
    """The answer to one tools/call, and whether a tool actually ran (counts as a call)."""
    name = params.get("name")
    tool = catalog.find(name)
    if tool is None:
        return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, f"Unknown tool: {name}"), False
    arguments = params.get("arguments") or {}
    problem = argument_problem(tool.get("inputSchema"), arguments)
    if problem is not None:
        text = f"Invalid arguments for {name}: {problem}"
        if versions.argument_errors_are_tool_errors(version):
            return _text_result(request_id, text, error=True), True
        return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, text), False
    if name in failing:
        return _text_result(request_id, f"{name} failed: service unavailable", error=True), True
    summary = (
        ", ".join(f"{k}={json.dumps(arguments[k], ensure_ascii=False)}" for k in sorted(arguments))
        or "no arguments"
    )
    payload: dict[str, Any] = {
        "content": [{"type": "text", "text": f"{name} ran with {summary} (call {call_number})"}],
        "isError": False,
    }
    if versions.has_structured_content(version) and "outputSchema" in tool:
        # A server that declares an outputSchema must return content that conforms to it.
        structured = demo_value(tool["outputSchema"], call_number)
        payload["structuredContent"] = structured
        payload["content"] = [{"type": "text", "text": json.dumps(structured)}]
    return jsonrpc.result(request_id, payload), True
