"""One heartbeat per process for every open websocket: ping, and close the peers that do not
answer.

Every channel (app.web.channel) is watched here when its handshake is done. One loop (a
greenlet under gevent, a thread under werkzeug) calls each channel's `beat` a few times per
interval: a peer that answered no ping since the previous one is closed (it vanished, or it
stopped reading, since a ping waits behind what it has not read); else it is pinged, written
straight into its socket. Why one loop rather than a timer in each handler: a classroom is
thousands of idle sockets, and waking each handler every interval to write two bytes cost more
than the step they were waiting for; the loop wakes nobody, and a peer's pong is noted by its
reader without waking its handler either.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import Protocol

from app.web import concurrency


class Beating(Protocol):
    def beat(self, now: float) -> None: ...


class Heartbeat:
    """The loop over this process's channels (see the module docstring)."""

    def __init__(self, interval: float) -> None:
        self.tick = max(0.05, min(1.0, interval / 4))  # how late a ping or a reaping may be
        self._channels: weakref.WeakSet[Beating] = weakref.WeakSet()
        self._lock = threading.Lock()
        self._running = False

    def watch(self, channel: Beating) -> None:
        with self._lock:
            self._channels.add(channel)
            if not self._running:
                self._running = True
                concurrency.spawn(self._loop)

    def _loop(self) -> None:
        while True:
            time.sleep(self.tick)
            now = time.monotonic()
            with self._lock:
                channels = list(self._channels)
            for channel in channels:
                try:
                    channel.beat(now)
                except Exception:  # one channel's trouble must not stop the others
                    continue
            del channels
