"""What the speaker view shows the instructor beside the room's own regions: the answer key of
the step's question and its explanation, the instructor's notes for the step (a scenario's
`teach` text on the script action that made it), a preview of the next step, how many of the
students present answered, the roster, and in a student-paced room where the class is.

None of this reaches the projector or a student: the speaker view is an instructor's page, and
the projector's poll shows the answer only once it is revealed.
"""

from __future__ import annotations

from typing import Any

from app.web import i18n
from app.web.classroom import roster, timer
from app.web.classroom.needs import Records
from app.web.classroom.room import Room


def notes(scenario: Any, action: int, lang: str) -> str:
    """The instructor's notes on script action `action` (a `teach` text), or ""."""
    data = getattr(scenario, "data", None)
    script = data.get("script", []) if isinstance(data, dict) else []
    if not 0 <= action < len(script) or not isinstance(script[action], dict):
        return ""
    return i18n.pick(script[action].get("teach"), lang)


def context(live: Records, room: Room, lang: str) -> dict[str, Any]:
    trace = live.lab.trace(room.scenario, room.version, room.transport)
    step = min(room.step, len(trace) - 1)
    here = trace[step]
    checkpoint = here.get("checkpoint") or None
    key = None
    if checkpoint:
        answer = int(checkpoint.get("answer", 0))
        choice = checkpoint["choices"][answer]
        key = {
            "n": answer + 1,
            "text": i18n.pick(choice.get("text"), lang),
            "why": i18n.pick(choice.get("why"), lang),
        }
    upcoming = None
    if step + 1 < len(trace):
        after = trace[step + 1]
        upcoming = {
            "n": step + 2,
            "kind": after.get("kind"),
            "method": after.get("method"),
            "narration": i18n.pick(after.get("narration"), lang),
            "question": bool(after.get("checkpoint")),
        }
    scenario = live.lab.scenario(room.scenario)
    action = int(here.get("action", -1))
    note = notes(scenario, action, lang)
    roll = roster.students(live.store, room)
    poll = room.poll if room.poll is not None and room.poll.step == room.step else None
    return {
        "room": room,
        "step": step,
        "total": len(trace),
        "key": key,
        "notes": note,
        "upcoming": upcoming,
        "roster": roll,
        "present": sum(1 for s in roll if s.present),
        "answered": sum(1 for s in roll if s.present and s.answered),
        "phase": room.phase(),
        "left": timer.left(poll.deadline) if poll is not None and poll.phase == "open" else 0,
        "spread": roster.spread(roll, room.step, len(trace)) if room.paced else [],
    }
