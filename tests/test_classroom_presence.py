"""The presence beat (app.web.classroom.presence) without sockets: the seats it writes are the
ones the room's sockets hold as they come, look back and go, and the sockets that were open
while the group layer heard nothing are closed, once, so they come back to the room's state."""

from __future__ import annotations

from flask import Flask

from app.web.classroom.seats import Seat


class Socket:
    """What the beat needs of a channel: something to close."""

    def __init__(self) -> None:
        self.closed: list[int | None] = []

    def close(self, code: int | None = None, reason: str = "") -> None:
        self.closed.append(code)


def test_the_beat_writes_the_seats_sockets_hold_and_closes_those_that_missed_sends(app: Flask):
    live = app.extensions["classroom"]
    presence = live.presence
    with app.test_request_context("/"):
        room, _ = live.create("pagination", "2025-11-25", "stdio")
    code = room.code
    a, b, c, d, teacher = Socket(), Socket(), Socket(), Socket(), Socket()
    try:
        for ch, student in ((a, "s1"), (b, "s2"), (c, "s3")):
            presence.enter(code, ch, "student", student)
        presence.enter(code, teacher, "instructor", None)
        presence.follow(code, b, attached=False, step=2)  # looks back at step 2
        presence.leave(code, c)
        live.store.seats.forget(code)  # (as if they expired) the beat writes them again
        presence.beat()
        values = [Seat("s1", True).value(), Seat("s2", False, 2).value()]
        assert sorted(live.store.seats.gather(code)) == sorted(values)
        assert a.closed == b.closed == teacher.closed == []

        live.groups.epoch += 1  # the group layer heard again after a gap: sends were missed
        presence.enter(code, d, "student", "s4")  # opened since: it heard everything
        presence.beat()
        assert a.closed == b.closed == teacher.closed == [1013] and d.closed == []
        presence.beat()  # no gap since: nobody is closed again
        assert a.closed == [1013] and d.closed == []
    finally:
        for ch in (a, b, d, teacher):
            presence.leave(code, ch)
