"""Benchmark: one instructor's step fanned out to many followers, beside a bare peer and a floor.

The lab runs as it serves a classroom (gunicorn, gevent worker). Beside it, in the same run,
with the very same fragments (captured from the lab's own follower):

- the peer: a bare `websockets` server that broadcasts them with `websockets.broadcast`;
- the floor: a plain Python loop of `socket.send()` of the lab's frame, encoded once, to the
  same number of connected sockets: what writing the bytes costs with no server around it.

The load generator (bench/loadgen.py) opens N raw websocket connections, counts frames and
timestamps each seq. Each run steps R times (one step per second); lab, peer and floor runs
alternate, and the figures are medians over the paired runs:

- server CPU per follower per step, and its ratio to the peer's and to the floor's: the CPU
  time of the serving process's threads (schedstat, in nanoseconds: /proc's clock ticks are
  10 ms, a whole step of 1,000 followers) from just before the first step to the end of the
  last step's second, divided by followers x steps. The same window for all three servers:
  it holds the seconds between steps (heartbeats, idle sockets) and not the joins before it
  (nor, for the lab, the drawing of the lesson's steps it does while a class joins);
- fan-out latency p50/p99 from "next" sent to the frame of that seq arriving, per follower;
- idle memory per follower (RSS growth while N followers sit idle), and growth after the steps;
- one follower that stops reading (its handshake accepted, then it never reads): the others'
  p99 with it, against without, and when it was dropped;
- 10 % of followers dropped and rejoined mid-lesson: every follower must end on the room's last
  seq with no step lost or out of order (rejoined ones restart from their "full" frame);
- two processes sharing Redis against one process (p99 ratio);
- the size of a follower's step frame over the shipped scenarios (p50 and max).

Run: `.venv/bin/python bench/fanout.py [--followers 1000,5000] [--steps 8] [--pairs 3]`.
Needs redis-server for the two-process figure. Load stays on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from loadgen import (
    MARK,
    Follower,
    cpu_seconds_since,
    free_port,
    hung_up,
    in_order,
    open_many,
    open_room,
    percentile,
    rss_kib,
    serving_pids,
    settle,
    stuck_reader,
    thread_cpu,
    wait_port,
)
from servers import FLOOR, PEER, lab_server, script, stop

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.web.wsframe import text_frame  # noqa: E402


def mark(event: str) -> None:
    print(f"  {time.strftime('%H:%M:%S')} {event}", file=sys.stderr, flush=True)


async def lab_run(
    n: int, steps: int, workers: int, redis_url: str | None, slow: bool, churn: bool
) -> dict[str, float]:
    port = free_port()
    proc = lab_server(port, workers, redis_url)
    try:
        teacher, path = await open_room(port)
        pids = serving_pids(proc.pid)
        rss0 = rss_kib(pids)
        followers = await open_many(n, port, path, keep_first=True)
        await settle(followers, 0)
        await asyncio.sleep(1.0)
        rss1 = rss_kib(pids)
        stuck = stuck_reader(port, path) if slow else None
        opened = time.perf_counter()
        mark(f"{n} followers joined; steps begin")  # (the lab's collections print between)
        cpu0 = thread_cpu(pids)
        sent: dict[int, float] = {}
        for seq in range(1, steps + 1):
            if churn and seq == steps // 2:
                gone = followers[1 : 1 + n // 10]
                for f in gone:
                    f.close()
                followers = [
                    followers[0],
                    *followers[1 + n // 10 :],
                    *await open_many(len(gone), port, path),
                ]
            sent[seq] = time.perf_counter()
            teacher.send('{"command": "next"}')
            await settle(followers, seq)
            await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - sent[seq])))
        used = cpu_seconds_since(cpu0, pids)
        mark("steps end")
        rss2 = rss_kib(pids)
        dropped_after = float("nan")
        if stuck is not None:  # the send deadline (LAB_WS_SEND_TIMEOUT) or a full queue
            waited = time.perf_counter()
            while not hung_up(stuck) and time.perf_counter() - waited < 60:
                await asyncio.sleep(0.1)
            if hung_up(stuck):
                dropped_after = time.perf_counter() - opened
        lat = [f.arrived[s] - t for f in followers for s, t in sent.items() if s in f.arrived]
        result = {
            "per_follower_us": used / (n * steps) * 1e6,
            "p50_ms": percentile(lat, 0.5) * 1e3,
            "p99_ms": percentile(lat, 0.99) * 1e3,
            "idle_kib": (rss1 - rss0) / n,
            "growth_kib": (rss2 - rss1) / n,
            "in_order": sum(in_order(f, steps) for f in followers),
            "followers": len(followers),
            "bytes_per_step": statistics.mean([len(p) for p in followers[0].payloads[1:]] or [0]),
            "dropped_after_s": dropped_after,
        }
        result["payloads"] = followers[0].payloads  # type: ignore[assignment]
        for f in (teacher, *followers):
            f.close()
        if stuck is not None:
            stuck.close()
        return result
    finally:
        stop(proc)


async def bare_run(n: int, payloads: list[bytes], steps: int, floor: bool) -> dict[str, float]:
    """The peer (websockets' broadcast) or the floor (a bare send() loop), same frames."""
    port = free_port()
    proc = script(FLOOR if floor else PEER, port)
    try:
        control = Follower()
        await control.open(port, "/control")
        pids = serving_pids(proc.pid)
        rss0 = rss_kib(pids)
        followers = await open_many(n, port, "/follow")
        await asyncio.sleep(1.0)
        rss1 = rss_kib(pids)
        cpu0 = thread_cpu(pids)
        sent = {}
        deltas = {int(m.group(2)): p for p in payloads if (m := MARK.search(p, 0, 200))}
        steps = min(steps, max(deltas))
        for seq in range(1, steps + 1):
            sent[seq] = time.perf_counter()
            if floor:
                frame = text_frame(deltas[seq].decode())  # the lab's own encoding
                control.send_raw(len(frame).to_bytes(4, "big") + frame)
            else:
                control.send(deltas[seq].decode())
            await settle(followers, seq)
            await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - sent[seq])))
        used = cpu_seconds_since(cpu0, pids)
        lat = [f.arrived[s] - t for f in followers for s, t in sent.items() if s in f.arrived]
        for f in (control, *followers):
            f.close()
        return {
            "per_follower_us": used / (n * steps) * 1e6,
            "p50_ms": percentile(lat, 0.5) * 1e3,
            "p99_ms": percentile(lat, 0.99) * 1e3,
            "idle_kib": (rss1 - rss0) / n,
        }
    finally:
        stop(proc)


def frame_figures() -> dict[str, float]:
    """The median and largest step frame a following student gets, in KiB, over every shipped
    scenario, version and transport (app.web.classroom.sizes when the app has it)."""
    from app.web.factory import create_app

    app = create_app({"TESTING": True})
    try:
        from app.web.classroom.sizes import figures  # type: ignore[import-not-found]
    except ImportError:
        sizes = sorted(step_frames(app))
        return {"frame_p50_kib": statistics.median(sizes) / 1024, "frame_max_kib": sizes[-1] / 1024}
    return dict(figures(app))


def step_frames(app: Any) -> list[int]:
    """The size of every step frame a following student gets (the instructor pressing Next
    from the first step to the last), in bytes, in English, as the relay builds it."""
    from app.web.classroom import room as rooms
    from app.web.classroom.payload import Payloads, seat
    from app.web.classroom.store import room_event

    live, lab = app.extensions["classroom"], app.extensions["lab"]
    payloads, sizes = Payloads(live), []
    with app.test_request_context("/"):
        for sid, scenario in sorted(lab.library.scenarios.items()):
            for version in scenario.versions:
                for transport in scenario.transports:
                    room = rooms.new_room("BENCH1", sid, version, transport, "d", 0.0)
                    follower = seat(room.code, "en", "student", True)
                    for step in range(1, len(lab.trace(sid, version, transport))):
                        after = rooms.move(room, 0.0, step)
                        before = room_event(room, after)["before"]
                        sizes.append(len(text_frame(payloads.step(after, before, follower))))
                        room = after
    return sizes


def median(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--followers", default="1000,5000")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sizes = frame_figures()
    p50_kib, max_kib = sizes["frame_p50_kib"], sizes["frame_max_kib"]
    print(f"step frames over the shipped scenarios: p50 {p50_kib:.1f} KiB, max {max_kib:.1f} KiB")
    summary: dict[str, float] = {}
    for n in [int(x) for x in args.followers.split(",")]:
        labs, peers, floors = [], [], []
        for _ in range(args.pairs):
            lab = await lab_run(n, args.steps, 1, None, slow=False, churn=False)
            labs.append(lab)
            payloads: list[bytes] = lab["payloads"]  # type: ignore[assignment]
            peers.append(await bare_run(n, payloads, args.steps, floor=False))
            floors.append(await bare_run(n, payloads, args.steps, floor=True))
        lab_us, peer_us = median(labs, "per_follower_us"), median(peers, "per_follower_us")
        floor_us = median(floors, "per_follower_us")
        print(
            f"{n} followers, {args.steps} steps x {args.pairs} pairs: CPU/follower/step "
            f"{lab_us:.1f} us vs peer {peer_us:.1f} us (ratio {lab_us / peer_us:.2f}) vs floor "
            f"{floor_us:.1f} us (ratio {lab_us / floor_us:.2f}); p50 {median(labs, 'p50_ms'):.0f}"
            f" ms / p99 {median(labs, 'p99_ms'):.0f} ms vs peer {median(peers, 'p50_ms'):.0f} / "
            f"{median(peers, 'p99_ms'):.0f} ms vs floor {median(floors, 'p50_ms'):.0f} / "
            f"{median(floors, 'p99_ms'):.0f} ms; idle {median(labs, 'idle_kib'):.1f} KiB/follower"
            f" (peer {median(peers, 'idle_kib'):.1f}), after steps "
            f"+{median(labs, 'growth_kib'):.1f} KiB; "
            f"{median(labs, 'bytes_per_step') / 1024:.1f} KiB per step frame (pagination)"
        )
        summary = {
            "followers": n,
            "per": lab_us,
            "peer": peer_us,
            "floor": floor_us,
            "p99": median(labs, "p99_ms"),
            "peer_p99": median(peers, "p99_ms"),
            "idle": median(labs, "idle_kib"),
        }
    n = int(summary["followers"])
    slow = await lab_run(n, args.steps, 1, None, slow=True, churn=False)
    dropped = slow["dropped_after_s"]
    print(
        f"one follower stops reading (its handshake accepted): others' p99 "
        f"{slow['p99_ms']:.0f} ms vs {summary['p99']:.0f} ms "
        f"({slow['p99_ms'] / summary['p99']:.2f}x); "
        + (
            f"it was dropped {dropped:.1f} s after it connected"
            if not math.isnan(dropped)
            else "it was NOT dropped within a minute"
        )
    )
    churn = await lab_run(n, args.steps, 1, None, slow=False, churn=True)
    print(
        f"10% dropped and rejoined mid-lesson: {churn['in_order']}/{churn['followers']} "
        "followers end on the last step with every step once and in order"
    )
    redis_line = "two processes with Redis: skipped (no redis-server)"
    if shutil.which("redis-server"):
        rport = free_port()
        server = subprocess.Popen(
            ["redis-server", "--port", str(rport), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        try:
            wait_port(rport)
            url = f"redis://127.0.0.1:{rport}/0"
            two = await lab_run(n, args.steps, 2, url, slow=False, churn=False)
            one = await lab_run(n, args.steps, 1, url, slow=False, churn=False)
            redis_line = (
                f"two processes with Redis vs one (Redis too): p99 {two['p99_ms']:.0f} ms vs "
                f"{one['p99_ms']:.0f} ms ({two['p99_ms'] / one['p99_ms']:.2f}x), CPU/follower/step "
                f"{two['per_follower_us']:.1f} vs {one['per_follower_us']:.1f} us"
            )
        finally:
            server.terminate()
            server.wait()
    print(redis_line)
    print(
        f"followers={n} per_follower_us={summary['per']:.1f} "
        f"peer_per_follower_us={summary['peer']:.1f} ratio={summary['per'] / summary['peer']:.2f} "
        f"p99_ms={summary['p99']:.0f} peer_p99_ms={summary['peer_p99']:.0f} "
        f"idle_kib={summary['idle']:.1f} in_order={churn['in_order']}/{churn['followers']} "
        f"frame_p50_kib={p50_kib:.1f} frame_max_kib={max_kib:.1f} "
        f"floor_us={summary['floor']:.1f} floor_ratio={summary['per'] / summary['floor']:.2f}"
    )


if __name__ == "__main__":
    asyncio.run(main())
