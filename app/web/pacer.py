"""Autoplay pacing, kept apart from the engine (SimPy's real-time environment, in spirit).

The engine computes a whole trace at once; the pacer only decides when a viewer sees the next
step. It tells the socket loop how long to wait for a command (`timeout`) and the loop advances
one step each time that wait ends with no command. It never sleeps or reads a clock itself, so
tests drive it with a fake socket whose `receive` returns None to mean "the wait ran out".
"""

from __future__ import annotations

from dataclasses import dataclass

SPEEDS = (0.5, 1.0, 2.0, 4.0)


@dataclass
class Pacer:
    """Play/pause and speed of one viewer; `interval_ms` is the pause between steps at 1x."""

    interval_ms: int = 1600
    playing: bool = False
    speed: float = 1.0

    def play(self) -> None:
        self.playing = True

    def pause(self) -> None:
        self.playing = False

    def set_speed(self, speed: float) -> bool:
        """Change the speed; False (and no change) when it is not one of SPEEDS."""
        if speed not in SPEEDS:
            return False
        self.speed = speed
        return True

    def timeout(self) -> float | None:
        """Seconds to wait for a command before the next automatic step; None waits forever."""
        return self.interval_ms / 1000 / self.speed if self.playing else None
