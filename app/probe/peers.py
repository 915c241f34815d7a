"""Blocking links from the lab's sans-IO client to a real server: what both share, and stdio.

Both peers do the same two things: `send(message)` puts one client message on the wire and
returns the text it was framed as; `receive(timeout)` returns the next message the server sent,
with the text that carried it, or None when nothing came in time. `Unreachable` means the server
could not be started or connected to at all (the probe's exit 2); `PeerGone` means it went away
in the middle (a failed check, not an unreachable server). Every message a server writes is
read by the lab's bounded JSON reader (`read`): one that is too large, too deep or not JSON is
noted in the peer's `noise`, never a crash. The HTTP peer is in app.probe.http_peer.

stdio starts the command as a child process and speaks newline-delimited JSON-RPC on its stdin
and stdout (stderr is kept apart; any stdout line that is not JSON is noted, since stdout must
carry MCP messages only; a line that does not end within MAX_MESSAGE bytes is noted and skipped).
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import IO, Any, Protocol

from app.bounded_json import JsonRefused, read_json
from app.mcp.framing import stdio_frame
from app.mcp.jsonrpc import Message

__all__ = [
    "MAX_MESSAGE",
    "Peer",
    "PeerGone",
    "Received",
    "Sent",
    "StdioPeer",
    "Unreachable",
    "read",
]


# The largest message read from a server (a line, a body, an SSE event): as the lab's own
# served endpoint takes, and far beyond any real tools/list page.
MAX_MESSAGE = 4 * 1024 * 1024


def read(data: str | bytes, noise: list[str]) -> Any:
    """A server's message through the bounded JSON reader, or None after noting why not."""
    try:
        return read_json(data, MAX_MESSAGE)
    except JsonRefused as exc:
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        why = "" if exc.reason == "syntax" else f" ({exc})"
        noise.append(text[:200] + why)
        return None


class Unreachable(Exception):
    """The server could not be started or reached."""


class PeerGone(Exception):
    """The server closed the conversation (exited, or dropped the connection)."""


@dataclass(frozen=True)
class Sent:
    frame: str
    channel: str
    reply: str | None = None  # the bare HTTP answer to a message that gets none (202)


@dataclass(frozen=True)
class Received:
    message: Message
    frame: str
    channel: str
    synthesized: bool = False  # an HTTP status with no JSON-RPC body, told to the client as one


class Peer(Protocol):
    transport: str
    noise: list[str]

    def send(self, message: Message) -> Sent: ...

    def receive(self, timeout: float) -> Received | None: ...

    def close(self) -> None: ...


class StdioPeer:
    transport = "stdio"

    def __init__(self, command: list[str]):
        self.noise: list[str] = []
        self._errlog: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
        try:
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errlog
            )
        except OSError as exc:
            self._errlog.close()
            raise Unreachable(f"cannot start {command[0]}: {exc.strerror or exc}") from None
        self._buffer = b""
        self._skipping = False

    @property
    def stderr(self) -> str:
        self._errlog.seek(0)
        return self._errlog.read().decode("utf-8", "replace")

    def send(self, message: Message) -> Sent:
        frame = stdio_frame(message, from_client=True)
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(frame.text.encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise PeerGone(self._exit_text()) from None
        return Sent(frame.text, frame.channel)

    def _exit_text(self) -> str:
        code = self.process.poll()
        tail = self.stderr.strip().splitlines()[-1:] or [""]
        status = f"exited with status {code}" if code is not None else "closed its stdout"
        return f"the server {status}" + (f": {tail[0][:200]}" if tail[0] else "")

    def receive(self, timeout: float) -> Received | None:
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        fd = self.process.stdout.fileno()
        while True:
            if self._skipping:  # the rest of a line already noted as too long goes unread
                end = self._buffer.find(b"\n")
                self._buffer = b"" if end < 0 else self._buffer[end + 1 :]
                self._skipping = end < 0
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                text = line.decode("utf-8", "replace")
                if not text.strip():
                    continue
                message = read(line, self.noise)
                if isinstance(message, dict):
                    return Received(message, text + "\n", "stdout")
                if message is not None:
                    self.noise.append(text[:200])
            if len(self._buffer) > MAX_MESSAGE:  # a line that does not end: noted, then skipped
                self.noise.append(f"a stdout line longer than {MAX_MESSAGE} bytes (not read)")
                self._buffer, self._skipping = b"", True
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise PeerGone(self._exit_text())
            self._buffer += chunk

    def close(self) -> None:
        with contextlib.suppress(OSError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        try:
            self.process.wait(3)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self._errlog.close()
