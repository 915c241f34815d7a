"""Join codes and instructor secrets: what a room is found by, and what proves who drives it.

A join code is six characters from an alphabet without look-alikes (no 0/O, no 1/I/L), so a
code read off a projector and typed on a phone is the code meant; `normalize` forgives case,
spaces and dashes. The instructor's token is a random secret; rooms keep only its SHA-256, so
a leaked store does not hand out the right to drive. The QR code of the join URL is drawn on
the server as SVG (segno), so nothing comes from a CDN and it scales on a projector.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

import segno

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
LENGTH = 6
_SEPARATORS = re.compile(r"[\s\-_.]+")
# The cookie that makes a browser one student of the rooms it joins (its value is a random id,
# registered with a room when its page is opened: only registered ids vote).
STUDENT_COOKIE = "mcp-lab-student"
_STUDENT_ID = re.compile(r"[0-9a-f]{16}")


def new_code() -> str:
    """A fresh random join code."""
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def normalize(typed: str | None) -> str | None:
    """The join code a person meant by `typed` ("abc 234", "ABC-234"), or None if it is not one."""
    if not isinstance(typed, str):
        return None
    code = _SEPARATORS.sub("", typed).upper()
    if len(code) != LENGTH or any(c not in ALPHABET for c in code):
        return None
    return code


def new_student() -> str:
    """A fresh student id (64 random bits, hex), the value of the student cookie."""
    return secrets.token_hex(8)


def student_id(value: str | None) -> str | None:
    """`value` if it has the shape of a student id the lab issues, else None."""
    if isinstance(value, str) and _STUDENT_ID.fullmatch(value):
        return value
    return None


def new_token() -> str:
    """A new instructor secret (URL-safe, 256 bits)."""
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    """What a room stores of a secret: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def matches(token: str | None, stored: str | None) -> bool:
    """Whether `token` is the secret whose digest is `stored` (compared in constant time)."""
    if not token or not stored:
        return False
    return hmac.compare_digest(digest(token), stored)


def qr_svg(url: str, title: str) -> str:
    """The QR code of `url` as inline SVG, dark on light (what phone cameras read best)."""
    svg = segno.make(url, error="m").svg_inline(
        scale=4, dark="#000", light="#fff", title=title, svgclass="qr", omitsize=True
    )
    return svg.replace("<svg ", '<svg role="img" ', 1)
