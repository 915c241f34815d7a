"""The lab as the web shell sees it: the scenario library, traces and rendered markup.

One `Lab` lives in `app.extensions["lab"]`. It loads the library lazily (a broken scenario file
becomes an entry in `errors`, the others still load) and runs each (scenario, version,
transport) trace once. When a trace is built it is also checked once (`Checked`): each message's
schema badge, and a digest of what each step's log entry shows. Rendering and sending read
those and never run JSON-schema validation. Markup is cached by key (app.web.draw), so a part is
drawn once per (inputs, language) and the same string serves every socket. Traces are pure data
and deterministic, so caching them never goes stale while the process runs.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Literal, Protocol, TypeVar

from app.engine import library as engine_library
from app.engine import runner as engine_runner
from app.engine.checks import sends_other_fields
from app.engine.step import Step
from app.mcp.schemas import check_message
from app.web.draw import digest

__all__ = ["Checked", "Engine", "Lab", "Step", "check"]

# Markup kept per process, in characters: parts are small and repeat across steps and sockets,
# and a first paint's whole regions are larger; the bound only keeps a server that meets every
# scenario, version and language from growing without end (a few tens of megabytes).
KEPT = 24_000_000
KEPT_SCENES = 512  # scenes whose region keys are kept (app.web.scene): each is a few kilobytes

T = TypeVar("T")


def badge(step: Step) -> dict[str, Any] | None:
    """{"ok", "version", "errors"} from the schema check, or None when nothing was sent."""
    message, version = step["message"], step["protocolVersion"]
    if message is None or not version:
        return None
    sender: Literal["client", "server"] = (
        "server" if step["from"].startswith("server:") else "client"
    )
    notes: list[str] = []
    try:
        errors = check_message(message, version, sender=sender, request_method=step["method"])
        if errors and sends_other_fields(step):
            # A server built for another version: the official schema allows the fields the
            # lab's closed check reports; they are shown as notes, not as errors.
            notes = errors
            errors = check_message(
                message, version, sender=sender, request_method=step["method"], closed=False
            )
            notes = [n for n in notes if n not in errors]
    except Exception as exc:  # a crash in the checker is shown, not raised
        errors = [f"{type(exc).__name__}: {exc}"]
    return {
        "ok": not errors,
        "version": version,
        "errors": [str(e) for e in errors],
        "notes": notes,
    }


WIRE = ("index", "kind", "method", "channel", "id", "from", "to", "message", "frame", "reply")


@dataclass(frozen=True)
class Checked:
    """What a trace's steps say once checked: badges[i] (None: nothing sent) and wires[i], a
    digest of everything step i's log entry shows (the key of that entry, app.web.panels)."""

    badges: tuple[dict[str, Any] | None, ...]
    wires: tuple[str, ...]

    def extend(self, steps: Sequence[Step]) -> Checked:
        """These checks and those of the steps after them (a watched session grows)."""
        new = steps[len(self.badges) :]
        return Checked(
            self.badges + tuple(badge(s) for s in new),
            self.wires + tuple(digest({k: s.get(k) for k in WIRE}) for s in new),
        )


def check(steps: Sequence[Step]) -> Checked:
    return Checked((), ()).extend(steps)


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
    """Library, traces and the markup cache shared by all requests and sockets of one app."""

    kept = KEPT  # characters of markup kept

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._library: Any = None
        self._traces: dict[tuple[str, str, str], list[Step]] = {}
        self._checked: dict[Hashable, Checked] = {}
        self._markup: OrderedDict[Hashable, str] = OrderedDict()
        self._size = 0  # characters in _markup
        self._scenes: OrderedDict[Hashable, Any] = OrderedDict()
        # Recorded sessions (app.web.recorded) shown like scenarios, by id; uploads beyond
        # `keep` are dropped oldest first, files named at start (`pinned`) never.
        self.recorded: dict[str, Any] = {}
        # What-ifs (app.web.whatif) shown under ids of their own: `get(id)` gives an object
        # with `steps` and `checked`, or None (its owner keeps them, bounded).
        self.explored: Any = {}

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
        found = self.recorded.get(sid) or self.explored.get(sid)
        return found or self.library.scenarios.get(sid)

    def add_recording(self, recording: Any, *, keep: int, pinned: frozenset[str]) -> None:
        checked = check(recording.steps)  # checked once, as it is added
        with self._lock:
            self.recorded[recording.id] = recording
            self._checked[("recorded", recording.id)] = checked
            uploads = [k for k in self.recorded if k not in pinned]
            for old in uploads[: max(0, len(uploads) - keep)]:
                del self.recorded[old]
                self._checked.pop(("recorded", old), None)

    def trace(self, sid: str, version: str, transport: str) -> list[Step]:
        """The scenario's steps under this version and transport (computed once)."""
        recorded = self.recorded.get(sid) or self.explored.get(sid)
        if recorded is not None:
            return list(recorded.steps)
        key = (sid, version, transport)
        trace = self._traces.get(key)
        if trace is None:
            scenario = self.library.scenarios[sid]
            trace = list(self._engine().run_trace(scenario, version, transport))
            checked = check(trace)  # once, with the trace: never while a step is drawn
            with self._lock:
                trace = self._traces.setdefault(key, trace)
                self._checked.setdefault(key, checked)
        return trace

    def checked(self, sid: str, version: str, transport: str) -> Checked:
        """The checks made when this trace was built."""
        if sid in self.recorded:
            return self._checked[("recorded", sid)]
        explored = self.explored.get(sid)
        if explored is not None:
            checked: Checked = explored.checked
            return checked
        key = (sid, version, transport)
        if key not in self._checked:
            self.trace(sid, version, transport)
        return self._checked[key]

    def cached(self, key: Hashable, render: Callable[[], str]) -> str:
        """Markup for `key`, drawn on first use only (past the bound, the oldest go first)."""
        html = self._markup.get(key)
        if html is None:
            html = render()
            with self._lock:
                if key not in self._markup:
                    self._markup[key] = html
                    self._size += len(html)
                while self._size > self.kept and self._markup:
                    self._size -= len(self._markup.popitem(last=False)[1])
        return html

    def remember(self, key: Hashable, make: Callable[[], T]) -> T:
        """A value made from a scene's data (its drafts), kept for the next socket that needs it."""
        value: T | None = self._scenes.get(key)
        if value is None:
            value = make()
            with self._lock:
                self._scenes[key] = value
                while len(self._scenes) > KEPT_SCENES:
                    self._scenes.popitem(last=False)
        return value

    def clear(self) -> None:
        """Forget the library, traces and markup (after scenario files change)."""
        with self._lock:
            self._library = None
            self._traces.clear()
            self._checked.clear()
            self._markup.clear()
            self._size = 0
            self._scenes.clear()
