"""Benchmark: one instructor's step fanned out to many followers, beside a bare peer.

The lab runs as it serves a classroom (gunicorn, gevent worker); the peer is a bare
`websockets` server that broadcasts the very same fragments (captured from the lab in the same
run) with `websockets.broadcast`, which frames each message per connection. The load generator
is not a browser: it opens N raw websocket connections (no permessage-deflate), counts frames,
reads each frame's seq marker and timestamps it. Each run steps R times (one step per second);
lab and peer runs alternate, and the figures are medians over the paired runs:

- server CPU per follower per step (utime+stime of the serving process), and its ratio to the peer;
- fan-out latency p50/p99 from "next" sent to the frame of that seq arriving, per follower;
- idle memory per follower (RSS growth while N followers sit idle), and growth after the steps;
- one follower that stops reading: the others' p99 with it, against without;
- 10 % of followers dropped and rejoined mid-lesson: every follower must end on the room's last
  seq with no step lost or out of order (rejoined ones restart from their "full" frame);
- two processes sharing Redis against one process (p99 ratio).

Run: `.venv/bin/python bench/fanout.py [--followers 1000,5000] [--steps 8] [--pairs 3]`.
Needs redis-server for the two-process figure. Load stays on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARK = re.compile(rb'data-mode="(\w+)"(?: data-seq="(\d+)")?')
PEER = r"""
import asyncio, sys, websockets
from websockets.asyncio.server import broadcast, serve
clients = set()
async def handler(ws):
    if ws.request.path == "/control":
        async for message in ws:   # the payload to broadcast, as the lab sent it
            broadcast(clients, message)
        return
    clients.add(ws)
    try:
        await ws.wait_closed()
    finally:
        clients.discard(ws)
async def main():
    async with serve(handler, "127.0.0.1", int(sys.argv[1]), compression=None,
                     max_queue=None, write_limit=2 ** 16, ping_interval=None):
        await asyncio.Future()
asyncio.run(main())
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int) -> None:
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


def lab_server(port: int, workers: int, redis_url: str | None) -> subprocess.Popen[bytes]:
    env = os.environ | ({"LAB_REDIS_URL": redis_url} if redis_url else {})
    args = [sys.executable, "-m", "gunicorn", "-k", "gevent", "-w", str(workers)]
    args += [
        "--worker-connections",
        "20000",
        "-b",
        f"127.0.0.1:{port}",
        "--log-level",
        os.environ.get("BENCH_LOG", "error"),
    ]
    proc = subprocess.Popen([*args, "app.web.factory:create_app()"], cwd=ROOT, env=env)
    wait_port(port)
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def peer_server(port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-c", PEER, str(port)], cwd=ROOT)
    wait_port(port)
    return proc


def serving_pids(proc: subprocess.Popen[bytes]) -> list[int]:
    """The processes that serve sockets: gunicorn's workers, or the peer itself."""
    try:
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
    except OSError:
        children = []
    return [int(c) for c in children] or [proc.pid]


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def rss_kib(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


def start_room(port: int) -> tuple[str, str]:
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    data = b"scenario=pagination&version=2025-06-18&transport=http"
    try:
        urllib.request.build_opener(NoRedirect).open(
            urllib.request.Request(f"http://127.0.0.1:{port}/live", data=data)
        )
    except urllib.error.HTTPError as answer:
        cookie = next(c for c in answer.headers.get_all("Set-Cookie") if "mcp-lab-teach-" in c)
        return answer.headers["Location"].split("/")[2], cookie.split(";")[0]
    raise RuntimeError("POST /live did not redirect")


def client_frame(text: str) -> bytes:
    """A masked client text frame (mask key 0: the payload goes as is)."""
    data = text.encode()
    n = len(data)
    head = bytes((0x81, 0x80 | n)) if n < 126 else bytes((0x81, 0xFE)) + n.to_bytes(2, "big")
    return head + b"\0\0\0\0" + data


class Follower:
    """One raw websocket connection that counts frames and timestamps each seq."""

    def __init__(self) -> None:
        self.arrived: dict[int, float] = {}
        self.order: list[tuple[str, int | None]] = []
        self.frames = 0
        self.payloads: list[bytes] = []
        self.keep = False
        self.writer: asyncio.StreamWriter | None = None
        self.task: asyncio.Task[None] | None = None

    async def open(self, port: int, path: str, cookie: str = "") -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        extra = f"Cookie: {cookie}\r\n" if cookie else ""
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\n{extra}\r\n".encode()
        )
        await reader.readuntil(b"\r\n\r\n")
        self.writer = writer
        self.task = asyncio.ensure_future(self.read(reader))

    async def read(self, reader: asyncio.StreamReader) -> None:
        try:
            while True:
                head = await reader.readexactly(2)
                n = head[1] & 0x7F
                if n == 126:
                    n = int.from_bytes(await reader.readexactly(2), "big")
                elif n == 127:
                    n = int.from_bytes(await reader.readexactly(8), "big")
                payload = await reader.readexactly(n)
                now = time.perf_counter()
                self.frames += 1
                if head[0] & 0x0F != 1:
                    continue
                match = MARK.search(payload, 0, 200)
                if match and match.group(2) is not None:
                    seq = int(match.group(2))
                    self.arrived.setdefault(seq, now)
                    self.order.append((match.group(1).decode(), seq))
                    if self.keep:
                        self.payloads.append(payload)
        except (asyncio.IncompleteReadError, ConnectionError):
            return

    def send(self, text: str) -> None:
        assert self.writer is not None
        self.writer.write(client_frame(text))

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if self.task is not None:
            self.task.cancel()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


async def open_many(n: int, port: int, path: str, keep_first: bool = False) -> list[Follower]:
    followers = [Follower() for _ in range(n)]
    followers[0].keep = keep_first
    for i in range(0, n, 200):  # in batches: the accept queue is finite
        await asyncio.gather(*(f.open(port, path) for f in followers[i : i + 200]))
    return followers


async def settle(followers: list[Follower], seq: int, timeout: float = 20) -> None:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if all(seq in f.arrived for f in followers):
            return
        await asyncio.sleep(0.02)


def in_order(f: Follower, last: int) -> bool:
    """Every seq after the follower's last "full" frame arrived once, in order, to `last`."""
    seqs = [s for _, s in f.order]
    fulls = [i for i, (mode, _) in enumerate(f.order) if mode == "full"]
    tail = seqs[fulls[-1] :] if fulls else seqs
    deduped = [s for i, s in enumerate(tail) if i == 0 or s > tail[i - 1]]
    return bool(deduped) and deduped[-1] == last and deduped == list(range(deduped[0], last + 1))


async def lab_run(
    n: int, steps: int, workers: int, redis_url: str | None, slow: bool, churn: bool
) -> dict[str, float]:
    port = free_port()
    proc = lab_server(port, workers, redis_url)
    try:
        code, cookie = start_room(port)
        path = f"/live/{code}/ws"
        teacher = Follower()
        await teacher.open(port, path, cookie)
        await asyncio.sleep(0.5)
        pids = serving_pids(proc)
        rss0 = rss_kib(pids)
        followers = await open_many(n, port, path, keep_first=True)
        await settle(followers, 0)
        await asyncio.sleep(1.0)
        rss1 = rss_kib(pids)
        stuck = None
        if slow:
            stuck = socket.socket()
            stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            stuck.connect(("127.0.0.1", port))
            stuck.sendall(
                f"GET {path} HTTP/1.1\r\nHost: x\r\nOrigin: http://127.0.0.1:{port}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
                "dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
            )
        cpu0 = cpu_seconds(pids)
        sent: dict[int, float] = {}
        rejoined: list[Follower] = []
        for seq in range(1, steps + 1):
            if churn and seq == steps // 2:
                gone = followers[1 : 1 + n // 10]
                for f in gone:
                    f.close()
                followers = [followers[0], *followers[1 + n // 10 :]]
                rejoined = await open_many(len(gone), port, path)
                followers += rejoined
            sent[seq] = time.perf_counter()
            teacher.send('{"command": "next"}')
            await settle(followers, seq)
            await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - sent[seq])))
        cpu1 = cpu_seconds(pids)
        rss2 = rss_kib(pids)
        lat = [f.arrived[s] - t for f in followers for s, t in sent.items() if s in f.arrived]
        ok = sum(in_order(f, steps) for f in followers)
        result = {
            "per_follower_us": (cpu1 - cpu0) / (n * steps) * 1e6,
            "p50_ms": percentile(lat, 0.5) * 1e3,
            "p99_ms": percentile(lat, 0.99) * 1e3,
            "idle_kib": (rss1 - rss0) / n,
            "growth_kib": (rss2 - rss1) / n,
            "in_order": ok,
            "followers": len(followers),
            "bytes_per_step": statistics.mean([len(p) for p in followers[0].payloads[1:]] or [0]),
            "frames": statistics.mean(f.frames for f in followers),
        }
        result["payloads"] = followers[0].payloads  # type: ignore[assignment]
        for f in (teacher, *followers):
            f.close()
        if stuck is not None:
            stuck.close()
        return result
    finally:
        stop(proc)


async def peer_run(n: int, payloads: list[bytes], steps: int) -> dict[str, float]:
    port = free_port()
    proc = peer_server(port)
    try:
        control = Follower()
        await control.open(port, "/control")
        pids = serving_pids(proc)
        rss0 = rss_kib(pids)
        followers = await open_many(n, port, "/follow")
        await asyncio.sleep(1.0)
        rss1 = rss_kib(pids)
        cpu0 = cpu_seconds(pids)
        sent = {}
        deltas = {int(m.group(2)): p for p in payloads if (m := MARK.search(p, 0, 200))}
        steps = min(steps, max(deltas))
        for seq in range(1, steps + 1):
            sent[seq] = time.perf_counter()
            control.send(deltas[seq].decode())
            await settle(followers, seq)
            await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - sent[seq])))
        cpu1 = cpu_seconds(pids)
        lat = [f.arrived[s] - t for f in followers for s, t in sent.items() if s in f.arrived]
        for f in (control, *followers):
            f.close()
        return {
            "per_follower_us": (cpu1 - cpu0) / (n * steps) * 1e6,
            "p50_ms": percentile(lat, 0.5) * 1e3,
            "p99_ms": percentile(lat, 0.99) * 1e3,
            "idle_kib": (rss1 - rss0) / n,
        }
    finally:
        stop(proc)


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
    summary: dict[str, float] = {}
    for n in [int(x) for x in args.followers.split(",")]:
        labs, peers = [], []
        for _ in range(args.pairs):
            lab = await lab_run(n, args.steps, 1, None, slow=False, churn=False)
            labs.append(lab)
            peers.append(await peer_run(n, lab["payloads"], args.steps))  # type: ignore[arg-type]
        lab_us, peer_us = median(labs, "per_follower_us"), median(peers, "per_follower_us")
        print(
            f"{n} followers, {args.steps} steps x {args.pairs} pairs: CPU/follower/step "
            f"{lab_us:.1f} us vs peer {peer_us:.1f} us (ratio {lab_us / peer_us:.2f}); "
            f"p50 {median(labs, 'p50_ms'):.0f} ms / p99 {median(labs, 'p99_ms'):.0f} ms vs peer "
            f"{median(peers, 'p50_ms'):.0f} / {median(peers, 'p99_ms'):.0f} ms; idle "
            f"{median(labs, 'idle_kib'):.1f} KiB/follower (peer {median(peers, 'idle_kib'):.1f}),"
            f" after steps +{median(labs, 'growth_kib'):.1f} KiB; "
            f"{median(labs, 'bytes_per_step') / 1024:.1f} KiB per step frame"
        )
        summary = {
            "followers": n,
            "per": lab_us,
            "peer": peer_us,
            "p99": median(labs, "p99_ms"),
            "peer_p99": median(peers, "p99_ms"),
            "idle": median(labs, "idle_kib"),
        }
    n = int(summary["followers"])
    slow = await lab_run(n, args.steps, 1, None, slow=True, churn=False)
    print(
        f"one follower stops reading: others' p99 {slow['p99_ms']:.0f} ms vs "
        f"{summary['p99']:.0f} ms ({slow['p99_ms'] / summary['p99']:.2f}x)"
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
        f"idle_kib={summary['idle']:.1f} in_order={churn['in_order']}/{churn['followers']}"
    )


if __name__ == "__main__":
    asyncio.run(main())
