"""The rooms an instructor ran, with their results, for `/live/history` in their browser.

The browser that starts a room carries a long-lived random cookie (`mcp-lab-owner`, HttpOnly,
sent to /live only); the ledger keeps, under a digest of it, one line when a room starts and one
when it ends (with its class results), so the history outlives the rooms themselves (which
expire an hour after they end) and, with Redis, a restart. Nothing in it names a student.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from typing import Any

from app.web.classroom.ledger import Ledger

OWNER = "mcp-lab-owner"
KEEP_SECONDS = 180 * 24 * 3600
KEPT = 400  # lines: two per room


def new_owner() -> str:
    return secrets.token_urlsafe(18)


def _log(owner: str) -> str:
    return "history:" + hashlib.sha256(owner.encode()).hexdigest()[:32]


def started(ledger: Ledger, owner: str, room: dict[str, Any]) -> None:
    """Remember that `owner` started a room (`code`, `scenario`, `version`, `transport`)."""
    ledger.append(_log(owner), json.dumps(room | {"created": time.time()}), KEPT, KEEP_SECONDS)


def ended(ledger: Ledger, owner: str, code: str, results: list[dict[str, Any]]) -> None:
    item = {"code": code, "ended": time.time(), "results": results}
    ledger.append(_log(owner), json.dumps(item), KEPT, KEEP_SECONDS)


def rooms(ledger: Ledger, owner: str) -> list[dict[str, Any]]:
    """The owner's rooms, newest first: what each line said about it, merged by code."""
    merged: dict[str, dict[str, Any]] = {}
    for raw in ledger.read(_log(owner)):
        try:
            item = json.loads(raw)
            code = str(item["code"])
        except (ValueError, KeyError, TypeError):
            continue
        merged.setdefault(code, {"code": code, "results": []}).update(item)
    return sorted(merged.values(), key=lambda r: -float(r.get("created", r.get("ended", 0))))
