"""World changes: edits to the world a scenario starts from, each a function of the draft.

Each change is checked against the draft as it stands (earlier changes applied), and a move
that is impossible (a server or tool that is not there, a name already taken) or that would
make a peer break the protocol (an inputSchema that does not describe an object, ttlMs in a
version whose results have none) is refused with a sentence saying why.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import jsonschema

from app.mcp import versions

from .draft import Draft
from .model import Change, WhatIfError

MAX_SCHEMA_CHARS = 2000
_POLICY = {
    "cache": "cache",
    "refreshOnListChanged": "refreshOnListChanged",
    "rediscover": "rediscoverOnFailedCall",
}


def server(draft: Draft, sid: str, n: int) -> dict[str, Any]:
    for spec in draft.data["servers"]:
        if spec["id"] == sid:
            found: dict[str, Any] = spec
            return found
    known = [s["id"] for s in draft.data["servers"]]
    raise WhatIfError("no-server", n=n, server=sid, known=known)


def tool_names(spec: dict[str, Any]) -> list[str]:
    return [t["name"] for t in spec["tools"]]


def _tool(spec: dict[str, Any], name: str, n: int) -> dict[str, Any]:
    for tool in spec["tools"]:
        if tool["name"] == name:
            found: dict[str, Any] = tool
            return found
    raise WhatIfError("no-tool", n=n, server=spec["id"], tool=name, known=tool_names(spec))


def input_schema(schema: Any, n: int) -> dict[str, Any]:
    """A copy of a student's inputSchema once it is one a peer may send (else WhatIfError)."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise WhatIfError("schema-not-object", n=n)
    if len(json.dumps(schema)) > MAX_SCHEMA_CHARS:
        raise WhatIfError("size", n=n, kind="inputSchema", field="inputSchema")
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise WhatIfError("schema-invalid", str(exc.message)[:200], n=n) from None
    return copy.deepcopy(schema)


def new_tool(given: dict[str, Any], n: int) -> dict[str, Any]:
    """The MCP Tool a student describes; inputSchema is required by every version."""
    tool: dict[str, Any] = {k: given[k] for k in ("name", "title", "description") if k in given}
    tool["inputSchema"] = input_schema(given.get("inputSchema", {"type": "object"}), n)
    return tool


def free_name(draft: Draft, spec: dict[str, Any], name: str, n: int) -> None:
    """Refuse a name the server has, or that the script adds to it later (two tools of one
    name on one server: the spec asks for unique names, SHOULD, and the lab keeps to it)."""
    later = [
        t.get("name")
        for a in draft.script
        if a.get("server_change") == spec["id"]
        for t in a.get("add", [])
    ]
    if name in tool_names(spec) or name in later:
        raise WhatIfError("name-taken", n=n, server=spec["id"], tool=name)


def _modern_only(draft: Draft, n: int) -> None:
    if versions.era_of(draft.version) is not versions.Era.MODERN:
        raise WhatIfError("ttl-legacy", n=n, version=draft.version)


def page_size(draft: Draft, c: Change, n: int) -> None:
    server(draft, c["server"], n)["pageSize"] = c["value"]


def ttl(draft: Draft, c: Change, n: int) -> None:
    _modern_only(draft, n)
    server(draft, c["server"], n)["ttlMs"] = c["ms"]


def page_ttl(draft: Draft, c: Change, n: int) -> None:
    _modern_only(draft, n)
    server(draft, c["server"], n)["pageTtlMs"] = list(c["ms"])


def list_changed(draft: Draft, c: Change, n: int) -> None:
    server(draft, c["server"], n)["listChanged"] = c["value"]


def add_tool(draft: Draft, c: Change, n: int) -> None:
    spec = server(draft, c["server"], n)
    free_name(draft, spec, c["tool"]["name"], n)
    spec["tools"].append(new_tool(c["tool"], n))


def remove_tool(draft: Draft, c: Change, n: int) -> None:
    spec = server(draft, c["server"], n)
    spec["tools"].remove(_tool(spec, c["name"], n))


def rename_tool(draft: Draft, c: Change, n: int) -> None:
    spec = server(draft, c["server"], n)
    tool = _tool(spec, c["name"], n)
    free_name(draft, spec, c["to"], n)
    tool["name"] = c["to"]


def tool_schema(draft: Draft, c: Change, n: int) -> None:
    spec = server(draft, c["server"], n)
    _tool(spec, c["name"], n)["inputSchema"] = input_schema(c["inputSchema"], n)


def twin_server(draft: Draft, c: Change, n: int) -> None:
    """A second server offering a tool of the same name: connected, listed and refreshed
    wherever the script does so for the first server that offers it."""
    name, twin = c["name"], c["server"]
    owner = next((s for s in draft.data["servers"] if name in tool_names(s)), None)
    if owner is None:
        raise WhatIfError("no-tool-anywhere", n=n, tool=name)
    if twin in [s["id"] for s in draft.data["servers"]]:
        raise WhatIfError("server-taken", n=n, server=twin)
    tool = copy.deepcopy(_tool(owner, name, n))
    draft.data["servers"].append({"id": twin, "name": f"{twin}-server", "tools": [tool]})
    at = 0
    while at < len(draft.script):
        action = draft.script[at]
        verb = next((v for v in ("connect", "list_tools", "refresh") if v in action), None)
        if verb is not None and action[verb] == owner["id"]:
            mirror = {k: v for k, v in action.items() if k not in ("say", "sayLast", "checkpoint")}
            draft.insert(at + 1, [{**mirror, verb: twin}])
            at += 1
        at += 1


def protocol_version(draft: Draft, c: Change, n: int) -> None:
    draft.version = c["value"]


def transport(draft: Draft, c: Change, n: int) -> None:
    draft.transport = c["value"]


def policy(draft: Draft, c: Change, n: int) -> None:
    draft.data.setdefault("client", {})[_POLICY[c["change"]]] = c["value"]


def poll(draft: Draft, c: Change, n: int) -> None:
    client = draft.data.setdefault("client", {})
    if c["seconds"]:
        client["pollSeconds"] = c["seconds"]
    else:
        client.pop("pollSeconds", None)


APPLY: dict[str, Callable[[Draft, Change, int], None]] = {
    "pageSize": page_size,
    "ttl": ttl,
    "pageTtl": page_ttl,
    "listChanged": list_changed,
    "addTool": add_tool,
    "removeTool": remove_tool,
    "renameTool": rename_tool,
    "toolSchema": tool_schema,
    "twinServer": twin_server,
    "protocolVersion": protocol_version,
    "transport": transport,
    "cache": policy,
    "refreshOnListChanged": policy,
    "rediscover": policy,
    "poll": poll,
}
