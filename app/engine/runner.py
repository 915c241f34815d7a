"""Run a scenario: play its script in a simulated world and record the trace.

The runner is the scenario's side of three parts: the `World` (app.engine.world: peers, links,
clock, messages in flight) does what an action asks, the `Recorder` (app.engine.recorder) turns
each delivered message and each quiet moment into a step, and the runner decides the order:
each script action runs its verb (app.engine.actions), then every message in flight is
delivered ("settled") unless the action says to wait. Scenario-only touches are the runner's
too: a `say`/`sayLast` that replaces a step's narration and a checkpoint question attached to
the step before the one it is asked at. Every step is a full snapshot, so any step can be shown
alone; the same file and options always give the same trace.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from app.mcp import framing, lists, versions
from app.mcp.events import Event, Output, RequestCancelled

from . import authflow, interventions, narration
from .actions import VERBS
from .config import server_config
from .matcher import matches
from .recorder import DEFAULT_MAX_STEPS, Recorder, StepCap, actor
from .scenario import ACTION_VERBS, Scenario
from .step import Step, StepKind, Text
from .world import World

__all__ = ["DEFAULT_MAX_STEPS", "Runner", "run_trace", "server_config"]

TRANSPORTS = ("stdio", "http")


class Runner:
    def __init__(
        self,
        scenario: Scenario,
        protocol_version: str,
        transport: str,
        max_steps: int = DEFAULT_MAX_STEPS,
    ):
        if protocol_version not in versions.VERSIONS:
            raise ValueError(f"unknown protocol version {protocol_version!r}")
        if transport not in TRANSPORTS:
            raise ValueError(f"unknown transport {transport!r}")
        self.scenario = scenario
        self.version = protocol_version
        self.era = versions.era_of(protocol_version)
        self.transport = transport
        self.world = World(scenario.data, protocol_version, transport)
        self.recorder = Recorder(protocol_version, transport, max_steps)
        self._action: dict[str, Any] = {}
        self._action_start = 0
        self._carried: dict[str, list[Event]] = {}
        self._checkpoint_pending: dict[str, Any] | None = None

    @property
    def trace(self) -> list[Step]:
        return self.recorder.trace

    def said(self, step: Step) -> bool:
        """Does the scenario's own `say` narrate this step (it wins over built-in phrases)?"""
        return step["index"] == self._action_start and "say" in self._action

    @property
    def current_action(self) -> dict[str, Any]:
        """The script action being played ({} outside one)."""
        return self._action

    # ----------------------------------------------------------------- steps
    def emit(
        self,
        kind: StepKind,
        frm: str,
        to: str,
        *,
        frame: framing.Frame | None = None,
        events: list[Event] | None = None,
        phrase: str,
        params: dict[str, Any] | None = None,
        era: str | None = None,
        version: str | None = None,
    ) -> None:
        """A step that carries no JSON-RPC message (a cache hit, a clock jump, a transport GET)."""
        text = narration.render(phrase, params or {}, events or [])
        self._scenario_touches(
            self.recorder.record(
                kind,
                frm,
                to,
                text,
                self.world.state(),
                frame=frame,
                events=events,
                era=era,
                version=version,
            )
        )

    def _scenario_touches(self, step: Step) -> None:
        """A `say` replaces the narration of an action's first step; a checkpoint waiting for a
        step that matches goes on the step before it (asked before this one is shown)."""
        if step["index"] == self._action_start and "say" in self._action:
            step["narration"] = _text(self._action["say"])
        pending = self._checkpoint_pending
        if pending is not None and step["index"] > 0 and matches(step, pending["at"]):
            self.trace[-2]["checkpoint"] = {
                "question": pending["question"],
                "choices": [{"text": c["text"], "why": c["why"]} for c in pending["choices"]],
                "answer": pending["answer"],
                "action": self.recorder.action,
            }
            self._checkpoint_pending = None

    # ----------------------------------------------------------------- delivery
    def send_from_client(self, sid: str, out: Output, *, host_started: bool = False) -> None:
        if host_started:
            # Nothing is on the wire yet: the client's first message will carry these events.
            self._carried.setdefault(sid, []).extend(out.events)
        self.world.send_from_client(sid, out)

    def deliver(self, index: int = 0) -> None:
        if interventions.lose_instead(self, index):
            return
        done = self.world.deliver(index)
        env, world = done.envelope, self.world
        client = world.clients[env.server_id]
        if env.from_client:
            events = self._carried.pop(env.server_id, [])
            step = self.recorder.client_message(
                env.server_id, env.message, done.frame, client, events, world.state()
            )
            self._scenario_touches(step)
            if done.refused is not None:  # a protected server's 401 or 403 (app.engine.authflow)
                authflow.refused(self, env.server_id, env.message, done.refused)
                return
            authflow.retried(self, env.server_id, env.message)
            if env.message.get("method") == "notifications/initialized":
                self._open_legacy_stream(env.server_id)
            return
        step = self.recorder.server_message(
            env.server_id,
            env.message,
            done.frame,
            client,
            done.events,
            world.state(),
            answers=done.answers,
            in_gather=done.in_gather,
            era=done.era,
            version=done.version,
        )
        self._scenario_touches(step)

    def cancellations(self, sid: str, out: Output) -> None:
        """The requests `out` gave up on leave at once: a notifications/cancelled is delivered
        now (it races the answer already on its way), and a 2026-07-28 HTTP request whose
        stream the client closed takes its answer with it."""
        for event in out.events:
            if not isinstance(event, RequestCancelled):
                continue
            if event.stream_closed:
                self.world.drop_request(sid, event.id)
                self.emit(
                    "transport",
                    actor(sid, True),
                    actor(sid, False),
                    events=[event],
                    phrase="transport.cancel-close",
                    params={"server": sid, **event.detail},
                )
                continue
            index = self.world.queued_cancellation(sid, event.id)
            if index is not None:
                self.deliver(index)

    def _open_legacy_stream(self, sid: str) -> None:
        """Streamable HTTP (legacy): after initialized, the client opens its GET stream if the
        server will have list_changed notifications to send on it."""
        link = self.world.links.get(sid)
        client = self.world.clients[sid]
        if (
            link is None
            or link.flavour != "streamable-http"
            or not lists.expects_notifications(client)
        ):
            return
        self.emit(
            "transport",
            actor(sid, True),
            actor(sid, False),
            frame=link.open_legacy_stream(),
            phrase="transport.get-stream",
            params={"server": sid},
            version=client.version,
            era=client.era.value,
        )

    def settle(self) -> None:
        while self.world.queue:
            self.deliver()

    # ----------------------------------------------------------------- actions
    def run(self) -> Iterator[Step]:
        emitted = 0
        try:
            for index, action in enumerate(self.scenario.data["script"]):
                if action.get("era") not in (None, self.era.value):
                    continue
                if "versions" in action and self.version not in action["versions"]:
                    continue
                if "transports" in action and self.transport not in action["transports"]:
                    continue
                self._action = action
                self.recorder.action = index
                self._action_start = len(self.trace)
                self._checkpoint_pending = action.get("checkpoint")
                verb = next(k for k in action if k in ACTION_VERBS)
                VERBS[verb](self, action[verb], action)
                if verb not in ("deliver", "deliver_last") and not action.get("wait"):
                    self.settle()
                if "sayLast" in action and len(self.trace) > self._action_start:
                    self.trace[-1]["narration"] = _text(action["sayLast"])
                yield from self.trace[emitted:]
                emitted = len(self.trace)
            self._terminal("terminal.end", {"tools": len(self.world.host.last_model_tools)})
        except StepCap:
            self.recorder.max_steps += 1
            self._terminal("terminal.cap", {"max": self.recorder.max_steps - 1})
        yield from self.trace[emitted:]

    def _terminal(self, phrase: str, params: dict[str, Any]) -> None:
        self._action = {}
        self._action_start = -1
        self.recorder.action = -1
        self.emit("terminal", "host", "host", phrase=phrase, params=params)


def _text(given: dict[str, str]) -> Text:
    return {"en": given["en"], "zh": given["zh"], "ru": given["ru"]}


def run_trace(
    scenario: Scenario, protocol_version: str, transport: str, max_steps: int = DEFAULT_MAX_STEPS
) -> list[Step]:
    """The whole trace of one scenario under one version and transport."""
    return list(Runner(scenario, protocol_version, transport, max_steps).run())
