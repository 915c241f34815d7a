"""The servers bench/fanout.py runs side by side, each a process of its own on 127.0.0.1:

- the lab as it serves a classroom: gunicorn, one gevent worker (or more, with Redis);
- the peer: a bare `websockets` server that broadcasts each message it is given with
  `websockets.broadcast` (which frames it once per connection);
- the floor: accept, answer the handshake, and write each frame it is given with one bare
  `socket.send()` per connection: what writing the bytes costs with no server around it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from loadgen import wait_port

ROOT = Path(__file__).resolve().parents[1]
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
# The floor: accept, answer the handshake, and for each frame the control connection sends
# (4 bytes of length, then the encoded frame) one bare send() per socket.
FLOOR = r"""
import socket, sys, threading
socks, control = [], []
def accept(server):
    while True:
        conn, _ = server.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as gunicorn and asyncio do
        head = chunk = b"?"
        while chunk and b"\r\n\r\n" not in head:
            chunk = conn.recv(4096)
            head += chunk
        if not chunk:  # a probe of the port: nothing to serve
            conn.close()
            continue
        conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n")
        (control if head.startswith(b"?GET /control") else socks).append(conn)
server = socket.create_server(("127.0.0.1", int(sys.argv[1])), backlog=4096)
threading.Thread(target=accept, args=(server,), daemon=True).start()
while not control:
    threading.Event().wait(0.05)
ctl = control[0].makefile("rb")
while True:
    size = ctl.read(4)
    if len(size) < 4:
        break
    frame = ctl.read(int.from_bytes(size, "big"))
    for s in socks:
        s.send(frame)
"""


# The lab as `mcp-lab serve` runs it (its worker, its hooks), with room for the bench's sockets.
# Each full garbage collection of a worker longer than 5 ms is printed with its CPU and wall time
# (a stall of every socket it serves); the callback is inherited by the forked workers.
LAB = """
import gc, os, sys, time
from app.web.server import LabServer, options
port, workers = int(sys.argv[1]), int(sys.argv[2])
began = [0.0, 0.0]
def timed(phase, info):
    if phase == "start":
        began[:] = time.perf_counter(), time.thread_time()
    elif info["generation"] == 2 and time.perf_counter() - began[0] > 0.005:
        wall, cpu = time.perf_counter() - began[0], time.thread_time() - began[1]
        print(f"lab {os.getpid()}: full collection {wall * 1000:.0f} ms ({cpu * 1000:.0f} ms CPU)"
              f" at {time.strftime('%H:%M:%S')}, {len(gc.get_objects())} objects tracked,"
              f" {gc.get_freeze_count()} frozen", file=sys.stderr, flush=True)
gc.callbacks.append(timed)
settings = options("127.0.0.1", port, workers)
settings.update(worker_connections=20000, accesslog=None, loglevel=os.environ["BENCH_LOG"])
LabServer(None, settings).run()
"""


def lab_server(port: int, workers: int, redis_url: str | None) -> subprocess.Popen[bytes]:
    env = os.environ | ({"LAB_REDIS_URL": redis_url} if redis_url else {})
    env.setdefault("BENCH_LOG", "error")
    args = [sys.executable, "-c", LAB, str(port), str(workers)]
    proc = subprocess.Popen(args, cwd=ROOT, env=env)
    wait_port(port)
    return proc


def script(source: str, port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-c", source, str(port)], cwd=ROOT)
    wait_port(port)
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
