"""The pieces behind a class in front of a projector (issue 18), without a browser: a poll's
timer, student-paced rooms and bringing everyone back, class results from the votes as cast,
the roster from the room's live seats, and an instructor's history."""

from __future__ import annotations

import threading
import time

from flask import Flask

from app.web.classroom import history, results, roster, seats, timer
from app.web.classroom import room as rooms
from app.web.classroom.ledger import MemoryLedger
from app.web.classroom.store import MemoryStore
from app.web.groups import MemoryGroups


def a_room() -> rooms.Room:
    return rooms.new_room("ABC234", "pagination", "2025-11-25", "stdio", "digest", 0.0)


def test_a_timer_closes_its_own_poll_when_due_and_nothing_else():
    room = rooms.open_poll(a_room(), 100.0, 4, 0, seconds=30)
    assert room.poll is not None and room.poll.deadline == 130.0
    assert rooms.time_up(room, 129.0, room.poll.id) is room  # not yet
    assert rooms.time_up(room, 130.0, room.poll.id + 1) is room  # another poll
    closed = rooms.time_up(room, 130.0, room.poll.id, [1, 2, 0, 0])
    assert closed.phase() == "closed" and closed.history[-1]["counts"] == [1, 2, 0, 0]
    # Closed by hand and reopened without a timer: the old timer must not close it.
    again = rooms.open_poll(rooms.close_poll(room, 110.0), 111.0, 4, 0)
    assert rooms.time_up(again, 200.0, room.poll.id).phase() == "open"
    assert timer.left(130.0, now=100.4) == 30 and timer.left(0.0) == 0
    for bad in ("7", -1, True, None, "x"):
        try:
            timer.seconds(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} accepted as a timer")


def test_a_poll_whose_time_is_up_closes_once_whichever_processes_try(app: Flask):
    live = app.extensions["classroom"]
    with app.test_request_context("/"):
        room, _ = live.create("pagination", "2025-11-25", "stdio")
        start = time.time()
        _, room = live.store.change(room.code, lambda r: rooms.open_poll(r, start, 4, 0, 30))
        # Before its time, a beat closes nothing and says when to come back.
        assert timer.close_due(live, [room], now=start + 29) == start + 30
        assert live.get(room.code).phase() == "open"
        # At its time, the beats of several processes try at once, each with the room as it
        # read it: the store's compare-and-set lets one close it.
        beats = [
            threading.Thread(target=timer.close_due, args=(live, [room], start + 30))
            for _ in range(4)
        ]
        for beat in beats:
            beat.start()
        for beat in beats:
            beat.join(10)
        closed = live.get(room.code)
        assert closed.phase() == "closed" and closed.seq == room.seq + 1
        assert [h["poll"] for h in closed.history] == [room.poll.id]
        assert timer.close_due(live, [closed], now=start + 31) == 0.0  # nothing left to close


def test_a_deadline_the_beat_could_not_act_on_does_not_make_it_spin(app: Flask):
    presence = app.extensions["classroom"].presence
    presence._rooms["ABC234"] = {object(): None}  # a room with a socket here: the beat runs
    beats = []

    def failing() -> None:  # the store does not answer
        beats.append(1)
        raise RuntimeError("the store is away")

    presence.beat = failing  # type: ignore[method-assign]
    app.logger.disabled = True
    presence.due(time.time() - 1)  # a poll's time is up, and stays unclosed
    threading.Thread(target=presence._loop, daemon=True).start()
    time.sleep(1)
    presence._rooms.clear()  # (the loop ends at its next beat)
    # One beat at the deadline; the next at the beat's own interval (10 s), not at once again.
    assert len(beats) < 5


def test_the_beat_comes_at_a_polls_deadline_not_at_its_own_interval(app: Flask):
    """A timed poll closes at its deadline, not up to a beat's interval later: the beat is told
    the deadline (`due`, as opening the poll does) and comes then. (The outage test across
    processes moves a deadline to now instead of waiting for it.)"""
    presence = app.extensions["classroom"].presence
    assert presence.interval >= 5
    presence._rooms["ABC234"] = {object(): None}  # a room with a socket here: the beat runs
    came = threading.Event()
    presence.beat = came.set  # type: ignore[method-assign]
    threading.Thread(target=presence._loop, daemon=True).start()
    try:
        presence.due(time.time() + 0.3)
        assert came.wait(presence.interval - 1)
    finally:
        presence._rooms.clear()  # (the loop ends at its next beat)


def test_a_paced_room_comes_back_to_following_at_the_step_the_instructor_picks():
    room = rooms.pace(a_room(), 1.0, True)
    assert room.paced and room.seq == 1
    assert rooms.pace(room, 2.0, True) is room  # no change, no broadcast
    back = rooms.gather(room, 3.0, 5)
    assert (back.paced, back.step, back.gathered) == (False, 5, 1)
    assert rooms.Room.from_json(back.to_json()) == back


def test_results_count_first_answers_and_name_the_most_chosen_wrong_one():
    votes = [results.vote_item(v, c) for v, c in (("a", 0), ("b", 1), ("a", 1), ("c", 1))]
    first, last = results.answers([*votes, "garbage", "\tx"])
    assert first == {"a": 0, "b": 1, "c": 1} and last == {"a": 1, "b": 1, "c": 1}
    figures = results.summarize([0, 3, 0, 0], 0, first)
    assert figures == {"counts": [0, 3, 0, 0], "right": 0, "rightShare": 0.3333, "topWrong": 1}
    assert results.summarize([2, 0, 0], 0, {"a": 0, "b": 0})["topWrong"] is None
    assert results.summarize([0, 0, 0], 0, {})["rightShare"] is None


def test_the_roster_names_students_by_nickname_or_number_and_knows_who_left():
    store = MemoryStore(MemoryGroups(lambda group, event: None))
    room = rooms.new_room("ABCDEF", "pagination", "2025-06-18", "stdio", "d", 0.0)
    store.create(room)
    ann, second, third = "a" * 16, "b" * 16, "c" * 16
    store.admit(room.code, ann, "Ann")
    store.admit(room.code, second)
    store.admit(room.code, third)
    store.seats.sit(room.code, "p1", "s1", seats.Seat(ann, True).value(), 30)
    store.seats.sit(room.code, "p1", "s2", seats.Seat(second, False, 3).value(), 30)
    store.seats.sit(room.code, "p1", "s3", seats.Seat(third, True).value(), 30)
    store.seats.stand(room.code, "p1", "s3")  # the third closed their page
    roll = roster.students(store, room)
    assert [(s.nick, s.number, s.state, s.step) for s in roll] == [
        ("Ann", 1, roster.FOLLOWING, None),
        ("", 2, roster.LOOKING_BACK, 3),
        ("", 3, roster.LEFT, None),
    ]
    assert not any(s.who in (ann, second, third) for s in roll)  # pages never see the id
    assert roster.spread(roll, 5, 8) == [0, 0, 0, 1, 0, 1, 0, 0]


def test_a_history_keeps_the_rooms_an_instructor_ran_with_their_results():
    ledger = MemoryLedger()
    history.started(ledger, "owner", {"code": "AAA222", "scenario": "pagination"})
    history.started(ledger, "owner", {"code": "BBB333", "scenario": "cache"})
    history.ended(ledger, "owner", "AAA222", [{"step": 7, "rightShare": 0.5}])
    newest, oldest = history.rooms(ledger, "owner")
    assert newest["code"] == "BBB333" and not newest["results"]
    assert oldest["results"] == [{"step": 7, "rightShare": 0.5}] and oldest["ended"]
    assert history.rooms(ledger, "someone else") == []


def test_the_ledger_in_redis_is_shared_trimmed_expires_and_says_when_redis_is_away(
    redis_url: str,
):
    import pytest
    import redis

    from app.web.classroom.ledger import RedisLedger, open_ledger
    from app.web.classroom.store import StoreUnavailable
    from tests.conftest import free_port

    client = redis.Redis.from_url(redis_url)
    client.delete("lab:log:test:votes")
    one, other = RedisLedger(client), RedisLedger(redis.Redis.from_url(redis_url))
    for n in range(5):
        one.append("test:votes", f"v{n}\t{n % 2}", keep=3, ttl=60)
    assert other.read("test:votes") == ["v2\t0", "v3\t1", "v4\t0"]  # another process's view
    assert 0 < client.ttl("lab:log:test:votes") <= 60
    history.started(other, "owner", {"code": "CCC444", "scenario": "cache"})
    assert [r["code"] for r in history.rooms(one, "owner")] == ["CCC444"]
    away = RedisLedger(redis.Redis(port=free_port(), socket_connect_timeout=0.5))
    with pytest.raises(StoreUnavailable):
        away.append("x", "y", 1, 1)
    with pytest.raises(StoreUnavailable):
        away.read("x")
    assert isinstance(open_ledger(object()), MemoryLedger)
