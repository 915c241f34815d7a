"""The probe's verdicts on one recorded session, as plain functions of what crossed the wire.

Each check has a stable id and says ok or not, with a detail a person can act on:

handshake         the version was negotiated (echoed, or a counter-offer the client knows)
schema            every message is valid against the official schema of that version
pagination        every page was gathered: no error, no repeated cursor, no endless list
cursors           nextCursor values are strings, and an invented cursor is refused with -32602
list-changed      whether tools.listChanged is declared; in 2026-07-28 a listen stream that
                  asks for it must be acknowledged with it
tool-names        the spec's rule: 1-128 characters of A-Z a-z 0-9 _ - .
model-safe-names  what model APIs accept without rewriting: ^[a-zA-Z0-9_-]{1,64}$
duplicate-names   no name twice in one server's list
input-schemas     each inputSchema is a JSON Schema object with type "object"
version-fields    no Tool or serverInfo field the negotiated version does not have
cache-hints       2026-07-28 only: ttlMs and cacheScope on every cacheable result, one scope
                  for every page of the list
stdout            stdio only: stdout carried nothing but JSON-RPC messages
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from app.mcp import versions
from app.mcp.jsonrpc import Message
from app.mcp.schemas import check_message, tool_name_problems

__all__ = ["Check", "Session", "grade"]

MODEL_SAFE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
INVALID_CURSOR = "mcp-lab-probe-invalid-cursor"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """'1 page', '2 pages': the probe's report is English prose, not 'page(s)'."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


@dataclass(frozen=True)
class Check:
    id: str
    ok: bool
    detail: str

    def as_json(self, version: str | None) -> dict[str, Any]:
        return {"id": self.id, "ok": self.ok, "detail": self.detail, "protocolVersion": version}


@dataclass
class Session:
    """What one probe run saw."""

    transport: str
    requested: str
    version: str | None = None  # negotiated
    era: str | None = None
    server_info: dict[str, Any] = field(default_factory=dict)
    capabilities: dict[str, Any] = field(default_factory=dict)
    wire: list[tuple[str, Message]] = field(default_factory=list)  # (sender, message)
    pages: list[dict[str, Any]] = field(default_factory=list)  # tools/list results, in order
    gather_events: list[str] = field(default_factory=list)  # the client's gather event kinds
    invalid_cursor_reply: Message | None = None
    listen_ack: Message | None = None
    discover_result: dict[str, Any] | None = None
    failure: str | None = None  # why the session stopped early
    noise: list[str] = field(default_factory=list)

    @property
    def tools(self) -> list[dict[str, Any]]:
        return [t for page in self.pages for t in (page.get("tools") or []) if isinstance(t, dict)]


def _names(tools: list[dict[str, Any]]) -> list[Any]:
    return [t.get("name") for t in tools]


def _listed(items: list[Any], limit: int = 5) -> str:
    shown = ", ".join(map(str, items[:limit]))
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _handshake(s: Session) -> Check:
    if s.version is None:
        return Check("handshake", False, s.failure or "no protocol version was negotiated")
    if s.era == "modern":
        return Check("handshake", True, f"server/discover: {s.version} (stateless, no initialize)")
    if s.version != s.requested:
        return Check("handshake", True, f"asked for {s.requested}, the server offered {s.version}")
    return Check("handshake", True, f"initialize: {s.version} echoed")


def _schema(s: Session) -> Check:
    if s.version is None:
        return Check("schema", False, "nothing to check: no version was negotiated")
    asked: dict[Any, str] = {}
    problems: list[str] = []
    for sender, message in s.wire:
        if "method" in message and "id" in message:
            asked[message["id"]] = message["method"]
        answered = None if "method" in message else asked.get(message.get("id"))
        if sender != "server":
            continue
        for problem in check_message(message, s.version, sender="server", request_method=answered):
            what = message.get("method") or answered or "message"
            problems.append(f"{what}: {problem}")
    if problems:
        listed = _listed(problems, 3)
        return Check("schema", False, f"{counted(len(problems), 'problem')}: {listed}")
    count = sum(1 for sender, _ in s.wire if sender == "server")
    return Check("schema", True, f"{counted(count, 'server message')} valid for {s.version}")


def _pagination(s: Session) -> Check:
    tools = s.tools
    detail = f"{counted(len(s.pages), 'page')}, {counted(len(tools), 'tool')}"
    if "repeated-cursor" in s.gather_events:
        return Check("pagination", False, f"{detail}; a nextCursor came back twice (a loop)")
    if "page-cap" in s.gather_events:
        return Check("pagination", False, f"{detail}; the list did not end within the page cap")
    if "gather-failed" in s.gather_events or "list-error" in s.gather_events:
        return Check("pagination", False, f"{detail}; tools/list answered with an error")
    if "published" not in s.gather_events:
        return Check("pagination", False, s.failure or f"{detail}; the list was not completed")
    return Check("pagination", True, detail)


def _cursors(s: Session) -> Check:
    cursors = [p["nextCursor"] for p in s.pages if "nextCursor" in p]
    bad = [c for c in cursors if not isinstance(c, str)]
    if bad:
        return Check("cursors", False, f"nextCursor must be a string, got {_listed(bad)}")
    reply = s.invalid_cursor_reply
    if reply is None:
        return Check("cursors", False, "no answer to tools/list with an invented cursor")
    code = (reply.get("error") or {}).get("code") if "error" in reply else None
    if code != -32602:
        got = f"error {code}" if code is not None else "a result"
        return Check(
            "cursors",
            False,
            f"{counted(len(cursors), 'cursor')} followed; an invented cursor got {got}, not -32602",
        )
    followed = counted(len(cursors), "cursor")
    return Check("cursors", True, f"{followed} followed; an invented one got -32602")


def _list_changed(s: Session) -> Check:
    declared = bool((s.capabilities.get("tools") or {}).get("listChanged"))
    if not declared:
        return Check(
            "list-changed",
            True,
            "tools.listChanged not declared: clients learn of changes only by listing again",
        )
    if s.era != "modern":
        return Check("list-changed", True, "tools.listChanged declared")
    if s.listen_ack is None:
        return Check(
            "list-changed", False, "declared, but subscriptions/listen was not acknowledged"
        )
    honoured = ((s.listen_ack.get("params") or {}).get("notifications") or {}).get(
        "toolsListChanged"
    )
    if not honoured:
        return Check(
            "list-changed", False, "declared, but the listen ack left toolsListChanged out"
        )
    return Check("list-changed", True, "declared, and the listen stream honours toolsListChanged")


def _tool_names(s: Session) -> Check:
    problems = [p for name in _names(s.tools) for p in tool_name_problems(name)]
    if problems:
        return Check("tool-names", False, _listed(problems, 3))
    return Check(
        "tool-names",
        True,
        (
            f"{counted(len(s.tools), 'name')} "
            f"{'follows' if len(s.tools) == 1 else 'follow'} the spec's rule"
        ),
    )


def _model_safe(s: Session) -> Check:
    unsafe = [n for n in _names(s.tools) if not (isinstance(n, str) and MODEL_SAFE.match(n))]
    if unsafe:
        return Check(
            "model-safe-names",
            False,
            f"a host must rewrite {_listed(unsafe)} for model APIs (^[a-zA-Z0-9_-]{{1,64}}$)",
        )
    return Check("model-safe-names", True, "every name is usable by model APIs as it is")


def _duplicates(s: Session) -> Check:
    counts = Counter(n for n in _names(s.tools) if isinstance(n, str))
    twice = [f"{n} ×{c}" for n, c in counts.items() if c > 1]
    if twice:
        return Check("duplicate-names", False, f"listed more than once: {_listed(twice)}")
    return Check("duplicate-names", True, "no name listed twice")


def _input_schemas(s: Session) -> Check:
    problems: list[str] = []
    for tool in s.tools:
        schema = tool.get("inputSchema")
        name = tool.get("name")
        if not isinstance(schema, dict):
            problems.append(f"{name}: inputSchema is missing or not an object")
            continue
        if schema.get("type") != "object":
            problems.append(f"{name}: inputSchema.type is {schema.get('type')!r}, not 'object'")
            continue
        validator = jsonschema.validators.validator_for(schema, jsonschema.Draft202012Validator)
        try:
            validator.check_schema(schema)
        except jsonschema.SchemaError as exc:
            problems.append(f"{name}: not valid JSON Schema ({exc.message})")
    if problems:
        return Check("input-schemas", False, _listed(problems, 3))
    return Check(
        "input-schemas",
        True,
        (
            f"{counted(len(s.tools), 'input schema')} "
            f"{'is a JSON Schema object' if len(s.tools) == 1 else 'are JSON Schema objects'}"
        ),
    )


def _version_fields(s: Session) -> Check:
    if s.version is None:
        return Check("version-fields", False, "no version was negotiated")
    allowed = versions.tool_fields(s.version)
    extra: list[str] = []
    for tool in s.tools:
        extra += [f"{tool.get('name')}.{k}" for k in tool if k not in allowed]
    info_allowed = versions.implementation_fields(s.version)
    extra += [f"serverInfo.{k}" for k in s.server_info if k not in info_allowed]
    if extra:
        return Check(
            "version-fields",
            False,
            f"{s.version} has no {_listed(extra)} (a client of that version never expects them)",
        )
    return Check("version-fields", True, f"every Tool field exists in {s.version}")


def _cache_hints(s: Session) -> Check | None:
    if s.era != "modern":
        return None
    problems: list[str] = []
    results = [("server/discover", s.discover_result)] if s.discover_result is not None else []
    results += [(f"tools/list page {i + 1}", p) for i, p in enumerate(s.pages)]
    for label, result in results:
        assert result is not None
        ttl = result.get("ttlMs")
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0:
            problems.append(f"{label}: ttlMs {ttl!r} is not an integer >= 0")
        if result.get("cacheScope") not in ("public", "private"):
            problems.append(f"{label}: cacheScope {result.get('cacheScope')!r}")
    scopes = {p.get("cacheScope") for p in s.pages}
    if len(scopes) > 1:
        problems.append(f"pages of one list disagree on cacheScope: {sorted(map(str, scopes))}")
    if problems:
        return Check("cache-hints", False, _listed(problems, 3))
    ttls = [p.get("ttlMs") for p in s.pages]
    return Check(
        "cache-hints",
        True,
        f"ttlMs {_listed(ttls)}, cacheScope {_listed(sorted(map(str, scopes)))}",
    )


def _stdout(s: Session) -> Check | None:
    if s.transport != "stdio":
        return None
    if s.noise:
        return Check("stdout", False, f"stdout carried non-MCP output: {s.noise[0]!r}")
    return Check("stdout", True, "stdout carried only JSON-RPC messages")


def grade(s: Session) -> list[Check]:
    """Every verdict for one session, in a fixed order."""
    checks = [
        _handshake(s),
        _schema(s),
        _pagination(s),
        _cursors(s),
        _list_changed(s),
        _tool_names(s),
        _model_safe(s),
        _duplicates(s),
        _input_schemas(s),
        _version_fields(s),
        _cache_hints(s),
        _stdout(s),
    ]
    return [c for c in checks if c is not None]
