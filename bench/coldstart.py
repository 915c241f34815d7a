"""Cold start: how long after `mcp-lab serve` listens does its first scenario page answer?

Run by hand: `.venv/bin/python bench/coldstart.py [--runs N]`. Each run starts `mcp-lab serve`
on a free 127.0.0.1 port, notes the moment the port accepts a connection (gunicorn's master
listens before its worker has imported the lab) and times `GET /scenario/pagination` from then
to its last byte. Two cases, N runs each, alternating:

- cold: an empty verdict cache (LAB_CACHE_DIR), as on the first start after an install or after
  a change to a scenario or to the engine: the worker validates all the library (every scenario
  under every version and transport) before it serves a page, as every start did before;
- warm: the verdicts the previous start kept, as on every later start.

Prints each run, then the medians, and `--json` one line of them. The goal is a first page
within 2 s of listening when warm. Figures depend on the machine's load: compare the columns of
one run, and say what else was running.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = "/scenario/pagination"
LIMIT = 300.0  # seconds to give up after: a broken start, not a slow one


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def one_start(cache: Path) -> dict[str, float]:
    """Seconds from launch to listening, and from listening to the first page's last byte."""
    port = free_port()
    env = {**os.environ, "LAB_CACHE_DIR": str(cache)}
    launched = time.monotonic()
    server = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while not listening(port):
            if server.poll() is not None or time.monotonic() - launched > LIMIT:
                raise SystemExit(f"mcp-lab serve did not listen (exit {server.returncode})")
            time.sleep(0.01)
        listened = time.monotonic()
        # One request, sent as soon as the port listens; it waits in the backlog for the worker.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{PAGE}", timeout=LIMIT) as answer:
            answer.read()
        answered = time.monotonic()
    finally:
        server.terminate()
        server.wait(timeout=30)
    return {"listen_s": listened - launched, "first_page_s": answered - listened}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="also print one JSON line")
    args = parser.parse_args()
    results: dict[str, list[dict[str, float]]] = {"cold": [], "warm": []}
    with tempfile.TemporaryDirectory(prefix="mcp-lab-coldstart-") as tmp:
        for run in range(args.runs):
            cache = Path(tmp) / f"run{run}"
            for case in ("cold", "warm"):  # the warm start reuses what the cold one kept
                figures = one_start(cache)
                results[case].append(figures)
                print(
                    f"run {run + 1} {case}: listening after {figures['listen_s']:.2f} s, "
                    f"first page {figures['first_page_s']:.2f} s after that",
                    flush=True,
                )
    summary = {
        f"{case}_{key}": round(statistics.median(r[key] for r in runs), 2)
        for case, runs in results.items()
        for key in ("listen_s", "first_page_s")
    }
    load = os.getloadavg()[0]
    print(
        f"median of {args.runs}: first page {summary['cold_first_page_s']:.2f} s after listening "
        f"cold, {summary['warm_first_page_s']:.2f} s warm (goal: 2 s); load average {load:.1f} "
        f"on {os.cpu_count()} cores"
    )
    if args.json:
        print(json.dumps({**summary, "runs": args.runs, "load1": round(load, 2)}))


if __name__ == "__main__":
    main()
