"""The group layer across processes: a group send is PUBLISHed on Redis, and every process's
listener delivers it to the members that process holds (app.web.groups.LocalGroups).

Each group is the Redis channel `lab:group:<name>`. A process subscribes once to the pattern
`lab:group:*` (one connection, one listener greenlet) rather than per group, so joining a
group costs no Redis round trip and no event published just after a join can slip past a
subscription still on its way; a process drops events for groups it has no members of. A
store that changes state and announces it in one Redis transaction calls `publish(pipe, ...)`
inside its MULTI, so every process sees the announcements in the order of the changes.
`send` does not wait for Redis: sends queue in the process and one publisher at a time
pipelines what is queued, in order. A class joining at once sends a count per join; published
one by one, each took a pooled connection, held until the joining greenlet ran again, which
on a busy process was long enough for the pool to run dry.
While Redis is away a process hears nothing: `listening` is False from the listener's first
error until its subscription is confirmed again, and `epoch` then grows, so the classroom knows
its followers missed sends (app.web.classroom.presence).
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from typing import Any

import redis

from app.web import concurrency
from app.web.groups import Event, LocalGroups, Render

CHANNELS = "lab:group:"
# Sends waiting for the publisher, at most: a Redis that stalls (not refuses) holds the
# publisher up to its socket timeout, and a class's counts must not pile up meanwhile. Only
# counts go this way (each replaced by the next), so one dropped past the bound costs nothing.
OUTBOX = 4096


class RedisGroups(LocalGroups):
    """Groups whose sends reach the members of every process sharing the Redis of `client`."""

    def __init__(self, client: redis.Redis, render: Render, log: logging.Logger | None = None):
        super().__init__(render, log)
        self.redis = client
        self._pubsub: Any = None
        self._thread: threading.Thread | None = None
        self._outbox: list[tuple[str, str]] = []  # (Redis channel, event): sends to publish
        self._publishing = False
        self._out = threading.Lock()
        self.dropped_sends = 0  # sends past OUTBOX while Redis was slow, since start

    def start(self) -> None:
        """Subscribe and start this process's listener (raises redis' errors when it is down)."""
        if self._thread is not None:
            return
        # Subscribe confirmations are read, not ignored: one says when this process hears sends
        # again after Redis was away (`listening`, `epoch`).
        pubsub = self.redis.pubsub()  # type: ignore[no-untyped-call]
        pubsub.psubscribe(CHANNELS + "*")
        pubsub.get_message(timeout=5)  # the confirmation: sends from now on reach this process
        self._pubsub = pubsub
        self._thread = threading.Thread(target=self._listen, name="group-listener", daemon=True)
        self._thread.start()

    def send(self, group: str, event: Event) -> None:
        """Publish `event` to `group` in every process, in the order of this process's sends,
        without waiting for Redis (see the module docstring)."""
        with self._out:
            if len(self._outbox) >= OUTBOX:
                self.dropped_sends += 1
                return
            self._outbox.append((CHANNELS + group, json.dumps(event)))
            if self._publishing:
                return
            self._publishing = True
        concurrency.spawn(self._publish)

    def _publish(self) -> None:
        while True:
            with self._out:
                sends, self._outbox = self._outbox, []
                if not sends:
                    self._publishing = False
                    return
            try:
                with self.redis.pipeline(transaction=False) as pipe:
                    for channel, data in sends:
                        pipe.publish(channel, data)
                    pipe.execute()
            except redis.RedisError as exc:  # an outage: the presence beat tells the pages
                self.log.warning(
                    "%d group sends lost, Redis did not take them: %s", len(sends), exc
                )

    def publish(self, pipe: Any, group: str, event: Event) -> None:
        """`send`, queued in a caller's MULTI: it goes out with (and in the order of) its writes."""
        pipe.publish(CHANNELS + group, json.dumps(event))

    def _listen(self) -> None:
        pubsub = self._pubsub
        while pubsub is not None and pubsub.subscribed:
            try:
                message = pubsub.get_message(timeout=1.0)
            except (redis.ConnectionError, redis.TimeoutError, ValueError, AttributeError):
                if self._pubsub is None:
                    return
                self.listening = False  # sends published meanwhile never reach this process
                time.sleep(0.5)  # Redis is away: redis-py reconnects and resubscribes
                continue
            if message and message.get("type") == "psubscribe" and not self.listening:
                self.epoch += 1  # first: a socket that sees `listening` sees the new epoch
                self.listening = True
                continue
            if not message or message.get("type") != "pmessage":
                continue
            group = message["channel"].decode()[len(CHANNELS) :]
            self.deliver(group, json.loads(message["data"]))

    def close(self) -> None:
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(redis.RedisError):
                pubsub.close()
        with self._lock:
            self._groups.clear()
