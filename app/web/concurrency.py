"""Greenlets or threads: what a channel needs of the serving model it runs under.

Under gunicorn's gevent worker (the lab's server) every socket is a greenlet and gevent has
patched `threading`; under werkzeug's threaded server (`flask run`, tests) sockets are threads.
A channel asks here whether it runs under greenlets (its write turn is then a flag of its own,
`Turn`, else a lock) and for a reader beside its handler (a bare greenlet, or a daemon thread).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Turn:
    """The write lock under gevent, as a flag (`held`) mixed into the object it guards: a
    group send reads it once per member, and kept in an object of its own it cost a cache miss
    per member (bench/cold_paths.py). A group send only tries it and writes
    without waiting, so it never holds it across a greenlet switch; the handler holds it while
    a slow socket makes it wait, and another writer then waits its turn. gevent's own Lock
    costs about a microsecond per try. Under threads the guarded object uses a Lock instead."""

    __slots__ = ("held",)
    held: bool

    def acquire(self, blocking: bool = True) -> bool:
        while self.held:
            if not blocking:
                return False
            time.sleep(0.005)  # gevent's sleep: the holder is a greenlet waiting on its socket
        self.held = True
        return True

    def release(self) -> None:
        self.held = False

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.held = False


def cooperative() -> bool:
    """Whether gevent has patched threading (gunicorn's gevent worker): greenlets, not threads."""
    try:
        from gevent import monkey
    except ImportError:  # pragma: no cover (gevent is a dependency)
        return False
    return bool(monkey.is_module_patched("threading"))


def spawn(target: Callable[[], None]) -> None:
    """Run `target` beside the handler: a bare greenlet under gevent's patch (no Thread object
    per socket), else a daemon thread (werkzeug's threaded server, tests)."""
    if cooperative():
        from gevent import spawn_raw

        spawn_raw(target)
        return
    threading.Thread(target=target, name="channel-reader", daemon=True).start()
