"""The stdio shell for a served server whose catalog changes while a client is connected.

`app.serving.stdio_server.serve_stdio` is a plain blocking read loop, enough while nothing happens
between two client lines. A server that changes on `--change-every` or on demand (SIGUSR1) must
speak first, so this loop selects on stdin with the change timer as its timeout: each complete
line goes to the one conversation `MCPServer` (through the same error handling as the blocking
shell), and each change writes the list_changed notifications that conversation is owed (a
legacy session after initialized, or the event on a modern listen subscription). stdout carries
only MCP messages; change reports go to `on_change` (stderr in the CLI).
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import socket
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from app.mcp.jsonrpc import Message
from app.serving.stdio_server import MAX_LINE, answer_line

from .catalog import Change, ServedServer

__all__ = ["ChangingStdio"]


class ChangingStdio:
    """Serve one conversation on a stdin file descriptor and a stdout text stream."""

    def __init__(
        self,
        served: ServedServer,
        stdin_fd: int,
        stdout: TextIO,
        *,
        change_every: float | None = None,
        on_change: Callable[[str], None] | None = None,
        on_line: Callable[[str, bytes], None] | None = None,
        on_applied: Callable[[Change], None] | None = None,
    ):
        self.served = served
        self.server = served.open()
        self.stdin_fd = stdin_fd
        self.stdout = stdout
        self.change_every = change_every
        self.on_change = on_change
        self.on_line = on_line  # each line in ("client") and out ("server"): the watch view
        self.on_applied = on_applied
        self._wake_reader, self._wake_writer = socket.socketpair()
        self._wake_reader.setblocking(False)
        self._wake_writer.setblocking(False)
        self._changes_asked = 0

    def request_change(self) -> None:
        """Apply the next change soon (safe from a signal handler)."""
        self._changes_asked += 1
        with contextlib.suppress(OSError):
            self._wake_writer.send(b"\0")

    def _write(self, messages: Sequence[Message | list[Message]]) -> None:
        for message in messages:  # a batch's replies are one line: an array
            line = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
            if self.on_line is not None:  # recorded before the client can read it
                self.on_line("server", line.encode())
            self.stdout.write(line + "\n")
        self.stdout.flush()

    def _answer(self, line: bytes) -> None:
        if self.on_line is not None:
            self.on_line("client", line)
        self._write(answer_line(self.server, line.decode("utf-8", "replace")))

    def _change(self) -> None:
        change, owed = self.served.change()
        if self.on_applied is not None:
            self.on_applied(change)
        for _, notes in owed:
            self._write(notes)
        if self.on_change is not None:
            self.on_change(change.describe() + f", {change.notified} notified")

    def serve(self) -> None:
        """Until end of input."""
        selector = selectors.DefaultSelector()
        selector.register(self.stdin_fd, selectors.EVENT_READ, "stdin")
        selector.register(self._wake_reader, selectors.EVENT_READ, "wake")
        pending = b""
        skipping = False  # inside a line already refused as too long
        due = time.monotonic() + self.change_every if self.change_every else None
        try:
            while True:
                timeout = None if due is None else max(0.0, due - time.monotonic())
                for key, _ in selector.select(timeout):
                    if key.data == "wake":
                        with contextlib.suppress(BlockingIOError):
                            self._wake_reader.recv(4096)
                        while self._changes_asked:
                            self._changes_asked -= 1
                            self._change()
                        continue
                    chunk = os.read(self.stdin_fd, 65536)
                    if not chunk:
                        if pending.strip():  # the last line may lack its newline
                            self._answer(pending)
                        return
                    pending += chunk
                    *lines, pending = pending.split(b"\n")
                    if skipping:  # the tail of a refused line goes, up to its newline
                        skipping = not lines
                        lines, pending = lines[1:], (b"" if skipping else pending)
                    for line in lines:
                        if line.strip():
                            self._answer(line)
                    if len(pending) > MAX_LINE:  # a line that never ends: refused once
                        self._answer(pending)
                        pending, skipping = b"", True
                if due is not None and time.monotonic() >= due:
                    self._change()
                    due = time.monotonic() + (self.change_every or 0)
        finally:
            selector.close()
            self._wake_reader.close()
            self._wake_writer.close()
