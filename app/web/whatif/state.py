"""A what-if as the viewer shows it: the engine's run under a scenario id of its own.

A `whatif=` value names a base scenario and the student's changes (docs/WHATIF.md). The viewer
draws its trace like any other (the region renderer, app.web.pages) under the id
`<base>~<digest of the value>`: every key, link and cached part follows that id, so two students
who open the same link share the markup, and the base scenario's own cache is never touched.
`Explored` is the scenario-like object the renderer reads; its `link(**query)` keeps the
`whatif=` value in every stepper, timeline and language link; its schema badges are checked
once, with the run.

Runs are pure functions of the value, kept in a small bounded table per app (`Runs`, the
Lab's `explored`), so the page and its socket do not run the engine twice, a refused value is
remembered as refused, and whatever asks the shared Lab for a what-if's trace finds it. A socket
serves its what-if through `WhatIfLab`, which keeps that run the newest in the table while the
socket is in use (an evicted run is simply run again from the link).
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

from flask import url_for

from app.engine import challenge as engine_challenge
from app.engine.scenario import Scenario
from app.engine.step import Step
from app.engine.whatif import WhatIf, WhatIfError, WhatIfRun, decode, encode, run_whatif
from app.web.lab import Checked, Lab, check

SEP = "~"  # never in a scenario id (ids are [a-z0-9-]), so a what-if's id cannot be a file's
RUNS = 64  # runs kept per app: each is a trace of at most 1,000 steps

T = TypeVar("T")


@dataclass
class Explored:
    """What the viewer needs of a scenario, for a what-if of one (and the run behind it)."""

    base: Scenario
    whatif: WhatIf
    value: str  # the canonical whatif= value
    run: WhatIfRun
    attempt: engine_challenge.Attempt | None = None  # set when the base is a challenge
    checked: Checked = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.checked = check(self.run.trace)  # once, with the run: never while drawing

    @cached_property
    def id(self) -> str:
        digest = hashlib.sha256(self.value.encode("ascii")).hexdigest()[:16]
        return f"{self.base.id}{SEP}{digest}"

    @property
    def steps(self) -> list[Step]:
        return self.run.trace

    @property
    def title(self) -> dict[str, str]:
        return self.base.title

    @property
    def summary(self) -> dict[str, str]:
        return self.base.summary

    @property
    def goals(self) -> list[dict[str, str]]:
        return self.base.goals

    @property
    def topics(self) -> list[str]:
        return self.base.topics

    @property
    def misconceptions(self) -> list[Any]:
        # Each myth names the step of the base's trace that refutes it: only true while the
        # trace is the base's.
        return [] if self.differs else self.base.misconceptions

    @property
    def order(self) -> Any:
        return getattr(self.base, "order", None)

    @property
    def versions(self) -> list[str]:
        return [self.run.version]

    @property
    def transports(self) -> list[str]:
        return [self.run.transport]

    @property
    def default_version(self) -> str:
        return self.run.version

    @property
    def differs(self) -> bool:
        return self.run.comparison.firstDifference is not None

    @property
    def explored(self) -> int:
        """How many changes the student made (the lesson summary says so)."""
        return self.whatif.moves

    @property
    def take_away_query(self) -> dict[str, str]:
        """What a take-away link (trace, handout, embed) adds so it works after this run left
        the table: the whatif= value it is made again from (`reopen`)."""
        return {"whatif": self.value}

    def link(self, **query: Any) -> str:
        """This what-if's page in another state: the base's URL with the whatif= value."""
        return url_for("viewer.page", sid=self.base.id, whatif=self.value, **query)


class Runs:
    """What-if runs by canonical value, the last `size` kept (refusals too), and the kept runs
    by their id: the shared Lab looks them up there (`Lab.explored`), so the course's helpers
    and every template that asks the Lab for a trace find a what-if's like any other."""

    def __init__(self, size: int = RUNS) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[str, str], Explored | WhatIfError] = OrderedDict()
        self._ids: dict[str, Explored] = {}

    def get(self, sid: str) -> Explored | None:
        """The kept run whose id is `sid` (the Lab's lookup), or None."""
        return self._ids.get(sid)

    def keep(self, key: tuple[str, str], found: Explored | WhatIfError) -> None:
        """Keep (or keep again, as the newest) a run or a refusal."""
        with self._lock:
            self._kept[key] = found
            self._kept.move_to_end(key)
            if isinstance(found, Explored):
                self._ids[found.id] = found
            while len(self._kept) > self.size:
                _, old = self._kept.popitem(last=False)
                if isinstance(old, Explored):
                    self._ids.pop(old.id, None)

    def run(self, key: tuple[str, str], make: Callable[[], Explored]) -> Explored:
        found = self._kept.get(key)
        if found is None:
            try:
                found = make()
            except WhatIfError as exc:
                found = exc
        self.keep(key, found)
        if isinstance(found, WhatIfError):
            raise found
        return found


def runs(lab: Lab) -> Runs:
    """The app's table of runs, installed as the Lab's `explored` on first use."""
    table = lab.explored
    if not isinstance(table, Runs):
        with _install:
            if not isinstance(lab.explored, Runs):
                lab.explored = Runs()
            table = lab.explored
    assert isinstance(table, Runs)
    return table


_install = threading.Lock()


def explore(lab: Lab, whatif: WhatIf) -> Explored:
    """The run of `whatif` (a challenge's attempt, when its base is a challenge), or
    WhatIfError with the sentence to show. The base must be a scenario of the library."""
    value = encode(whatif)  # canonical, and bounded like a link
    scenarios: Mapping[str, Scenario] = lab.library.scenarios
    base = scenarios.get(whatif.scenario)
    if base is None:
        raise WhatIfError("no-scenario", scenario=whatif.scenario[:64])

    def make() -> Explored:
        if engine_challenge.challenge_of(base) is not None:
            tried = engine_challenge.attempt(base, whatif)
            return Explored(base, whatif, value, tried.run, tried)
        if whatif.version not in base.versions or whatif.transport not in base.transports:
            run = run_whatif(whatif, scenarios)  # says which one is not offered
        else:
            base_trace = lab.trace(base.id, whatif.version, whatif.transport)
            run = run_whatif(whatif, scenarios, base_trace)
        return Explored(base, whatif, value, run)

    return runs(lab).run((base.id, value), make)


def opened(lab: Lab, value: str) -> Explored:
    """The what-if of a URL's whatif= value (hostile until decoded), or WhatIfError."""
    return explore(lab, decode(value))


def reopen(lab: Lab, sid: str, value: str | None) -> None:
    """Make the run of a what-if id again from a link's whatif= value when it left the table
    (other students' runs pushed it out): the id then resolves as before. A value that is
    refused, or names another run, changes nothing (the caller's lookup then fails)."""
    if SEP not in sid or not value or lab.scenario(sid) is not None:
        return
    with contextlib.suppress(WhatIfError):
        opened(lab, value)


class WhatIfLab(Lab):
    """The shared Lab, for a socket that shows one what-if: its run stays kept (a socket that
    is still open keeps its what-if the newest in the table), all else is the shared Lab's."""

    def __init__(self, shared: Lab, shown: Explored) -> None:
        super().__init__(shared.config)
        self.shared = shared
        self.shown = shown
        self.explored = shared.explored

    def _touch(self, sid: str) -> None:
        if sid == self.shown.id:
            runs(self.shared).keep((self.shown.base.id, self.shown.value), self.shown)

    @property
    def library(self) -> Any:
        return self.shared.library

    def scenario(self, sid: str) -> Any | None:
        self._touch(sid)
        return self.shared.scenario(sid)

    def trace(self, sid: str, version: str, transport: str) -> list[Step]:
        self._touch(sid)
        return self.shared.trace(sid, version, transport)

    def checked(self, sid: str, version: str, transport: str) -> Checked:
        self._touch(sid)
        return self.shared.checked(sid, version, transport)

    def cached(self, key: Hashable, render: Callable[[], str]) -> str:
        return self.shared.cached(key, render)

    def remember(self, key: Hashable, make: Callable[[], T]) -> T:
        return self.shared.remember(key, make)
