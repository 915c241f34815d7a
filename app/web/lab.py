"""The lab as the web shell sees it: the scenario library, traces and rendered fragments.

One `Lab` lives in `app.extensions["lab"]`. It loads the library lazily (a broken scenario file
becomes an entry in `errors`, the others still load), runs each (scenario, version, transport)
trace once, and keeps the HTML rendered for each (scenario, version, transport, language, step)
as one string. That string is what a websocket sends for a step, so a step is rendered once and
the same bytes can go to any number of sockets (the shape a live classroom needs). Traces are
pure data and deterministic, so caching them never goes stale while the process runs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any, Protocol

from app.engine import library as engine_library
from app.engine import runner as engine_runner
from app.engine.step import Step

__all__ = ["Engine", "Lab", "Step"]


class Engine(Protocol):
    """What the web shell needs of an engine: app.engine itself, or a test stand-in
    (tests/fakelab.py) set as LAB_ENGINE."""

    def load_library(self, path: Any) -> Any: ...

    def run_trace(self, scenario: Any, version: str, transport: str) -> Sequence[Step]: ...


class _RealEngine:
    load_library = staticmethod(engine_library.load_library)
    run_trace = staticmethod(engine_runner.run_trace)


REAL_ENGINE: Engine = _RealEngine()


class Lab:
    """Library, traces and fragment cache shared by all requests and sockets of one app."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._library: Any = None
        self._traces: dict[tuple[str, str, str], list[Step]] = {}
        self._fragments: dict[Hashable, str] = {}
        # Recorded sessions (app.web.recorded) shown like scenarios, by id; uploads beyond
        # `keep` are dropped oldest first, files named at start (`pinned`) never.
        self.recorded: dict[str, Any] = {}

    def _engine(self) -> Engine:
        engine: Engine | None = self.config.get("LAB_ENGINE")
        return REAL_ENGINE if engine is None else engine

    @property
    def library(self) -> Any:
        """The loaded library; an engine that cannot be imported shows as a library error."""
        if self._library is None:
            try:
                lib = self._engine().load_library(self.config["SCENARIOS_DIR"])
            except Exception as exc:  # the page must still render and say why
                lib = SimpleNamespace(scenarios={}, errors=[f"{type(exc).__name__}: {exc}"])
            with self._lock:
                self._library = self._library or lib
        return self._library

    def scenario(self, sid: str) -> Any | None:
        return self.recorded.get(sid) or self.library.scenarios.get(sid)

    def add_recording(self, recording: Any, *, keep: int, pinned: frozenset[str]) -> None:
        with self._lock:
            self.recorded[recording.id] = recording
            uploads = [k for k in self.recorded if k not in pinned]
            for old in uploads[: max(0, len(uploads) - keep)]:
                del self.recorded[old]

    def trace(self, sid: str, version: str, transport: str) -> list[Step]:
        """The scenario's steps under this version and transport (computed once)."""
        recorded = self.recorded.get(sid)
        if recorded is not None:
            return list(recorded.steps)
        key = (sid, version, transport)
        trace = self._traces.get(key)
        if trace is None:
            scenario = self.library.scenarios[sid]
            trace = list(self._engine().run_trace(scenario, version, transport))
            with self._lock:
                trace = self._traces.setdefault(key, trace)
        return trace

    def cached(self, key: Hashable, render: Callable[[], str]) -> str:
        """Rendered HTML for `key`, rendering it on first use only."""
        html = self._fragments.get(key)
        if html is None:
            html = render()
            with self._lock:
                html = self._fragments.setdefault(key, html)
        return html

    def clear(self) -> None:
        """Forget the library, traces and fragments (after scenario files change)."""
        with self._lock:
            self._library = None
            self._traces.clear()
            self._fragments.clear()
