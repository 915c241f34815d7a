"""Who is in a room, kept as this process's open sockets, and the process's presence beat.

Each live socket takes a seat (seats.py) when it opens and gives it up when it closes; one loop
per process (the presence beat, every third of `LIVE_PRESENCE_SECONDS`) rewrites this
process's seats with that expiry, so the seats of a process that dies without a word expire
and the room's count and capacity heal within one expiry. The beat also keeps each page honest
about its room:

- the count on an instructor's screen is recounted, so followers of a dead process leave it;
- a room the store no longer has (Redis restarted without persistence, or the room expired)
  ends on every page of it here: the ended notice, then the socket closes;
- a store that does not answer closes every live socket here with 1013 ("try again later"):
  each page says the classroom service is not answering and reconnects with backoff, and is
  refused with 1013 until the store is back (static/js/classroom-link.js); so does a group
  layer that is not hearing sends, or heard again after a gap, whose pages missed steps.

The seats are the one record of who is here: the room's count, its capacity and the speaker
view's roster (roster.py) all read them.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import uuid
from collections.abc import Hashable

from flask import render_template
from flask_babel import force_locale

from app.web import concurrency
from app.web.channel import Channel, Message
from app.web.classroom import timer
from app.web.classroom.errors import StoreUnavailable
from app.web.classroom.needs import Hosts
from app.web.classroom.payload import Follower
from app.web.classroom.seats import Seat, parse
from app.web.classroom.store import instructors_group

OUTAGE = (1013, "store unavailable")  # the close a page retries with backoff
ENDED = "room ended"  # a close reason the page does not retry


class Presence:
    """This process's sockets per room, and its presence beat (see the module docstring)."""

    def __init__(self, live: Hosts, ttl: float) -> None:
        self.live = live
        self.ttl = max(1.0, ttl)
        self.interval = self.ttl / 3
        self._rooms: dict[str, dict[Channel, str | None]] = {}  # None: an instructor
        self._counts: dict[str, int] = {}  # the count last announced per room
        self._lock = threading.Lock()
        self._pid = 0
        self._process = ""
        self._down = False
        self._running = False
        self._since: dict[Channel, int] = {}  # the group layer's epoch when a socket entered
        # Each room's student seats as the beat writes them (seat → value), kept as sockets come
        # and go: naming 1,000 seats at each beat cost it 0.2 ms of its 0.25 (warm).
        self._seats: dict[str, dict[str, str]] = {}
        self._checked = 0  # the group layer's epoch when the beat last looked for stale sockets
        self._due = 0.0  # the earliest poll deadline ahead that this process knows (timer.py)
        self._wake = threading.Event()  # rung when a poll's deadline comes before the next beat

    @property
    def process(self) -> str:
        """This process's name in the store's seats (a new one after a fork)."""
        if self._pid != os.getpid():  # a forked child holds none of its parent's sockets
            self._pid, self._process = os.getpid(), uuid.uuid4().hex[:12]
            with self._lock:
                self._rooms.clear()
                self._since.clear()
                self._seats.clear()
                self._counts.clear()
                self._running = False  # the parent's beat did not come along
        return self._process

    # A socket's side -------------------------------------------------------------------------

    def enter(self, code: str, ch: Channel, audience: str, student: str | None) -> int:
        """Seat a socket (an instructor's is watched, not counted); the room's count after."""
        value = None if audience == "instructor" else Seat(student or "", True).value()
        process = self.process
        with self._lock:
            self._rooms.setdefault(code, {})[ch] = value
            self._since[ch] = self.live.groups.epoch
            if value is not None:
                self._seats.setdefault(code, {})[_seat(ch)] = value
            start, self._running = not self._running, True
        if start:
            concurrency.spawn(self._loop)
        store = self.live.store
        if value is None:
            n = store.present(code)
            self._counts[code] = n
            return n
        n = store.seats.sit(code, process, _seat(ch), value, self.ttl)
        self._announce(code, n)
        return n

    def follow(self, code: str, ch: Channel, attached: bool, step: int = 0) -> None:
        """A student follows the class again, or looks back (or goes on alone) at `step`."""
        with self._lock:
            value = self._rooms.get(code, {}).get(ch)
            if value is None:
                return
            value = Seat(parse(value).student, attached, None if attached else step).value()
            self._rooms[code][ch] = value
            self._seats.setdefault(code, {})[_seat(ch)] = value
        with contextlib.suppress(StoreUnavailable):  # the next beat writes it
            self.live.store.seats.sit(code, self.process, _seat(ch), value, self.ttl)

    def leave(self, code: str, ch: Channel) -> None:
        with self._lock:
            members = self._rooms.get(code, {})
            value = members.pop(ch, None)
            self._since.pop(ch, None)
            self._seats.get(code, {}).pop(_seat(ch), None)
            if not members:
                self._rooms.pop(code, None)
                self._counts.pop(code, None)
                self._seats.pop(code, None)
        if value is None:
            return
        with contextlib.suppress(StoreUnavailable):  # the seat expires with the beat
            self.live.store.seats.stand(code, self.process, _seat(ch))
            self._announce(code, self.live.store.present(code))

    def _announce(self, code: str, n: int) -> None:
        self._counts[code] = n
        self.live.groups.send(instructors_group(code), {"kind": "students", "n": n})

    # The beat --------------------------------------------------------------------------------

    def due(self, deadline: float) -> None:
        """A poll of a room here closes by itself at `deadline`: the beat comes then too."""
        if deadline and (not self._due or deadline < self._due):
            self._due = deadline
            self._wake.set()

    def _loop(self) -> None:
        beat_at = time.monotonic() + self.interval
        while True:
            pause = beat_at - time.monotonic()
            if self._due:  # a timed poll closes before the next beat: come then
                pause = min(pause, self._due - time.time() + 0.05)
            if pause > 0:
                self._wake.wait(pause)
                self._wake.clear()
                continue  # the time, or an earlier deadline (`due`)
            with self._lock:
                if not self._rooms:
                    self._running = False  # the next socket starts it again
                    return
            try:
                self.beat()
            except Exception:  # the beat must outlive any one room's trouble
                self.live.app.logger.exception("live presence beat failed")
            if self._due <= time.time():  # (a beat that failed set none) every beat retries it
                self._due = 0.0
            if time.monotonic() >= beat_at:
                beat_at = time.monotonic() + self.interval

    def beat(self) -> None:
        """Renew this process's seats, recount for its instructors, close the polls whose
        time is up, end the rooms the store lost, and close every socket while the store does
        not answer."""
        with self._lock:
            rooms = {code: dict(members) for code, members in self._rooms.items() if members}
            taken = {code: dict(self._seats.get(code, {})) for code in rooms}
            # Read with the sockets: one that enters after this has `since` >= it, so a gap
            # that ends later is seen by the next beat (epoch != _checked), not skipped.
            epoch = self.live.groups.epoch
        store, groups = self.live.store, self.live.groups
        try:
            if not groups.listening:  # the room's sends do not reach this process
                raise StoreUnavailable("the group layer is not listening")
            for code, seats in taken.items():
                store.seats.renew(code, self.process, seats, self.ttl)
            found = {code: store.get(code) for code in rooms}
            next_due = timer.close_due(self.live, [r for r in found.values() if r is not None])
            # A deadline told (`due`) since the rooms were read stays until it passes.
            ahead = [d for d in (next_due, self._due) if d > time.time()]
            self._due = min(ahead, default=0.0)
            for code, members in rooms.items():
                if found[code] is None:
                    self._end(code, list(members))
                elif None in members.values():
                    n = store.present(code)
                    if n != self._counts.get(code):
                        self._announce(code, n)
        except StoreUnavailable as exc:
            if not self._down:
                self.live.app.logger.warning("live rooms: the store is not answering: %s", exc)
            self._down = True
            for members in rooms.values():
                for ch in members:
                    ch.close(*OUTAGE)
            return
        if self._down:
            self.live.app.logger.warning("live rooms: the store answers again")
        self._down = False
        # Sockets that were open while this process heard nothing missed steps: they reconnect
        # (1013) and get the room's state; those opened since then heard everything. (With
        # the epoch as at the last look, every socket here entered since, or was closed then.)
        if epoch == self._checked:
            return
        for members in rooms.values():
            for ch in members:
                if self._since.get(ch, epoch) < epoch:
                    ch.close(*OUTAGE)
        self._checked = epoch

    def _end(self, code: str, members: list[Channel]) -> None:
        """The store lost room `code`: its pages here say the class ended, then close."""
        app = self.live.app

        def notice(tag: Hashable) -> str | None:
            f = tag if isinstance(tag, Follower) else Follower(code, "en")
            with force_locale(f.lang):
                return render_template("classroom/_gone.html", lang=f.lang, audience=f.audience)

        message = Message(notice, close=ENDED)
        with app.test_request_context("/"):
            for ch in members:
                if not ch.offer(message):
                    ch.abort()


def _seat(ch: Channel) -> str:
    return format(id(ch), "x")  # unique among this process's open sockets
