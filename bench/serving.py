"""The serving model under many open sockets: gunicorn gevent (ours) against gthread (before).

Run by hand: `.venv/bin/python bench/serving.py [--sockets N] [--flood M]`. For each model it
starts the lab as a subprocess on a free 127.0.0.1 port (the same LabServer, only the worker
changes), then:

- opens N idle viewer websockets and reads each one's first fragment;
- memory per idle socket: the worker's resident memory after, minus before, over N;
- page latency: median and 95th percentile of 20 loads of a viewer page while the N stay open;
- sockets held: tries M more handshakes (2 s each) and counts how many answer 101;
- slow-loris: with 300 connections holding half a request head, the time a page takes.

It prints one table, gevent beside gthread, with the ratio. Figures vary with the machine's load:
compare the two columns of one run, not runs with each other.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.rawws import abort, read_text, upgrade  # noqa: E402

MODELS = {
    "gevent": {},
    "gthread": {"worker_class": "gthread", "threads": 256, "worker_connections": 1024},
}
LAUNCH = """
import sys
from app.web.server import LabServer, options
extra = {extra!r}
LabServer(None, options("127.0.0.1", {port}) | extra | {{"accesslog": None}}).run()
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def worker_pid(master: int) -> int:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return int(children[0])


def page_seconds(url: str, timeout: float = 30) -> float:
    started = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            response.read()
    except OSError:
        return float("inf")
    return time.monotonic() - started


def start(model: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    code = LAUNCH.format(extra=MODELS[model], port=port)
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=os.environ | {"LAB_WS_PING_INTERVAL": "600"},
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if page_seconds(base + "/", timeout=30) != float("inf"):
            return process, base
        time.sleep(0.3)
    process.kill()
    raise SystemExit(f"{model}: the server did not start")


def measure(model: str, sockets: int, flood: int) -> dict[str, float]:
    process, base = start(model)
    held: list[socket.socket] = []
    try:
        page = base + "/scenario/pagination"
        page_seconds(page)  # warm the caches
        pid = worker_pid(process.pid)
        before = rss_kib(pid)
        for _ in range(sockets):
            s, status = upgrade(base, "/ws/scenario/pagination", timeout=10)
            if status != 101:
                break
            read_text(s)
            held.append(s)
        opened = len(held)
        time.sleep(1)
        per_socket = (rss_kib(pid) - before) / max(opened, 1)
        times = sorted(page_seconds(page, timeout=10) for _ in range(20))
        more = 0
        for _ in range(flood):
            try:
                s, status = upgrade(base, "/ws/scenario/pagination", timeout=2)
                held.append(s)
                read_text(s)
                more += status == 101
            except OSError:
                break  # no answer in 2 s: the server is full
        for s in held:
            abort(s)
        held.clear()
        time.sleep(1)
        host, port = base.removeprefix("http://").split(":")
        lorises = []
        for _ in range(300):
            s = socket.create_connection((host, int(port)))
            s.sendall(b"GET / HTTP/1.1\r\nHost: lab\r\nX-Slow: ")
            lorises.append(s)
        loris_page = page_seconds(page, timeout=10)
        for s in lorises:
            s.close()
        return {
            "idle sockets opened": opened,
            "memory per idle socket (KiB)": per_socket,
            "page latency median (ms)": statistics.median(times) * 1000,
            "page latency p95 (ms)": times[int(len(times) * 0.95) - 1] * 1000,
            f"extra sockets answered (of {flood})": more,
            "page behind 300 half heads (ms, inf = none in 10 s)": loris_page * 1000,
        }
    finally:
        for s in held:
            abort(s)
        process.terminate()
        process.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=250)
    parser.add_argument("--flood", type=int, default=300)
    args = parser.parse_args()
    results = {model: measure(model, args.sockets, args.flood) for model in MODELS}
    print(f"{'':<52} {'gevent':>10} {'gthread':>10} {'ratio':>8}")
    for key in results["gevent"]:
        ours, old = results["gevent"][key], results["gthread"][key]
        ratio = ours / old if old not in (0, float("inf")) else float("nan")
        print(f"{key:<52} {ours:>10.1f} {old:>10.1f} {ratio:>8.2f}")


if __name__ == "__main__":
    main()
