"""The panel's forms read into what-if changes (docs/WHATIF.md), trusting nothing.

Each form names its kind (`change=pageSize`) and the fields of that kind; this module only
turns text into the JSON types the kind's schema wants (a whole number, true/false, a list of
numbers, a parsed inputSchema), and bounds every text on the way. Whether the values are in
range, the names well formed and the move possible is the engine's to say (`try_change`), in
the student's language: a form field that cannot even be read gets the same sentences
(`WhatIfError` with the change's number and the field's name).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.bounded_json import JsonRefused, read_json
from app.engine.whatif import INTERVENTIONS, KINDS, Change, WhatIfError

MAX_TEXT = 2000  # characters of any one field (an inputSchema is at most 2,000 as JSON)
MAX_LIST = 20  # numbers in a list field (pageTtl)

Args = Mapping[str, Any]


class Reader:
    """Fields of one form for change number `n` of kind `kind`."""

    def __init__(self, args: Args, kind: str, n: int) -> None:
        self.args, self.kind, self.n = args, kind, n

    def _raw(self, name: str) -> str:
        value = self.args.get(name)
        if value is None or str(value).strip() == "":
            raise WhatIfError("missing", n=self.n, kind=self.kind, field=name)
        text = str(value).strip()
        if len(text) > MAX_TEXT:
            raise WhatIfError("size", n=self.n, kind=self.kind, field=name)
        return text

    def text(self, name: str) -> str:
        return self._raw(name)

    def number(self, name: str) -> int | str:
        """A whole number, or the text itself: the schema then says which range it wants."""
        text = self._raw(name)
        digits = text.lstrip("-")
        return int(text) if digits.isdigit() and len(digits) <= 12 else text

    def flag(self, name: str) -> bool:
        text = self._raw(name)
        if text not in ("true", "false"):
            raise WhatIfError("field", n=self.n, kind=self.kind, field=name)
        return text == "true"

    def numbers(self, name: str) -> list[int | str]:
        items = [item.strip() for item in self._raw(name).replace(";", ",").split(",")]
        if len(items) > MAX_LIST:
            raise WhatIfError("size", n=self.n, kind=self.kind, field=name)
        return [int(i) if i.isdigit() and len(i) <= 12 else i for i in items]

    def json(self, name: str, optional: bool = False) -> Any:
        if optional and not str(self.args.get(name) or "").strip():
            return None
        try:
            return read_json(self._raw(name), MAX_TEXT * 4, depth=16)
        except JsonRefused:
            raise WhatIfError("field", n=self.n, kind=self.kind, field=name) from None

    def tool(self) -> dict[str, Any]:
        tool: dict[str, Any] = {"name": self.text("tool")}
        description = str(self.args.get("description") or "").strip()
        if description:
            tool["description"] = description[:MAX_TEXT]
        schema = self.json("inputSchema", optional=True)
        if schema is not None:
            tool["inputSchema"] = schema
        return tool


def _fields(r: Reader) -> dict[str, Any]:
    """The kind's own fields (`change` and `after` are added by `read`)."""
    k = r.kind
    server: Callable[[], str] = lambda: r.text("server")  # noqa: E731
    if k == "pageSize":
        return {"server": server(), "value": r.number("value")}
    if k == "ttl":
        return {"server": server(), "ms": r.number("ms")}
    if k == "pageTtl":
        return {"server": server(), "ms": r.numbers("ms")}
    if k == "listChanged":
        return {"server": server(), "value": r.flag("value")}
    if k in ("addTool", "addToolNow"):
        return {"server": server(), "tool": r.tool()}
    if k in ("removeTool", "removeToolNow"):
        return {"server": server(), "name": r.text("name")}
    if k == "renameTool":
        return {"server": server(), "name": r.text("name"), "to": r.text("to")}
    if k in ("toolSchema", "toolSchemaNow"):
        return {"server": server(), "name": r.text("name"), "inputSchema": r.json("inputSchema")}
    if k == "twinServer":
        return {"name": r.text("name"), "server": server()}
    if k in ("protocolVersion", "transport"):
        return {"value": r.text("value")}
    if k in ("cache", "refreshOnListChanged", "rediscover"):
        return {"value": r.flag("value")}
    if k == "poll":
        return {"seconds": r.number("seconds")}
    if k == "restartServer":
        return {"server": server()}
    if k == "wait":
        return {"seconds": r.number("seconds")}
    if k == "callTool":
        arguments = r.json("arguments", optional=True)
        return {"tool": r.text("tool")} | (
            {"arguments": arguments} if arguments is not None else {}
        )
    return {}  # loseNext: nothing but `after`


def read(args: Args, n: int) -> Change:
    """The change a submitted form asks for, as change number `n` of the what-if."""
    kind = str(args.get("change") or "")[:40]
    if kind not in KINDS:
        raise WhatIfError("unknown-change", n=n, kind=kind or "?")
    r = Reader(args, kind, n)
    change: dict[str, Any] = {"change": kind}
    if kind in INTERVENTIONS:
        change["after"] = r.number("after")
    return change | _fields(r)
