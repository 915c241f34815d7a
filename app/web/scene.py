"""What a page shows, as plain values, and the drafts of its regions.

A `Scene` is everything the shared regions of a page depend on: the trace (scenario, version,
transport), the language, the step, how far the timeline may name steps, and the state of the
step's question for whoever looks (the choice that closed it, the wrong ones tried, or a
classroom's poll). Two sockets in the same scene show the same regions, so a scene's drafts
(app.web.draw) are made once and kept in the Lab, and each region's markup is cached by key.

`Ctx` is what the region builders read (app.web.story, app.web.panels, app.web.chrome); `draft`
makes (or finds) one region of a scene.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from app.engine.step import Step
from app.web.draw import Draft
from app.web.lab import Checked, Lab


@dataclass(frozen=True)
class Poll:
    """A classroom poll in place of the step's question: its phase and id, who looks, and the
    live counts the instructor sees (a scene with counts is never cached)."""

    phase: str
    id: int = 0
    audience: str = "student"
    counts: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Scene:
    sid: str
    version: str
    transport: str
    lang: str
    step: int
    reach: int  # the timeline names the kind of every step up to here
    chosen: int | None = None  # the choice that closed the step's question (always the right one)
    tried: tuple[int, ...] = ()  # the wrong choices tried at the open question, in order
    poll: Poll | None = None

    @property
    def base(self) -> tuple[str, str, str, str]:
        """What every link and label of the scene depends on (part of every key)."""
        return (self.sid, self.version, self.transport, self.lang)


@dataclass(frozen=True)
class Ctx:
    """A scene with its trace at hand, for the region builders."""

    lab: Lab
    scene: Scene
    scenario: Any
    trace: list[Step]

    @property
    def base(self) -> tuple[str, str, str, str]:
        return self.scene.base

    @property
    def index(self) -> int:
        return self.scene.step

    @property
    def step(self) -> Step:
        return self.trace[self.scene.step]

    @property
    def watched(self) -> bool:
        return bool(getattr(self.scenario, "watched", False))

    @cached_property
    def checked(self) -> Checked:
        s = self.scene
        return self.lab.checked(s.sid, s.version, s.transport)

    @property
    def open_question(self) -> bool:
        """Whether the step asks a question this scene has not closed."""
        return bool(self.step.get("checkpoint")) and self.scene.chosen is None


Builder = Callable[[Ctx], Draft]
BUILDERS: dict[str, Builder] = {}  # region id → builder, filled by the builder modules


def region(rid: str) -> Callable[[Builder], Builder]:
    """Register a builder for region `rid` (one per region id)."""

    def add(builder: Builder) -> Builder:
        BUILDERS[rid] = builder
        return builder

    return add


def draft(lab: Lab, scene: Scene, rid: str) -> Draft:
    """Region `rid` of `scene`, made once per scene (a poll with counts: every time)."""

    def make() -> Draft:
        scenario = lab.scenario(scene.sid)
        trace = lab.trace(scene.sid, scene.version, scene.transport)
        return BUILDERS[rid](Ctx(lab, scene, scenario, trace))

    if scene.poll is not None and scene.poll.counts is not None:
        return make()
    return lab.remember(("draft", scene, rid), make)


def drafts(lab: Lab, scene: Scene, rids: Iterable[str]) -> dict[str, Draft]:
    return {rid: draft(lab, scene, rid) for rid in rids}
