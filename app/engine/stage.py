"""What a script verb may do to a run: the stage the verbs of app.engine.actions play on.

The runner (app.engine.runner) plays a scenario's script by calling the verb of each action
with itself; the verbs need only this much of it. Declaring it here, as a Protocol, lets the
verbs depend on what they use rather than on the runner that uses them, so the two modules do
not import each other.
"""

from __future__ import annotations

from typing import Any, Protocol

from app.mcp import framing
from app.mcp.events import Event, Output

from .scenario import Scenario
from .step import Step, StepKind
from .world import World


class Stage(Protocol):
    """A run as its verbs see it: the world, and the ways a verb makes steps happen."""

    @property
    def world(self) -> World: ...

    @property
    def scenario(self) -> Scenario: ...

    @property
    def trace(self) -> list[Step]: ...

    @property
    def current_action(self) -> dict[str, Any]:
        """The script action being played ({} outside one)."""

    def said(self, step: Step) -> bool:
        """Does the scenario's own `say` narrate this step (it wins over built-in phrases)?"""

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

    def send_from_client(self, sid: str, out: Output, *, host_started: bool = False) -> None:
        """Put a client's messages in flight (`host_started`: the host asked for them)."""

    def deliver(self, index: int = 0) -> None:
        """Deliver the message in flight at `index` and record its step."""

    def settle(self) -> None:
        """Deliver every message in flight, and those their answers put in flight."""

    def cancellations(self, sid: str, out: Output) -> None:
        """Carry out the cancellations among `out`'s events."""
