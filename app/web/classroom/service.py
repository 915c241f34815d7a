"""The live classroom of one app: its store, its fan-out, and the HTML of a room's own parts.

`Classroom` lives in `app.extensions["classroom"]`. It opens the store the configuration asks for
(memory, or Redis with LAB_REDIS_URL) lazily, so a server that forks workers opens one Redis
connection and one relay per process after the fork, and it turns rooms into what pages show:
cursors, regions, the bar above the step, the instructor's controls, and whole-state frames
for a page that joins, reconnects or asks again.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any

from flask import Flask, render_template, request, url_for
from flask_babel import force_locale
from markupsafe import Markup

from app.engine.step import Checkpoint
from app.web.classroom import codes, frames, results, timer
from app.web.classroom import ledger as ledgers
from app.web.classroom import room as rooms
from app.web.classroom.backends import open_backends
from app.web.classroom.fanout import Follower, Relay
from app.web.classroom.payload import Payloads
from app.web.classroom.presence import Presence
from app.web.classroom.render import Cursor, change, regions
from app.web.classroom.room import Room
from app.web.classroom.store import RoomStore
from app.web.classroom.warmup import AUDIENCES, Warmup
from app.web.draw import Target
from app.web.groups import Groups
from app.web.lab import Lab


class Classroom:
    def __init__(self, app: Flask) -> None:
        self.app = app
        self.config = app.config
        self._store: RoomStore | None = None
        self._ledger: ledgers.Ledger | None = None
        self._groups: Groups | None = None
        self._lock = threading.Lock()
        self._relay: Relay | None = None
        self.warmup = Warmup(app, self)
        self._fulls: OrderedDict[tuple[str, int, str], bytes] = OrderedDict()
        self.presence = Presence(self, float(self.config.get("LIVE_PRESENCE_SECONDS", 30)))

    @property
    def lab(self) -> Lab:
        lab: Lab = self.app.extensions["lab"]
        return lab

    @property
    def store(self) -> RoomStore:
        if self._store is None:
            with self._lock:
                if self._store is None:
                    relay = self._relay = Relay(self.app, self)
                    store, self._groups = open_backends(self.config, relay.render, self.app.logger)
                    self._store = store
        return self._store

    @property
    def payloads(self) -> Payloads:
        """The relay's frames' text per room event and kind of follower (payload.py)."""
        self.store  # noqa: B018 (opens the store and its relay)
        assert self._relay is not None
        return self._relay.payloads

    @property
    def ledger(self) -> ledgers.Ledger:
        """The room's side records (votes as cast, history) beside the store."""
        if self._ledger is None:
            self._ledger = ledgers.open_ledger(self.store)
        return self._ledger

    def cast(self, room: Room, poll: int, voter: str | None, choice: int) -> None:
        """Keep a vote as it was cast (the store counts only each student's last answer), so
        the class results know each student's first answer."""
        if voter:
            item = results.vote_item(voter, choice)
            log = results.votes_log(room.code, poll)
            self.ledger.append(log, item, results.VOTES_KEPT, self.store.idle)

    @property
    def groups(self) -> Groups:
        """Followers of rooms, by group (store.room_group, store.instructors_group)."""
        self.store  # noqa: B018 (opens the store and its group layer)
        assert self._groups is not None
        return self._groups

    @property
    def capacity(self) -> int:
        return int(self.config.get("LIVE_CAPACITY", 5000))

    def close(self) -> None:
        if self._store is not None:
            self._store.close()

    # Rooms ----------------------------------------------------------------------------------

    def create(self, sid: str, version: str, transport: str) -> tuple[Room, str]:
        """A new room on this scenario and its instructor's secret (returned once)."""
        token = codes.new_token()
        while True:
            room = rooms.new_room(
                codes.new_code(), sid, version, transport, codes.digest(token), time.time()
            )
            if self.store.create(room):
                return room, token

    def get(self, code: str | None) -> Room | None:
        return self.store.get(code) if code else None

    def checkpoint(self, room: Room, step: int | None = None) -> Checkpoint | None:
        trace = self.lab.trace(room.scenario, room.version, room.transport)
        index = room.step if step is None else step
        return trace[min(index, len(trace) - 1)].get("checkpoint") or None

    def poll_counts(self, room: Room) -> list[int] | None:
        poll = room.poll
        if poll is None or poll.step != room.step:
            return None
        return self.store.counts(room.code, poll.id, poll.choices)

    def warm(self, room: Room, lang: str, audiences: tuple[str, ...] = AUDIENCES) -> None:
        """Draw the room's lesson in `lang` for `audiences` ahead of the class, in the
        background (warmup.py)."""
        self.warmup.start(room, lang, audiences)

    # What pages show ------------------------------------------------------------------------

    def cursor(self, room: Room, lang: str, audience: str, step: int | None = None) -> Cursor:
        at = room.step if step is None else step
        phase = room.phase(at)
        if room.paced and audience == "student" and phase in ("idle", "closed"):
            phase = "self"  # each answers on their own, as in a lesson
        return Cursor(room.scenario, room.version, room.transport, at, lang, phase, audience)

    def poll_id(self, room: Room, step: int) -> int:
        """The id of the room's poll if it is on `step`, else 0."""
        return room.poll.id if room.poll is not None and room.poll.step == step else 0

    def regions(
        self, room: Room, c: Cursor, counts: list[int] | None = None, target: Target = "page"
    ) -> dict[str, Markup]:
        return regions(self.lab, c, counts, self.poll_id(room, c.step), target)

    def change_html(
        self, room: Room, before: dict[str, Any], lang: str, audience: str, shape: str = ""
    ) -> str:
        """What a page that showed the room as `before` says (the store's event) needs to show
        it now: the regions and parts whose keys changed (app.web.classroom.render.change), of
        the overview's `shape` picture when the page said which it displays."""
        phase = before["phase"]
        if before.get("paced") and audience == "student" and phase in ("idle", "closed"):
            phase = "self"  # as `cursor` had it then
        was = Cursor(
            room.scenario,
            before["version"],
            before["transport"],
            before["step"],
            lang,
            phase,
            audience,
        )
        after = (self.cursor(room, lang, audience), self.poll_id(room, room.step))
        counts = self.poll_counts(room) if audience == "instructor" else None
        return change(self.lab, (was, before["poll"]), after, counts, shape)

    def _render(self, template: str, lang: str, **context: Any) -> str:
        with force_locale(lang):
            return render_template(template, lang=lang, **context)

    def bar_html(self, room: Room, lang: str, attached: bool) -> str:
        total = len(self.lab.trace(room.scenario, room.version, room.transport))
        paced, gathered = room.paced, room.gathered
        key = ("live", "bar", room.scenario, room.version, lang, attached, room.step, total)
        return self.lab.cached(
            (*key, paced, gathered),
            lambda: self._render(
                "classroom/_bar.html",
                lang,
                attached=attached,
                room_step=room.step,
                total=total,
                paced=paced,
                gathered=gathered,
            ),
        )

    def controls_html(self, room: Room, lang: str) -> str:
        poll = room.poll if room.poll is not None and room.poll.step == room.step else None
        checkpoint, phase = self.checkpoint(room), room.phase()
        left = timer.left(poll.deadline) if poll is not None else 0
        # All the controls read of the room: the step only when it is student-paced, so most
        # steps of a lesson reuse one drawing (it went with every step to every instructor).
        key = ("live", "controls", room.code, lang, phase, room.paced, checkpoint is not None)
        return self.lab.cached(
            (*key, room.step if room.paced else -1, left),
            lambda: self._render(
                "classroom/_controls.html",
                lang,
                room=room,
                checkpoint=checkpoint,
                phase=phase,
                left=left,
                timer_choices=timer.CHOICES,
            ),
        )

    def clock_html(self, room: Room, lang: str) -> str:
        """A student's countdown of the room's timed poll (hidden when no timer runs)."""
        return self._render(
            "classroom/_clock.html", lang, left=timer.running(room), say_at=timer.SAY_AT
        )

    def clock_frame(self, room: Room, lang: str) -> bytes:
        return frames.text_frame(frames.marker(None, "local") + self.clock_html(room, lang))

    def students_html(self, n: int, lang: str) -> str:
        return self._render("classroom/_students.html", lang, students=n)

    def students_frame(self, n: int, lang: str) -> bytes:
        return frames.text_frame(frames.marker(None, "local") + self.students_html(n, lang))

    def counts_frame(self, code: str, poll: int, counts: list[int], lang: str) -> bytes:
        html = self._render("classroom/_counts.html", lang, poll_id=poll, counts=counts)
        return frames.text_frame(frames.marker(None, "local") + html)

    def ended_html(self, room: Room, lang: str, audience: str = "student") -> str:
        """The room ended: the instructor's screens show the class results, each student
        their own summary (fetched with their cookie) and the lesson to go on alone."""
        return frames.marker(room.seq, "full") + self._render(
            "classroom/_ended.html", lang, room=room, audience=audience
        )

    def full_html(self, room: Room, f: Follower) -> str:
        """Everything a page needs to show the room now (or, detached, the bar only)."""
        mark = frames.marker(room.seq, "full", room.step)
        if f.audience == "student" and not f.attached:
            return mark + self.bar_html(room, f.lang, attached=False)
        counts = self.poll_counts(room) if f.audience == "instructor" else None
        c = self.cursor(room, f.lang, f.audience)
        body = "".join(self.regions(room, c, counts, "room").values())
        if f.audience == "instructor":
            return mark + body + self.controls_html(room, f.lang)
        return mark + body + self.bar_html(room, f.lang, attached=True)

    def full_frame(self, room: Room, f: Follower) -> bytes:
        """`full_html` as a frame; a following student's is built once per room state and
        language, so a class that joins at once shares one frame instead of one each."""
        if f.audience != "student" or not f.attached:
            return frames.text_frame(self.full_html(room, f))
        key = (room.code, room.seq, f.lang)
        frame = self._fulls.get(key)
        if frame is None:
            frame = frames.text_frame(self.full_html(room, f))
            with self._lock:
                self._fulls[key] = frame
                while len(self._fulls) > 64:
                    self._fulls.popitem(last=False)
        return frame

    def local_html(self, room: Room, f: Follower) -> str:
        """A detached student's own step, with the bar saying where the class is."""
        c = self.cursor(room, f.lang, "student", f.step)
        body = "".join(self.regions(room, c, target="room").values())
        return frames.marker(None, "local") + body + self.bar_html(room, f.lang, attached=False)

    def public_url(self, endpoint: str, **values: Any) -> str:
        """An address for students' devices: under LAB_PUBLIC_URL when set, else this request's."""
        base = str(self.config.get("PUBLIC_URL") or "").rstrip("/")
        if base:
            return base + url_for(endpoint, **values)
        return url_for(endpoint, _external=True, **values)

    def join_url(self, room: Room) -> str:
        return self.public_url("classroom.student", code=room.code)

    def unreachable(self) -> bool:
        """True when the join address names this machine's loopback, which no phone can open."""
        if self.config.get("PUBLIC_URL"):
            return False
        host = request.host.rsplit(":", 1)[0] if not request.host.startswith("[") else "::1"
        return host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")

    def qr(self, room: Room, lang: str) -> str:
        with force_locale(lang):
            from flask_babel import gettext

            title = gettext("QR code: join room %(code)s", code=room.code)
        return codes.qr_svg(self.join_url(room), title)
