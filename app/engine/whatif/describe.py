"""Each change in a sentence, in en, zh and ru: the list a student undoes from, the summary of
a saved what-if. Texts live in phrases.yaml as whatif.change.<kind>; a switch (cache on or
off) names its phrase by its value. Steps are counted from 1, as the screen counts them.
"""

from __future__ import annotations

from typing import Any

from .. import narration
from ..step import Text
from .model import Change

_SWITCHES = ("cache", "refreshOnListChanged", "rediscover")


def describe(change: Change) -> Text:
    kind = str(change["change"])
    params: dict[str, Any] = {k: v for k, v in change.items() if k != "change"}
    if "after" in params:
        params["step"] = params.pop("after") + 1
    if kind in ("addTool", "addToolNow"):
        params["tool"] = change["tool"]["name"]
    elif kind in ("removeTool", "renameTool", "toolSchema", "twinServer") or kind in (
        "removeToolNow",
        "toolSchemaNow",
    ):
        params["tool"] = change["name"]
    if kind in _SWITCHES:
        kind += "-on" if change["value"] else "-off"
    elif kind == "poll" and not change["seconds"]:
        kind = "poll-off"
    if kind == "pageTtl":
        params["ms"] = list(change["ms"])
    return narration.text(f"whatif.change.{kind}", params)


def describe_all(changes: tuple[Change, ...] | list[Change]) -> list[Text]:
    return [describe(c) for c in changes]
