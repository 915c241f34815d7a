"""A trace's questions as a viewer keeps them: a short name per checkpoint, and answers from a URL.

The same script action asks the same question (text, choices, answer) in every trace of a
scenario, at whatever index that trace puts it, so a digest of what it asks is its name
(`course.question_key`), with how many identical ones came before it when a scenario asks the
very same thing twice. It is the `<questionKey>` of the browser's storage key
`mcp-lab:answer:<scenario>:<version>:<transport>:<questionKey>`; an edit of the question makes a
new key, so an old answer never answers a changed question.
"""

from __future__ import annotations

import re
from typing import Any

from app.engine.step import Step
from app.web import course

CheckpointKey = str

_KEY = re.compile(r"q-[0-9a-f]{12}(-\d{1,3})?")


def _asks(step: Step) -> str:
    checkpoint = step.get("checkpoint")
    return course.question_key(dict(checkpoint)) if checkpoint else ""


def checkpoint_key(trace: list[Step], index: int) -> CheckpointKey | None:
    """The short name of the checkpoint of step `index`, the same across versions and transports.

    Not its action index: an era-limited action that asks the same question in the other era
    counts as already answered too.
    """
    key = _asks(trace[index])
    if not key:
        return None
    nth = sum(1 for s in trace[:index] if _asks(s) == key)
    return key if nth == 0 else f"{key}-{nth}"


def parse_answers(raw: Any, limit: int = 64) -> dict[CheckpointKey, int]:
    """`key:choice,key:choice` from a socket URL (the answers the browser remembers).

    Anything malformed is skipped, not refused: a stale or edited entry must not cost the others.
    Whether a key belongs to this scenario and a choice is in range is checked where it is used.
    """
    answers: dict[CheckpointKey, int] = {}
    if not isinstance(raw, str):
        return answers
    for item in raw.split(",")[:limit]:
        key, _, choice = item.partition(":")
        if _KEY.fullmatch(key) and choice.isdigit() and len(choice) <= 3:
            answers[key] = int(choice)
    return answers
