"""Save as scenario: a what-if written as a scenario file that `mcp-lab validate` accepts.

The file is the what-if's draft (the base with the changes applied, interventions as
actions) under the one version and transport it ran in. Its title and summary say what was
changed, in en, zh and ru; `whatIf` names the base and carries the link, so the file can be
opened as a what-if again. The base's narration comes back on every action whose steps all
come before the first difference (there the trace is the base's); the notes that follow it
keep their text with the warning the viewer shows.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import yaml

from .. import narration
from ..step import LANGUAGES, Text, in_language
from .codec import encode
from .describe import describe
from .draft import NARRATION
from .model import WhatIfError
from .sandbox import WhatIfRun

_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


def saved_data(run: WhatIfRun, scenario_id: str | None = None) -> dict[str, Any]:
    """The scenario file's content as data (what `to_yaml` writes)."""
    sid = scenario_id or f"{run.base.id}-what-if"[:64]
    if not _ID.match(sid):
        raise WhatIfError("unreadable", f"{sid!r} is not a scenario id")
    data = copy.deepcopy(run.draft.data)
    base_script = run.base.data["script"]
    first = run.comparison.firstDifference
    done = _actions_before(run, first)
    marker = narration.text("whatif.note-written-for-base")
    for action, origin in zip(data["script"], run.draft.origins, strict=True):
        if origin is not None and origin in done:
            for key in NARRATION[:2]:  # say, sayLast: the steps they describe are unchanged
                if key in base_script[origin]:
                    action[key] = copy.deepcopy(base_script[origin][key])
        elif "note" in action and "say" in action and first is not None:
            action["say"] = _prefixed(marker, action["say"])
    changes = [describe(c) for c in run.whatif.changes]
    title = run.base.title
    out: dict[str, Any] = {
        "id": sid,
        "title": _each(lambda lang: _phrase("whatif.saved-title", lang, title=title[lang])),
        "summary": _each(lambda lang: _summary(run, changes, lang)),
        "goals": copy.deepcopy(run.base.goals),
        "topics": list(run.base.topics),
        "versions": [run.version],
        "transports": [run.transport],
        "defaultVersion": run.version,
    }
    out.update({k: v for k, v in data.items() if k not in out and k != "whatIf"})
    out["whatIf"] = {"base": run.base.id, "link": encode(run.whatif)}
    return out


def to_yaml(run: WhatIfRun, scenario_id: str | None = None) -> str:
    """The YAML text of the saved scenario (save it as <id>.yaml)."""
    text: str = yaml.safe_dump(
        saved_data(run, scenario_id), allow_unicode=True, sort_keys=False, width=100
    )
    return text


def _actions_before(run: WhatIfRun, first: int | None) -> set[int]:
    """Base script indexes whose steps all come before the first difference (all, if none)."""
    if first is None:
        return set(range(len(run.base.data["script"])))
    late = {s["action"] for s in run.trace[first:]}
    early = {s["action"] for s in run.trace[:first]}
    origins = run.draft.origins
    return {o for i, o in enumerate(origins) if o is not None and i in early and i not in late}


def _summary(run: WhatIfRun, changes: list[Text], lang: str) -> str:
    head = _phrase("whatif.saved-summary", lang, title=run.base.title[lang])
    parts = [head, *(in_language(c, lang) for c in changes)]
    return ("" if lang == "zh" else " ").join(parts)


def _phrase(key: str, lang: str, **params: Any) -> str:
    return in_language(narration.text(key, params), lang)


def _each(make: Any) -> dict[str, str]:
    return {lang: make(lang) for lang in LANGUAGES}


def _prefixed(marker: Text, say: dict[str, str]) -> dict[str, str]:
    gap = {"zh": ""}
    return {
        lang: f"{in_language(marker, lang)}{gap.get(lang, ' ')}{say[lang]}" for lang in LANGUAGES
    }
