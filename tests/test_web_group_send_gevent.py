"""The group send as the lab serves it: under gevent's patch (gunicorn's gevent worker), where
a plain frame is written into each channel's socket inline (app.web.outbound.offer_all) and
only a channel with something queued, or a writer waiting, goes the slow way.

The group tests of tests/test_web_channel.py run here again in a process gevent has patched:
8 KiB steps to sockets with 4 KiB buffers, so sends are partial and queues fill; every reader
must get every step once and in order, and the one that stopped reading is dropped. Then a
burst, where a handler is often part way through a frame when the next step comes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

UNDER_GEVENT = """
from gevent import monkey
monkey.patch_all()
from app.web import concurrency, outbound
from tests import test_web_channel as group_tests
assert concurrency.cooperative()
inline = []
original = outbound.offer_all
def counted(members, message):
    members = list(members)
    full = original(members, message)
    inline.append(sum(m.__class__ in outbound._INLINE for m in members))
    return full
outbound.offer_all = counted
group_tests.MemoryGroups.deliver.__globals__["offer_all"] = counted
group_tests.test_a_group_send_reaches_every_member_in_order_and_drops_the_one_that_stopped_reading()
assert inline and max(inline) == 4, inline  # the channels went through the inline path
print("ok", len(inline))
"""
BURST = """
# Steps faster than the readers read: a channel's handler is then often in the middle of
# writing a frame (its queue taken, its socket full) when the next step comes, which must
# queue behind it, never go into the middle of it (without the turn check: a reader fails).
import contextlib, json, threading, time
from app.web.channel import Channel, Settings
from app.web.groups import MemoryGroups
from tests.rawws import read_text
settings = Settings(ping_interval=60, send_timeout=60, queue=256)
groups = MemoryGroups(group_tests.numbered)
with contextlib.ExitStack() as stack:
    pairs = [stack.enter_context(group_tests.tcp_pair(rcvbuf=4096)) for _ in range(3)]
    for server, _ in pairs:
        ch = Channel(server, settings)
        groups.add("room", ch)
        group_tests.handler(ch, [])
    got = [[] for _ in pairs]
    def read(i):
        with contextlib.suppress(OSError):
            while True:
                got[i].append(json.loads(read_text(pairs[i][1]))["seq"])
                time.sleep(0.006)  # slower than the steps come: buffers fill, writers wait
    for i in range(len(pairs)):
        threading.Thread(target=read, args=(i,), daemon=True).start()
    for seq in range(1, 151):
        groups.send("room", {"seq": seq})
        time.sleep(0.004)  # long enough for a handler to take its queue and wait mid-frame
    group_tests.wait_for(lambda: all(g and g[-1] == 150 for g in got), 60)
    assert all(g == list(range(1, 151)) for g in got), [g[:10] for g in got]
    assert groups.dropped == 0
print("burst ok")
"""
# The two reasons a channel must not be written to inline, each made to happen on purpose: the
# rest of a half-written frame waits in its queue (the socket had room again when the next
# step came), and a writer holds its turn. The next step must queue behind them, whole.
BEHIND = """
from gevent import monkey
monkey.patch_all()
import json, threading, time
from app.web import concurrency
from app.web.channel import Channel, Message, Settings, text_frame
from app.web.outbound import Outbound, offer_all
from tests import test_web_channel as group_tests
from tests.rawws import read_text
assert concurrency.cooperative()
settings = Settings(ping_interval=60, send_timeout=60)
def payload(seq, size=0):
    return json.dumps({"seq": seq, "pad": "x" * size})
def arrived(sock):  # what the client has now, without waiting
    sock.setblocking(False)
    try:
        return sock.recv(1 << 20)
    except BlockingIOError:
        return b""
    finally:
        sock.setblocking(True)
def texts(data):  # the server's (unmasked) frames in `data`: their opcode and text
    out = []
    while data:
        n, at = data[1] & 0x7F, 2
        if n == 126:
            n, at = int.from_bytes(data[2:4], "big"), 4
        elif n == 127:
            n, at = int.from_bytes(data[2:10], "big"), 10
        out.append((data[0], data[at : at + n].decode()))
        data = data[at + n :]
    return out
first, second = payload(1, 300_000), payload(2)
with group_tests.tcp_pair(rcvbuf=4096) as (server, client):
    ch = Channel(server, settings)
    offer_all([ch], Message(lambda tag: first))  # more than the socket takes: the rest queues
    assert ch._queue
    got = bytearray()
    for _ in range(50):  # the client reads what came: the socket has room again
        got += arrived(client)
        time.sleep(0.01)
    assert got and ch._queue
    offer_all([ch], Message(lambda tag: second))  # behind the rest of step 1, not in it
    whole = len(text_frame(first)) + len(text_frame(second))
    def read_rest():
        while len(got) < whole and (chunk := client.recv(1 << 16)):
            got.extend(chunk)
    reader = threading.Thread(target=read_rest)
    reader.start()
    ch.receive(timeout=0.5)  # the handler's turn: its queue goes out
    reader.join(10)
    assert texts(bytes(got)) == [(0x81, first), (0x81, second)]
    slow = []  # a drained channel goes the inline way again, not offer()'s
    Channel.offer = lambda self, message: slow.append(message) or Outbound.offer(self, message)
    offer_all([ch], Message(lambda tag: payload(4)))
    assert not slow and json.loads(read_text(client))["seq"] == 4
    del Channel.offer
with group_tests.tcp_pair() as (server, client):
    ch = Channel(server, settings)
    ch._writing.acquire()  # the handler is mid-frame, waiting on its socket
    offer_all([ch], Message(lambda tag: payload(3)))
    assert arrived(client) == b"", "a step went into the middle of a writer's frame"
    ch._writing.release()
    ch.receive(timeout=0.1)
    assert json.loads(read_text(client))["seq"] == 3
print("behind ok")
"""


def test_under_gevent_a_step_queues_behind_a_half_written_frame_and_a_writer() -> None:
    done = subprocess.run(
        [sys.executable, "-c", BEHIND], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "behind ok" in done.stdout


def test_under_gevent_steps_arrive_whole_in_order_and_a_stuck_member_is_dropped() -> None:
    done = subprocess.run(
        [sys.executable, "-c", UNDER_GEVENT + BURST],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("ok 100")
    assert "burst ok" in done.stdout
