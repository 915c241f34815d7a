"""What every part of the simulated client shares: its configuration, its state, and the moves
all of them make (advance along the lifecycle table, send a tracked request, cancel one).

`MCPClient` (app.mcp.client) is this plus its face and switchboard; the modules that handle
each kind of answer (negotiation, gathering, listchanged, calls) work on a `ClientCore`, so they
depend on the state they change and not on the client that routes answers to them: the
switchboard imports them, never the other way round.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import events as ev
from . import jsonrpc, lifecycle, versions
from .cache import Cache, Gathering
from .clock import Clock
from .events import Output
from .held import ClientAuth, ClientLists
from .jsonrpc import Message, RequestId
from .lifecycle import ClientPhase
from .requests import Pending, Requests
from .versions import Era

__all__ = ["ClientConfig", "ClientCore"]


@dataclass(frozen=True)
class ClientConfig:
    server_id: str
    protocol_version: str = versions.LATEST
    supported_versions: tuple[str, ...] = versions.VERSIONS
    name: str = "lab-agent"
    title: str = "MCP Discovery Lab agent"
    version: str = "1.0.0"
    cache_ttl_ms: int = 60_000  # legacy: the client's own policy; modern: the server's ttlMs
    listen: bool = True
    probe_discover: bool = True
    max_pages: int = 100
    # The client's policy, each a habit real clients differ in (none is a rule of the spec):
    cache: bool = True  # False: every list goes to the server, whatever the TTL says
    refresh_on_list_changed: bool = True  # False: list_changed is read and ignored
    rediscover_on_failed_call: bool = True  # False: an unknown-tool error is only reported
    http: bool = False  # on Streamable HTTP, where x-mcp-header annotations bind (2026-07-28)
    known_fields_only: bool = False  # keep only the tool fields this version defines


class ClientCore:
    """The client's state and the moves its parts share."""

    def __init__(self, config: ClientConfig, clock: Clock):
        self.config = config
        self.clock = clock
        self.phase = ClientPhase.NEW
        self.version = config.protocol_version
        self.era = versions.era_of(config.protocol_version)
        self.server_capabilities: dict[str, Any] = {}
        self.server_info: dict[str, Any] = {}
        self.requests = Requests()
        self.cache = Cache()
        self.gathering: Gathering | None = None
        self.generations = 0
        self.pending_refresh = False
        self.listen_id: RequestId | None = None
        self.listening = False
        self.retried: set[str] = set()
        self.probed: list[str] = []  # versions server/discover was sent in (each at most once)
        self.awaiting_rediscovery: list[dict[str, Any]] = []
        self.instructions: str | None = None  # what initialize or server/discover said
        self.lists = ClientLists()  # resources, templates, prompts, contents
        self.auth = ClientAuth()  # the token for a protected server (HTTP only)

    def advance(self, move: str) -> None:
        """Move along the lifecycle table; a move it lacks is our own mistake (local)."""
        self.phase = lifecycle.advance(lifecycle.CLIENT_TRANSITIONS, self.phase, move, side="local")

    def request(self, method: str, params: dict[str, Any] | None, pending: Pending) -> Message:
        """A request with the next id, tracked until answered; modern ones carry _meta."""
        request_id = self.requests.open(pending)
        if self.era is Era.MODERN:
            given = params or {}
            params = {**given, "_meta": {**self._meta(), **given.get("_meta", {})}}
        return jsonrpc.request(request_id, method, params)

    def _meta(self) -> dict[str, Any]:
        return {
            versions.META_VERSION: self.version,
            versions.META_CLIENT_INFO: self.info(),
            versions.META_CLIENT_CAPABILITIES: {},
        }

    def info(self) -> dict[str, Any]:
        info = {"name": self.config.name, "version": self.config.version}
        if "title" in versions.implementation_fields(self.version):
            info["title"] = self.config.title
        return info

    def declares_list_changed(self) -> bool:
        return bool((self.server_capabilities.get("tools") or {}).get("listChanged"))

    def method_of(self, request_id: Any) -> str | None:
        return self.requests.method_of(request_id)

    @property
    def in_flight(self) -> list[RequestId]:
        return self.requests.in_flight

    def cancel(self, request_id: RequestId, reason: str) -> Output:
        """Give up on a request still in flight, as the transport of this version does it.

        2026-07-28 over Streamable HTTP: closing the request's response stream is the
        cancellation (no notification is sent, and no answer can arrive any more). Everywhere
        else: notifications/cancelled with the request's id and a reason; the server may have
        answered already, so the record stays and a late answer is recognised and ignored.
        """
        pending = self.requests.get(request_id)
        if pending is None or pending.cancelled:
            return Output()
        generation = pending.generation if pending.method == "tools/list" else None
        if self.era is Era.MODERN and self.config.http:
            self.requests.close(request_id)
            closed = ev.RequestCancelled(request_id, pending.method, reason, generation, True)
            return Output(events=[closed])
        pending.cancelled = True
        params = {"requestId": request_id, "reason": reason}
        message = jsonrpc.notification("notifications/cancelled", params)
        return Output(
            [message], [ev.RequestCancelled(request_id, pending.method, reason, generation)]
        )
