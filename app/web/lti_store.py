"""Where LTI launches are kept between the requests of one launch and after it: the OIDC
state and nonce between /lti/login and /lti/launch, and the launch's data (the id_token's
claims) that /lti/score and /lti/deep-link read back by launch id.

pylti1p3 asks for a cache (`get`, `set` with an expiry in seconds). Without a store configured
it is this process's memory, bounded; with LAB_REDIS_URL it is the same Redis as the live
rooms (keys `lab:lti:<pylti1p3's key>`, JSON, expiring as pylti1p3 says), so a launch survives
a restart of the lab and any `--workers` process can finish what another started. A Redis that
does not answer is StoreUnavailable, which lti.py turns into a page that says so.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from typing import Any, Protocol

import redis

from app.web.classroom.errors import reachable
from app.web.classroom.redis_store import connect

PREFIX = "lab:lti:"
DEFAULT_EXPIRY = 7200  # seconds, when pylti1p3 gives none


class LaunchCache(Protocol):
    def get(self, key: str) -> Any: ...
    def set(self, key: str, value: Any, exp: int | None = None) -> None: ...


class MemoryCache:
    """A small thread-safe TTL map with pylti1p3's cache interface (get, set with expiry)."""

    def __init__(self, limit: int = 10000) -> None:
        self._items: dict[str, tuple[float, Any]] = {}
        self._lock = threading.Lock()
        self._limit = limit

    def get(self, key: str) -> Any:
        with self._lock:
            item = self._items.get(key)
            if item is None or item[0] < time.monotonic():
                self._items.pop(key, None)
                return None
            return item[1]

    def set(self, key: str, value: Any, exp: int | None = None) -> None:
        with self._lock:
            if len(self._items) >= self._limit:  # drop the soonest to expire
                del self._items[min(self._items, key=lambda k: self._items[k][0])]
            self._items[key] = (time.monotonic() + (exp or DEFAULT_EXPIRY), value)


class RedisCache:
    """The same interface in Redis: every value pylti1p3 keeps is JSON (claims, flags, text)."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client

    @reachable
    def get(self, key: str) -> Any:
        raw = self.redis.get(PREFIX + key)
        return None if raw is None else json.loads(raw)

    @reachable
    def set(self, key: str, value: Any, exp: int | None = None) -> None:
        self.redis.set(PREFIX + key, json.dumps(value), ex=max(1, int(exp or DEFAULT_EXPIRY)))


def open_cache(config: Mapping[str, Any]) -> MemoryCache | RedisCache:
    """Redis when the lab has one (LAB_REDIS_URL), else this process's memory. No connection is
    made here: the first launch opens it (after a server has forked its workers)."""
    url = config.get("REDIS_URL")
    return RedisCache(connect(str(url))) if url else MemoryCache()
