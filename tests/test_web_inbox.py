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


def _frame(first: int, payload: bytes, masked: bool = True, long16: bool = False) -> bytes:
    """Any client frame: `first` is its first byte (FIN, RSV, opcode) as sent."""
    n = len(payload)
    if long16 or 126 <= n < 65536:
        head = struct.pack("!BBH", first, (0x80 if masked else 0) | 126, n)
    elif n >= 65536:
        head = struct.pack("!BBQ", first, (0x80 if masked else 0) | 127, n)
    else:
        head = struct.pack("!BB", first, (0x80 if masked else 0) | n)
    if not masked:
        return head + payload
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


# What peers send, common and not: the inbox reads the common frames itself and hands wsproto
# the rest, so each kind here must come out as wsproto alone makes of it.
KINDS = [
    _frame(0x81, b'{"command": "next"}'),
    _frame(0x81, b""),
    _frame(0x81, "шаг 步".encode()),
    _frame(0x81, b"x" * 125),
    _frame(0x81, b"y" * 126),
    _frame(0x81, b"z" * 4096),  # the limit
    _frame(0x81, b"w" * 4097),  # over it
    _frame(0x81, b"v" * 70_000),  # a 64-bit length
    _frame(0x81, b"short", long16=True),  # a length not in its shortest form
    _frame(0x81, b"\xff\xfe"),  # text that is not UTF-8
    _frame(0x81, b"bare", masked=False),  # unmasked
    _frame(0xC1, b"rsv"),  # an RSV bit without an extension
    _frame(0x82, b"\x00\x01"),  # binary
    _frame(0x01, b"frag") + _frame(0x80, b"ment"),  # a fragmented text message
    _frame(0x89, b"p1"),
    _frame(0x89, b""),
    _frame(0x8A, b"pong"),
    _frame(0x88, struct.pack("!H", 4001) + b"bye"),
    _frame(0x83, b"?"),  # a reserved opcode
]


def _observed(inbox: Inbox, open_: bool) -> tuple[object, ...]:
    return (open_, list(inbox.messages), inbox.pong, inbox.ponged, inbox.code)


def test_every_kind_of_frame_comes_out_as_wsproto_alone_reads_it_however_it_is_split():
    import random

    rng = random.Random(16)
    for _ in range(600):
        data = b"".join(rng.choice(KINDS) for _ in range(rng.randint(1, 5)))
        cuts = sorted(rng.sample(range(1, len(data)), min(rng.randint(0, 4), len(data) - 1)))
        chunks = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
        ours, theirs = Inbox(limit=4096), Inbox(limit=4096)
        theirs._common = False  # wsproto reads every frame
        ours.ponged = theirs.ponged = False
        # Fed until each says the conversation ended (wsproto may say so a chunk sooner: it
        # checks UTF-8 as the bytes come, the inbox once its frame is whole)
        seen = [_observed(inbox, _fed(inbox, chunks)) for inbox in (ours, theirs)]
        assert seen[0] == seen[1], (data[:40], chunks)
        assert ours.close_frame(1000, "") == theirs.close_frame(1000, "")


def _fed(inbox: Inbox, chunks: list[bytes]) -> bool:
    return all(inbox.feed(chunk) for chunk in chunks)  # (all() stops at the first False)


def test_a_lessons_frames_are_read_without_wsproto_and_the_first_other_one_hands_over():
    class Untouched:
        def receive_data(self, data: bytes) -> None:
            raise AssertionError(f"wsproto was given {data[:20]!r}")

    inbox = Inbox(limit=4096)
    wsproto, inbox._conn = inbox._conn, Untouched()  # type: ignore[assignment]
    lesson = _frame(0x81, b'{"command": "next"}') + _frame(0x8A, b"") + _frame(0x89, b"hi")
    inbox.ponged = False
    for at in range(0, len(lesson), 7):  # in pieces, as TCP may deliver them
        assert inbox.feed(lesson[at : at + 7])
    assert inbox.messages == ['{"command": "next"}']
    assert inbox.ponged and inbox.pong == b"\x8a\x02hi"
    inbox._conn = wsproto
    assert inbox.feed(_frame(0x82, b"\x07") + _frame(0x81, b"after"))
    assert inbox.messages[1:] == [b"\x07", "after"]
