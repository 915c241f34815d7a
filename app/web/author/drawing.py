"""The preview's four views, drawn by the viewer's own region renderer.

A previewed text is not a scenario of the library, so its trace is shown the way a recording
is (docs/ARCHITECTURE.md, Regions): under an id of its own, `draft-<digest>`, in a Lab that
belongs to the editor (`app.extensions["author-lab"]`), whose `recorded` holds the last few
drafts. The panels and the narration of one step are drawn whole, as a first paint draws them;
the stepper is the editor's (its buttons post the text again, so nothing lives on the server
that the page cannot send back).
"""

from __future__ import annotations

import re
from typing import Any

from flask import current_app
from markupsafe import Markup

from app.engine.authoring import Preview
from app.web.author.checking import digest
from app.web.lab import Lab
from app.web.pages import PANELS, whole
from app.web.recorded import Recording
from app.web.render import Viewer, scene
from app.web.scene import drafts

OUT_OF_BAND = re.compile(r' hx-swap-oob="[a-zA-Z:#.\- ]*"')  # the renderer's own attribute
KEEP = 16  # drafts kept for drawing (their markup is cached by the Lab's own bound)
REGIONS = ("narration", *PANELS)


class DraftScenario(Recording):
    """A text being written, shown as a recording is; it has no page of its own, so a link
    a view might make stays on the preview."""

    def link(self, **query: Any) -> str:
        return "#author-preview"


def author_lab() -> Lab:
    lab: Lab = current_app.extensions["author-lab"]
    return lab


def draft_of(shown: Preview, text: str) -> DraftScenario:
    """The preview of `text` as a scenario-like object, added to the editor's Lab once."""
    assert shown.scenario is not None and shown.trace is not None
    s = shown.scenario
    version, transport = shown.version or s.default_version, shown.transport or s.transports[0]
    sid = "draft-" + digest(f"{version}\n{transport}\n{text}")[:24]
    lab = author_lab()
    found = lab.recorded.get(sid)
    if isinstance(found, DraftScenario):
        return found
    made = DraftScenario(
        sid, s.title, s.summary, [version], [transport], version, list(shown.trace)
    )
    lab.add_recording(made, keep=KEEP, pinned=frozenset())
    return made


def preview_views(shown: Preview, text: str, step: int, lang: str) -> Markup:
    """The narration and the four panels of step `step` (counted from 1) of the preview."""
    lab = author_lab()
    draft = draft_of(shown, text)
    v = Viewer(draft, draft.default_version, draft.transports[0], lang, max(0, step - 1))
    v.furthest = len(draft.steps) - 1  # a preview has no questions to gate: every step is open
    s = scene(lab, v)
    regions = whole(lab, s, drafts(lab, s, REGIONS), "page")
    # A region says how a socket swaps it in; the editor swaps the whole result instead.
    return Markup(OUT_OF_BAND.sub("", "".join(regions[rid] for rid in REGIONS)))
