"""The heartbeat loop sleeps until a channel is due, not for a fixed tick.

A class that sits still has nothing to ping for most of the ping interval; the loop sleeps
through it, and a channel that comes due sooner than the loop's wake (a socket that joined
late, a short interval) stirs it. The beats themselves are tested in tests/test_web_channel.py.
"""

from __future__ import annotations

import time

import pytest

from app.web.heartbeat import Heartbeat


class Watched:
    """A channel to the heartbeat: due at the times it is given, one after the other."""

    def __init__(self, *dues: float) -> None:
        self.dues = list(dues)
        self.beaten: list[float] = []

    def beat(self, now: float) -> float | None:
        if now >= self.dues[0]:
            self.beaten.append(now)
            if len(self.dues) > 1:
                self.dues.pop(0)
        return self.dues[0]


def idle(interval: float) -> Heartbeat:
    heartbeat = Heartbeat(interval)
    heartbeat._running = True  # the test's clock drives it: no loop of its own
    return heartbeat


def test_the_loop_sleeps_until_the_soonest_channel_is_due_and_a_tick_at_least():
    now = time.monotonic()
    assert idle(25).pause(now) == pytest.approx(25)  # nobody watched: a whole interval

    heartbeat = idle(25)
    later, sooner = Watched(now + 20), Watched(now + 7)
    heartbeat.watch(later)
    assert 19 < heartbeat.pause(now) <= 20
    heartbeat.watch(sooner)
    assert 6 < heartbeat.pause(now) <= 7

    heartbeat.watch(Watched(now + 0.001))  # due at once: a tick, so beats due together go once
    assert heartbeat.pause(now) == pytest.approx(heartbeat.tick) == 1.0


def test_a_channel_due_before_the_loops_wake_stirs_it_and_is_beaten():
    heartbeat = Heartbeat(30)  # ping interval 30 s: the loop would sleep 30 s for the first
    first = Watched(time.monotonic() + 30)
    heartbeat.watch(first)  # starts the loop, which sleeps until the first is due
    deadline = time.monotonic() + 10
    while heartbeat._wake == 0.0 and time.monotonic() < deadline:
        time.sleep(0.01)  # the loop has gone to sleep: its wake is set
    soon = Watched(time.monotonic() + 0.2, time.monotonic() + 300)
    heartbeat.watch(soon)
    while not soon.beaten and time.monotonic() < deadline:
        time.sleep(0.01)
    assert soon.beaten, "the loop slept through a channel that came due"
    assert not first.beaten
