"""What a class joining costs the room store in Redis: round trips per student.

A class joins at once, and every round trip a join makes holds one of the process's pooled
Redis connections until its greenlet runs again, which on a busy process is a while: joins
that made seven round trips each ran a pool of 32 dry on two busy processes, waited past its
timeout and were told the classroom service was not answering. Counted, not timed: each
command or pipeline is one write to Redis, and one answer waited for (a connection's own
greeting is not counted). The group layer's publisher, which pipelines the instructors' counts
of a burst of joins together, is not on a join's way.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import pytest
import redis
from redis.connection import AbstractConnection

from tests.classroom_client import LiveSocket, join, start_room
from tests.conftest import served_from_a_thread

CLASS = 6
# The room, the student's id, the seat with the room's count, the state (the roster is read
# from the seats: a join writes no line of its own).
PER_JOIN = 4


def _aside() -> bool:
    """Whether this write is the group layer's publisher or a new connection's greeting."""
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if code.co_name == "_publish" and "redis_groups" in code.co_filename:
            return True
        if code.co_name.startswith("on_connect"):  # (redis-py 8: on_connect_check_health)
            return True
        frame = frame.f_back
    return False


def test_a_student_joining_costs_the_store_a_few_round_trips(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.web.factory import create_app

    redis.Redis.from_url(redis_url).flushdb()
    # A presence beat of an hour: the beat's own round trips do not fall in the count.
    app = create_app({"TESTING": True, "REDIS_URL": redis_url, "LIVE_PRESENCE_SECONDS": 3600})
    taken, lock = [0], threading.Lock()
    send = AbstractConnection.send_packed_command

    def counted(self: AbstractConnection, *args: Any, **kwargs: Any) -> Any:
        if not _aside():
            with lock:
                taken[0] += 1
        return send(self, *args, **kwargs)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counted)
    with served_from_a_thread(app) as base:
        code, cookie = start_room(base)
        teacher = LiveSocket(base, code, cookie)
        teacher.opening()
        cookies = [join(base, code) for _ in range(CLASS)]  # their pages: not counted
        before = taken[0]
        students = [LiveSocket(base, code, c) for c in cookies]
        for s in students:
            assert s.receive()[0] == "full"
        teacher.until(f'data-students="{CLASS}"')
        joins = taken[0] - before
        for s in (teacher, *students):
            s.close()
    assert joins <= PER_JOIN * CLASS, f"{joins / CLASS:.1f} round trips per join"
