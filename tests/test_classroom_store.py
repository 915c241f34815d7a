"""Rooms and their store: the same contract for the memory and the Redis implementation.

As with Django Channels' layers, one set of tests runs against both stores: a room is created
once per code, changes are atomic and announced in seq order to the room's group, a changed
vote moves one count (announced to the instructors' group), students present add up, and idle
rooms are forgotten. The Redis store is a real redis-server (started by `make test`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from app.web.classroom import codes
from app.web.classroom import room as rooms
from app.web.classroom.redis_store import RedisStore, connect
from app.web.classroom.store import MemoryStore, instructors_group, room_group
from app.web.groups import MemoryGroups
from app.web.redis_groups import RedisGroups


def nothing(group: str, event: dict[str, Any]) -> None:
    return None


def redis_store(url: str, idle: float) -> RedisStore:
    groups = RedisGroups(connect(url), nothing)
    groups.start()
    return RedisStore(groups, idle=idle)


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "memory":
        yield MemoryStore(MemoryGroups(nothing), idle=60)
        return
    url = request.getfixturevalue("redis_url")
    redis.Redis.from_url(url).flushdb()
    store = redis_store(url, idle=60)
    yield store
    store.close()


class Member:
    """A member of a group that takes everything (what it is sent is recorded by `events`)."""

    tag = None

    def offer(self, message: Any) -> bool:
        return True

    def abort(self) -> None:
        raise AssertionError("a member that reads everything is never dropped")


def room(code: str = "ABCDEF") -> rooms.Room:
    now = time.time()
    return rooms.new_room(code, "pagination", "2025-06-18", "stdio", codes.digest("s"), now)


def events(store: Any, code: str = "ABCDEF") -> list[tuple[str, dict[str, Any]]]:
    """What the room's groups are sent from now on, as (group, event), in order of arrival."""
    got: list[tuple[str, dict[str, Any]]] = []

    def render(group: str, event: dict[str, Any]) -> None:
        got.append((group, event))

    store.groups.render = render
    for group in (room_group(code), instructors_group(code)):
        store.groups.add(group, Member())
    return got


def wait_for(predicate: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.01)


def test_join_codes_avoid_look_alikes_and_forgive_typing() -> None:
    made = {codes.new_code() for _ in range(300)}
    assert all(len(c) == 6 and not set(c) & set("0O1IL") for c in made)
    assert len(made) > 290
    assert codes.normalize(" abc-d 23 ") == "ABCD23"
    assert codes.normalize("ABCD2") is None
    assert codes.normalize("ABCD0O") is None
    assert codes.matches("s", codes.digest("s")) and not codes.matches("t", codes.digest("s"))


def test_a_code_is_created_once(store: Any) -> None:
    assert store.create(room())
    assert not store.create(room())
    got = store.get("ABCDEF")
    assert got is not None and got.code == "ABCDEF" and got.step == 0
    assert store.get("ZZZZZZ") is None


def test_changes_are_published_in_seq_order_with_what_came_before(store: Any) -> None:
    store.create(room())
    got = events(store)
    for step in range(1, 6):
        store.change("ABCDEF", lambda r, s=step: rooms.move(r, time.time(), s))
    wait_for(lambda: len([e for _, e in got if e["kind"] == "room"]) == 5)
    assert {g for g, _ in got} == {room_group("ABCDEF")}
    moves = [e for _, e in got if e["kind"] == "room"]
    seqs = [rooms.Room.from_json(e["room"]).seq for e in moves]
    assert seqs == [1, 2, 3, 4, 5]
    assert [e["before"]["step"] for e in moves] == [0, 1, 2, 3, 4]
    assert store.get("ABCDEF").step == 5


def test_concurrent_changes_lose_nothing(store: Any) -> None:
    store.create(room())

    def bump() -> None:
        for _ in range(20):
            store.change("ABCDEF", lambda r: rooms.move(r, time.time(), r.step + 1))

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    after = store.get("ABCDEF")
    assert (after.step, after.seq) == (80, 80)


def test_one_answer_each_changeable(store: Any) -> None:
    store.create(room())
    got = events(store)
    store.vote("ABCDEF", 1, "ann", 0, 3)
    store.vote("ABCDEF", 1, "bob", 0, 3)
    assert store.vote("ABCDEF", 1, "ann", 2, 3) == [1, 0, 1]
    assert store.vote("ABCDEF", 1, "ann", 2, 3) == [1, 0, 1]
    assert store.counts("ABCDEF", 1, 3) == [1, 0, 1]
    assert store.counts("ABCDEF", 2, 3) == [0, 0, 0]
    wait_for(lambda: len(got) == 4)
    assert got[-1] == (
        instructors_group("ABCDEF"),
        {"kind": "votes", "poll": 1, "counts": [1, 0, 1]},
    )


def test_seats_of_every_process_add_up_and_a_process_that_stops_renewing_drops_out(
    store: Any,
) -> None:
    store.create(room())
    store.seats.sit("ABCDEF", "one", "s1", "f:ann", 60)
    store.seats.sit("ABCDEF", "one", "s2", "b:bob", 60)
    store.seats.sit("ABCDEF", "two", "s1", "f:", 1)
    assert store.present("ABCDEF") == 3
    store.seats.stand("ABCDEF", "one", "s2")
    assert sorted(store.seats.gather("ABCDEF")) == ["f:", "f:ann"]
    store.seats.renew("ABCDEF", "one", {"s1": "b:ann", "s3": "f:cat"}, 60)
    assert sorted(store.seats.gather("ABCDEF")) == ["b:ann", "f:", "f:cat"]
    # Process "two" renews nothing (killed): its seat expires, the others stay.
    if isinstance(store, MemoryStore):
        store.seats.clock = lambda: time.monotonic() + 2
    else:
        wait_for(lambda: store.redis.exists("lab:seats:ABCDEF:two") == 0, timeout=5)
    assert sorted(store.seats.gather("ABCDEF")) == ["b:ann", "f:cat"]
    assert store.present("ABCDEF") == 2


def test_a_room_knows_the_students_it_issued_and_their_nicknames(store: Any) -> None:
    store.create(room())
    store.admit("ABCDEF", "0123456789abcdef")
    store.admit("ABCDEF", "fedcba9876543210", "Mei")
    store.admit("ABCDEF", "fedcba9876543210")  # opening the page again keeps the nickname
    assert store.students("ABCDEF") == {"0123456789abcdef": "", "fedcba9876543210": "Mei"}
    # In the order they came (the roster's "Student n"), past the size at which Redis stops
    # keeping a hash in insertion order.
    came = [format(n, "016x") for n in range(300, 0, -1)]
    for student in came:
        store.admit("CDEFGH", student)
    assert list(store.students("CDEFGH")) == came
    assert store.known("ABCDEF", "0123456789abcdef")
    assert not store.known("ABCDEF", "0000000000000000")
    assert not store.known("BCDEFG", "0123456789abcdef")  # one room's student, not another's
    store.vote("ABCDEF", 1, "fedcba9876543210", 2, 3)
    assert store.voters("ABCDEF", 1) == {"fedcba9876543210": 2}
    assert store.alive(["ABCDEF", "BCDEFG"]) == {"ABCDEF"}


def test_ended_rooms_refuse_moves(store: Any) -> None:
    store.create(room())
    store.change("ABCDEF", lambda r: rooms.end(r, time.time()))
    with pytest.raises(rooms.RoomError):
        store.change("ABCDEF", lambda r: rooms.move(r, time.time(), 1))
    assert store.get("ABCDEF").ended


def test_idle_rooms_expire() -> None:
    now = [0.0]
    memory = MemoryStore(MemoryGroups(nothing), idle=100, clock=lambda: now[0])
    memory.create(rooms.new_room("ABCDEF", "pagination", "2025-06-18", "stdio", "d", 0.0))
    now[0] = 99
    assert memory.get("ABCDEF") is not None
    now[0] = 201
    assert memory.get("ABCDEF") is None


def test_redis_rooms_expire_after_the_idle_time(redis_url: str) -> None:
    store = redis_store(redis_url, idle=1)
    try:
        store.create(room("EXPIRE"))
        assert 0 < store.redis.ttl("lab:room:EXPIRE") <= 1
        wait_for(lambda: store.get("EXPIRE") is None)  # Redis expires it after 1 s
    finally:
        store.close()


def test_polls_open_close_reveal_and_keep_their_counts() -> None:
    r = rooms.open_poll(room(), 1.0, 3, 1)
    assert r.phase() == "open" and r.poll is not None
    assert rooms.Room.from_json(r.to_json()) == r  # its poll too
    with pytest.raises(rooms.RoomError):
        rooms.open_poll(r, 1.0, 3, 1)
    r = rooms.close_poll(r, 2.0, [2, 1, 0])
    assert r.phase() == "closed"
    r = rooms.reveal(r, 3.0, [2, 1, 0])
    assert r.phase() == "revealed" and r.history[-1]["counts"] == [2, 1, 0]
    r = rooms.move(r, 4.0, 1)
    assert r.poll is None and r.phase(0) == "revealed" and r.phase() == "idle"
    assert rooms.Room.from_json(r.to_json()) == r
