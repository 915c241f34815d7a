"""What a peer sends, parsed without a socket (app.web.inbox), as h11's tests drive its parser:
client frames in, the handler's messages and the channel's signals out."""

from __future__ import annotations

import os
import struct

from app.web.inbox import Inbox
from app.web.wsframe import Oversized
from tests.rawws import text_frame


def fragment(payload: bytes, opcode: int, final: bool) -> bytes:
    """One masked client frame that may be a first fragment (opcode) or a continuation (0)."""
    mask = os.urandom(4)
    head = struct.pack("!BB", (0x80 if final else 0) | opcode, 0x80 | len(payload))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def test_messages_come_out_whole_text_or_binary_in_order():
    inbox = Inbox(limit=64)
    data = text_frame('{"command": "next"}') + text_frame(b"\x00\x01", opcode=2)
    assert inbox.feed(data[:5]) and inbox.messages == []  # half a frame: nothing yet
    assert inbox.feed(data[5:])
    assert inbox.messages == ['{"command": "next"}', b"\x00\x01"]


def test_a_fragmented_message_is_joined_and_counted_whole_against_the_limit():
    inbox = Inbox(limit=10)
    inbox.feed(fragment(b"12345", 1, False) + fragment(b"678", 0, True))
    inbox.feed(fragment(b"123456", 1, False) + fragment(b"789012", 0, True))
    assert inbox.messages == ["12345678", Oversized(12)]


def test_a_message_over_the_limit_is_reported_by_its_size_and_the_next_one_is_read():
    inbox = Inbox(limit=4096)
    inbox.feed(text_frame("é" * 100_000) + text_frame("ok"))
    assert inbox.messages == [Oversized(200_000), "ok"]


def test_pings_are_answered_once_with_the_newest_payload_and_pongs_are_noted():
    inbox = Inbox(limit=64)
    inbox.ponged = False
    inbox.feed(text_frame(b"a", opcode=9) + text_frame(b"b", opcode=9))
    assert inbox.pong == b"\x8a\x01b" and not inbox.ponged
    inbox.feed(text_frame(b"", opcode=10))
    assert inbox.ponged


def test_a_close_or_a_broken_frame_ends_the_conversation_with_the_code_to_answer():
    closing = Inbox(limit=64)
    assert not closing.feed(text_frame(struct.pack("!H", 4001) + b"bye", opcode=8))
    assert closing.code == 4001
    assert closing.close_frame(4001, "")[:4] == b"\x88\x02\x0f\xa1"
    assert closing.close_frame(4001, "") == b""  # said once
    broken = Inbox(limit=64)
    assert not broken.feed(text_frame(b"\xff\xfe"))  # a text frame that is not UTF-8
    assert broken.code == 1007 and broken.messages == []
