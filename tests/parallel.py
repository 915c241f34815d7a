"""Which tests may run in parallel, for `make test` (pytest-xdist, `--dist loadgroup`).

Two processes run the suite on a 2-core machine: browsers, servers and sockets leave a core
idle much of the time in one. Tests go to a process in units:

- every test of a file that uses the suite's Redis, in one unit: a Redis server's pub/sub
  channels are shared by all its databases, so two rooms' tests in two processes would hear
  each other (and a test's FLUSHDB would empty the other's rooms);
- the tests of a file with a fixture of module, class or package scope, or that opens a
  browser (conftest's `browser` is one per module), in that file's unit: its browser or served
  lab starts once, and its tests keep their order;
- any other test alone, wherever a process is free.

The units are decided from each file's source, by the controlling process, which collects no
tests. xdist's own `xdist_group` marks are not used: with pytest 9 the group it writes into a
test's node id is lost (pytest keeps the id elsewhere), so every test would run alone. Units go
out largest first (xdist's order by number of tests), so the single tests fill the end.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["scheduler", "unit_of"]

SHARED_FIXTURE = re.compile(r"""scope=["'](?:module|class|package)["']""")
OPENS_A_BROWSER = re.compile(r"def \w+\([^)]*\bbrowser\b", re.S)


@cache
def _kind(path: Path) -> str:
    """ "redis", "file" (its tests stay together) or "test" (each may run anywhere)."""
    try:
        source = path.read_text("utf-8")
    except OSError:
        return "file"
    if "redis_url" in source:
        return "redis"
    if SHARED_FIXTURE.search(source) or OPENS_A_BROWSER.search(source):
        return "file"
    return "test"


def unit_of(root: Path, nodeid: str) -> str:
    """The unit of the test `nodeid` (a path from `root`, then `::` and the test's name)."""
    path = nodeid.split("::", 1)[0]
    kind = _kind(root / path)
    if kind == "redis":
        return "redis"
    return path if kind == "file" else nodeid


def scheduler(config: Any, log: Any) -> Any | None:
    """The scheduler for `--dist loadgroup`; None leaves other modes to xdist."""
    if config.getoption("dist", "no") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    root = Path(config.rootpath)

    class UnitScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(root, nodeid)

    return UnitScheduling(config, log)
