"""Time for the core comes from an injected clock, so traces are reproducible."""

from __future__ import annotations

from typing import Protocol


class Clock(Protocol):
    def now_ms(self) -> int: ...


class ManualClock:
    """A clock that moves only when told to: the engine's and the tests' clock."""

    def __init__(self, start_ms: int = 0):
        self._now = start_ms

    def now_ms(self) -> int:
        return self._now

    def advance(self, ms: int) -> None:
        if ms < 0:
            raise ValueError("time does not run backwards")
        self._now += ms
