"""The one channel every socket uses, over real TCP connections on 127.0.0.1.

Each test builds channels on connected socket pairs (the server's end in a `Channel`, the other
end read and written by hand with tests/rawws.py), so no web server is involved: a group send
reaches every member in order and drops the one that stopped reading; a peer that answers no
ping is closed while one that answers stays; a message over the command limit is dropped as
it arrives and reported by its size, and the channel goes on; a peer's close is answered.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from typing import Any

import pytest

from app.web.channel import Channel, Closed, Message, Oversized, Settings
from app.web.groups import MemoryGroups
from app.web.heartbeat import Heartbeat
from tests.rawws import read_message, read_text, text_frame


@contextlib.contextmanager
def tcp_pair(rcvbuf: int = 0) -> Iterator[tuple[socket.socket, socket.socket]]:
    """(server end, client end) of one loopback TCP connection; `rcvbuf` shrinks the client's
    receive buffer so a client that never reads fills up after a few frames."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.socket()
        if rcvbuf:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        client.connect(listener.getsockname())
        server, _ = listener.accept()
    if rcvbuf:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, rcvbuf)
    try:
        yield server, client
    finally:
        server.close()
        client.close()


def handler(ch: Channel, seen: list[Any]) -> threading.Thread:
    """A socket's handler: waits in `receive` (which writes what is queued and pings) and
    records what comes in, then Closed when the channel ends."""

    def run() -> None:
        try:
            while True:
                got = ch.receive()
                seen.append(got)
        except Closed:
            seen.append(Closed)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.01)


def numbered(group: str, event: dict[str, Any]) -> Message:
    """A step of 8 KiB that says its number, the same frame for every member."""

    def render(tag: Hashable) -> str:
        return json.dumps({"seq": event["seq"], "pad": "x" * 8192})

    return Message(render)


def test_a_group_send_reaches_every_member_in_order_and_drops_the_one_that_stopped_reading():
    # A long send deadline: what drops the stuck one here is its queue filling up.
    settings = Settings(ping_interval=60, send_timeout=60, queue=4)
    groups = MemoryGroups(numbered)
    with contextlib.ExitStack() as stack:
        pairs = [stack.enter_context(tcp_pair(rcvbuf=4096)) for _ in range(4)]
        channels = [Channel(server, settings) for server, _ in pairs]
        for ch in channels:
            groups.add("room", ch)
            handler(ch, [])
        *readers, _never_reads = [client for _, client in pairs]
        got: list[list[int]] = [[] for _ in readers]

        def read(i: int) -> None:
            with contextlib.suppress(OSError):
                while True:
                    got[i].append(json.loads(read_text(readers[i]))["seq"])

        for i in range(len(readers)):
            threading.Thread(target=read, args=(i,), daemon=True).start()
        for seq in range(1, 101):  # 800 KiB: far more than the stuck one's buffers hold
            groups.send("room", {"seq": seq})
            wait_for(lambda s=seq: all(g and g[-1] == s for g in got))
        assert all(g == list(range(1, 101)) for g in got)
        assert set(groups.members("room")) == set(channels[:-1])
        assert groups.dropped == 1 and not channels[-1].open


def test_a_peer_that_answers_no_ping_is_reaped_and_one_that_answers_stays():
    # A second between pings: the polite peer's reader is a thread of this process, which a
    # loaded machine (the suite runs in two processes) can leave unscheduled for a few tenths.
    settings = Settings(ping_interval=1.0, send_timeout=2)
    heartbeat = Heartbeat(settings.ping_interval)
    with tcp_pair() as (s1, _never_answers), tcp_pair() as (s2, polite):
        quiet, talking = Channel(s1, settings), Channel(s2, settings)
        heartbeat.watch(quiet)
        heartbeat.watch(talking)
        ended: list[Any] = []
        stayed: list[Any] = []
        handler(quiet, ended)
        handler(talking, stayed)

        def answer() -> None:  # a browser's socket: reads all the time, answering pings
            with contextlib.suppress(OSError):
                polite.settimeout(None)
                while True:
                    read_message(polite)

        threading.Thread(target=answer, daemon=True).start()
        wait_for(lambda: ended == [Closed], timeout=30)
        time.sleep(3.0)  # three more pings, each answered
        assert stayed == [] and talking.open
        polite.sendall(text_frame('{"command": "next"}'))
        wait_for(lambda: stayed == ['{"command": "next"}'])


def test_a_message_over_the_limit_is_dropped_as_it_comes_and_the_channel_goes_on():
    with tcp_pair() as (server, client):
        ch = Channel(server, Settings(max_command=4096))
        seen: list[Any] = []
        handler(ch, seen)
        client.sendall(text_frame("x" * 10_000_000))
        client.sendall(text_frame("[" * 4000))
        client.sendall(text_frame(b"\x00\xff", opcode=2))
        client.sendall(text_frame('{"command": "next"}'))
        wait_for(lambda: len(seen) == 4)
        assert seen == [Oversized(10_000_000), "[" * 4000, b"\x00\xff", '{"command": "next"}']
        ch.send("still here")
        client.settimeout(5)
        assert read_text(client) == "still here"


def test_a_peer_that_closes_is_answered_with_its_code():
    with tcp_pair() as (server, client):
        ch = Channel(server, Settings())
        seen: list[Any] = []
        thread = handler(ch, seen)
        client.sendall(text_frame((4000).to_bytes(2, "big") + b"bye", opcode=8))
        thread.join(timeout=5)
        assert seen == [Closed]
        ch.close()
        client.settimeout(5)
        opcode, payload = read_message(client)
        assert (opcode, payload[:2]) == (8, (4000).to_bytes(2, "big"))


def test_sending_to_a_closed_channel_raises_closed():
    with tcp_pair() as (server, client):
        ch = Channel(server, Settings())
        client.close()
        with pytest.raises(Closed):
            for _ in range(100):  # the first sends may still fit in the kernel's buffers
                ch.send("x" * 65536)
                time.sleep(0.01)


def test_the_heartbeat_beats_each_channel_when_it_is_due_and_forgets_closed_ones():
    class Beaten:
        def __init__(self, due: float) -> None:
            self.due, self.beats, self.open = due, [], True

        def beat(self, now: float) -> float | None:
            if not self.open:
                return None
            if now >= self.due:
                self.beats.append(now)
                self.due = now + 10
            return self.due

    heartbeat = Heartbeat(10)
    heartbeat._running = True  # the test's clock drives it: no loop of its own
    early, late = Beaten(time.monotonic() + 5), Beaten(time.monotonic() + 15)
    heartbeat.watch(early)
    heartbeat.watch(late)
    start = time.monotonic()
    heartbeat.run(start + 6)
    assert (len(early.beats), late.beats) == (1, [])
    heartbeat.run(start + 7)  # nobody due: nobody touched
    assert (len(early.beats), late.beats) == (1, [])
    late.open = False
    heartbeat.run(start + 16)
    assert (len(early.beats), late.beats) == (2, [])
    assert heartbeat.watched() == 1  # the closed one left at its beat
