"""Benchmark: where the lab's CPU per follower per step goes, against the floor's.

bench/fanout.py says how far the lab's CPU per follower per step is from the floor (a bare
`send()` loop of the lab's frame). This splits the lab's figure, in one lab process serving N
followers of a pagination room, one step a second as fanout.py steps:

- idle: the server's CPU per second with the followers joined and nobody stepping;
- between steps: from the end of one Next to the start of the next, less the idle second
  (reading the instructor's command and waking its handler, after a quiet second);
- the step besides the sends: the instructor's Next from its command, read and parsed, to
  the end of its group sends, less the sends;
- the sends, per member: the lab's group send (`offer_all`) to half the members and a bare
  loop of `send()` over the other half's sockets, the same frame in the same step (which half
  and which goes first alternate), so the two differ only by what the group send does per
  member.

Then the lab all told (its CPU over the stepping seconds, as fanout.py counts it, here with
half of each step sent by the bare loop) and the floor, in its own process as fanout.py runs it.
Medians over the steps of each kind.

Run: `.venv/bin/python bench/fanout_split.py [--followers 1000] [--steps 12]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

import servers
from fanout import bare_run
from loadgen import (
    cpu_seconds_since,
    free_port,
    open_many,
    open_room,
    serving_pids,
    settle,
    thread_cpu,
)

# Put into the lab's worker when it starts (after gevent patched it): each group send of 100
# members or more is timed, half of it replaced by a bare loop over those members' sockets;
# each Next is timed, and so is the time since the previous one ended. Lines go to
# $BENCH_SPLIT.
TIMING = """
def _timed(post_worker_init):
    def install(worker):  # in the worker, once gevent has patched the process
        post_worker_init(worker)
        import os, time
        from app.web import groups
        from app.web.classroom import conversation
        from app.web.outbound import DONTWAIT
        log = open(os.environ["BENCH_SPLIT"], "a", buffering=1)
        offer_all, handle = groups.offer_all, conversation.Conversation.handle
        state = {"big": 0, "sends": 0, "ended": 0, "stepped": 0}
        def bare(members, message):
            frame = message.frame(members[0].tag)
            for member in members:
                member._raw.send(frame, DONTWAIT)
            return []
        def timed_offer_all(members, message):
            if len(members) < 100:
                return offer_all(members, message)
            # Half the members by each, the same frame: which half and which goes first
            # alternate, so neither always meets the colder caches.
            state["big"] += 1
            middle = len(members) // 2  # (halves in the order they joined: every other
            # member instead costs both ways about 1 us more a member, its memory less warm)
            halves = [members[:middle], members[middle:]][:: 1 if state["big"] % 2 else -1]
            sends = [("lab", offer_all), ("bare", bare)][:: 1 if state["big"] % 4 < 2 else -1]
            full = []
            for (kind, send), half in zip(sends, halves):
                began = time.thread_time_ns()
                full += send(half, message)
                spent = time.thread_time_ns() - began
                state["sends"] += spent
                log.write(f"{kind} {spent / len(half)}\\n")
            return full
        def timed_handle(self, *args, **kwargs):
            began = time.thread_time_ns()
            state["sends"] = 0
            try:
                return handle(self, *args, **kwargs)
            finally:
                ended = time.thread_time_ns()
                if state["sends"]:  # a step (not the first: idle seconds come before it)
                    if state["stepped"]:
                        log.write(f"between {began - state['ended']}\\n")
                    log.write(f"rest {ended - began - state['sends']}\\n")
                    state["stepped"] = 1
                state["ended"] = ended
        groups.offer_all = timed_offer_all
        conversation.Conversation.handle = timed_handle
    return install
"""


async def lab_split(n: int, steps: int, log: Path) -> dict[str, list[float]]:
    run = "LabServer(None, settings).run()"
    hooked = 'settings["post_worker_init"] = _timed(settings["post_worker_init"])\n' + run
    servers.LAB = TIMING + servers.LAB.replace(run, hooked)
    os.environ["BENCH_SPLIT"] = str(log)
    # No ping round in the window (fanout.py's window ends long before the first): the idle
    # seconds and the steps here outlast the default 25 s between pings.
    os.environ["LAB_WS_PING_INTERVAL"] = "120"
    port = free_port()
    proc = servers.lab_server(port, 1, None)
    try:
        teacher, path = await open_room(port)
        pids = serving_pids(proc.pid)
        followers = await open_many(n, port, path, keep_first=True)
        await settle(followers, 0)
        await asyncio.sleep(1.0)
        cpu0 = thread_cpu(pids)
        await asyncio.sleep(steps)
        idle = cpu_seconds_since(cpu0, pids) / steps
        cpu0 = thread_cpu(pids)
        for seq in range(1, steps + 1):
            sent = time.perf_counter()
            teacher.send('{"command": "next"}')
            await settle(followers, seq)
            await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - sent)))
        stepping = cpu_seconds_since(cpu0, pids) / steps
        figures: dict[str, list[float]] = {"idle": [idle * 1e9], "step": [stepping * 1e9]}
        for line in log.read_text().splitlines():
            kind, value = line.split()
            figures.setdefault(kind, []).append(float(value))
        figures["payloads"] = followers[0].payloads  # type: ignore[assignment]
        for f in (teacher, *followers):
            f.close()
        return figures
    finally:
        servers.stop(proc)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--followers", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=12)
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    n = args.followers
    with tempfile.TemporaryDirectory() as tmp:
        got = await lab_split(n, args.steps, Path(tmp) / "split.log")
    floor = await bare_run(n, got.pop("payloads"), args.steps, floor=True)  # type: ignore[arg-type]

    def ms(kind: str) -> float:
        return statistics.median(got.get(kind) or [float("nan")]) / 1e6

    def us(kind: str) -> float:
        return statistics.median(got.get(kind) or [float("nan")]) / 1e3

    idle = ms("idle")
    print(f"{n} followers, {args.steps} steps, one a second (medians):")
    print(f"  idle: {idle:.2f} ms of CPU a second")
    print(f"  between steps, less the idle second: {ms('between') - idle:.2f} ms")
    print(f"  the step besides the sends: {ms('rest'):.2f} ms")
    print(
        f"  sends: {us('lab'):.2f} us a member by the group send, {us('bare'):.2f} us by a bare "
        f"loop over the same sockets in the same process ({us('lab') - us('bare'):+.2f} us)"
    )
    print(f"  the lab, all told: {ms('step') * 1e3 / n:.2f} us a follower per step")
    print(f"  the floor, all told: {floor['per_follower_us']:.2f} us a follower per step")


if __name__ == "__main__":
    asyncio.run(main())
