"""A class that joins and votes all at once, on the serving model a classroom runs.

Each join and each vote changes a count on the instructor's screen. Those counts once went
through the instructor's bounded queue one frame per join: sixty students joining within a
moment filled it, the instructor's socket was dropped as a follower that had stopped reading,
and their next step reached nobody. Counts are now a latest value per kind.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.web.channel import Channel, Settings
from app.web.classroom.fanout import Follower
from app.web.classroom.store import instructors_group
from app.web.factory import create_app
from tests.classroom_client import LiveSocket, gevent_server, start_room, stop_server
from tests.conftest import free_port
from tests.rawws import read_text

CLASS = 60


@pytest.fixture(scope="module")
def gevent_lab() -> Iterator[str]:
    port = free_port()
    proc = gevent_server(port)
    yield f"http://127.0.0.1:{port}"
    stop_server(proc)


def test_a_class_joining_at_once_keeps_the_instructor_driving(gevent_lab: str):
    code, cookie = start_room(gevent_lab)
    teacher = LiveSocket(gevent_lab, code, cookie)
    assert teacher.opening()[0] == "full"
    with ThreadPoolExecutor(CLASS) as pool:
        students = list(pool.map(lambda _: LiveSocket(gevent_lab, code), range(CLASS)))
        assert all(m == "full" for m, _, _ in pool.map(lambda s: s.receive(), students))
    assert teacher.until(f'data-students="{CLASS}"')
    for step in (1, 2):
        teacher.send("next")
        with ThreadPoolExecutor(CLASS) as pool:
            got = list(pool.map(lambda s: s.receive()[:2], students))
        assert got == [("delta", step)] * CLASS
    for s in (teacher, *students):
        s.close()


def test_a_burst_of_counts_is_one_pending_frame_with_the_newest_count():
    app = create_app({"TESTING": True})
    live = app.extensions["classroom"]
    ours, theirs = socket.socketpair()
    teacher = Channel(ours, Settings(queue=4))
    teacher.tag = Follower(code="ROOM42", lang="en", audience="instructor")
    group = instructors_group("ROOM42")
    live.groups.add(group, teacher)
    try:
        for n in range(1, 101):
            live.groups.send(group, {"kind": "students", "n": n})
        assert live.groups.members(group) == [teacher]  # not dropped: nothing was queued
        with app.test_request_context("/"):
            assert teacher.receive(timeout=0) is None  # the handler writes what is pending
        theirs.settimeout(5)
        assert 'data-students="100"' in read_text(theirs)
        theirs.setblocking(False)
        with pytest.raises(BlockingIOError):  # and only that
            theirs.recv(1)
    finally:
        teacher.close()
        ours.close()
        theirs.close()
