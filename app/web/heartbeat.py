"""One heartbeat per process for every open websocket: ping, and close the peers that do not
answer.

Every channel (app.web.channel) is watched here when its handshake is done. One loop (a
greenlet under gevent, a thread under werkzeug) calls a channel's `beat` when it is due: a
peer that answered no ping since the previous one is closed (it vanished, or it stopped
reading, since a ping waits behind what it has not read); else it is pinged, written straight
into its socket, and `beat` says when it is due next. Why one loop rather than a timer in each
handler: a classroom is thousands of idle sockets, and waking each handler every interval to
write two bytes cost more than the step they were waiting for; the loop wakes nobody, and a
peer's pong is noted by its reader without waking its handler either. Why a queue by due time
rather than a scan: a scan touched every socket each tick (a microsecond per socket per
second, an eighth of what a step's send costs per follower), the queue only the due ones. Why
it sleeps until the soonest beat is due rather than for a fixed tick: a class that sits still
pings nobody for 25 s, and a wake after a quiet second runs cold (it showed in the idle
server's CPU, docs/BENCHMARKS.md); a channel due sooner than the loop's wake stirs it.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
import weakref
from typing import Protocol

from app.web import concurrency


class Beating(Protocol):
    def beat(self, now: float) -> float | None:
        """Ping or reap if due; when the next beat is due (None: the channel is done)."""


Entry = tuple[float, int, "weakref.ref[Beating]"]


class Heartbeat:
    """The loop over this process's channels (see the module docstring)."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        # The shortest sleep: beats due within a tick of each other go in one wake.
        self.tick = max(0.05, min(1.0, interval / 4))
        self._due: list[Entry] = []  # a heap: the next beat of each channel, soonest first
        self._order = itertools.count()  # ties never compare channels
        self._lock = threading.Lock()
        self._running = False
        self._wake = 0.0  # when the loop wakes next, by the monotonic clock
        self._stirred = threading.Event()  # a channel due before that

    def watch(self, channel: Beating) -> None:
        due = channel.beat(time.monotonic())
        if due is None:
            return
        with self._lock:
            heapq.heappush(self._due, (due, next(self._order), weakref.ref(channel)))
            if not self._running:
                self._running = True
                concurrency.spawn(self._loop)
            elif due < self._wake:
                self._stirred.set()

    def watched(self) -> int:
        """How many channels are waiting for a beat (closed ones leave at their next)."""
        return len(self._due)

    def pause(self, now: float) -> float:
        """How long the loop sleeps from `now`: until the soonest beat is due (a whole interval
        with nothing watched), at least a tick."""
        with self._lock:
            soonest = self._due[0][0] if self._due else now + self.interval
            self._wake = max(soonest, now + self.tick)
            return self._wake - now

    def _loop(self) -> None:
        while True:
            self._stirred.wait(self.pause(time.monotonic()))
            self._stirred.clear()
            self.run(time.monotonic())

    def run(self, now: float) -> None:
        """Beat every channel due by `now`."""
        due: list[Entry] = []
        with self._lock:
            while self._due and self._due[0][0] <= now:
                due.append(heapq.heappop(self._due))
        for _, _, ref in due:
            channel = ref()
            if channel is None:
                continue
            try:
                then = channel.beat(now)
            except Exception:  # one channel's trouble must not stop the others
                continue
            if then is not None:
                with self._lock:
                    heapq.heappush(self._due, (then, next(self._order), ref))
            del channel
