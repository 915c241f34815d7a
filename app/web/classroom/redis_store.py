"""Rooms in Redis, so followers of one room can be spread over several server processes.

Each room is one JSON string (`lab:room:<code>`) that expires after the idle time; `change`
reads it under WATCH, applies the pure move, and in one MULTI stores the new room and
PUBLISHes the event on `lab:live:<code>`, so every process sees changes in `seq` order. Votes
are a hash per poll (voter → choice) beside a hash of counts, updated by one Lua script so a
changed answer moves one vote atomically; a room's students (id → nickname) are a hash too,
beside the order they came in (a sorted set, for the roster's "Student n").
Students present are the seats of seats.py, which expire with the process that holds them.
Every change is announced to the room's group through
the Redis group layer (app.web.redis_groups), inside the same MULTI as the write.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import redis

from app.web.classroom.errors import reachable
from app.web.classroom.room import Room
from app.web.classroom.seats import RedisSeats
from app.web.classroom.store import (
    ENDED_KEEP,
    instructors_group,
    room_event,
    room_group,
)
from app.web.redis_groups import RedisGroups

PREFIX = "lab:"
# Redis connections per process (the group layer's subscription takes one of them). A join
# makes a few round trips, each holding a connection until its greenlet runs again: on a busy
# process with a class joining at once, 32 ran dry and joins timed out waiting for one.
POOL = 256

VOTE = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old ~= ARGV[2] then
  if old then redis.call('HINCRBY', KEYS[2], old, -1) end
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
end
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return redis.call('HGETALL', KEYS[2])
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _key(code: str) -> str:
    return f"{PREFIX}room:{code}"


def connect(url: str) -> redis.Redis:
    """A client for `url` with a bounded pool that makes a greenlet wait its turn: a class
    joining at once is hundreds of greenlets asking at the same moment, and an unbounded pool
    opened a connection for each until Redis or the pool refused ("Too many connections")."""
    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=POOL,
        timeout=10,
        # A Redis that stops answering is an outage to say, not a greenlet waiting for ever.
        socket_connect_timeout=5,
        socket_timeout=10,
    )
    return redis.Redis(connection_pool=pool)


class RedisStore:
    """The same interface as MemoryStore, backed by the Redis of `groups`."""

    def __init__(
        self, groups: RedisGroups, idle: float = 4 * 3600, clock: Callable[[], float] = time.time
    ):
        self.idle = idle
        self.clock = clock
        self.groups = groups
        self.redis = groups.redis
        self._vote = self.redis.register_script(VOTE)
        self.seats = RedisSeats(self.redis, idle)

    def _ttl(self, room: Room) -> int:
        return max(1, int(min(self.idle, ENDED_KEEP) if room.ended else self.idle))

    @reachable
    def create(self, room: Room) -> bool:
        return bool(self.redis.set(_key(room.code), room.to_json(), ex=self._ttl(room), nx=True))

    @reachable
    def get(self, code: str) -> Room | None:
        raw = self.redis.get(_key(code))
        return None if raw is None else Room.from_json(raw)

    @reachable
    def change(self, code: str, move: Callable[[Room], Room]) -> tuple[Room, Room]:
        key = _key(code)
        with self.redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(key)  # type: ignore[no-untyped-call]
                    raw = pipe.get(key)
                    if raw is None:
                        raise KeyError(code)
                    before = Room.from_json(raw)
                    after = move(before)
                    pipe.multi()
                    pipe.set(key, after.to_json(), ex=self._ttl(after))
                    if after.seq != before.seq:
                        self.groups.publish(pipe, room_group(code), room_event(before, after))
                    pipe.execute()
                    return before, after
                except redis.WatchError:
                    continue

    @reachable
    def admit(self, code: str, student: str, nick: str | None = None) -> None:
        key, came = f"{PREFIX}students:{code}", f"{PREFIX}came:{code}"
        with self.redis.pipeline() as pipe:
            if nick is None:
                pipe.hsetnx(key, student, "")
            else:
                pipe.hset(key, student, nick)
            pipe.zadd(came, {student: self.clock()}, nx=True)  # the roster's order
            pipe.expire(key, int(self.idle))
            pipe.expire(came, int(self.idle))
            pipe.execute()

    @reachable
    def students(self, code: str) -> dict[str, str]:
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.hgetall(f"{PREFIX}students:{code}")
            pipe.zrange(f"{PREFIX}came:{code}", 0, -1)
            raw, order = pipe.execute()
        nicks = {_text(k): _text(v) for k, v in raw.items()}
        came = [s for s in map(_text, order) if s in nicks]
        return {s: nicks[s] for s in [*came, *nicks]}  # in the order they first came

    @reachable
    def known(self, code: str, student: str) -> bool:
        return bool(self.redis.hexists(f"{PREFIX}students:{code}", student))

    @reachable
    def voters(self, code: str, poll: int) -> dict[str, int]:
        raw = self.redis.hgetall(f"{PREFIX}votes:{code}:{poll}")
        return {_text(k): int(v) for k, v in raw.items()}

    @reachable
    def vote(self, code: str, poll: int, voter: str, choice: int, choices: int) -> list[int]:
        keys = [f"{PREFIX}votes:{code}:{poll}", f"{PREFIX}counts:{code}:{poll}"]
        flat = self._vote(keys=keys, args=[voter, str(choice), int(self.idle)])
        counts = self._counts(flat, choices)
        self.groups.send(instructors_group(code), {"kind": "votes", "poll": poll, "counts": counts})
        return counts

    @staticmethod
    def _counts(flat: Sequence[bytes | str], choices: int) -> list[int]:
        counts = [0] * choices
        for name, value in zip(flat[::2], flat[1::2], strict=True):
            index = int(name)
            if 0 <= index < choices:
                counts[index] = max(0, int(value))
        return counts

    @reachable
    def counts(self, code: str, poll: int, choices: int) -> list[int]:
        raw = self.redis.hgetall(f"{PREFIX}counts:{code}:{poll}")
        flat = [x for pair in raw.items() for x in pair]
        return self._counts(flat, choices)

    @reachable
    def present(self, code: str) -> int:
        return self.seats.count(code)

    @reachable
    def alive(self, codes: list[str]) -> set[str]:
        with self.redis.pipeline(transaction=False) as pipe:
            for code in codes:
                pipe.exists(_key(code))
            found = pipe.execute()
        return {code for code, n in zip(codes, found, strict=True) if n}

    def close(self) -> None:
        self.groups.close()
        self.redis.close()
