"""The probe's checks of the conversation itself: the opening, schema validity, fields a version
does not define, and a clean stdout (see app.probe.checks for the list)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from app.mcp import versions
from app.mcp.schemas import check_message

from .levels import Check, found, passed
from .session import Session, counted, listed

__all__ = ["handshake", "schema", "stdout", "version_fields"]


def handshake(s: Session) -> Check:
    if s.version is None:
        if s.silent:
            detail = s.failure or "the server did not answer"
            return found("handshake", "json-rpc", s.requested, detail)
        rule = "discover" if s.requested in versions.MODERN_VERSIONS else "version-other"
        detail = s.failure or "no protocol version was negotiated"
        return found("handshake", rule, s.requested, detail)
    if s.era == "modern":
        detail = f"server/discover: {s.version} (stateless, no initialize)"
        return passed("handshake", "discover", s.version, detail)
    if s.version != s.requested:
        detail = f"asked for {s.requested}, the server offered {s.version}"
        return passed("handshake", "version-other", s.version, detail)
    return passed("handshake", "version-echo", s.version, f"initialize: {s.version} echoed")


def schema(s: Session) -> Check:
    """Every server message against the official schema of the version, as published: its
    objects are open, so a field the version does not define is no fault here (version-fields
    notes it); the tool-name advice is the tool-names check's. A fault seen in several
    messages (the same page answered twice) is one problem."""
    version = s.version or s.requested
    asked: dict[Any, str] = {}
    problems: dict[str, None] = {}
    count = 0
    for sender, message in s.wire:
        if "method" in message and "id" in message:
            asked[message["id"]] = message["method"]
        answered = None if "method" in message else asked.get(message.get("id"))
        if sender != "server":
            continue
        count += 1
        found_here = check_message(
            message,
            version,
            sender="server",
            request_method=answered,
            closed=False,
            name_guidance=False,
        )
        what = message.get("method") or answered or "message"
        for problem in found_here:
            problems[f"{what}: {problem}"] = None
    if problems:
        faults = list(problems)
        detail = f"{counted(len(faults), 'problem')}: {listed(faults, 3)}"
        return found("schema", "schema", version, detail)
    detail = f"{counted(count, 'server message')} valid for the official {version} schema"
    return passed("schema", "schema", version, detail)


def _defined_in(name: str, fields: Any) -> str | None:
    """The first version whose `fields(version)` has `name`."""
    return next((v for v in versions.VERSIONS if name in fields(v)), None)


def version_fields(s: Session) -> Check | None:
    """Fields the negotiated version does not define, on the tools of the walk and serverInfo:
    valid (the schema is open), and a note naming the version that defines each."""
    if s.version is None:
        return None
    where: dict[str, set[str]] = defaultdict(set)
    allowed = versions.tool_fields(s.version)
    for tool in s.tools:
        for key in tool:
            if key not in allowed:
                where[key].add(str(tool.get("name")))
    info_allowed = versions.implementation_fields(s.version)
    extra_info = [k for k in s.server_info if k not in info_allowed]
    if not where and not extra_info:
        detail = f"every Tool field exists in {s.version}"
        return passed("version-fields", "version-fields", s.version, detail)
    parts: list[str] = []
    for key, tools in where.items():
        since = _defined_in(key, versions.tool_fields)
        origin = f"from {since}" if since else "in no version"
        parts.append(f"{key} ({origin}) on {counted(len(tools), 'tool')}")
    for key in extra_info:
        since = _defined_in(key, versions.implementation_fields)
        parts.append(f"serverInfo.{key} ({f'from {since}' if since else 'in no version'})")
    detail = (
        f"{s.version} does not define {listed(parts)}: valid, since the schema leaves objects "
        "open, and unknown to a client of that version"
    )
    return found("version-fields", "version-fields", s.version, detail)


def stdout(s: Session) -> Check | None:
    if s.transport != "stdio":
        return None
    version = s.version or s.requested
    if s.noise:
        return found("stdout", "stdout", version, f"stdout carried non-MCP output: {s.noise[0]!r}")
    return passed("stdout", "stdout", version, "stdout carried only JSON-RPC messages")
