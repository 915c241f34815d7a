"""What the lab's strict CSP would refuse, found in markup; and the scenarios that show every
kind of thing a page draws.

`inline_code` reads the start tags of HTML and lists inline code: `<style>`
elements, `style` attributes, scripts without `src` (data blocks such as application/json are
not run and not refused), event-handler attributes, `javascript:` URLs and htmx's `hx-on`
(evaluated code). The test client renders every page and step of every scenario, so this check
covers all their markup in a second; the browser (tests/test_browser_security.py) then needs
to walk only `representative` scenarios to catch what scripts do to a page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from html import unescape
from typing import Any

__all__ = ["inline_code", "representative"]

SCRIPT_TYPES = {"", "text/javascript", "module", "application/javascript"}
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data"}


# A start tag, its name and its attributes; attribute values cannot hold a raw ">" (Jinja
# escapes it), so a tag ends at the first one. Regular expressions, not html.parser: the steps
# of every scenario are 60 MB of markup, which html.parser reads in a minute.
TAG = re.compile(r"<([a-zA-Z][\w:-]*)((?:\s[^>]*)?)>")
ATTRIBUTE = re.compile(r"""\s([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?""")


def inline_code(html: str) -> list[str]:
    """Each piece of inline code in `html` that a CSP without 'unsafe-inline' refuses."""
    found: list[str] = []
    for tag in TAG.finditer(html):
        name = tag.group(1).lower()
        attributes = {
            a.group(1).lower(): unescape(a.group(2) or a.group(3) or a.group(4) or "")
            for a in ATTRIBUTE.finditer(tag.group(2))
        }
        where = tag.group()[:120]
        if name == "style":
            found.append(f"style element {where}")
        runs = attributes.get("type", "").strip().lower() in SCRIPT_TYPES
        if name == "script" and not attributes.get("src") and runs:
            found.append(f"inline script {where}")
        for attribute, value in attributes.items():
            if attribute == "style":
                found.append(f"style attribute {where}")
            elif attribute.startswith(("on", "hx-on")):
                found.append(f"handler {attribute} {where}")
            elif attribute in URL_ATTRIBUTES and value.strip().lower().startswith("javascript:"):
                found.append(f"javascript: URL {where}")
    return found


def _features(scenario: Any, trace: Iterable[dict[str, Any]]) -> set[tuple[str, object]]:
    """What a scenario makes a page draw or do: step kinds, the transport, the kinds of actors
    and how many servers, questions, and the top-level keys of its file (a challenge...)."""
    steps = list(trace)
    found: set[tuple[str, object]] = {("kind", s["kind"]) for s in steps}
    ends = {str(s.get(end) or "") for s in steps for end in ("from", "to")} - {""}
    found |= {("actor", end.split(":")[0]) for end in ends}
    found.add(("servers", sum(end.startswith("server:") for end in ends)))
    found |= {("transport", s.get("transport")) for s in steps[:1]}
    found |= {("key", key) for key in scenario.data}
    if any(s.get("checkpoint") for s in steps):
        found.add(("question", True))
    return found


def representative(app: Any) -> list[str]:
    """The fewest scenarios (shortest first among equals) that between them show every feature
    of the shipped ones, each in its default version and transport: a new kind of step, actor
    or question joins the set by itself."""
    from app.web.render import open_viewer

    lab = app.extensions["lab"]
    features: dict[str, set[tuple[str, object]]] = {}
    steps: dict[str, int] = {}
    for sid in sorted(lab.library.scenarios):
        scenario = lab.scenario(sid)
        viewer = open_viewer(scenario, {}, "en")
        trace = lab.trace(sid, viewer.version, viewer.transport)
        features[sid] = _features(scenario, trace)
        steps[sid] = len(trace)
    missing = set().union(*features.values())
    chosen: list[str] = []
    while missing:
        best = max(sorted(features), key=lambda s: (len(features[s] & missing), -steps[s]))
        chosen.append(best)
        missing -= features[best]
    return chosen
