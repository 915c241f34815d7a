"""Check any JSON-RPC message the lab produces against the official schema of its MCP version.

The five official `schema.json` files (vendored under `app/mcp/schema/`, see its README) are the
reference: the envelope goes against `JSONRPCRequest`/`JSONRPCNotification`/the response types
and the payload against the definition whose `method` const matches, both found by reading the
schema rather than from a hand-kept table. On top of that come the rules the schemas cannot say:
`jsonrpc` and a non-null `id` where the older method types forget them, the spec's tool-name
guidance, `resultType` values, and "no field the version lacks" (the schemas never forbid extra
fields, so a 2024-11-05 Tool with a `title` would otherwise pass). Validators are compiled once
per (version, definition) and cached; `check_message` returns human-readable problems, empty when
the message is valid.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Literal

import jsonschema  # type: ignore[import-untyped,unused-ignore]
from referencing import Registry, Resource

__all__ = ["check_message", "is_valid", "tool_name_problems"]

Sender = Literal["client", "server"]

# Private on purpose: app.mcp.versions owns the public table; this module only needs to know
# which schema files it ships.
_VERSIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")

_TOOL_NAME = re.compile(r"[A-Za-z0-9._-]{1,128}")
_TOOL_NAME_CHAR = re.compile(r"[A-Za-z0-9._-]")
_TOOL_NAME_MAX = 128

# Named definitions whose objects get the "no field the version lacks" check wherever they occur.
_CLOSED_DEFINITIONS = frozenset(
    {"Tool", "Implementation", "ServerCapabilities", "ClientCapabilities"}
)
_CAPABILITIES = frozenset({"ServerCapabilities", "ClientCapabilities"})

# The schema types `resultType` as a plain string; its documentation names these two values.
_RESULT_TYPES = ("complete", "input_required")

_MAX_SHOWN = 160


@dataclass
class _Schema:
    """One version's schema file, plus what this module derives from it (all built once)."""

    version: str
    defs: dict[str, Any]
    pointer: str  # "#/definitions/" or "#/$defs/"
    uri: str
    registry: Registry[Any]
    validator_class: Any
    requests: dict[str, dict[str, str]]  # sender -> method -> definition name
    notifications: dict[str, dict[str, str]]
    error_definitions: dict[int, tuple[str, bool]]  # code -> (definition, covers whole envelope)
    declared_cache: dict[int, frozenset[str] | None] = field(default_factory=dict)

    def has(self, name: str) -> bool:
        return name in self.defs

    def all_methods(self) -> set[str]:
        found: set[str] = set()
        for table in (*self.requests.values(), *self.notifications.values()):
            found.update(table)
        return found


# --------------------------------------------------------------------------- loading


@cache
def _schema(version: str) -> _Schema:
    package = __name__.rpartition(".")[0]
    text = resources.files(package).joinpath("schema", version, "schema.json").read_text("utf-8")
    contents: dict[str, Any] = json.loads(text)
    key = "$defs" if "$defs" in contents else "definitions"
    defs: dict[str, Any] = contents[key]
    uri = f"urn:mcp-discovery-lab:schema:{version}"
    registry: Registry[Any] = Registry().with_resource(uri, Resource.from_contents(contents))
    return _Schema(
        version=version,
        defs=defs,
        pointer=f"#/{key}/",
        uri=uri,
        registry=registry.crawl(),
        validator_class=jsonschema.validators.validator_for(contents),
        requests={
            "client": _methods_of(defs, "ClientRequest"),
            "server": _methods_of(defs, "ServerRequest"),
        },
        notifications={
            "client": _methods_of(defs, "ClientNotification"),
            "server": _methods_of(defs, "ServerNotification"),
        },
        error_definitions=_error_definitions(defs),
    )


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _method_const(node: Any) -> str | None:
    if not isinstance(node, dict):
        return None
    method = node.get("properties", {}).get("method", {})
    const = method.get("const") if isinstance(method, dict) else None
    return const if isinstance(const, str) else None


def _methods_of(defs: dict[str, Any], union: str) -> dict[str, str]:
    """method -> definition name for the members of a union such as ClientRequest.

    A union absent from the version (2026-07-28 has no ServerRequest) is empty. A union with a
    single member is inlined by the schema generator (2026-07-28 ClientNotification *is* the
    CancelledNotification object), so the member's own name is recovered by matching content.
    """
    node = defs.get(union)
    if node is None:
        return {}
    table: dict[str, str] = {}
    members = node.get("anyOf", [node])
    for member in members:
        if "$ref" in member:
            name = _ref_name(member["$ref"])
            method = _method_const(defs.get(name))
        else:
            method = _method_const(member)
            name = next(
                (
                    other
                    for other, candidate in defs.items()
                    if other != union
                    and _method_const(candidate) == method
                    and candidate.get("properties") == member.get("properties")
                ),
                union,
            )
        if method is not None:
            table[method] = name
    return table


def _error_definitions(defs: dict[str, Any]) -> dict[int, tuple[str, bool]]:
    """error code -> definition that pins it with a `code` const.

    2026-07-28 has both shapes: whole responses (UnsupportedProtocolVersionError, -32022) and bare
    error objects (InvalidParamsError, -32602). The bool says which: True for a whole response.
    """
    found: dict[int, tuple[str, bool]] = {}
    for name, node in defs.items():
        properties = node.get("properties", {}) if isinstance(node, dict) else {}
        code = properties.get("code", {})
        if (
            isinstance(code, dict)
            and isinstance(code.get("const"), int)
            and "message" in properties
        ):
            found[code["const"]] = (name, False)
            continue
        error = properties.get("error")
        if not isinstance(error, dict):
            continue
        for part in [error, *error.get("allOf", [])]:
            const = part.get("properties", {}).get("code", {}).get("const")
            if isinstance(const, int):
                found[const] = (name, True)
    return found


@cache
def _validator(version: str, name: str) -> Any:
    schema = _schema(version)
    wrapper = {"$ref": f"{schema.uri}{schema.pointer}{name}"}
    return schema.validator_class(wrapper, registry=schema.registry)


# --------------------------------------------------------------------------- schema walking


def _resolve(schema: _Schema, node: Any) -> tuple[dict[str, Any], str | None]:
    """Follow a chain of $ref; return the node reached and the last definition name on the way."""
    name: str | None = None
    while isinstance(node, dict) and "$ref" in node:
        name = _ref_name(node["$ref"])
        node = schema.defs.get(name, {})
    return (node if isinstance(node, dict) else {}), name


def _properties(schema: _Schema, node: dict[str, Any]) -> dict[str, Any]:
    """The `properties` a node declares, merged across $ref and allOf."""
    merged: dict[str, Any] = {}
    for part in node.get("allOf", []):
        merged.update(_properties(schema, _resolve(schema, part)[0]))
    merged.update(node.get("properties", {}))
    return merged


def _declared(schema: _Schema, node: dict[str, Any]) -> frozenset[str] | None:
    """The keys a definition declares, or None when it is open (it declares additionalProperties).

    Open objects are index signatures in the TypeScript source (`[key: string]: unknown`), such as
    the generic Result or `experimental`; everything else lists its fields.
    """
    cached = schema.declared_cache.get(id(node), ...)
    if cached is not ...:
        return cached
    keys = None if _is_open(schema, node) else frozenset(_properties(schema, node))
    schema.declared_cache[id(node)] = keys
    return keys


def _is_open(schema: _Schema, node: dict[str, Any]) -> bool:
    if node.get("additionalProperties", False) is not False:
        return True
    return any(_is_open(schema, _resolve(schema, part)[0]) for part in node.get("allOf", []))


def _extra_keys(
    schema: _Schema,
    instance: dict[str, Any],
    allowed: frozenset[str] | None,
    where: str,
    label: str,
) -> Iterable[str]:
    if allowed is None:
        return
    for key in instance:
        if key not in allowed:
            yield (
                f"{where}: field {_show(key)} is not part of {label} "
                f"in protocol version {schema.version}"
            )


def _walk(
    schema: _Schema,
    node: Any,
    instance: Any,
    where: str,
    problems: list[str],
    capability: str | None = None,
) -> None:
    """Walk an instance along its schema and flag extra fields on the closed definitions.

    Only `properties` and `items` are followed (never anyOf), so this is cheap and unambiguous.
    Inside ServerCapabilities/ClientCapabilities the inline sub-objects are checked too (their
    label, e.g. "ClientCapabilities.roots", rides in `capability`), so a 2026
    `roots: {listChanged: true}` (listChanged was removed) is caught.
    """
    resolved, name = _resolve(schema, node)
    if isinstance(instance, dict):
        label: str | None = None
        if name in _CLOSED_DEFINITIONS:
            label = name
            if name == "Tool" and isinstance(instance.get("name"), str):
                where = f"{where} (tool {_show(instance['name'])})"
        elif capability is not None and name is None:
            label = capability
        if label is not None:
            problems.extend(
                _extra_keys(schema, instance, _declared(schema, resolved), where, label)
            )
        if name in _CAPABILITIES:
            capability = name
        properties = _properties(schema, resolved)
        for key, value in instance.items():
            sub = properties.get(key)
            if isinstance(sub, dict):
                inner = None if capability is None else f"{capability}.{key}"
                _walk(schema, sub, value, _location(where, [key]), problems, inner)
    elif isinstance(instance, list):
        items = resolved.get("items")
        if isinstance(items, dict):
            for index, value in enumerate(instance):
                _walk(schema, items, value, f"{where}[{index}]", problems, capability)


# --------------------------------------------------------------------------- formatting


def _show(text: str, limit: int = 40) -> str:
    """A safe rendering of untrusted text: escaped (no control or invisible characters), capped."""
    if len(text) <= limit:
        return ascii(text)
    return f"{text[:limit]!a}... ({len(text)} characters)"


def _short(text: str) -> str:
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def _location(base: str, path: Iterable[Any]) -> str:
    """A readable path: result.tools[0].inputSchema, params._meta["io.modelcontextprotocol/..."]."""
    where = base
    for part in path:
        if isinstance(part, int):
            where += f"[{part}]"
        elif _IDENTIFIER.fullmatch(str(part)):
            where += f".{part}" if where else str(part)
        else:
            where += f"[{json.dumps(str(part), ensure_ascii=True)}]"
    return where or "message"


def _schema_problems(schema: _Schema, name: str, instance: Any, base: str) -> list[str]:
    problems: list[str] = []
    for error in _validator(schema.version, name).iter_errors(instance):
        message = error.message
        if error.context:  # anyOf/oneOf: say which branch came closest and why it failed
            best = jsonschema.exceptions.best_match(error.context)
            message = f"{message}; closest: {_location(base, best.absolute_path)}: {best.message}"
        problems.append(f"{name}: {_location(base, error.absolute_path)}: {_short(message)}")
    return problems


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
            f"tool name {_show(name)} is longer than the {_TOOL_NAME_MAX} characters "
            "the spec allows"
        )
    if name and _TOOL_NAME.fullmatch(name) is None:
        bad = list(dict.fromkeys(char for char in name if not _TOOL_NAME_CHAR.fullmatch(char)))
        if bad:
            listed = ", ".join(f"{char!a} (U+{ord(char):04X})" for char in bad[:8])
            more = f" and {len(bad) - 8} more" if len(bad) > 8 else ""
            problems.append(
                f"tool name {_show(name)} contains {listed}{more}; "
                "the spec allows only A-Z a-z 0-9 _ - ."
            )
    return problems


def check_message(
    message: dict[str, Any],
    version: str,
    *,
    sender: Sender,
    request_method: str | None = None,
) -> list[str]:
    """Every problem with one JSON-RPC message under one protocol version; [] when valid.

    `sender` says which side produced it (it selects ClientRequest vs ServerRequest, ...);
    `request_method` is the method of the request a response answers, without which a result is
    checked only as an envelope.
    """
    if sender not in ("client", "server"):
        raise ValueError(f"sender must be 'client' or 'server', not {sender!r}")
    if version not in _VERSIONS:
        return [f"unknown protocol version {version!r}; known: {', '.join(_VERSIONS)}"]
    if not isinstance(message, dict):
        return [f"a JSON-RPC message is a JSON object, not {type(message).__name__}"]
    schema = _schema(version)
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


def _kind(schema: _Schema, message: dict[str, Any], problems: list[str]) -> str | None:
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


def _unknown_method(schema: _Schema, method: str, sender: str, kind: str) -> str:
    if method not in schema.all_methods():
        return f"method {method} does not exist in protocol version {schema.version}"
    if kind == "request" and method in schema.notifications[sender]:
        return f"{method} is a notification in protocol version {schema.version}: it takes no id"
    if kind == "notification" and method in schema.requests[sender]:
        return f"{method} is a request in protocol version {schema.version}: it needs an id"
    return f"{method} is not a {kind} the {sender} sends in protocol version {schema.version}"


def _check_params(
    schema: _Schema, definition: str, envelope: str, message: dict[str, Any], problems: list[str]
) -> None:
    params = message.get("params")
    if not isinstance(params, dict):
        return
    node = _properties(schema, schema.defs[definition]).get("params")
    if not isinstance(node, dict):
        return
    resolved, name = _resolve(schema, node)
    allowed = _declared(schema, resolved)
    if allowed is not None:
        # Legacy method types leave `_meta` to the JSONRPCRequest envelope, which declares it.
        envelope_params = _resolve(schema, _properties(schema, schema.defs[envelope]).get("params"))
        allowed |= _declared(schema, envelope_params[0]) or frozenset()
        label = name or f"{definition}.params"
        problems.extend(_extra_keys(schema, params, allowed, "params", label))
    _walk(schema, node, params, "params", problems)


def _check_method_message(
    schema: _Schema, message: dict[str, Any], sender: str, kind: str, problems: list[str]
) -> None:
    """A request or a notification: its envelope, then the definition its method names."""
    envelope = "JSONRPCRequest" if kind == "request" else "JSONRPCNotification"
    problems.extend(_schema_problems(schema, envelope, message, ""))
    method = message.get("method")
    if not isinstance(method, str):
        return
    table = schema.requests if kind == "request" else schema.notifications
    definition = table[sender].get(method)
    if definition is None:
        problems.append(_unknown_method(schema, method, sender, kind))
        return
    problems.extend(_schema_problems(schema, definition, message, ""))
    _check_params(schema, definition, envelope, message, problems)
    params = message.get("params")
    if method == "tools/call" and isinstance(params, dict) and isinstance(params.get("name"), str):
        problems.extend(f"params.name: {problem}" for problem in tool_name_problems(params["name"]))


def _result_definitions(schema: _Schema, request_definition: str) -> tuple[str, list[str]]:
    """The result definition of a request type, and every result its response may carry.

    By the schema's own naming (ListToolsRequest -> ListToolsResult; requests without one, like
    ping, answer with the generic Result). From 2026-07-28 the `<X>ResultResponse` definitions
    also say which results may instead be an InputRequiredResult.
    """
    stem = request_definition.removesuffix("Request")
    result = f"{stem}Result" if schema.has(f"{stem}Result") else "Result"
    response = schema.defs.get(f"{result}Response")
    if response is None:
        return result, [result]
    node = _properties(schema, response).get("result", {})
    members = node.get("anyOf", [node])
    return result, [_ref_name(member["$ref"]) for member in members if "$ref" in member]


def _check_result(
    schema: _Schema,
    message: dict[str, Any],
    sender: str,
    request_method: str | None,
    problems: list[str],
) -> None:
    envelope = "JSONRPCResultResponse" if schema.has("JSONRPCResultResponse") else "JSONRPCResponse"
    problems.extend(_schema_problems(schema, envelope, message, ""))
    result = message.get("result")
    if not isinstance(result, dict):
        return
    declares_result_type = "resultType" in _properties(schema, schema.defs["Result"])
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
    definition, allowed = _result_definitions(schema, request_definition)
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
    problems.extend(_schema_problems(schema, definition, result, "result"))
    node = schema.defs[definition]
    problems.extend(_extra_keys(schema, result, _declared(schema, node), "result", definition))
    _walk(schema, node, result, "result", problems)
    tools = result.get("tools")
    if request_method == "tools/list" and isinstance(tools, list):
        for index, tool in enumerate(tools):
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                problems.extend(
                    f"result.tools[{index}]: {problem}"
                    for problem in tool_name_problems(tool["name"])
                )


def _check_error(schema: _Schema, message: dict[str, Any], problems: list[str]) -> None:
    envelope = "JSONRPCErrorResponse" if schema.has("JSONRPCErrorResponse") else "JSONRPCError"
    problems.extend(_schema_problems(schema, envelope, message, ""))
    error = message.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    if type(code) is not int or code not in schema.error_definitions:
        return
    definition, whole = schema.error_definitions[code]
    if whole:
        problems.extend(_schema_problems(schema, definition, message, ""))
        _walk(schema, schema.defs[definition], message, "", problems)
    else:
        problems.extend(_schema_problems(schema, definition, error, "error"))
