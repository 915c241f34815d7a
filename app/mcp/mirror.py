"""A real client as an observer of its session sees it: the simulated client's parts, mirrored.

`ClientMirror` holds what the wire shows of one real client (app.mcp.observer keeps it up to
date): the phase and version of its session, its clientInfo and the server's answer, its open
requests by the ids it chose (`requests`), the tools/list walk under way (`gathering`) and its
last complete list with the pages' ttlMs (`cache`). These are the same parts, with the same
names, as the simulated client's, so the engine's narration can read either; `snapshot` is the
client's state in a trace step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import versions
from .cache import Cache, Gathering
from .lifecycle import ClientPhase
from .requests import Requests
from .snapshots import ClientState
from .versions import Era

__all__ = ["CLIENT_ASKED", "ClientMirror"]

# Why a walk from page 1 began when nothing on the wire says more (a simulated client's reason).
CLIENT_ASKED = "client asked"


@dataclass
class ClientMirror:
    """The real client as the wire shows it; the parts are the simulated client's."""

    phase: ClientPhase = ClientPhase.NEW
    version: str = versions.LATEST
    era: Era = Era.LEGACY
    asked_version: str | None = None  # what initialize asked for, before the answer
    client_info: dict[str, Any] = field(default_factory=dict)
    server_info: dict[str, Any] = field(default_factory=dict)
    server_capabilities: dict[str, Any] = field(default_factory=dict)
    requests: Requests = field(default_factory=Requests)
    cache: Cache = field(default_factory=Cache)
    gathering: Gathering | None = None
    generations: int = 0
    listening: bool = False
    list_changed_at_ms: int | None = None  # a list_changed no walk has followed yet
    next_reason: str = CLIENT_ASKED  # what a walk from page 1 would be answering

    def declares_list_changed(self) -> bool:
        return bool((self.server_capabilities.get("tools") or {}).get("listChanged"))

    def snapshot(self, now_ms: int) -> ClientState:
        """The client's state in a step, judged fresh or stale at `now_ms`."""
        cache, g = self.cache, self.gathering
        fresh = cache.valid and (cache.expires_at_ms is None or now_ms < cache.expires_at_ms)
        return {
            "phase": self.phase.value,
            "protocolVersion": self.version,
            "era": self.era.value,
            "serverInfo": dict(self.server_info),
            "serverCapabilities": dict(self.server_capabilities),
            "listening": self.listening,
            "cache": {
                "generation": cache.generation,
                "tools": list(cache.tools),
                "fetchedAtMs": cache.fetched_at_ms,
                "ttlMs": cache.ttl_ms,
                "expiresAtMs": cache.expires_at_ms,
                "cacheScope": cache.scope,
                "valid": cache.valid,
                "fresh": cache.generation > 0 and fresh,
            },
            "gathering": None
            if g is None
            else {
                "generation": g.generation,
                "reason": g.reason,
                "pages": [[t.get("name") for t in page] for page in g.pages],
                "nextCursor": g.next_cursor,
            },
            "pendingRefresh": self.list_changed_at_ms is not None,
            "inFlight": [str(i) for i in self.requests.in_flight],
        }
