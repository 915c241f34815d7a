"""Where a room's presence is kept: the seats (open student sockets) of each process, each
process's seats expiring unless its heartbeat renews them (presence.py).

A seat is one socket: a key unique in its process, and a value saying what it does,
`"f:<student id>"` (follows the class) or `"b:<student id>:<step>"` (looks back at its own
step, or steps at its own pace); the id is empty for a socket without a student. The room's
roster (roster.py) is read from these values. A process writes a seat when its socket opens and
removes it when it closes; its heartbeat rewrites all its seats of a room and renews their
expiry. A process killed with `kill -9` writes nothing more, so its seats expire within one
`ttl` and the room's count, and its free capacity, heal by themselves: nothing counts a seat of
a process that stopped beating. (Before, a count per process was kept with the room's own
expiry, renewed by every join, and a crashed process's followers stayed counted for as long as
the room lived.)

In Redis: a hash per room and process, `lab:seats:<code>:<process>` (seat → value, with the
ttl), and a set per room of the processes that wrote one, `lab:hosts:<code>`; a count reads the
hashes of the set's processes in one script and forgets the processes whose hash expired.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import redis

from app.web.classroom.errors import reachable

PREFIX = "lab:"

FOLLOWS, LOOKS_BACK = "f", "b"


@dataclass(frozen=True)
class Seat:
    """What one socket does, as its seat's value says."""

    student: str  # "" for a socket without a student
    following: bool
    step: int | None = None  # its own step, when not following

    def value(self) -> str:
        if self.following:
            return f"{FOLLOWS}:{self.student}"
        return f"{LOOKS_BACK}:{self.student}:{'' if self.step is None else self.step}"


def parse(value: str) -> Seat:
    """The seat a value describes (a value written by an older process reads as best it can)."""
    state, _, rest = value.partition(":")
    student, _, step = rest.partition(":")
    return Seat(student, state == FOLLOWS, int(step) if step.isdigit() else None)


# The room's live seats, over every process still beating. (The hash names are built in the
# script from the room's prefix: fine for one Redis, not for Redis Cluster, which the lab does
# not use.)
GATHER = """
local found = {}
for _, process in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local seats = redis.call('HVALS', ARGV[1] .. process)
  if #seats == 0 then redis.call('SREM', KEYS[1], process) end
  for _, seat in ipairs(seats) do found[#found + 1] = seat end
end
return found
"""

# The same walk, counting (HLEN is O(1): a class joining at once pays no read of every seat).
COUNT = """
local n = 0
for _, process in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local seats = redis.call('HLEN', ARGV[1] .. process)
  if seats == 0 then redis.call('SREM', KEYS[1], process) end
  n = n + seats
end
return n
"""


class Seats(Protocol):
    """The seats of every process, per room (memory or Redis)."""

    def sit(self, code: str, process: str, seat: str, value: str, ttl: float) -> int:
        """Take (or change) a seat; the room's count after, in the same round trip."""
        ...

    def stand(self, code: str, process: str, seat: str) -> None: ...
    def renew(self, code: str, process: str, seats: Mapping[str, str], ttl: float) -> None: ...
    def gather(self, code: str) -> list[str]: ...
    def count(self, code: str) -> int: ...


class MemorySeats:
    """Seats in this process (one process: a crash takes the rooms with it)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._rooms: dict[str, dict[str, tuple[float, dict[str, str]]]] = {}
        self._lock = threading.Lock()

    def sit(self, code: str, process: str, seat: str, value: str, ttl: float) -> int:
        with self._lock:
            _until, seats = self._rooms.setdefault(code, {}).get(process, (0.0, {}))
            seats[seat] = value
            self._rooms[code][process] = (self.clock() + ttl, seats)
        return self.count(code)

    def stand(self, code: str, process: str, seat: str) -> None:
        with self._lock:
            held = self._rooms.get(code, {}).get(process)
            if held is not None:
                held[1].pop(seat, None)

    def renew(self, code: str, process: str, seats: Mapping[str, str], ttl: float) -> None:
        with self._lock:
            self._rooms.setdefault(code, {})[process] = (self.clock() + ttl, dict(seats))

    def gather(self, code: str) -> list[str]:
        now = self.clock()
        with self._lock:
            processes = self._rooms.get(code, {})
            for process in [p for p, (until, _) in processes.items() if until < now]:
                del processes[process]
            return [value for _, seats in processes.values() for value in seats.values()]

    def count(self, code: str) -> int:
        return len(self.gather(code))

    def forget(self, code: str) -> None:
        with self._lock:
            self._rooms.pop(code, None)


class RedisSeats:
    """Seats in Redis, shared by every process of the lab (see the module docstring)."""

    def __init__(self, client: redis.Redis, keep: float) -> None:
        self.redis = client
        self.keep = max(1, int(keep))  # how long a room's set of processes outlives its last use
        self._gather = client.register_script(GATHER)
        self._count = client.register_script(COUNT)

    @staticmethod
    def _hash(code: str, process: str) -> str:
        return f"{PREFIX}seats:{code}:{process}"

    @reachable
    def sit(self, code: str, process: str, seat: str, value: str, ttl: float) -> int:
        key = self._hash(code, process)
        with self.redis.pipeline() as pipe:  # one MULTI: a count never sees the seat unlisted
            pipe.hset(key, seat, value)
            pipe.expire(key, max(1, int(ttl)))
            pipe.sadd(f"{PREFIX}hosts:{code}", process)
            pipe.expire(f"{PREFIX}hosts:{code}", self.keep)
            # The count in the same round trip: a class joins at once, and each round trip
            # holds a pooled connection until the joining greenlet runs again. (EVAL, not the
            # registered script: a pipeline asks SCRIPT EXISTS first, a round trip of its own.)
            pipe.eval(COUNT, 1, f"{PREFIX}hosts:{code}", f"{PREFIX}seats:{code}:")
            return int(pipe.execute()[-1])

    @reachable
    def stand(self, code: str, process: str, seat: str) -> None:
        self.redis.hdel(self._hash(code, process), seat)

    @reachable
    def renew(self, code: str, process: str, seats: Mapping[str, str], ttl: float) -> None:
        key = self._hash(code, process)
        with self.redis.pipeline() as pipe:
            pipe.delete(key)
            if seats:
                fields: dict[Any, Any] = dict(seats)  # (redis-py types its keys as any scalar)
                pipe.hset(key, mapping=fields)
                pipe.expire(key, max(1, int(ttl)))
                pipe.sadd(f"{PREFIX}hosts:{code}", process)
                pipe.expire(f"{PREFIX}hosts:{code}", self.keep)
            pipe.execute()

    @reachable
    def gather(self, code: str) -> list[str]:
        found = self._gather(keys=[f"{PREFIX}hosts:{code}"], args=[f"{PREFIX}seats:{code}:"])
        return [v.decode() if isinstance(v, bytes) else str(v) for v in found]

    @reachable
    def count(self, code: str) -> int:
        return int(self._count(keys=[f"{PREFIX}hosts:{code}"], args=[f"{PREFIX}seats:{code}:"]))
