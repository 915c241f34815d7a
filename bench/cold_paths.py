"""Benchmark: a classroom step's hot paths as a step finds them, with cold caches.

A step comes a second after the last, and by then the load generator, the kernel and the
previous step's 1,000 sends have filled the caches with their own: what a step's code costs
then is what counts (bench/fanout_split.py), not what it costs in a tight loop. Each sample
here first evicts the caches (writing 64 MiB), then times one run of:

- a group send to N loopback sockets (a reader process drains them), under gevent as the lab
  serves: `offer_all` over the channels, a bare loop of `send()` over the same channels'
  sockets, and a bare loop over a plain list of those sockets (what the floor does);
- reading one instructor command (`{"command": "next"}`, one masked text frame): the inbox's
  own reader for the common frames, and wsproto's parser.

Variants alternate in random order, and the figures are medians. Run:
`.venv/bin/python bench/cold_paths.py [--members 1000] [--rounds 30]`.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402
import random  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loadgen import client_frame  # noqa: E402

from app.web.inbox import Inbox  # noqa: E402
from app.web.outbound import DONTWAIT, Outbound, Settings, offer_all  # noqa: E402
from app.web.wsframe import Message, text_frame  # noqa: E402

READER = r"""
import selectors, socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
sel = selectors.EpollSelector()
for _ in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ)
print("ok", flush=True)
while True:
    for key, _ in sel.select():
        try:
            if not key.fileobj.recv(65536):
                sel.unregister(key.fileobj)
        except BlockingIOError:
            pass
"""
JUNK = bytearray(64 * 1024 * 1024)


def evict(round_: int) -> None:
    for i in range(0, len(JUNK), 64):
        JUNK[i] = round_ & 0xFF


def cold(variants: dict[str, Callable[[int], object]], rounds: int) -> dict[str, float]:
    """Each variant's median time of one call (µs), the caches evicted before each."""
    took: dict[str, list[float]] = {name: [] for name in variants}
    for round_ in range(rounds):
        for name in random.sample(list(variants), len(variants)):
            time.sleep(0.1)  # the reader drains what the last send left
            evict(round_)
            began = time.thread_time_ns()
            variants[name](round_)
            took[name].append((time.thread_time_ns() - began) / 1000)
    return {name: statistics.median(values) for name, values in took.items()}


def group_send(members: int, rounds: int) -> None:
    server = socket.create_server(("127.0.0.1", 0), backlog=4096)
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(server.getsockname()[1]), str(members)],
        stdout=subprocess.PIPE,
    )
    kept: list[object] = []  # other objects between the channels, as a serving process has
    channels = []
    for _ in range(members):
        conn, _ = server.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        kept.append([{str(i): object() for i in range(30)} for _ in range(3)])
        channels.append(Outbound(conn, Settings(), "student", Inbox(4096)))
    assert reader.stdout is not None and reader.stdout.readline()
    raws = [ch._raw for ch in channels]
    frame = text_frame("x" * 2000)

    def bare_members(_: int) -> None:
        for ch in channels:
            ch._raw.send(frame, DONTWAIT)

    def bare_list(_: int) -> None:
        for raw in raws:
            raw.send(frame, DONTWAIT)

    try:
        per = cold(
            {
                "offer_all over the channels": lambda _: offer_all(
                    channels, Message(lambda tag: "x" * 2000)
                ),
                "a bare loop over the channels' sockets": bare_members,
                "a bare loop over a list of sockets": bare_list,
            },
            rounds,
        )
    finally:
        reader.kill()
    print(f"a group send of a 2 KB frame to {members} sockets, per member:")
    for name, us in per.items():
        print(f"  {name}: {us / members:.2f} us")


def command(rounds: int) -> None:
    frame = client_frame('{"command": "next"}')
    fresh = {"common": [Inbox(4096) for _ in range(rounds)], "wsproto": []}
    for _ in range(rounds):
        inbox = Inbox(4096)
        inbox._common = False  # wsproto reads every frame
        fresh["wsproto"].append(inbox)
    per = cold(
        {
            "the inbox's reader": lambda r: fresh["common"][r].feed(frame),
            "wsproto's parser": lambda r: fresh["wsproto"][r].feed(frame),
        },
        rounds,
    )
    print("reading one instructor command:")
    for name, us in per.items():
        print(f"  {name}: {us:.0f} us")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--members", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    group_send(args.members, args.rounds)
    command(args.rounds)


if __name__ == "__main__":
    main()
