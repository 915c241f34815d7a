"""One process's followers of each room, and the relay that writes each event to all of them.

Like websockets' `broadcast()`: an event is rendered once per (audience, language), encoded
once as a websocket frame (frames.py), and the same bytes are offered to every follower's
small bounded queue without waiting on any socket. Each follower's own handler (socket.py)
writes its queue to its socket. A follower whose queue is full has stopped reading: it is
dropped (its socket shut down), so it never slows the others, and its page reconnects and
rejoins with the room's current state.

Counts (students present, votes per choice) are state, not events: a class of hundreds joining
or voting at once sends one count per join or vote, more than any queue should hold. They go
to a follower's `latest` slots instead, one per kind, each replaced by the newer count and
rendered when the follower's handler next writes, so a burst costs the instructor one frame,
not a full queue (and a drop).

Students get, per event, two frames to choose from at write time: the delta (for a page that
follows the class) and a notice (for a student browsing on their own, "detached"), so a
student who detaches while frames wait in the queue never gets a step pushed over their page.
All of it runs on plain `threading` primitives, which the gevent worker monkey-patches into
cooperative ones: one greenlet per socket, no thread pool to run out of.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from flask import Flask, has_request_context

from app.web.classroom import frames
from app.web.classroom.render import Cursor, delta, regions
from app.web.classroom.room import Room

CLOSE = object()  # queued to end a follower's handler (the room ended)


@dataclass(eq=False)
class Follower:
    """One open live socket: who it is, what it shows, and its queue of frames to write."""

    code: str
    lang: str
    audience: str = "student"
    voter: str = ""
    attached: bool = True
    step: int = 0  # the step on show when detached
    limit: int = 16
    bell: threading.Event = field(default_factory=threading.Event)
    frames: deque[Any] = field(default_factory=deque)
    latest: dict[str, Callable[[], bytes]] = field(default_factory=dict)
    sock: Any = None
    dropped: bool = False
    # Held by whoever writes to the socket: the follower's handler while it drains its queue
    # or answers a command, the relay while it tries a write of its own.
    writing: threading.Lock = field(default_factory=threading.Lock)

    def pick(self, item: tuple[bytes, bytes]) -> bytes:
        """The frame of a (delta, notice) pair this follower shows: a detached student's is
        the notice."""
        return item[0] if self.attached or self.audience != "student" else item[1]

    def offer(self, item: Any) -> bool:
        """Write a frame now if the socket takes it without waiting, else queue it (or CLOSE);
        False when the queue is full.

        The direct write is what makes fan-out cheap: like websockets' broadcast(), the relay
        hands the bytes to the kernel itself, so a follower that keeps up costs one send and
        no wake-up of its handler. Only a follower whose socket is busy, or whose queue is
        not empty (order), gets its frame queued for its handler to write.
        """
        if item is not CLOSE and not self.frames and self.writing.acquire(blocking=False):
            try:
                if not self.frames and self._write_now(self.pick(item)):
                    return True
            finally:
                self.writing.release()
            if self.dropped:
                return True
        if len(self.frames) >= self.limit:
            return False
        self.frames.append(item)
        self.bell.set()
        return True

    def _write_now(self, data: bytes) -> bool:
        """Send without blocking; the unsent rest goes first in the queue. True when handled."""
        # Under gevent, `sock` is gevent's wrapper, whose send would wait for the socket;
        # its `_sock` is the real, non-blocking socket. Under threads `sock` is that socket.
        raw = getattr(self.sock, "_sock", self.sock)
        if raw is None:
            return False
        try:
            sent = raw.send(data, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return False
        except OSError:  # the peer has gone: its reader ends the handler
            self.dropped = True
            self.bell.set()
            return False
        if sent < len(data):
            rest = data[sent:]
            self.frames.appendleft((rest, rest))
            self.bell.set()
        return True

    def offer_latest(self, kind: str, make: Callable[[], bytes]) -> None:
        """Replace this follower's pending `kind` count with a newer one (built at write time)."""
        self.latest[kind] = make
        self.bell.set()

    def take_latest(self) -> list[Callable[[], bytes]]:
        """The pending counts, oldest kind first, and none left pending."""
        pending = list(self.latest.values())
        self.latest.clear()
        return pending

    def drop(self) -> None:
        """Stop serving this follower: its reader and writer wake up and find the socket gone."""
        self.dropped = True
        self.frames.clear()
        self.latest.clear()
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
        self.bell.set()


class Hub:
    """Followers by room in this process; `relay` is the store's listener."""

    def __init__(self, app: Flask, live: Any) -> None:
        self.app = app
        self.live = live
        self.rooms: dict[str, set[Follower]] = {}
        self.lock = threading.Lock()
        self.dropped = 0
        self._bodies: OrderedDict[Any, str] = OrderedDict()

    def add(self, f: Follower) -> None:
        with self.lock:
            self.rooms.setdefault(f.code, set()).add(f)

    def remove(self, f: Follower) -> None:
        with self.lock:
            group = self.rooms.get(f.code)
            if group is not None:
                group.discard(f)
                if not group:
                    del self.rooms[f.code]

    def followers(self, code: str) -> list[Follower]:
        with self.lock:
            return list(self.rooms.get(code, ()))

    def relay(self, code: str, event: dict[str, Any]) -> None:
        """Write one store event to this process's followers of room `code`."""
        followers = self.followers(code)
        if not followers:
            return
        try:
            if has_request_context():
                self._relay(code, event, followers)
            else:
                with self.app.test_request_context("/"):
                    self._relay(code, event, followers)
        except Exception:  # a render bug must not kill the relay: log it, keep serving
            self.app.logger.exception("live relay failed for room %s", code)

    def _relay(self, code: str, event: dict[str, Any], followers: list[Follower]) -> None:
        kind = event.get("kind")
        if kind == "room":
            self._room(Room.from_json(event["room"]), event["before"], followers)
        elif kind == "votes":
            poll, counts = event["poll"], event["counts"]
            for f in followers:
                if f.audience == "instructor":
                    f.offer_latest(
                        "votes", partial(self.live.counts_frame, code, poll, counts, f.lang)
                    )
        elif kind == "students":
            n = event["n"]
            for f in followers:
                if f.audience == "instructor":
                    f.offer_latest("students", partial(self.live.students_frame, n, f.lang))

    def _offer(self, f: Follower, item: Any) -> None:
        if not f.offer(item):
            self.dropped += 1
            self.remove(f)
            f.drop()

    def _body(self, key: Any, make: Any) -> str:
        body = self._bodies.get(key)
        if body is None:
            body = make()
            self._bodies[key] = body
            while len(self._bodies) > 512:
                self._bodies.popitem(last=False)
        return body

    def _room(self, room: Room, before: dict[str, Any], followers: list[Follower]) -> None:
        live = self.live
        if room.ended:
            ended: dict[str, bytes] = {}
            for f in followers:
                if f.lang not in ended:
                    ended[f.lang] = frames.text_frame(live.ended_html(room, f.lang))
                self._offer(f, (ended[f.lang], ended[f.lang]))
                f.offer(CLOSE)
            return
        mark = frames.marker(room.seq, "delta", room.step)
        built: dict[tuple[str, str], tuple[bytes, bytes]] = {}
        for f in followers:
            key = (f.audience, f.lang)
            item = built.get(key)
            if item is None:
                after = live.cursor(room, f.lang, f.audience)
                was = Cursor(
                    room.scenario,
                    before["version"],
                    before["transport"],
                    before["step"],
                    f.lang,
                    before["phase"],
                    f.audience,
                )
                if f.audience == "instructor":
                    counts = live.poll_counts(room)
                    old = regions(self.app.extensions["lab"], was, counts, before["poll"])
                    new = live.regions(room, after, counts)
                    body = delta(old, new) + live.controls_html(room, f.lang)
                    frame = frames.text_frame(mark + body)
                    item = (frame, frame)
                else:
                    body = self._body(
                        (was, after, before["poll"], _poll_id(room)),
                        lambda w=was, a=after: delta(
                            regions(self.app.extensions["lab"], w, None, before["poll"]),
                            live.regions(room, a),
                        ),
                    )
                    bar = live.bar_html(room, f.lang, attached=True)
                    notice = frames.marker(room.seq, "notice", room.step)
                    item = (
                        frames.text_frame(mark + body + bar),
                        frames.text_frame(notice + live.bar_html(room, f.lang, attached=False)),
                    )
                built[key] = item
            self._offer(f, item)


def _poll_id(room: Room) -> int:
    return room.poll.id if room.poll is not None else 0
