"""Narration for each step in English, Chinese and Russian, and the agent's console lines.

The runner names a phrase and its parameters; the phrase texts live in phrases.yaml. Some client
events add a second sentence (the cache swap, a queued refresh, a retried call). Lists are joined
the way each language writes them, counts take their plural form, and empty lists are left out.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

import yaml

from app.mcp import events as ev
from app.mcp import jsonrpc, versions
from app.mcp.client import MCPClient
from app.mcp.events import Event
from app.mcp.jsonrpc import Message
from app.mcp.leniency import UnknownFieldsIgnored

from . import offer_narration
from .step import LANGUAGES, Text, in_language

_BOOL = {"en": ("true", "false"), "zh": ("true", "false"), "ru": ("true", "false")}
# How each language joins a list: "a, b and c", "a、b 和 c", "a, b и c".
_LIST_JOIN = {"en": (", ", " and "), "zh": ("、", " 和 "), "ru": (", ", " и ")}

# Events that add a sentence after the step's own phrase, and the phrase they use.
_FOLLOW_UPS: dict[type[Event], str] = {
    ev.Published: "ev.published",
    ev.GatherDiscarded: "ev.gather-discarded",
    ev.CacheExpired: "ev.cache-expired",
    ev.RepeatedCursor: "ev.repeated-cursor",
    ev.PageCap: "ev.page-cap",
    ev.CallRetry: "ev.call-retry",
    ev.CallAbandoned: "ev.call-abandoned",
    ev.ToolDropped: "ev.tool-dropped",
    UnknownFieldsIgnored: "ev.unknown-fields-ignored",
}
# A gather started for one of these reasons says why, after the step's phrase.
_GATHER_REASONS = {
    "list_changed during refresh": "ev.refresh-again",
    "unknown tool": "ev.call-rediscover",
    "cursor rejected": "ev.cursor-restart",
}


def _follow_up(event: Event) -> str | None:
    if isinstance(event, ev.GatherStarted):
        return _GATHER_REASONS.get(event.reason)
    if isinstance(event, ev.StaleResponse) and event.cancelled:
        return "ev.cancelled-answer"
    if isinstance(event, ev.CacheExpired) and len(event.expired) < event.pages:
        return "ev.cache-expired-pages"  # some pages are still fresh: only the others go out
    return _FOLLOW_UPS.get(type(event))


@cache
def phrases() -> dict[str, Any]:
    text = resources.files("app.engine").joinpath("phrases.yaml").read_text("utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def plural_category(lang: str, n: float) -> str:
    """The CLDR plural category of n: English one/other, Russian one/few/many, Chinese other."""
    if lang == "zh":
        return "other"
    if n != int(n):
        return "other" if lang == "en" else "few"  # 1.5 tools, 1,5 инструмента
    n = abs(int(n))
    if lang == "en":
        return "one" if n == 1 else "other"
    if n % 10 == 1 and n % 100 != 11:
        return "one"
    if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14):
        return "few"
    return "many"


def _number(value: Any, lang: str) -> str:
    text = str(value)
    return text.replace(".", ",") if lang == "ru" else text


class _Formatter(string.Formatter):
    """`{count:tool}` writes the number with its noun in the right plural form ("1 tool",
    "2 инструмента", "2 个工具"), from the `nouns` table of phrases.yaml."""

    def __init__(self, lang: str):
        self.lang = lang

    def format_field(self, value: Any, format_spec: str) -> str:
        if not format_spec:
            return str(value)
        forms = phrases()["nouns"][format_spec][self.lang]
        number = float(str(value).replace(",", "."))
        if isinstance(forms, str):  # Chinese: a measure word and the noun
            return f"{_number(value, self.lang)} {forms}"
        word = forms.get(plural_category(self.lang, number)) or forms["other"]
        return f"{_number(value, self.lang)} {word}"


def join_list(items: list[Any] | tuple[Any, ...], lang: str) -> str:
    """Items as a person writes them: "a", "a and b", "a, b and c" (、 and 和 in Chinese)."""
    words = [str(i) for i in items]
    comma, last = _LIST_JOIN[lang]
    if len(words) <= 1:
        return "".join(words)
    return comma.join(words[:-1]) + last + words[-1]


def _format_value(value: Any, lang: str) -> str:
    if isinstance(value, bool):
        return _BOOL[lang][0 if value else 1]
    if isinstance(value, list | tuple):
        return join_list(value, lang)
    if value is None:
        return ""
    return str(value)


def _template(entry: Any, lang: str, params: dict[str, Any]) -> str:
    """A phrase's text in one language; a mapping of plural categories picks by `n`."""
    text = entry.get(lang) or entry["en"]
    if isinstance(text, dict):
        n = next((params[k] for k in ("n", "count", "tools", "seconds") if k in params), 0)
        if n == 0 and "zero" in text:
            return str(text["zero"])
        return str(text.get(plural_category(lang, float(n))) or text["other"])
    return str(text)


def _changes(params: dict[str, Any], lang: str) -> str:
    """ "search_invoices was added and list_orders was removed": the non-empty parts only."""
    parts = []
    for what in ("added", "removed", "changed"):
        names = params.get(what) or []
        if names:
            entry = phrases()[f"delta.{what}"]
            values = {"names": join_list(names, lang), "n": len(names)}
            parts.append(_template(entry, lang, values).format(**values))
    if not parts:
        return _template(phrases()["delta.none"], lang, {})
    return "，".join(parts) if lang == "zh" else join_list(parts, lang)


def _fill(key: str, params: dict[str, Any]) -> Text:
    entry = phrases()[key]
    out = {}
    for lang in LANGUAGES:
        template = _template(entry, lang, params)
        values = {k: _format_value(v, lang) for k, v in params.items()}
        if "{changes}" in template:
            values["changes"] = _changes(params, lang)
        try:
            out[lang] = _Formatter(lang).format(template, **values)
        except (KeyError, IndexError) as exc:
            raise KeyError(f"phrase {key} ({lang}) needs {exc}") from None
    return _as_text(out)


def _as_text(by_lang: dict[str, str]) -> Text:
    return {"en": by_lang["en"], "zh": by_lang["zh"], "ru": by_lang["ru"]}


def text(key: str, params: dict[str, Any] | None = None) -> Text:
    """One phrase of phrases.yaml in every language (a console line, a host message)."""
    return _fill(key, params or {})


def render(key: str, params: dict[str, Any], events: list[Event]) -> Text:
    """The step's phrase, then a sentence for each notable client event."""
    text = _fill(key, params)
    for event in events:
        follow = _follow_up(event)
        if follow is None:
            continue
        detail = event.detail
        if follow == "ev.published" and detail.get("reused"):
            follow += "-reused"
        elif follow == "ev.published":
            # a one-page list needs no page count: the page phrase already said "single page"
            follow += "-first" if _all_new(detail) else ""
            follow += "-single" if detail.get("pages") == 1 else ""
        if follow == "ev.cache-expired-pages":
            detail = {**detail, "n": len(detail["expired"])}
        extra = _fill(follow, {**params, **detail})
        text = _as_text({lang: _joined(text, extra, lang) for lang in LANGUAGES})
    return text


def _joined(first: Text, second: Text, lang: str) -> str:
    """Two sentences in one language: zh runs on with no space, en and ru after one."""
    a, b = in_language(first, lang), in_language(second, lang)
    return a + b if lang == "zh" else f"{a} {b}"


def _all_new(published: dict[str, Any]) -> bool:
    """The first list a client publishes: every tool is new, so there is nothing to compare."""
    added = published.get("added") or []
    return len(added) == published.get("count") and not (
        published.get("removed") or published.get("changed")
    )


def for_client_message(message: Message, client: MCPClient, sid: str) -> tuple[str, dict[str, Any]]:
    found = offer_narration.client_phrase(message, client, sid)  # resources and prompts
    if found is not None:
        return found
    method = message.get("method")
    params = message.get("params") or {}
    base: dict[str, Any] = {"server": sid, "method": method, "version": client.version}
    if method == "initialize":
        return "msg.initialize", {**base, "version": params.get("protocolVersion")}
    if method == "notifications/initialized":
        return "msg.initialized", base
    if method == "server/discover":
        return "msg.discover", base
    if method == "subscriptions/listen":
        return "msg.listen", base
    if method == "notifications/cancelled":
        cancelled = client.requests.get(params.get("requestId"))
        generation = cancelled.generation if cancelled else None
        return "msg.cancelled", {**base, "id": params.get("requestId"), "generation": generation}
    # The runner narrates a request before its answer arrives: the client still tracks it.
    if "id" in message and client.requests.is_manual(message["id"]):
        return "msg.manual", base
    if method == "tools/list":
        return _list_request(message, client, base)
    if method == "tools/call":
        return "msg.call", {**base, "tool": params.get("name"), "id": message.get("id")}
    return "msg.other", base


def _list_request(
    message: Message, client: MCPClient, base: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """Which gather and page a tools/list asks for, so that repeated gathers read apart."""
    pending = client.requests.get(message["id"]) if "id" in message else None
    generation = pending.generation if pending else None
    params = {**base, "generation": generation}
    cursor = (message.get("params") or {}).get("cursor")
    if cursor is None:
        return "msg.list-first", params
    g = client.gathering
    if g is None or g.generation != generation or cursor not in g.cursors:
        return "msg.list-cursor-abandoned", params
    return "msg.list-cursor", {**params, "page": g.cursors.index(cursor) + 2}


def for_server_message(
    message: Message,
    answers: str | None,
    events: list[Event],
    client: MCPClient,
    sid: str,
    in_gather: int | None,
) -> tuple[str, dict[str, Any]]:
    found = offer_narration.server_phrase(message, answers, events, client, sid)
    if found is not None:  # resources and prompts
        return found
    seen: dict[type[Event], Event] = {type(e): e for e in events}

    def detail(kind: type[Event]) -> dict[str, Any]:
        event = seen.get(kind)
        return event.detail if event is not None else {}

    base: dict[str, Any] = {
        "server": sid,
        "method": message.get("method") or answers,
        "version": client.version,
    }
    method = message.get("method")
    if method == "notifications/tools/list_changed":
        if ev.ListChangedIgnored in seen:
            return "note.list-changed-ignored", {**base, "generation": client.cache.generation}
        if ev.RefreshQueued in seen:
            return "note.list-changed-gathering", {**base, "generation": in_gather}
        return "note.list-changed", {**base, "generation": client.cache.generation}
    if method == "notifications/subscriptions/acknowledged":
        sub = ((message.get("params") or {}).get("_meta") or {}).get(versions.META_SUBSCRIPTION_ID)
        return "ack.listen", {**base, "id": sub}
    if method is not None:
        return "note.other", base
    if ev.ManualResult in seen:
        return "res.manual", base
    if ev.ManualError in seen:
        return "err.manual", {**base, "code": detail(ev.ManualError).get("code")}
    error = message.get("error")
    if error is not None:
        code = error.get("code")
        if answers == "server/discover" and ev.FallbackLegacy in seen:
            return "err.discover-legacy", {**base, "code": code}
        if answers == "server/discover" and ev.ModernRefused in seen:
            return "err.discover-modern", {**base, "code": code}
        if answers == "server/discover" and code == jsonrpc.UNSUPPORTED_PROTOCOL_VERSION:
            data = error.get("data") or {}
            key = "err.version-none" if ev.VersionRefused in seen else "err.version"
            return key, {
                **base,
                "requested": data.get("requested"),
                "offered": data.get("supported"),
            }
        if answers == "tools/list" and code == jsonrpc.INVALID_PARAMS:
            return "err.cursor", base
        if answers == "tools/call" and ev.CallArgumentsInvalid in seen:
            return "err.call-arguments", {**base, "tool": detail(ev.CallRejected).get("name")}
        if answers == "tools/call" and ev.CallRejected in seen and code == jsonrpc.INVALID_PARAMS:
            return "err.call-unknown", {**base, "tool": detail(ev.CallRejected).get("name")}
        return "err.other", {**base, "code": code, "message": error.get("message")}
    result = message.get("result") or {}
    if answers == "initialize":
        if ev.VersionRefused in seen:
            return "res.initialize-refused", {**base, **detail(ev.VersionRefused)}
        listed = bool((result.get("capabilities", {}).get("tools") or {}).get("listChanged"))
        if ev.CounterOffer in seen:
            return "res.initialize-counter", {**base, **detail(ev.CounterOffer)}
        return "res.initialize", {**base, "listChanged": listed}
    if answers == "server/discover":
        listed = bool((result.get("capabilities", {}).get("tools") or {}).get("listChanged"))
        return "res.discover", {
            **base,
            "versions": result.get("supportedVersions"),
            "listChanged": listed,
        }
    if answers == "tools/list":
        if ev.StaleResponse in seen:
            return "res.page-stale", {**base, **detail(ev.StaleResponse)}
        page = detail(ev.PageReceived)
        names = page.get("names", [])
        params = {
            **base,
            "page": page.get("page"),
            "generation": page.get("generation"),
            "count": len(names),
            "names": names,
        }
        reused = [e for e in events if isinstance(e, ev.PageReused)]
        if reused and "nextCursor" in result:
            # The pages after this one are still fresh in the cache: no request follows.
            left = min(e.ttl_left_ms for e in reused)
            return "res.page-reused", {
                **params,
                "n": len(reused),
                "reusedPages": [e.page for e in reused],
                "ttlLeft": f"{left / 1000:g}",
            }
        if "nextCursor" in result:
            return "res.page-more", params
        return ("res.page-only" if params["page"] == 1 else "res.page-last"), params
    if answers == "tools/call":
        name = next((e.detail.get("name") for e in events if "name" in e.detail), None)
        if ev.CallToolError in seen:
            invalid = _INVALID.match(detail(ev.CallToolError).get("text", ""))
            if invalid:  # the lab server's report of arguments that break the inputSchema
                return "res.call-invalid-args", {**base, "tool": name}
            return "res.call-iserror", {**base, "tool": name}
        checked = detail(ev.StructuredChecked)
        if checked and checked.get("problem") is None:
            return "res.call-structured", {**base, "tool": name}
        if checked:
            return "res.call-structured-bad", {**base, "tool": name, "problem": checked["problem"]}
        text = detail(ev.CallOk).get("text", "")
        ran = _RAN.match(text)
        if ran:  # the lab server's own report, told in the student's language
            args = "" if ran["args"] == "no arguments" else ran["args"]
            return "res.call-ran", {
                **base,
                "tool": name,
                "args": args,
                "call": ran["n"],
                "n": int(bool(args)),
            }
        return "res.call-ok", {**base, "tool": name, "text": text}
    return "res.other", base


# How the lab's servers word a successful call ("read_order ran with order_id=7 (call 2)").
_RAN = re.compile(r"^\S+ ran with (?P<args>.+) \(call (?P<n>\d+)\)$")
# ... and arguments that break a tool's inputSchema ("Invalid arguments for x: ...").
_INVALID = re.compile(r"^Invalid arguments for \S+: ")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# Client events the agent's console reports, and what each line needs from the event; the
# line's phrase is console.<the event's kind> in phrases.yaml.
_CONSOLE_PARAMS: dict[type[Event], Callable[[Any], dict[str, Any]]] = {
    ev.Negotiated: lambda e: {"version": e.version},
    ev.Discovered: lambda e: {"versions": _json(e.versions)},
    ev.CounterOffer: lambda e: {"offered": e.offered, "requested": e.requested},
    ev.FallbackLegacy: lambda e: {"code": e.code},
    ev.ModernRefused: lambda e: {"code": e.code},
    ev.Published: lambda e: {
        "generation": e.generation,
        "count": e.count,
        "added": e.added,
        "removed": e.removed,
        "changed": e.changed,
    },
    ev.CacheHit: lambda e: {"generation": e.generation},
    ev.ListChanged: lambda e: {},
    ev.ListChangedIgnored: lambda e: {},
    ev.RefreshQueued: lambda e: {"generation": e.generation},
    ev.StaleResponse: lambda e: {"generation": e.generation},
    ev.RepeatedCursor: lambda e: {},
    ev.CallOk: lambda e: {"name": e.name, "text": e.text},
    ev.CallToolError: lambda e: {"name": e.name, "text": e.text},
    ev.CallRejected: lambda e: {"name": e.name, "code": e.code, "message": e.message},
    ev.CallRetry: lambda e: {"name": e.name},
    ev.ToolDropped: lambda e: {"name": e.name, "reason": e.reason},
    ev.CallAbandoned: lambda e: {"name": e.name},
    ev.ListenAcknowledged: lambda e: {"notifications": _json(sorted(e.notifications))},
    ev.RequestCancelled: lambda e: {"id": e.id, "method": e.method},
    ev.CallArgumentsInvalid: lambda e: {"name": e.name},
    ev.VersionRefused: lambda e: {"offered": e.offered},
}


def console_line(sid: str, event: Event) -> Text | None:
    """What the agent's console prints for a client event, in every language."""
    make = _CONSOLE_PARAMS.get(type(event)) or offer_narration.CONSOLE_PARAMS.get(type(event))
    if make is None:
        return None
    key = event.kind
    if isinstance(event, ev.CallOk) and _RAN.match(event.text):
        key, params = "call-ran", {"name": event.name, **_ran(event.text)}
    else:
        params = make(event)
    return text(f"console.{key}", {"server": sid, **params})


def _ran(report: Any) -> dict[str, str]:
    ran = _RAN.match(str(report))
    return {"args": ran["args"], "call": ran["n"]} if ran else {}
