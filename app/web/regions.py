"""What a page shows, as keys, and the smallest change that takes a page from one state to another.

A page is a list of regions, each an element with a stable id (`#counter`, `#panel-transport`).
A region has a `key`: the inputs of its frame reduced to a value, so two equal keys draw the
same markup. Inside, it may have parts, elements with their own ids and keys: the Transport
log's entries, the timeline's marks, the overview's actors and packet. A change is then decided
from keys alone, never by reading HTML:

- a region whose key changed (or that the page lacks) is sent whole;
- else each part whose key changed is sent alone and swapped by its id;
- a region's items (its list: log entries, console lines) that are new at the end are appended
  into the region's list, and items gone from the end are deleted; a list that changed in any
  other way (a jump to another trace) sends the region whole;
- a part inside another part or item (`parent`, e.g. a request's "answered at step N" in its
  log entry) travels with its parent when the parent is new or sent again, and alone when only
  it changed; a parent's key covers its own markup, not its children's.

A page displays one of the overview's two pictures (wide or tall, by the screen's shape); when it
says which, `unseen` leaves the other's parts out, and the page asks for the overview whole when it
switches. `diff` returns the operations; app.web.draw turns them into the HTML of one message.
Nothing here knows a template, so the same rules serve the viewer, the classroom and the watch page.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Part:
    """An element of a region with its own id and key."""

    id: str
    key: Hashable
    item: bool = False  # one entry of the region's list (appended when new, deleted when gone)
    parent: str = ""  # the item this part sits in, if any


@dataclass(frozen=True)
class Region:
    """A region of the page: its id, the key of its frame, and its parts in page order."""

    id: str
    key: Hashable
    parts: tuple[Part, ...] = ()


Layout = Mapping[str, Region]  # what a page shows: region id → region, in page order


@dataclass(frozen=True)
class Op:
    """One thing a message does: send a region whole, swap a part, append items, delete one."""

    kind: Literal["whole", "part", "append", "delete"]
    region: str
    parts: tuple[str, ...] = ()


def _items(region: Region) -> list[str]:
    return [p.id for p in region.parts if p.item]


def _region_ops(old: Region, new: Region) -> list[Op] | None:
    """The ops that take `old` to `new` part by part, or None when it must go whole."""
    was, now = _items(old), _items(new)
    if was != now[: len(was)] and now != was[: len(now)]:
        return None  # the list was reordered or replaced, not grown or cut at its end
    before = {p.id: p for p in old.parts}
    parent = {p.id: p.parent for p in new.parts}
    added = set(now[len(was) :])
    drawn = set(added)  # parts whose markup this message carries, children included
    ops = [Op("delete", new.id, (pid,)) for pid in was[len(now) :]]
    for part in new.parts:
        if part.id in drawn:
            continue  # a new item: appended below
        up = part.parent
        while up and up not in drawn:
            up = parent.get(up, "")
        if up:
            drawn.add(part.id)
            continue  # drawn inside a new item, or inside a part sent again
        prior = before.get(part.id)
        if prior is None:
            return None  # a part the page lacks outside any new item: redraw the frame
        if prior.key != part.key:
            ops.append(Op("part", new.id, (part.id,)))
            drawn.add(part.id)
    if added:
        ops.append(Op("append", new.id, tuple(now[len(was) :])))
    return ops


def diff(before: Layout | None, after: Layout) -> list[Op]:
    """What a page showing `before` (None: nothing known) needs to show `after`."""
    ops: list[Op] = []
    for rid, region in after.items():
        old = before.get(rid) if before is not None else None
        if old is None or old.key != region.key:
            ops.append(Op("whole", rid))
            continue
        part_ops = _region_ops(old, region)
        ops.extend([Op("whole", rid)] if part_ops is None else part_ops)
    return ops


def unseen(ops: list[Op], hidden: tuple[str, ...]) -> list[Op]:
    """`ops` without the parts whose ids start with one of `hidden`: what the page does not
    display (the overview's other picture) need not travel; a region sent whole keeps them."""
    if not hidden:
        return ops
    return [op for op in ops if op.kind != "part" or not op.parts[0].startswith(hidden)]
