"""Drawing regions: a region's inputs become its key and its markup, each markup drawn once.

A region builder (app.web.story, app.web.panels, app.web.overview) describes a region of one
scene as a `Draft`: the region's template and inputs, and each part's template and inputs.
`Sketch` builds one. A key is a digest of the template, the scene's `base` (scenario, version,
transport, language: what every link and label of the scene depends on) and the inputs, so the
inputs must be everything the template prints besides `base` (a test renders two scenes with
equal keys and compares their markup). Markup is cached in the Lab by key, so every socket that
shows the same part shares one string.

Three targets: "page" (a first paint, or /scenario/<id>/step) marks the log entry and timeline
mark of the step on show as current; "socket" (a viewer's messages after the first paint)
leaves "current" to the page's script, which follows #status, so the entry and mark of the
previous step need not travel again; "room" (a classroom's messages, written to every student)
also sends bulky bodies that do not change (a message's JSON and bytes, the tools array, term
definitions, a large Transform table) as placeholders the page loads when it shows them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from flask import current_app
from markupsafe import Markup, escape

from app.web.regions import Layout, Op, Part, Region

Target = Literal["page", "socket", "room"]

# Over the socket, a part that can be loaded by itself and is larger than this travels as a
# placeholder (a table of eight cached tools is kilobytes a student on another view never reads).
LAZY = 600


def digest(*values: Any) -> str:
    """A short, stable key for JSON-like values (dict order and tuples do not matter)."""
    text = json.dumps(values, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


_PLAIN = (str, int, float, bool, type(None))


def key_of(template: str, base: Hashable, pid: str, inputs: Mapping[str, Any]) -> Hashable:
    """A part's key: its inputs as a tuple when they are plain values (most parts: a mark, a
    link, a counter), else a digest of them (a table's rows), which is slower to make."""
    if all(isinstance(v, _PLAIN) for v in inputs.values()):
        return (template, base, pid, tuple(sorted(inputs.items())))
    return digest(template, base, pid, inputs)


def _render(template: str, context: dict[str, Any]) -> str:
    """A template of the app drawn with this context only: a region's markup depends on its
    inputs and the scene, never on the request (no request, session or g in these templates)."""
    return current_app.jinja_env.get_template(template).render(context)


@dataclass
class Piece:
    """How to draw one part: its template and inputs; `at` is the step whose page marks it
    current (a log entry, a timeline mark)."""

    template: str
    inputs: dict[str, Any]
    at: int | None = None
    # What the template reads besides its inputs, covered by them through a digest (a step's
    # message and bytes, by the digest of its log entry): kept out of the key to keep it cheap.
    more: Mapping[str, Any] = field(default_factory=dict)
    # Where the page can load this part by itself (app.web.bodies), as a path under the trace's
    # address (#trace's data-bodies): in a room's messages, a part larger than LAZY bytes
    # travels as a placeholder naming it (data-load), which static/js/viewer.js loads in sight.
    load: str | None = None
    tag: str = "div"  # the placeholder's tag: the part's own (a console line is a span)
    # How large its markup may be before a room's message leaves it to a placeholder: 0 for a
    # part of a view that is seldom in sight (behind a tab on a phone, below the others on a
    # desk), which most followers would never look at.
    lazy: int = LAZY


@dataclass
class Draft:
    """One region of a scene: its keys (`region`) and how to draw it whole or part by part."""

    region: Region
    template: str
    inputs: dict[str, Any]
    pieces: dict[str, Piece] = field(default_factory=dict)
    # Where new items go: the tag that wraps them and the list they are appended to.
    items: tuple[str, str] = ("", "")
    cached: bool = True  # False for a region only one connection shows (a poll's counts)
    by_id: dict[str, Part] = field(init=False, repr=False)
    children: dict[str, list[Part]] = field(init=False, repr=False)  # "" holds the top level

    def __post_init__(self) -> None:
        self.by_id = {p.id: p for p in self.region.parts}
        self.children = {}
        for p in self.region.parts:
            self.children.setdefault(p.parent, []).append(p)


class Sketch:
    """Builds a Draft: `part` adds a part, `done` returns the draft with every key made."""

    def __init__(self, rid: str, template: str, base: Hashable, **inputs: Any) -> None:
        self.rid, self.template, self.base, self.inputs = rid, template, base, inputs
        self.parts: list[Part] = []
        self.pieces: dict[str, Piece] = {}

    def part(
        self,
        pid: str,
        template: str,
        *,
        at: int | None = None,
        item: bool = False,
        parent: str = "",
        more: Mapping[str, Any] | None = None,
        load: str | None = None,
        tag: str = "div",
        lazy: int = LAZY,
        **inputs: Any,
    ) -> None:
        self.parts.append(Part(pid, key_of(template, self.base, pid, inputs), item, parent))
        self.pieces[pid] = Piece(template, inputs, at, more or {}, load, tag, lazy)

    def done(self, items: tuple[str, str] = ("", ""), cached: bool = True) -> Draft:
        key = digest(self.template, self.base, self.inputs)
        region = Region(self.rid, key, tuple(self.parts))
        return Draft(region, self.template, self.inputs, self.pieces, items, cached)


def layout(drafts: Iterable[Draft]) -> Layout:
    """What a page drawn from these drafts shows (the keys `regions.diff` compares)."""
    return {d.region.id: d.region for d in drafts}


Cache = Callable[[Hashable, Callable[[], str]], str]


class Canvas:
    """Draws the regions of one scene for one target, through the Lab's markup cache.

    `env` is what every template of the scene may read besides its inputs: `lang`, `v` (the
    viewer its links are made for, render.lab_url), `scenario`, `step` (the step on show).
    Call inside `force_locale(env["lang"])`.
    """

    def __init__(self, cache: Cache, env: Mapping[str, Any], target: Target) -> None:
        self.cache, self.env, self.target = cache, env, target

    def _current(self, piece: Piece) -> bool:
        return self.target == "page" and piece.at is not None and piece.at == self.env["step"]

    def markup_key(self, draft: Draft, part: Part) -> Hashable:
        """The cache key of a part's markup: its key, the target, and its children's."""
        details = tuple(self.markup_key(draft, p) for p in draft.children.get(part.id, ()))
        return ("part", part.key, self.target, self._current(draft.pieces[part.id]), details)

    def part(self, draft: Draft, pid: str) -> str:
        part, piece = draft.by_id[pid], draft.pieces[pid]

        def render() -> str:
            details = {p.id: Markup(self.part(draft, p.id)) for p in draft.children.get(pid, ())}
            context = {
                **self.env,
                **piece.more,
                **piece.inputs,
                "part_id": pid,
                "target": self.target,
                "current": self._current(piece),
                "parts": details,
            }
            return _render(piece.template, context)

        def maybe_lazy() -> str:
            html = render()
            if self.target == "room" and piece.load and len(html) > piece.lazy:
                return _placeholder(pid, piece.load, piece.tag)
            return html

        if not draft.cached:
            return maybe_lazy()
        return self.cache(self.markup_key(draft, part), maybe_lazy)

    def whole(self, draft: Draft) -> str:
        top = draft.children.get("", [])

        def render() -> str:
            parts = {p.id: Markup(self.part(draft, p.id)) for p in top}
            context = {**self.env, **draft.inputs, "target": self.target, "parts": parts}
            return _render(draft.template, context)

        if not draft.cached:
            return render()
        keys = tuple(self.markup_key(draft, p) for p in top)
        return self.cache(("whole", draft.region.key, self.target, keys), render)

    def message(self, ops: Iterable[Op], drafts: Mapping[str, Draft]) -> str:
        """The HTML of one message that applies `ops` (see app.web.regions), in order."""
        out: list[str] = []
        for op in ops:
            draft = drafts[op.region]
            if op.kind == "whole":
                out.append(self.whole(draft))
            elif op.kind == "part":
                out.extend(self.part(draft, pid) for pid in op.parts)
            elif op.kind == "append":
                tag, into = draft.items
                body = "".join(self.part(draft, pid) for pid in op.parts)
                out.append(f'<{tag} hx-swap-oob="beforeend:{into}">{body}</{tag}>')
            else:
                tag = _item_tag(draft)
                out.extend(f'<{tag} id="{pid}" hx-swap-oob="delete"></{tag}>' for pid in op.parts)
        return "".join(out)


def _placeholder(pid: str, load: str, tag: str) -> str:
    """A part that the page loads in its own place when it comes into sight (viewer.js)."""
    return f'<{tag} id="{pid}" class="pending" data-load="{escape(load)}"></{tag}>'


def _item_tag(draft: Draft) -> str:
    """The tag of a list's items: li in an ol or ul, span elsewhere (a console's lines)."""
    return "li" if draft.items[0] in ("ol", "ul") else "span"
