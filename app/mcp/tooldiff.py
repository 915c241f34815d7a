"""Comparing tool lists: what a new list added, removed or changed, and a schema fingerprint.

Shared by the client (what a published generation changed), the host (a prepared call's
contract) and the engine (what a step changed), so it belongs to none of them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any


def schema_hash(tool: Mapping[str, Any]) -> str:
    """A short fingerprint of a tool's input contract, to spot a changed schema at a glance."""
    canonical = json.dumps(tool.get("inputSchema", {}), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:8]


def diff_tools(
    old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]
) -> dict[str, list[str]]:
    """Names added, removed and changed (same name, other definition), in list order."""
    before = {t["name"]: t for t in old}
    after = {t["name"]: t for t in new}
    return {
        "added": [n for n in after if n not in before],
        "removed": [n for n in before if n not in after],
        "changed": [n for n in after if n in before and after[n] != before[n]],
    }
