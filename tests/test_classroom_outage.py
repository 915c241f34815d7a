"""Rooms that survive a Redis blip, and a process that dies: each test runs a redis-server of its
own (stopped and started again, with or without its append-only file), like the one
tests/conftest.py starts, and serves the lab with a presence expiry of seconds, not a minute.

What a page sees is its socket's close: 1013 while the store does not answer (the page retries
with backoff, static/js/classroom-link.js), 1008 "room ended" for a room the store lost.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from app.web.factory import create_app
from tests.classroom_client import LiveSocket, gevent_server, join, start_room, stop_server
from tests.conftest import free_port, served_from_a_thread

OUTAGE = (1013, "store unavailable")
ENDED = (1008, "room ended")


class OwnRedis:
    """A redis-server on a free port that a test stops and starts again (same port, same dir)."""

    def __init__(self, directory: Path, persist: bool) -> None:
        self.port, self.dir, self.persist = free_port(), directory, persist
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        aof = ["--appendonly", "yes", "--appendfsync", "everysec"] if self.persist else []
        self.proc = subprocess.Popen(
            [
                *("redis-server", "--port", str(self.port), "--bind", "127.0.0.1"),
                *("--dir", str(self.dir), "--save", "", "--loglevel", "warning"),
                *(aof or ["--appendonly", "no"]),
            ],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url)
        wait(lambda: _pings(client), "redis-server answers")
        client.close()

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None


def _pings(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False


def wait(predicate: Callable[[], object], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"never: {what}")
        time.sleep(0.1)


@pytest.fixture(params=[True, False], ids=["persistent", "volatile"])
def own_redis(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OwnRedis]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (make redis installs it)")
    server = OwnRedis(tmp_path, persist=request.param)
    server.start()
    yield server
    server.stop()


def _status(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as answer:
        return answer.code, answer.read().decode()


def rejoin(base: str, code: str, cookie: str) -> tuple[LiveSocket, str]:
    """A page's retries: a socket refused with 1013 (or cut) tries again until the store
    answers; the first message of the socket that stays (or the close that ends the room)."""
    for _ in range(600):
        socket = LiveSocket(base, code, cookie)
        try:
            return socket, socket.receive(timeout=2)[2]
        except AssertionError:
            pass
        except Exception:  # closed: refused again, or the room ended
            closed = int(socket.ws.close_reason), str(socket.ws.close_message)
            # A page retries 1013, and a socket cut without a close frame (1005/1006 here).
            if closed != OUTAGE and closed[0] not in (1005, 1006):
                return socket, f"closed {closed}"
        time.sleep(0.2)
    raise AssertionError("the store never came back")


def test_pages_are_told_while_redis_is_down_then_follow_again_or_hear_the_room_ended(
    own_redis: OwnRedis,
):
    app = create_app({"TESTING": True, "REDIS_URL": own_redis.url, "LIVE_PRESENCE_SECONDS": 2})
    with served_from_a_thread(app) as base:
        code, cookie = start_room(base)
        student_cookie = join(base, code)
        teacher = LiveSocket(base, code, cookie)
        student = LiveSocket(base, code, student_cookie)
        teacher.until('data-mode="full"')
        assert student.receive()[0] == "full"
        for step in (1, 2):
            teacher.send("next")
            assert student.receive()[:2] == ("delta", step)

        own_redis.stop()
        # Every open page is told (its socket closes with 1013, which pages retry) ...
        assert teacher.closed() == OUTAGE and student.closed() == OUTAGE
        # ... and so is a page that opens or reloads meanwhile.
        assert LiveSocket(base, code, student_cookie).closed() == OUTAGE
        status, page = _status(f"{base}/live/{code}")
        assert status == 503 and "This page tries again by itself." in page

        own_redis.start()
        teacher, first = rejoin(base, code, cookie)
        if own_redis.persist:  # the room is back where it was, and the class follows it again
            assert "Step 3 of" in first
            student, first = rejoin(base, code, student_cookie)
            assert "Step 3 of" in first
            teacher.send("next")
            assert student.receive()[:2] == ("delta", 3)
            student.close()
            teacher.close()
        else:  # the room is gone: the page says the class ended, a reload says so too
            assert first == f"closed {ENDED}"
            status, page = _status(f"{base}/live/{code}")
            assert status == 404 and f"No room {code} is running" in page
        app.extensions["classroom"].close()


def test_open_pages_of_a_room_the_store_lost_hear_that_the_class_ended(redis_url: str):
    app = create_app({"TESTING": True, "REDIS_URL": redis_url, "LIVE_PRESENCE_SECONDS": 2})
    with served_from_a_thread(app) as base:
        code, cookie = start_room(base)
        teacher = LiveSocket(base, code, cookie)
        student = LiveSocket(base, code, join(base, code))
        teacher.until('data-mode="full"')
        student.receive()
        # What a Redis restarted without persistence holds: nothing.
        redis.Redis.from_url(redis_url).delete(f"lab:room:{code}")
        assert student.closed() == (1000, "room ended")
        assert any("This class has ended" in m for _, _, m in student.seen)
        assert teacher.closed() == (1000, "room ended")
        assert LiveSocket(base, code).closed() == ENDED  # the page's retry: ended, no loop
        app.extensions["classroom"].close()


def _children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(p) for p in text.split()]


@contextlib.contextmanager
def two_processes(redis_url: str, **config: str) -> Iterator[tuple[list[Any], str, str]]:
    """The lab as a school serves it: two gunicorns on one (emptied) Redis, and a room started
    on the first; (the servers, their base URLs), stopped afterwards."""
    redis.Redis.from_url(redis_url).flushdb()
    ports = free_port(), free_port()
    procs = [gevent_server(port, redis_url, **config) for port in ports]
    try:
        yield procs, *(f"http://127.0.0.1:{port}" for port in ports)
    finally:
        for proc in procs:
            stop_server(proc)


def instructor(base: str) -> tuple[str, LiveSocket]:
    """A new room on `base` and its instructor's socket, the room's state received."""
    code, cookie = start_room(base)
    teacher = LiveSocket(base, code, cookie)
    teacher.until('data-mode="full"')
    return code, teacher


def test_followers_of_a_process_killed_with_kill_9_leave_the_count_and_free_the_room(
    redis_url: str,
):
    config = {"LIVE_PRESENCE_SECONDS": "3", "LIVE_CAPACITY": "4"}
    with two_processes(redis_url, **config) as (procs, a, b):
        code, teacher = instructor(a)
        here = LiveSocket(a, code, join(a, code))
        there = [LiveSocket(b, code, join(b, code)) for _ in range(3)]
        for s in (here, *there):
            assert s.receive()[0] == "full"
        teacher.until('data-students="4"')
        assert LiveSocket(a, code).closed() == (1008, "room is full")
        assert _status(f"{a}/live/{code}")[0] == 503  # the page says so; it does not loop

        (worker,) = _children(procs[1].pid)
        subprocess.run(["kill", "-9", str(worker)], check=True)
        # Its three followers expire with its seats; the instructor's count follows.
        teacher.until('data-students="1"', timeout=60)
        late = LiveSocket(a, code, join(a, code))
        assert late.receive()[0] == "full"
        teacher.until('data-students="2"')
        for s in (teacher, here, late):
            s.close()


def time_is_up(redis_url: str, code: str) -> None:
    """Move the deadline of the room's open poll to now, in the store every process reads."""
    key = f"lab:room:{code}"
    with redis.Redis.from_url(redis_url).pipeline() as pipe:
        while True:
            try:
                pipe.watch(key)
                room = json.loads(pipe.get(key))
                assert room["poll"]["phase"] == "open" and room["poll"]["deadline"] > time.time()
                room["poll"]["deadline"] = time.time()
                pipe.multi()
                pipe.set(key, json.dumps(room), keepttl=True)
                pipe.execute()
                return
            except redis.WatchError:  # a process changed the room meanwhile: read it again
                continue


def test_a_timed_poll_closes_when_its_time_is_up_though_the_process_that_opened_it_died(
    redis_url: str,
):
    with two_processes(redis_url, LIVE_PRESENCE_SECONDS="3") as (procs, a, b):
        code, teacher = instructor(a)
        student = LiveSocket(b, code, join(b, code))
        assert student.receive()[0] == "full"
        for _ in range(40):  # to the first question
            teacher.send("next")
            if 'data-state="idle"' in student.receive()[2]:
                break
        teacher.send("poll_open", seconds=30)
        _mode, opened, message = student.receive()
        assert 'data-state="open"' in message
        # The student's page counts down from what the server counted.
        left = re.search(r'id="poll-clock"[^>]* data-left="(\d+)"', message)
        assert left and 0 < int(left.group(1)) <= 30

        # Process A, which opened the poll, dies with its gunicorn (no worker comes back).
        (worker,) = _children(procs[0].pid)
        procs[0].kill()
        subprocess.run(["kill", "-9", str(worker)], check=True)
        procs[0].wait()

        # Its time is up: the deadline in the store is brought to now, as 30 s passing would
        # (waited out, they were the suite's longest test). B's beat, every 3 s, reads the room
        # and closes the poll: one change of the room, no second.
        time_is_up(redis_url, code)
        _mode, seq, message = student.receive(timeout=30)
        assert seq == (opened or 0) + 1 and 'data-state="closed"' in message
        assert student.quiet(timeout=3)
        history = json.loads(redis.Redis.from_url(redis_url).get(f"lab:room:{code}"))["history"]
        assert len(history) == 1
        student.close()
