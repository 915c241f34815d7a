"""The served server's lab API, as the watch view asks it: small JSON requests over loopback.

Only http:// loopback addresses are accepted (`served_url`), so a page's `server=` parameter can
never make the lab fetch from another machine. Every failure (refused, timed out, not JSON)
becomes `Unreachable`, whose text the sessions region shows.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from app.bounded_json import read_json

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MAX_ANSWER = 32 * 1024 * 1024  # a long session's steps; JsonRefused is a ValueError below


class Unreachable(Exception):
    pass


def served_url(value: str | None) -> str | None:
    """The served server's base URL if it is an http:// loopback address, else None."""
    if not value:
        return None
    parts = urlsplit(value.strip())
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme != "http" or parts.hostname not in LOOPBACK or port is None:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"http://{host}:{port}"


def ask(base: str, path: str, method: str = "GET") -> Any:
    """The JSON the served server answers at `path` (raises Unreachable)."""
    req = urllib.request.Request(base + path, method=method, data=b"" if method == "POST" else None)
    try:
        with urllib.request.urlopen(req, timeout=3) as response:
            # Whatever listens on that port answers here: bounded, like every JSON we read.
            return read_json(response.read(MAX_ANSWER + 1), MAX_ANSWER)
    except (OSError, ValueError, urllib.error.URLError) as exc:
        raise Unreachable(str(getattr(exc, "reason", exc))) from None
