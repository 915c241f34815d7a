"""The client's side of authorization: the token it holds for its server, and what a new token
does to the tools it cached.

A token is one authorization context. In 2026-07-28 a result marked cacheScope "private" MAY be
reused only in the same context, and caches MUST NOT be shared across contexts (caching.mdx), so
a new token makes private pages stale. Legacy results carry no cacheScope; this client drops
its list on a new token all the same, because the server may show another token other tools:
that is this client's choice, and the event says which reason applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .clientcore import ClientCore
from .events import Event, Output
from .versions import Era


@dataclass(frozen=True)
class AuthChallenged(Event):
    """The server refused a request with 401 or 403 and a Bearer challenge."""

    kind: ClassVar[str] = "auth-challenged"
    status: int
    scope: str | None
    error: str | None = None


@dataclass(frozen=True)
class TokenReceived(Event):
    kind: ClassVar[str] = "token-received"
    scope: str


@dataclass(frozen=True)
class CacheLeftWithToken(Event):
    """A new token made the cached tool list stale: `private` says the pages were marked
    cacheScope private (2026-07-28); otherwise it is this client's own policy."""

    kind: ClassVar[str] = "cache-left-with-token"
    generation: int
    private: bool


def take_token(client: ClientCore, token: str, scope: str) -> Output:
    """Hold a new token; a cached list fetched under the previous one goes stale."""
    held = client.auth
    first = held.token is None
    held.token, held.scopes, held.tokens = token, scope.split(), held.tokens + 1
    out = Output(events=[TokenReceived(scope)])
    cache = client.cache
    if first or not cache.valid:
        return out
    private = client.era is Era.MODERN and cache.scope == "private"
    if client.era is Era.MODERN and not private:
        return out  # a public list may serve any authorization context
    cache.valid = False
    return out.extend(Output(events=[CacheLeftWithToken(cache.generation, private)]))


def snapshot(client: ClientCore) -> dict[str, Any]:
    held = client.auth
    if held.token is None:
        return {}
    return {"authorization": {"token": held.token, "scopes": list(held.scopes)}}
