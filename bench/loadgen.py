"""The load generator of bench/fanout.py: raw websocket followers that count frames, and the
measures of a serving process (CPU, memory) read from /proc.

A follower is not a browser: it opens a raw connection (no permessage-deflate), sends the
handshake with the Host and Origin a page of that server would send, counts frames, reads each
frame's seq marker and timestamps it. A stuck reader is accepted the same way (its 101 is
checked) and then never reads again, with a receive buffer shrunk so it fills after a frame.
"""

from __future__ import annotations

import asyncio
import base64
import os
import re
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path

MARK = re.compile(rb'data-mode="(\w+)"(?: data-seq="(\d+)")?')
TCP_CLOSE, TCP_CLOSE_WAIT = 7, 8  # linux/tcp_states.h


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


def serving_pids(pid: int) -> list[int]:
    """The processes that serve sockets: gunicorn's workers, or the process itself."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return [int(c) for c in children] or [pid]


def thread_cpu(pids: list[int]) -> dict[str, int]:
    """Each thread's CPU time so far (user and system), in nanoseconds, by its /proc path: the
    first field of its schedstat. /proc/<pid>/stat counts in clock ticks (10 ms), as much as
    1,000 followers' whole step costs, so a run of a few steps read it to ±20 %."""
    times = {}
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                times[str(task)] = int((task / "schedstat").read_text().split()[0])
            except (OSError, IndexError, ValueError):  # a thread that just ended
                continue
    return times


def cpu_seconds_since(before: dict[str, int], pids: list[int]) -> float:
    """The CPU time the processes' threads used since `before` (thread_cpu): each thread alive
    now, from then or from its start. Not the difference of two sums: a thread that ends in
    between would take its whole life's CPU off the figure (gevent's resolver threads, idle
    since the Redis connection was made, end during a run: a third of a 1,000-follower run's
    CPU with Redis went missing so). A thread that ends in between loses its time since
    `before`; the lab's threads that do so are idle ones."""
    now = thread_cpu(pids)
    return sum(t - before.get(task, 0) for task, t in now.items()) / 1e9


def rss_kib(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


def start_room(port: int) -> tuple[str, str]:
    """(code, instructor cookie) of a new pagination room over HTTP."""

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


def handshake(port: int, path: str, cookie: str = "") -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    extra = f"Cookie: {cookie}\r\n" if cookie else ""
    return (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n"
        f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        f"Sec-WebSocket-Version: 13\r\n{extra}\r\n"
    ).encode()


def stuck_reader(port: int, path: str) -> socket.socket:
    """A follower whose handshake is accepted (101, checked) and that then never reads."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall(handshake(port, path))
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)  # byte by byte: not one byte of the first frame is read
        if not chunk:
            break
        head += chunk
    status = head.split(b" ", 2)[1] if head.count(b" ") >= 2 else b"?"
    if status != b"101":
        raise RuntimeError(f"the stuck reader's handshake was refused: {head[:60]!r}")
    return sock


def hung_up(sock: socket.socket) -> bool:
    """Whether the server has closed or reset the connection, seen without reading from it."""
    state = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0]
    return state in (TCP_CLOSE, TCP_CLOSE_WAIT)


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
        writer.write(handshake(port, path, cookie))
        head = await reader.readuntil(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"handshake refused: {head[:60]!r}")
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
                if head[0] & 0x0F == 9 and self.writer is not None:  # a ping: answer it
                    self.writer.write(bytes((0x8A, 0x80 | n)) + b"\0\0\0\0" + payload)
                    continue
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

    def send_raw(self, data: bytes) -> None:
        assert self.writer is not None
        self.writer.write(data)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if self.task is not None:
            self.task.cancel()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


async def open_room(port: int) -> tuple[Follower, str]:
    """A new pagination room with its instructor's socket open: (that socket, the room's path)."""
    code, cookie = start_room(port)
    path = f"/live/{code}/ws"
    teacher = Follower()
    await teacher.open(port, path, cookie)
    await asyncio.sleep(0.5)
    return teacher, path


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
