"""A server's tool catalog: its tools, its revision, and the pages and cursors it serves.

Tools are served in a deterministic order, in pages whose size the server chooses, behind
opaque cursors (base64 of the revision and offset they were issued for). Every change bumps the
revision; what a cursor issued before a change means is the server's choice: "continue" serves
the same offset of the new list (pages may then mix old and new), "reject" answers -32602 so
the client restarts from page 1. A tool is shaped for the version it is served in: fields the
version lacks are left out.
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

from . import versions

DEFAULT_INPUT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}

Page = tuple[list[dict[str, Any]], str | None]


def encode_cursor(revision: int, offset: int) -> str:
    raw = json.dumps({"r": revision, "o": offset}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[int, int] | None:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        revision, offset = int(data["r"]), int(data["o"])
    except (ValueError, KeyError, TypeError):
        return None
    return (revision, offset) if offset > 0 else None


def shape_tool(tool: dict[str, Any], version: str) -> dict[str, Any]:
    """The tool as this version may carry it: fields the version lacks are left out."""
    allowed = versions.tool_fields(version)
    shaped = {k: copy.deepcopy(v) for k, v in tool.items() if k in allowed}
    shaped.setdefault("inputSchema", copy.deepcopy(DEFAULT_INPUT_SCHEMA))
    return shaped


class Catalog:
    """The tools one server offers now; `replace` says whether anything changed."""

    def __init__(self, tools: tuple[dict[str, Any], ...], page_size: int, stale_cursors: str):
        self.tools: list[dict[str, Any]] = [copy.deepcopy(t) for t in tools]
        self.revision = 1
        self.page_size = page_size
        self.stale_cursors = stale_cursors

    def find(self, name: Any) -> dict[str, Any] | None:
        return next((t for t in self.tools if t["name"] == name), None)

    def replace(self, tools: list[dict[str, Any]]) -> bool:
        """Swap the catalog (a new revision); False when the list is the same."""
        if tools == self.tools:
            return False
        # Tool dicts are never edited in place (a change replaces the list): sharing is safe.
        self.tools = [copy.deepcopy(t) for t in tools]
        self.revision += 1
        return True

    def view(self, tools: list[dict[str, Any]]) -> Catalog:
        """The same catalog seen through a filter: its revision and page size, fewer tools."""
        seen = Catalog((), self.page_size, self.stale_cursors)
        seen.tools, seen.revision = tools, self.revision
        return seen

    def page_index(self, cursor: str | None) -> int:
        """Which page (0: the first) a valid cursor points at, as pages are now cut."""
        decoded = None if cursor is None else decode_cursor(cursor)
        return 0 if decoded is None else decoded[1] // max(1, self.page_size)

    def page(self, cursor: str | None) -> Page | None:
        """The page a cursor points at and the next cursor; None when the cursor is invalid."""
        offset = 0
        if cursor is not None:
            decoded = decode_cursor(cursor)
            if decoded is None:
                return None
            revision, offset = decoded
            if offset > len(self.tools) or (
                self.stale_cursors == "reject" and revision != self.revision
            ):
                return None
        size = max(1, self.page_size)
        chunk = self.tools[offset : offset + size]
        following = offset + size
        more = following < len(self.tools)
        return chunk, encode_cursor(self.revision, following) if more else None
