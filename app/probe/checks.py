"""The probe's verdicts on one recorded session, as plain functions of what crossed the wire.

Each check has a stable id, a level (app.probe.levels: fail for a broken MUST, warn for a
SHOULD, note for what a version does not define or a host's habit, pass) and the spec's
sentence it rests on, quoted for the negotiated version:

handshake         the version was negotiated (echoed, or a counter-offer); 2026: server/discover
schema            every server message is valid against the official schema of that version,
                  as published (its objects are open: an extra field is no schema fault)
pagination        every page was gathered: no error, no repeated cursor, no endless list
cursors           an invented cursor is refused with -32602 (a server that never paginates may
                  ignore it)
list-changed      whether tools.listChanged is declared; 2026: the listen acknowledgement
tool-names        from 2025-11-25: 1-128 characters of A-Z a-z 0-9 _ - . (a SHOULD)
model-safe-names  a host's rule, not the spec's: what model APIs accept, ^[a-zA-Z0-9_-]{1,64}$
duplicate-names   from 2025-11-25: unique within a server (a SHOULD)
input-schemas     each inputSchema is valid JSON Schema (a MUST from 2025-11-25)
version-fields    Tool or serverInfo fields the negotiated version does not define (a note)
cache-hints       2026-07-28 only: one cacheScope for every page of the list
stdout            stdio only: stdout carried nothing but MCP messages

One fault is one finding: a fault the schema reports (a missing inputSchema type, a nextCursor
that is not a string, a missing ttlMs) is not reported again by the check that looks at the same
field, and a name the spec's own rule reports is not reported again as model-unsafe.
"""

from __future__ import annotations

from .levels import Check
from .list_checks import cache_hints, cursors, list_changed, pagination
from .session import INVALID_CURSOR, Session, counted
from .tool_checks import duplicates, input_schemas, model_safe, tool_names
from .wire_checks import handshake, schema, stdout, version_fields

__all__ = ["INVALID_CURSOR", "Check", "Session", "counted", "grade"]


def grade(s: Session) -> list[Check]:
    """Every verdict for one session, in a fixed order."""
    checks = [
        handshake(s),
        schema(s),
        pagination(s),
        cursors(s),
        list_changed(s),
        tool_names(s),
        model_safe(s),
        duplicates(s),
        input_schemas(s),
        version_fields(s),
        cache_hints(s),
        stdout(s),
    ]
    return [c for c in checks if c is not None]
