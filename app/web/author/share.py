"""A scenario's text in a link: `/author?scenario=<value>`, compact, versioned and bounded.

    1.<base64url of the raw-deflated UTF-8 text, no padding>

The same shape as the `whatif=` value (app.engine.whatif.codec), for a scenario that is not a
what-if. A link must fit a request line (the lab's gunicorn reads up to 8,190 bytes of one),
so a value is at most MAX_VALUE characters: a short scenario takes one to three thousand, the
shortest lessons fit, a long one does not and is downloaded instead. Decoding trusts nothing:
the length first, then the alphabet, then base64, then inflation that stops at MAX_BYTES (a
short value cannot inflate into a large text), then UTF-8. Every failure is a ShareError
naming what was wrong.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib

FORMAT = 1
MAX_VALUE = 8_000  # characters of the value: with "GET /author?scenario=", within 8,190
MAX_BYTES = 64_000  # bytes of text once inflated (the editor's own bound is 64,000 characters)
_VALUE = re.compile(r"^(?P<format>[0-9]{1,4})\.(?P<body>[A-Za-z0-9_-]+)$")


class ShareError(ValueError):
    """Why a value is not a scenario link: `key` is one of too-long, unreadable, format."""

    def __init__(self, key: str, **params: int) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


def encode(text: str) -> str:
    """The link value of `text`; ShareError("too-long") when it does not fit a link."""
    data = text.encode("utf-8")
    if len(data) > MAX_BYTES:
        raise ShareError("too-long", size=len(data), most=MAX_BYTES)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = base64.urlsafe_b64encode(packer.compress(data) + packer.flush()).rstrip(b"=")
    value = f"{FORMAT}.{body.decode('ascii')}"
    if len(value) > MAX_VALUE:
        raise ShareError("too-long", size=len(value), most=MAX_VALUE)
    return value


def decode(value: str) -> str:
    """The scenario text a link value holds; ShareError for anything else."""
    if len(value) > MAX_VALUE:
        raise ShareError("too-long", size=len(value), most=MAX_VALUE)
    found = _VALUE.match(value.strip())
    if found is None:
        raise ShareError("unreadable")
    if int(found["format"]) != FORMAT:
        raise ShareError("format", found=int(found["format"]), known=FORMAT)
    body = found["body"]
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        unpacker = zlib.decompressobj(-15)
        data = unpacker.decompress(packed, MAX_BYTES + 1)
    except (binascii.Error, ValueError, zlib.error):
        raise ShareError("unreadable") from None
    if len(data) > MAX_BYTES or unpacker.unconsumed_tail:
        raise ShareError("too-long", size=len(value), most=MAX_VALUE)
    if not unpacker.eof:
        raise ShareError("unreadable")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ShareError("unreadable") from None
