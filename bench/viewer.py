"""Benchmark: what the browser viewer costs, each figure beside a baseline from the same run.

1. First-load weight: the viewer page and every asset it loads (bytes raw and gzip-compressed),
   beside the weight of htmx and its websocket extension alone (the floor of any htmx viewer).
2. Round trip: time from sending "next" over the websocket to receiving that step's fragment,
   p50 and p99 over 500 steps, beside the same round trip through a bare flask-sock echo served
   by the same gunicorn configuration with a message of the same size.
3. Engine plus render per step: running the trace and rendering each step's fragments with the
   cache cold, beside rendering a one-line template (the floor of a Jinja render).
Run: `.venv/bin/python bench/viewer.py` (or `make bench`).
"""

from __future__ import annotations

import gzip
import json
import re
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.request import urlopen

from simple_websocket import Client

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.web.factory import create_app  # noqa: E402
from app.web.pages import step_html  # noqa: E402
from app.web.render import open_viewer  # noqa: E402

SCENARIO = "pagination"
STEPS = 500

ECHO = """
from flask import Flask
from flask_sock import Sock
from app.web.server import LabServer, options
app = Flask("echo")
sock = Sock(app)
REPLY = "x" * {size}
@sock.route("/echo")
def echo(ws):
    while True:
        ws.receive()
        ws.send(REPLY)
LabServer(app, options("127.0.0.1", {port}) | {{"accesslog": None}}).run()
"""
LAB = """
from app.web.factory import create_app
from app.web.server import LabServer, options
LabServer(create_app(), options("127.0.0.1", {port}) | {{"accesslog": None}}).run()
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(code: str, port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"server on port {port} did not start")


def weight(base: str, path: str) -> tuple[int, int, int, int]:
    page = urlopen(base + path).read()
    assets = re.findall(rb'(?:src|href)="(/static/[^"]+)"', page)
    bodies = [page] + [urlopen(base + a.decode()).read() for a in assets]
    floor = [
        urlopen(base + f"/static/vendor/{n}").read() for n in ("htmx.min.js", "htmx-ext-ws.min.js")
    ]
    size = lambda parts: (sum(map(len, parts)), sum(len(gzip.compress(p, 9)) for p in parts))  # noqa: E731
    return size(bodies) + size(floor)


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return ordered[len(ordered) // 2] * 1000, ordered[int(len(ordered) * 0.99) - 1] * 1000


def round_trips(url: str, last: int, questions: set[int]) -> tuple[list[float], int]:
    ws = Client.connect(url)
    for _ in range(3):  # the opening: step, timeline and session fragments
        ws.receive(timeout=5)
    samples, step, size = [], 0, 0
    closed: set[int] = set()  # questions stay answered for the connection
    while len(samples) < STEPS:
        if step == last:
            ws.send(json.dumps({"command": "goto", "step": 0}))
            for _ in range(3):
                ws.receive(timeout=5)
            step = 0
        if step in questions - closed:  # close the checkpoint (feedback, timeline), untimed
            closed.add(step)
            ws.send(json.dumps({"command": "reveal"}))
            ws.receive(timeout=5), ws.receive(timeout=5)
        began = time.perf_counter()
        ws.send(json.dumps({"command": "next"}))
        fragment = ws.receive(timeout=5)
        samples.append(time.perf_counter() - began)
        if 'id="counter"' not in fragment:  # a refusal is not a step: never mix them in
            raise RuntimeError(f"step {step + 1} was refused: {fragment[:200]}")
        ws.receive(timeout=5), ws.receive(timeout=5)  # the timeline and session that follow
        size = max(size, len(fragment))
        step += 1
    ws.close()
    return samples, size


def echo_trips(url: str) -> list[float]:
    ws = Client.connect(url)
    samples = []
    for _ in range(STEPS):
        began = time.perf_counter()
        ws.send(json.dumps({"command": "next"}))
        ws.receive(timeout=5)
        samples.append(time.perf_counter() - began)
    ws.close()
    return samples


def render_costs() -> tuple[float, float, float]:
    app = create_app()
    lab = app.extensions["lab"]
    scenario = lab.scenario(SCENARIO)
    with app.test_request_context("/"):
        began = time.perf_counter()
        trace = lab.trace(SCENARIO, scenario.versions[-1], scenario.transports[-1])
        engine = (time.perf_counter() - began) / len(trace)
        v = open_viewer(
            scenario, {"version": scenario.versions[-1], "transport": scenario.transports[-1]}, "en"
        )
        began = time.perf_counter()
        for i in range(len(trace)):
            v.step = i
            step_html(lab, v)
        render = (time.perf_counter() - began) / len(trace)
        template = app.jinja_env.from_string("<p id=x>{{ n }}</p>")
        began = time.perf_counter()
        for i in range(1000):
            template.render(n=i)
        floor = (time.perf_counter() - began) / 1000
    return engine, render, floor


def main() -> None:
    lab_port, echo_port = free_port(), free_port()
    lab = create_app().extensions["lab"]
    scenario = lab.scenario(SCENARIO)
    # Measure the trace the socket really opens: name its version and transport in the URL
    # (without them the socket opened the default version while the step count and the
    # question positions came from the oldest one, so some samples were refused commands).
    version = getattr(scenario, "default_version", scenario.versions[-1])
    transport = scenario.transports[0]
    trace = lab.trace(SCENARIO, version, transport)
    questions = {s["index"] for s in trace if s.get("checkpoint")}
    lab_proc = start(LAB.format(port=lab_port), lab_port)
    try:
        base = f"http://127.0.0.1:{lab_port}"
        raw, packed, floor_raw, floor_packed = weight(base, f"/scenario/{SCENARIO}")
        samples, size = round_trips(
            f"ws://127.0.0.1:{lab_port}/ws/scenario/{SCENARIO}?version={version}"
            f"&transport={transport}",
            len(trace) - 1,
            questions,
        )
    finally:
        lab_proc.terminate()
        lab_proc.wait()
    echo_proc = start(ECHO.format(port=echo_port, size=size), echo_port)
    try:
        echo = echo_trips(f"ws://127.0.0.1:{echo_port}/echo")
    finally:
        echo_proc.terminate()
        echo_proc.wait()
    engine, render, floor = render_costs()
    p50, p99 = percentiles(samples)
    e50, e99 = percentiles(echo)
    print(
        f"first load of /scenario/{SCENARIO}: {raw / 1024:.1f} KiB, {packed / 1024:.1f} KiB gzip"
        f"   | baseline htmx + ws ext: {floor_raw / 1024:.1f} KiB, "
        f"{floor_packed / 1024:.1f} KiB gzip"
    )
    print(
        f"'next' -> fragment ({STEPS} steps, up to {size / 1024:.1f} KiB): p50 {p50:.2f} ms, "
        f"p99 {p99:.2f} ms   | baseline flask-sock echo: p50 {e50:.2f} ms, p99 {e99:.2f} ms"
    )
    print(
        f"per step: engine {engine * 1e3:.3f} ms + render {render * 1e3:.2f} ms (cold cache)"
        f"   | baseline one-line template: {floor * 1e3:.4f} ms;"
        f" mean round trip {statistics.mean(samples) * 1e3:.2f} ms"
    )


if __name__ == "__main__":
    main()
