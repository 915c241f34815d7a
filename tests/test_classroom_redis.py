"""Rooms across processes: two gunicorn gevent servers sharing one real Redis.

The serving model of a classroom (gunicorn's gevent worker, one greenlet per socket) is what
these servers run. The instructor drives on one process; students on both follow every step
in order, a vote cast on the other process is counted on the instructor's screen, and a late
joiner on either gets the room's current state.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import redis

from tests.classroom_client import LiveSocket, gevent_server, join, start_room, stop_server
from tests.conftest import free_port


@pytest.fixture
def two_servers(redis_url: str) -> Iterator[tuple[str, str]]:
    redis.Redis.from_url(redis_url).flushdb()
    ports = free_port(), free_port()
    procs = [gevent_server(p, redis_url) for p in ports]
    yield f"http://127.0.0.1:{ports[0]}", f"http://127.0.0.1:{ports[1]}"
    for proc in procs:
        stop_server(proc)


def test_followers_on_two_processes_get_every_step_in_order(two_servers: tuple[str, str]):
    a, b = two_servers
    code, cookie = start_room(a)
    teacher = LiveSocket(a, code, cookie)
    here, there = LiveSocket(a, code), LiveSocket(b, code, join(b, code))
    teacher.until('data-mode="full"')  # (a student's count may come first: it is not a step)
    for s in (here, there):
        assert s.receive()[0] == "full"
    for step in range(1, 8):
        teacher.send("next")
        for s in (here, there):
            assert s.receive()[:2] == ("delta", step)
    late = LiveSocket(b, code)
    mode, seq, message = late.receive()
    assert (mode, seq) == ("full", 7) and "Step 8 of" in message
    assert teacher.until('data-students="3"')
    # A vote on process B reaches the instructor on process A.
    for _ in range(10):
        if 'data-state="idle"' in message and 'class="checkpoint live-poll"' in message:
            break
        teacher.send("next")
        message = there.receive()[2]
        here.receive(), late.receive()
    teacher.send("poll_open")
    there.until('data-state="open"')
    there.send("answer", choice=1)
    found = teacher.until('data-choice="1" data-count="1"')
    assert re.search(r'data-choice="1" data-count="1"', found)
    for s in (teacher, here, there, late):
        s.close()


def test_a_redis_that_is_gone_is_a_clear_page_and_the_lab_keeps_serving():
    from app.web.factory import create_app

    app = create_app({"TESTING": True, "REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"})
    client = app.test_client()
    data = {"scenario": "pagination", "version": "2025-06-18", "transport": "stdio"}
    answer = client.post("/live", data=data)
    assert answer.status_code == 503
    assert "The classroom service is not answering" in answer.get_data(as_text=True)
    answer = client.post("/live", data=data, headers={"Accept-Language": "ru"})
    assert "Служба класса не отвечает" in answer.get_data(as_text=True)
    assert client.get("/live/ABCDEF").status_code == 503
    assert client.get("/").status_code == 200
