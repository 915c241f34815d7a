"""Load the official MCP schema of each protocol version, closed where the lab needs it closed.

The five `schema.json` files are vendored unchanged under `app/mcp/schema/` (see its README); this
module reads one, derives what the checks need from it (which definition each method names, which
error codes have their own definition, which result each request answers with) and compiles
validators, all once per version. The schemas never forbid extra fields, so a 2024-11-05 Tool with
a `title` would pass; at load time this module therefore closes the definitions whose fields a
version fixes (Tool, Implementation, the capabilities and their inline sub-objects, each method's
params, each request's result) with `additionalProperties: false` (draft-07) or
`unevaluatedProperties: false` (2020-12), and marks each with `CLOSED_MARK` so a jsonschema error
on it can be told apart and worded for students.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import jsonschema  # type: ignore[import-untyped,unused-ignore]
from referencing import Registry, Resource

__all__ = ["CLOSED_MARK", "VERSIONS", "SchemaFile", "load", "result_definitions", "validator"]

# Private to the checker on purpose: app.mcp.versions owns the public table of versions; this only
# says which schema files ship.
VERSIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")

# The keyword added beside the closing one: {"label": ..., "declared": [...]}. The label names the
# object for students ("Tool", "ClientCapabilities.roots", "ListToolsRequest.params"); `declared`
# lists the fields it allows. jsonschema ignores keywords it does not know.
CLOSED_MARK = "x-mcp-lab-closed"

# Named definitions closed wherever they occur; inside the two capabilities every inline sub-object
# is closed as well, so a 2026 `roots: {listChanged: true}` (listChanged was removed) is caught.
_CLOSED_DEFINITIONS = ("Tool", "Implementation", "ServerCapabilities", "ClientCapabilities")
_CAPABILITIES = ("ServerCapabilities", "ClientCapabilities")


@dataclass(frozen=True)
class SchemaFile:
    """One version's schema, already closed, plus the tables derived from it."""

    version: str
    defs: dict[str, Any]
    pointer: str  # "#/definitions/" or "#/$defs/"
    uri: str
    registry: Registry[Any]
    validator_class: Any
    requests: dict[str, dict[str, str]]  # sender -> method -> definition name
    notifications: dict[str, dict[str, str]]
    error_definitions: dict[int, tuple[str, bool]]  # code -> (definition, covers whole envelope)

    def has(self, name: str) -> bool:
        return name in self.defs

    def all_methods(self) -> set[str]:
        found: set[str] = set()
        for table in (*self.requests.values(), *self.notifications.values()):
            found.update(table)
        return found


@cache
def load(version: str) -> SchemaFile:
    package = __name__.rpartition(".")[0]
    text = resources.files(package).joinpath("schema", version, "schema.json").read_text("utf-8")
    contents: dict[str, Any] = json.loads(text)
    key = "$defs" if "$defs" in contents else "definitions"
    defs: dict[str, Any] = contents[key]
    requests = {
        "client": _methods_of(defs, "ClientRequest"),
        "server": _methods_of(defs, "ServerRequest"),
    }
    notifications = {
        "client": _methods_of(defs, "ClientNotification"),
        "server": _methods_of(defs, "ServerNotification"),
    }
    validator_class = jsonschema.validators.validator_for(contents)
    # draft-07's additionalProperties sees only its sibling `properties`; the definitions closed
    # here are flat in the draft-07 files, and 2020-12's unevaluatedProperties sees through $ref
    # and allOf anyway.
    draft07 = validator_class is jsonschema.Draft7Validator
    _Closer(defs, "additionalProperties" if draft07 else "unevaluatedProperties").close_all(
        requests, notifications
    )
    uri = f"urn:mcp-discovery-lab:schema:{version}"
    registry: Registry[Any] = Registry().with_resource(uri, Resource.from_contents(contents))
    return SchemaFile(
        version=version,
        defs=defs,
        pointer=f"#/{key}/",
        uri=uri,
        registry=registry.crawl(),
        validator_class=validator_class,
        requests=requests,
        notifications=notifications,
        error_definitions=_error_definitions(defs),
    )


@cache
def validator(version: str, name: str) -> Any:
    schema = load(version)
    wrapper = {"$ref": f"{schema.uri}{schema.pointer}{name}"}
    return schema.validator_class(wrapper, registry=schema.registry)


def result_definitions(defs: dict[str, Any], request_definition: str) -> tuple[str, list[str]]:
    """The result definition of a request type, and every result its response may carry.

    By the schema's own naming (ListToolsRequest -> ListToolsResult; requests without one, like
    ping, answer with the generic Result). From 2026-07-28 the `<X>ResultResponse` definitions
    also say which results may instead be an InputRequiredResult.
    """
    stem = request_definition.removesuffix("Request")
    result = f"{stem}Result" if f"{stem}Result" in defs else "Result"
    response = defs.get(f"{result}Response")
    if response is None:
        return result, [result]
    node = response.get("properties", {}).get("result", {})
    members = node.get("anyOf", [node])
    return result, [_ref_name(member["$ref"]) for member in members if "$ref" in member]


class _Closer:
    """Adds the closing keyword (and CLOSED_MARK) to the definitions the lab treats as closed.

    An open object stays open: one that declares additionalProperties is an index signature in
    the TypeScript source (`[key: string]: unknown`), such as the generic Result or `experimental`.
    """

    def __init__(self, defs: dict[str, Any], keyword: str) -> None:
        self.defs = defs
        self.keyword = keyword

    def close_all(
        self, requests: dict[str, dict[str, str]], notifications: dict[str, dict[str, str]]
    ) -> None:
        for name in _CLOSED_DEFINITIONS:
            if name in self.defs:
                self._close(self.defs[name], name)
        for name in _CAPABILITIES:
            if name in self.defs:
                self._close_inline(self.defs[name], name)
        for table, envelope in (
            (requests, "JSONRPCRequest"),
            (notifications, "JSONRPCNotification"),
        ):
            for definition in {name for methods in table.values() for name in methods.values()}:
                self._close_params(definition, envelope)
        for definition in {name for methods in requests.values() for name in methods.values()}:
            result, allowed = result_definitions(self.defs, definition)
            for name in dict.fromkeys([result, *allowed]):
                if name in self.defs:
                    self._close(self.defs[name], name)

    def _close_params(self, definition: str, envelope: str) -> None:
        node = self.defs[definition].get("properties", {}).get("params")
        if not isinstance(node, dict):
            return
        resolved, name = self._resolve(node)
        if self._is_open(resolved):
            return
        # Legacy method types leave `_meta` to the JSONRPCRequest envelope, which declares it.
        envelope_params, _ = self._resolve(self.defs[envelope].get("properties", {}).get("params"))
        properties = resolved.setdefault("properties", {})
        for key, sub in envelope_params.get("properties", {}).items():
            properties.setdefault(key, sub)
        self._close(resolved, name or f"{definition}.params")

    def _close_inline(self, node: dict[str, Any], label: str) -> None:
        for key, sub in node.get("properties", {}).items():
            if isinstance(sub, dict) and "$ref" not in sub:
                self._close(sub, f"{label}.{key}")
                self._close_inline(sub, f"{label}.{key}")
        items = node.get("items")
        if isinstance(items, dict) and "$ref" not in items:
            self._close(items, label)
            self._close_inline(items, label)

    def _close(self, node: dict[str, Any], label: str) -> None:
        if CLOSED_MARK in node or self._is_open(node):
            return
        node[self.keyword] = False
        node[CLOSED_MARK] = {"label": label, "declared": sorted(self._declared(node))}

    def _resolve(self, node: Any) -> tuple[dict[str, Any], str | None]:
        name: str | None = None
        while isinstance(node, dict) and "$ref" in node:
            name = _ref_name(node["$ref"])
            node = self.defs.get(name, {})
        return (node if isinstance(node, dict) else {}), name

    def _declared(self, node: dict[str, Any]) -> set[str]:
        keys = set(node.get("properties", {}))
        for part in node.get("allOf", []):
            keys |= self._declared(self._resolve(part)[0])
        return keys

    def _is_open(self, node: dict[str, Any]) -> bool:
        if node.get("additionalProperties", False) is not False:
            return True
        return any(self._is_open(self._resolve(part)[0]) for part in node.get("allOf", []))


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
