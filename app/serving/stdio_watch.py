"""A served server's stdio session, watchable live as an HTTP one is.

Over stdio the client owns stdin and stdout, so the lab's JSON API cannot ride on them: the
served server records the session with the same `SessionLog` its HTTP endpoint uses (each line
in and out becomes an `Exchange` of conversation "stdio") and answers the watch view on a
loopback side port (app.serving.side_api). The stdio loop runs in the main thread and the side
port's requests in others, so the log is read and written under one lock; "Apply the next
change" asks the loop for a change (the same wake-up SIGUSR1 uses) and waits for it to be
applied, so the served server keeps a single thread of control over its catalog.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from app.bounded_json import JsonRefused, read_json

from .catalog import Change, ServedServer
from .conversations import Exchange
from .lab_api import change_json
from .sessions import SessionLog
from .stdio_server import MAX_LINE

__all__ = ["StdioWatch"]

CHANGE_WAIT_S = 5.0


class StdioWatch:
    """The session log of a stdio server and the side API's answers about it."""

    def __init__(self, served: ServedServer) -> None:
        self.served = served
        self.log = SessionLog(served)
        self.lock = threading.Lock()
        self.ask_change: Callable[[], None] | None = None  # the stdio loop's request_change
        self._applied = threading.Condition(self.lock)
        self._last: Change | None = None

    # ----------------------------------------------------------------- fed by the stdio loop
    def line(self, sender: str, data: bytes) -> None:
        """A line the client sent ("client") or the server wrote ("server")."""
        try:
            parsed = read_json(data, MAX_LINE)
        except JsonRefused:
            return  # the server answers it with a parse error, which is recorded
        items = parsed if isinstance(parsed, list) else [parsed]
        text = data.decode("utf-8", "replace") + "\n"
        channel = "stdin" if sender == "client" else "stdout"
        with self.lock:
            for message in items:
                if isinstance(message, dict):
                    exchange = Exchange("stdio", "stdio", None, {}, sender, message, text, channel)
                    self.log.observe(exchange)

    def applied(self, change: Change) -> None:
        with self.lock:
            self.log.changed(change)
            self._last = change
            self._applied.notify_all()

    # ----------------------------------------------------------------- the side API
    def sessions(self) -> dict[str, Any]:
        with self.lock:
            return {
                "revision": self.log.revision,
                "server": {"name": self.served.config.name, "version": self.served.config.version},
                "transport": "stdio",
                "tools": len(self.served.tools),
                "changesApplied": len(self.served.applied),
                "sessions": self.log.summary(),
            }

    def steps(self, key: str, since: int) -> list[Any] | None:
        with self.lock:
            return self.log.steps(key, since)

    def change(self) -> dict[str, Any] | None:
        if self.ask_change is None:
            return None
        with self.lock:
            before = self._last
            self.ask_change()
            self._applied.wait_for(lambda: self._last is not before, CHANGE_WAIT_S)
            return change_json(self._last) if self._last is not before and self._last else None

    def extra(self, path: str, query: dict[str, list[str]]) -> Any | None:
        return None
