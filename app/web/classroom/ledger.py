"""A room's side records: append-only lists kept beside the store, in memory or in Redis.

The room itself changes seldom and every change is broadcast; what the instructor's screens
read besides it (every vote as it was cast, so the first answer of each student is known;
a student-paced room's own answers; the rooms an instructor ran) is written far more often
and read only by the instructor, on request. Each record is a short string appended to a
named list that keeps its newest `keep` items and expires after `ttl` seconds without a
write, so nothing here outlives its room for long.

With Redis (the store has a `redis` client) the lists are Redis lists under `lab:log:<name>`,
shared by every process, and survive a restart as the rooms do; else a dict of this process.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

import redis

from app.web.classroom.store import StoreUnavailable

PREFIX = "lab:log:"


class Ledger(Protocol):
    def append(self, name: str, item: str, keep: int, ttl: float) -> None: ...
    def read(self, name: str) -> list[str]: ...


class MemoryLedger:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._lists: dict[str, tuple[float, deque[str]]] = {}
        self._lock = threading.Lock()

    def append(self, name: str, item: str, keep: int, ttl: float) -> None:
        now = self.clock()
        with self._lock:
            for key in [k for k, (until, _) in self._lists.items() if until < now]:
                del self._lists[key]
            _, items = self._lists.get(name, (0.0, deque(maxlen=keep)))
            items.append(item)
            self._lists[name] = (now + ttl, items)

    def read(self, name: str) -> list[str]:
        with self._lock:
            until, items = self._lists.get(name, (0.0, deque()))
            return list(items) if until >= self.clock() else []


class RedisLedger:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client

    def append(self, name: str, item: str, keep: int, ttl: float) -> None:
        key = PREFIX + name
        try:
            with self.redis.pipeline(transaction=False) as pipe:
                pipe.rpush(key, item)
                pipe.ltrim(key, -keep, -1)
                pipe.expire(key, max(1, int(ttl)))
                pipe.execute()
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            raise StoreUnavailable(str(exc)) from exc

    def read(self, name: str) -> list[str]:
        try:
            raw: list[Any] = self.redis.lrange(PREFIX + name, 0, -1)
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            raise StoreUnavailable(str(exc)) from exc
        return [x.decode() if isinstance(x, bytes) else str(x) for x in raw]


def open_ledger(store: object) -> Ledger:
    """The ledger beside `store`: in its Redis when it has one, else in this process."""
    client = getattr(store, "redis", None)
    if isinstance(client, redis.Redis):
        return RedisLedger(client)
    return MemoryLedger()
