"""The "What if?" panel of the viewer: a scenario's world changed, interventions at a step,
challenges with goals (docs/WHATIF.md, the engine's half in app.engine.whatif).

`state` runs a what-if and shows it under an id of its own, `forms` reads the panel's forms
into changes, `panel` gathers what the panel shows, `render` draws it, `routes` serves the
pages (the viewer of a `whatif=` link, a move, undo, Save as scenario).
"""

from __future__ import annotations

from app.web.whatif.routes import bp

__all__ = ["bp"]
