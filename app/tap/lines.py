"""The lines of a stdio stream as a tap reads them beside forwarding them: sans-IO, bounded.

The relay forwards every byte as it comes; `LineReader` only looks. `feed` takes the bytes just
forwarded and returns the complete lines among them (without their newline) for the recorder.
A line longer than `limit` is never held whole: it is reported once as `TooLong` and the rest of
it, up to its newline, is skipped, so a server that writes an endless line costs the tap at most
`limit` bytes while the host still receives every byte.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Line", "LineReader", "TooLong"]


@dataclass(frozen=True)
class Line:
    data: bytes  # without its "\n" (and a "\r" before it)


@dataclass(frozen=True)
class TooLong:
    size: int  # bytes seen when the line passed the limit


class LineReader:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._held = bytearray()
        self._skipping = False  # inside a line already reported as too long

    def feed(self, data: bytes) -> list[Line | TooLong]:
        out: list[Line | TooLong] = []
        start = 0
        while start <= len(data):
            end = data.find(b"\n", start)
            piece = data[start:] if end < 0 else data[start:end]
            if self._skipping:
                self._skipping = end < 0
            elif len(self._held) + len(piece) > self.limit:
                out.append(TooLong(len(self._held) + len(piece)))
                self._held.clear()
                self._skipping = end < 0
            elif end < 0:
                self._held += piece
            else:
                line = bytes(self._held + piece)
                self._held.clear()
                out.append(Line(line[:-1] if line.endswith(b"\r") else line))
            if end < 0:
                break
            start = end + 1
        return out

    @property
    def pending(self) -> bytes:
        """A last line without its newline (what is left when the stream ends)."""
        return bytes(self._held)
