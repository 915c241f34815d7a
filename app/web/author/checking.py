"""The editor's checks: `app.engine.authoring.preview` with a memory, a queue and a thread.

A preview runs the scenario under every version and transport it declares, as `mcp-lab
validate` does: from a tenth of a second to several seconds of CPU for a long lesson. Three
things keep that from hurting anyone else:

- the same text is checked once: results are kept by (digest of the text, file name, version,
  transport), a few at a time, so stepping through a preview or typing back to an earlier text
  costs nothing;
- at most RUNNING checks run at once per process; a request that cannot start one within WAIT
  seconds is told the lab is busy, and the page asks again on the next keystroke;
- under gunicorn's gevent worker a check runs in a native thread (gevent's pool), so the
  greenlets of every socket keep being served while it computes; each run is capped by the
  engine (steps and wall clock) and the text by its size before it is even parsed.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from app.engine.authoring import Preview, preview
from app.web.concurrency import cooperative

KEEP = 16  # previews kept per process (a long lesson's trace is a few megabytes)
RUNNING = 2  # checks running at once per process
WAIT = 8.0  # seconds a request waits for its turn before it is told the lab is busy
T = TypeVar("T")


def normal(text: str) -> str:
    """The text as a file holds it: browsers send a textarea's lines ending in CR LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class Checker:
    """Previews of texts, kept by key; `check` returns None when the lab is too busy."""

    def __init__(self, keep: int = KEEP, running: int = RUNNING, wait: float = WAIT) -> None:
        self.keep = keep
        self.wait = wait
        self._lock = threading.Lock()
        self._turns = threading.BoundedSemaphore(running)
        self._kept: OrderedDict[tuple[str, ...], Preview] = OrderedDict()

    def check(
        self, text: str, file: str, version: str | None = None, transport: str | None = None
    ) -> Preview | None:
        key = (digest(text), file, version or "", transport or "")
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                return found
        shown = self.call(preview, text, file, version, transport)
        if shown is None:
            return None
        with self._lock:
            self._kept[key] = shown
            while len(self._kept) > self.keep:
                self._kept.popitem(last=False)
        return shown

    def call(self, work: Callable[..., T], *args: Any) -> T | None:
        """`work(*args)` in its turn (None when no turn came within `wait` seconds), in a
        native thread under gevent so the hub goes on serving, else right here."""
        if not self._turns.acquire(timeout=self.wait):
            return None
        try:
            if cooperative():
                from gevent import get_hub

                result: T = get_hub().threadpool.apply(work, args)
                return result
            return work(*args)
        finally:
            self._turns.release()
