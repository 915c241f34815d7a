"""A channel's close with a code and a reason reaches its peer after whatever is mid-write.

A page reads what to do from its socket's close (1008 "room ended": stop; 1013: retry), so a
close must not be lost because a group sender or the heartbeat held the write turn at that
moment, nor because a frame was half written; and a peer that reads nothing must not hold the
closer for long. Channels over real loopback TCP, read by hand (tests/rawws.py).
"""

from __future__ import annotations

import socket
import struct
import threading
import time

from app.web.channel import Channel, Message, Settings
from tests.rawws import read_message
from tests.test_web_channel import tcp_pair


def close_of(client: socket.socket) -> tuple[int, str]:
    """(code, reason) of the next close frame, reading past any other frame."""
    while True:
        opcode, payload = read_message(client)
        if opcode == 8:
            return struct.unpack("!H", payload[:2])[0], payload[2:].decode()


def test_a_close_while_a_sender_holds_the_write_turn_still_sends_its_code_and_reason():
    with tcp_pair() as (server, client):
        ch = Channel(server, Settings())
        held = threading.Event()

        def sender() -> None:  # a group send or the heartbeat, mid-write
            with ch._writing:
                held.set()
                time.sleep(0.2)
                ch._raw.send(b"\x81\x05hello")

        thread = threading.Thread(target=sender, daemon=True)
        thread.start()
        held.wait(5)
        ch.close(1008, "room ended")
        thread.join(5)
        client.settimeout(10)
        assert read_message(client) == (1, b"hello")  # the sender's frame first, whole
        assert close_of(client) == (1008, "room ended")


def test_a_close_after_a_half_written_frame_finishes_it_then_sends_the_close():
    with tcp_pair(rcvbuf=4096) as (server, client):
        ch = Channel(server, Settings(queue=64))
        big = "x" * 200_000
        assert ch.offer(Message(lambda tag: big))  # more than the buffers hold: half written
        assert ch._queue and isinstance(ch._queue[0], bytes)
        got: list[object] = []

        def page() -> None:
            client.settimeout(10)
            got.append(read_message(client))
            got.append(close_of(client))

        reader = threading.Thread(target=page, daemon=True)
        reader.start()
        ch.close(1008, "room ended")
        reader.join(10)
        assert got == [(1, big.encode()), (1008, "room ended")]


def test_a_peer_that_reads_nothing_does_not_hold_the_closer():
    with tcp_pair(rcvbuf=4096) as (server, _never_reads):
        ch = Channel(server, Settings(send_timeout=600, queue=64))
        assert ch.offer(Message(lambda tag: "x" * 200_000))  # stuck half written
        done = threading.Event()

        def closer() -> None:
            ch.close(1008, "room ended")
            done.set()

        threading.Thread(target=closer, daemon=True).start()
        # Not the send timeout (ten minutes here): the close gives up and hangs up.
        assert done.wait(60)
        assert not ch.open
