"""The group layer: the same contract for one process (memory) and many (Redis).

As Django Channels tests its layers, one set of tests runs against both: a group send reaches
every member of the group, in every process, in the order sent, and no one else; a discarded
member gets nothing more; each kind of member gets its own payload, rendered once per kind.
The Redis layer is tested as two processes would use it: two layers on one real Redis, each
holding its own members.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterator
from typing import Any

import pytest
import redis

from app.web.channel import Message
from app.web.groups import Groups, MemoryGroups
from app.web.redis_groups import RedisGroups


class Member:
    def __init__(self, tag: Hashable = "en") -> None:
        self.tag = tag
        self.got: list[str] = []

    def offer(self, message: Message) -> bool:
        frame = message.frame(self.tag)
        if frame is not None:
            self.got.append(frame[2:].decode())  # a short text frame: two bytes of header
        return True

    def abort(self) -> None:
        raise AssertionError("a member that takes everything is never dropped")


class Renders:
    """A render function that counts how often each (event, tag) is rendered."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, Hashable]] = []

    def __call__(self, group: str, event: dict[str, Any]) -> Message:
        def render(tag: Hashable) -> str:
            self.calls.append((event["n"], tag))
            return f"{event['n']}:{tag}"

        return Message(render)


def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.01)


@pytest.fixture(params=["memory", "redis"])
def layers(request: pytest.FixtureRequest) -> Iterator[tuple[Groups, Groups, Renders]]:
    """Two processes' group layers (the same one, for memory) and their render counter."""
    renders = Renders()
    if request.param == "memory":
        memory = MemoryGroups(renders)
        yield memory, memory, renders
        return
    url = request.getfixturevalue("redis_url")
    redis.Redis.from_url(url).flushdb()
    made = [RedisGroups(redis.Redis.from_url(url), renders) for _ in range(2)]
    for groups in made:
        groups.start()
    yield made[0], made[1], renders
    for groups in made:
        groups.close()
        groups.redis.close()


def test_a_group_send_reaches_every_member_in_every_process_in_order(layers):
    here, there, _ = layers
    ours = [Member() for _ in range(3)]
    theirs = [Member() for _ in range(3)]
    outsider = Member()
    for m in ours:
        here.add("room:A", m)
    for m in theirs:
        there.add("room:A", m)
    there.add("room:B", outsider)
    for n in range(1, 21):
        here.send("room:A", {"n": n})
    expected = [f"{n}:en" for n in range(1, 21)]
    wait_for(lambda: all(m.got == expected for m in ours + theirs))
    time.sleep(0.1)  # nothing for another group's member, even later
    assert outsider.got == []


def test_a_discarded_member_gets_nothing_more(layers):
    here, there, _ = layers
    stays, leaves = Member(), Member()
    there.add("room:A", stays)
    there.add("room:A", leaves)
    here.send("room:A", {"n": 1})
    wait_for(lambda: stays.got == leaves.got == ["1:en"])
    there.discard("room:A", leaves)
    here.send("room:A", {"n": 2})
    wait_for(lambda: stays.got == ["1:en", "2:en"])
    assert leaves.got == ["1:en"] and there.members("room:A") == [stays]


def test_each_kind_of_member_gets_its_payload_rendered_once_per_process(layers):
    here, there, renders = layers
    members = [Member(tag) for tag in ("en", "zh", "en", "en", "zh")]
    for m in members:
        there.add("room:A", m)
    here.send("room:A", {"n": 7})
    wait_for(lambda: all(m.got == [f"7:{m.tag}"] for m in members))
    assert sorted(renders.calls) == [(7, "en"), (7, "zh")]


def test_sends_waiting_for_a_slow_redis_are_bounded() -> None:
    """While the publisher waits on a Redis that stalls, a class's counts do not pile up."""
    import threading

    import app.web.redis_groups as redis_groups

    stalled = threading.Event()

    class Stalled:
        def pipeline(self, transaction: bool = False) -> Any:
            stalled.wait(10)  # the publisher is held, as by a Redis that does not answer
            raise redis.ConnectionError("stalled")

    groups = redis_groups.RedisGroups(Stalled(), lambda group, event: None)  # type: ignore[arg-type]
    try:
        # The publisher takes what is queued once (at most OUTBOX), then is held: of three
        # outboxes' worth, at least one is dropped whenever it took its share.
        for n in range(3 * redis_groups.OUTBOX):
            groups.send("instructors:ABC", {"kind": "students", "n": n})
        assert len(groups._outbox) == redis_groups.OUTBOX
        assert groups.dropped_sends >= redis_groups.OUTBOX
    finally:
        stalled.set()
