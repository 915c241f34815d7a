"""A host that polls: every `client.pollSeconds` of the lab's clock it asks each connected
client for its tools, as a host does for servers it cannot trust to send list_changed.

The clock only moves in `advance_clock`, so polling lives there: a jump is cut at every
multiple of the period, and at each cut the host asks every ready client through the same path
as `list_tools` (a fresh cache answers without a message, unless the client has no cache). A
run that never waits never polls, which is what a real timer would do too.
"""

from __future__ import annotations

from collections.abc import Callable

from app.mcp import lifecycle

from .stage import Stage


def _ready(phase: lifecycle.ClientPhase) -> bool:
    return lifecycle.allows(lifecycle.CLIENT_TRANSITIONS, phase, lifecycle.LIST_TOOLS)


def period_ms(run: Stage) -> int:
    seconds = run.scenario.data.get("client", {}).get("pollSeconds", 0)
    return int(seconds) * 1000


def advance(
    run: Stage,
    ms: int,
    jump: Callable[[int], None],
    ask: Callable[[str], None],
) -> None:
    """Move the clock by `ms` through `jump` (one clock step per call), polling on the way."""
    period = period_ms(run)
    end = run.world.clock.now_ms() + ms
    if period:
        tick = (run.world.clock.now_ms() // period + 1) * period
        while tick <= end:
            jump(tick - run.world.clock.now_ms())
            for sid, client in run.world.clients.items():
                if _ready(client.phase):
                    run.emit(
                        "internal",
                        "host",
                        f"client:{sid}",
                        phrase="host.poll",
                        params={"server": sid, "seconds": period // 1000},
                    )
                    ask(sid)
            tick += period
    if run.world.clock.now_ms() < end:
        jump(end - run.world.clock.now_ms())
