"""`mcp-lab tap -- CMD [ARGS...]`: a transparent stdio relay between a host and the server it
starts, recording what crosses.

The host starts the tap as if it were the server; the tap starts the real server as its child
and copies the host's stdin to the child's stdin and the child's stdout to its own stdout, byte
for byte, as they come (the child's stderr is the tap's stderr, untouched). Nothing else is ever
written to stdout. One select loop does both copies with non-blocking writes and a bounded
queue each way (BACKLOG): while a reader is slow, the tap stops reading from the writer on the
other side instead of buffering without end. Beside the copy a `LineReader` per direction picks
out complete lines for the log (app.tap.log); a line that is not JSON, or longer than
MAX_MESSAGE, is forwarded all the same and noted. The host closing stdin ends the session (the
child's stdin is closed too, as the spec's shutdown asks); the child's stdout closing ends the
relay, whose exit status is the child's.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import subprocess
from collections.abc import Sequence

from app.bounded_json import JsonRefused, read_json
from app.mcp.framing import Frame
from app.probe.peers import MAX_MESSAGE  # as the probe reads a server's message

from .lines import Line, LineReader, TooLong
from .log import TapLog, Unread

__all__ = ["KEY", "StdioTap"]

CHUNK = 64 * 1024
BACKLOG = 1024 * 1024  # bytes queued for a slow reader before the tap stops reading its writer
KEY = "stdio"
GRACE_S = 2.0


class _Pipe:
    """One direction: bytes read from `src`, queued, written to `dst` when it takes them."""

    def __init__(self, src: int, dst: int, from_client: bool) -> None:
        self.src, self.dst, self.from_client = src, dst, from_client
        self.queue = bytearray()
        self.reader = LineReader(MAX_MESSAGE)
        self.open = True  # src has not ended


class StdioTap:
    """Relay one stdio session between the host (our stdin/stdout) and the child."""

    def __init__(
        self, command: Sequence[str], log: TapLog, stdin_fd: int = 0, stdout_fd: int = 1
    ) -> None:
        self.log = log
        self.child = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.child.stdin is not None and self.child.stdout is not None
        self.up = _Pipe(stdin_fd, self.child.stdin.fileno(), True)
        self.down = _Pipe(self.child.stdout.fileno(), stdout_fd, False)
        self._stopping = False

    def stop(self) -> None:
        """Stop relaying soon (a signal: the host asked the tap to end)."""
        self._stopping = True
        with contextlib.suppress(OSError):
            self.child.terminate()

    def _observe(self, pipe: _Pipe, data: bytes) -> None:
        try:
            for item in pipe.reader.feed(data):
                self._line(pipe, item)
        except Exception as exc:
            self.log.broken(f"the tap stopped reading: {exc!r}")
            pipe.reader = LineReader(MAX_MESSAGE)

    def _line(self, pipe: _Pipe, item: Line | TooLong) -> None:
        channel = "stdin" if pipe.from_client else "stdout"
        if isinstance(item, TooLong):
            self.log.unread(KEY, "stdio", pipe.from_client, Unread("line", MAX_MESSAGE), None)
            return
        if not item.data.strip():
            return
        text = item.data.decode("utf-8", "replace")
        frame = Frame("stdio", channel, text + "\n")
        try:
            parsed = read_json(item.data, MAX_MESSAGE)
        except JsonRefused as exc:
            self.log.unread(KEY, "stdio", pipe.from_client, Unread.refused(exc), frame)
            return
        items = parsed if isinstance(parsed, list) else [parsed]  # a 2025-03-26 batch: each
        for message in items:
            if isinstance(message, dict):
                self.log.message(KEY, "stdio", pipe.from_client, message, frame)
            else:
                self.log.unread(KEY, "stdio", pipe.from_client, Unread("type"), frame)

    def run(self) -> int:
        """Relay until the child's stdout ends; the child's exit status."""
        pipes = (self.up, self.down)
        for pipe in pipes:
            os.set_blocking(pipe.dst, False)
        with selectors.DefaultSelector() as selector:
            while self.down.open or self.down.queue:
                if self._stopping and not self.down.queue:
                    break
                self._wait(selector, pipes)
        self._finish_up()
        with contextlib.suppress(OSError):
            os.set_blocking(self.down.dst, True)
        return self._reap()

    def _reap(self) -> int:
        """The child's status; a child still running (its reader, the host, went away) gets
        the time the SDKs give a server after its stdin closes, then SIGTERM, then SIGKILL."""
        for ending in (None, self.child.terminate, self.child.kill):
            if ending is not None:
                with contextlib.suppress(OSError):
                    ending()
            with contextlib.suppress(subprocess.TimeoutExpired):
                return self.child.wait(GRACE_S)
        return self.child.wait()

    def _wait(self, selector: selectors.BaseSelector, pipes: tuple[_Pipe, ...]) -> None:
        wanted: dict[int, int] = {}
        for pipe in pipes:
            if pipe.open and len(pipe.queue) < BACKLOG:
                wanted[pipe.src] = wanted.get(pipe.src, 0) | selectors.EVENT_READ
            if pipe.queue:
                wanted[pipe.dst] = wanted.get(pipe.dst, 0) | selectors.EVENT_WRITE
        for fd in list(selector.get_map() or {}):
            selector.unregister(fd)
        for fd, events in wanted.items():
            selector.register(fd, events)
        if not wanted:
            return
        for key, events in selector.select(timeout=0.5):
            for pipe in pipes:
                if key.fd == pipe.src and events & selectors.EVENT_READ:
                    self._read(pipe)
                if key.fd == pipe.dst and events & selectors.EVENT_WRITE:
                    self._write(pipe)

    def _read(self, pipe: _Pipe) -> None:
        try:
            data = os.read(pipe.src, CHUNK)
        except OSError:
            data = b""
        if not data:
            pipe.open = False
            if pipe.from_client:
                self.log.end(KEY)
                if not pipe.queue:
                    self._finish_up()
            return
        self._observe(pipe, data)
        pipe.queue += data

    def _write(self, pipe: _Pipe) -> None:
        try:
            sent = os.write(pipe.dst, pipe.queue)
        except BlockingIOError:
            return
        except OSError:  # the reader is gone: nothing more can reach it
            pipe.queue.clear()
            pipe.open = False
            return
        del pipe.queue[:sent]
        if pipe is self.up and not pipe.open and not pipe.queue:
            self._finish_up()

    def _finish_up(self) -> None:
        """The host's stdin ended and all of it reached the child: close the child's stdin."""
        stdin = self.child.stdin
        if stdin is not None and not stdin.closed:
            with contextlib.suppress(OSError):
                stdin.close()
