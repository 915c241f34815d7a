"""Narration for each step in English, Chinese and Russian, and the agent's console lines.

The runner names a phrase and its parameters; the phrase texts live in phrases.yaml. Some client
events add a second sentence (the cache swap, a queued refresh, a retried call). Lists are joined
the way each language writes them; missing values show as a dash.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import yaml

from app.mcp import versions
from app.mcp.client import Event, MCPClient
from app.mcp.jsonrpc import Message

LANGUAGES = ("en", "zh", "ru")
_LIST_SEPARATOR = {"en": ", ", "zh": "、", "ru": ", "}
_BOOL = {"en": ("true", "false"), "zh": ("true", "false"), "ru": ("true", "false")}

# Events that add a sentence after the step's own phrase, and the phrase they use.
_FOLLOW_UPS = {
    "published": "ev.published",
    "gather-discarded": "ev.gather-discarded",
    "cache-expired": "ev.cache-expired",
    "repeated-cursor": "ev.repeated-cursor",
    "page-cap": "ev.page-cap",
    "call-retry": "ev.call-retry",
    "call-abandoned": "ev.call-abandoned",
    "tool-dropped": "ev.tool-dropped",
}


@cache
def phrases() -> dict[str, dict[str, str]]:
    text = resources.files("app.engine").joinpath("phrases.yaml").read_text("utf-8")
    data: dict[str, dict[str, str]] = yaml.safe_load(text)
    return data


def _format_value(value: Any, lang: str) -> str:
    if isinstance(value, bool):
        return _BOOL[lang][0 if value else 1]
    if isinstance(value, list | tuple):
        return _LIST_SEPARATOR[lang].join(map(str, value)) if value else "—"
    if value is None or value == "":
        return "—"
    return str(value)


def _fill(key: str, params: dict[str, Any]) -> dict[str, str]:
    entry = phrases()[key]
    out = {}
    for lang in LANGUAGES:
        template = entry.get(lang) or entry["en"]
        values = {k: _format_value(v, lang) for k, v in params.items()}
        try:
            out[lang] = template.format(**values)
        except (KeyError, IndexError) as exc:
            raise KeyError(f"phrase {key} ({lang}) needs {exc}") from None
    return out


def render(key: str, params: dict[str, Any], events: list[Event]) -> dict[str, str]:
    """The step's phrase, then a sentence for each notable client event."""
    text = _fill(key, params)
    for event in events:
        follow = _FOLLOW_UPS.get(event.kind)
        if (
            event.kind == "gather-start"
            and event.detail.get("reason") == "list_changed during refresh"
        ):
            follow = "ev.refresh-again"
        elif event.kind == "gather-start" and event.detail.get("reason") == "unknown tool":
            follow = "ev.call-rediscover"
        elif event.kind == "gather-start" and event.detail.get("reason") == "cursor rejected":
            follow = "ev.cursor-restart"
        if follow is None:
            continue
        extra = _fill(follow, {**params, **event.detail})
        text = {
            lang: f"{text[lang]} {extra[lang]}" if lang != "zh" else text[lang] + extra[lang]
            for lang in LANGUAGES
        }
    return text


def for_client_message(message: Message, client: MCPClient, sid: str) -> tuple[str, dict[str, Any]]:
    method = message.get("method")
    params = message.get("params") or {}
    base: dict[str, Any] = {"server": sid, "method": method, "version": client.version}
    if "id" in message and client.method_of(message["id"]) is None and method != "initialize":
        pass
    if method == "initialize":
        return "msg.initialize", {**base, "version": params.get("protocolVersion")}
    if method == "notifications/initialized":
        return "msg.initialized", base
    if method == "server/discover":
        return "msg.discover", base
    if method == "subscriptions/listen":
        return "msg.listen", base
    manual = "id" in message and _is_manual(client, message["id"])
    if manual:
        return "msg.manual", base
    if method == "tools/list":
        return ("msg.list-cursor" if "cursor" in params else "msg.list-first"), base
    if method == "tools/call":
        return "msg.call", {**base, "tool": params.get("name")}
    return "msg.other", base


def _is_manual(client: MCPClient, request_id: Any) -> bool:
    pending = client._pending.get(request_id)  # the runner narrates before the reply arrives
    return bool(pending and pending.manual)


def for_server_message(
    message: Message,
    answers: str | None,
    events: list[Event],
    client: MCPClient,
    sid: str,
    in_gather: int | None,
) -> tuple[str, dict[str, Any]]:
    kinds = {e.kind: e.detail for e in events}
    base: dict[str, Any] = {
        "server": sid,
        "method": message.get("method") or answers,
        "version": client.version,
    }
    method = message.get("method")
    if method == "notifications/tools/list_changed":
        if "refresh-queued" in kinds:
            return "note.list-changed-gathering", {**base, "generation": in_gather}
        return "note.list-changed", base
    if method == "notifications/subscriptions/acknowledged":
        sub = ((message.get("params") or {}).get("_meta") or {}).get(versions.META_SUBSCRIPTION_ID)
        return "ack.listen", {**base, "id": sub}
    if method is not None:
        return "note.other", base
    if "manual-result" in kinds:
        return "res.manual", base
    if "manual-error" in kinds:
        return "err.manual", {**base, "code": kinds["manual-error"].get("code")}
    error = message.get("error")
    if error is not None:
        code = error.get("code")
        if answers == "server/discover" and code == -32022:
            data = error.get("data") or {}
            return "err.version", {**base, "requested": data.get("requested")}
        if answers == "server/discover":
            return "err.discover-legacy", {**base, "code": code}
        if answers == "tools/list" and code == -32602:
            return "err.cursor", base
        if answers == "tools/call" and "call-rejected" in kinds and code == -32602:
            return "err.call-unknown", {**base, "tool": kinds["call-rejected"].get("name")}
        return "err.other", {**base, "code": code, "message": error.get("message")}
    result = message.get("result") or {}
    if answers == "initialize":
        if "version-refused" in kinds:
            return "res.initialize-refused", {**base, **kinds["version-refused"]}
        listed = bool((result.get("capabilities", {}).get("tools") or {}).get("listChanged"))
        if "counter-offer" in kinds:
            return "res.initialize-counter", {**base, **kinds["counter-offer"]}
        return "res.initialize", {**base, "listChanged": listed}
    if answers == "server/discover":
        listed = bool((result.get("capabilities", {}).get("tools") or {}).get("listChanged"))
        return "res.discover", {
            **base,
            "versions": result.get("supportedVersions"),
            "listChanged": listed,
        }
    if answers == "tools/list":
        if "stale-response" in kinds:
            return "res.page-stale", {**base, **kinds["stale-response"]}
        page = kinds.get("page", {})
        names = page.get("names", [])
        params = {**base, "page": page.get("page"), "count": len(names), "names": names}
        return ("res.page-more" if "nextCursor" in result else "res.page-last"), params
    if answers == "tools/call":
        name = next((e.detail.get("name") for e in events if "name" in e.detail), None)
        if "call-tool-error" in kinds:
            return "res.call-iserror", {**base, "tool": name}
        text = kinds.get("call-ok", {}).get("text", "")
        return "res.call-ok", {**base, "tool": name, "text": text}
    return "res.other", base


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def console_line(sid: str, event: Event) -> str | None:
    """What the agent's console prints for a client event (a program log: plain English)."""
    d = event.detail
    lines = {
        "negotiated": lambda: f"[{sid}] session ready, protocol {d.get('version')}",
        "discovered": lambda: f"[{sid}] server/discover: versions {_json(d.get('versions'))}",
        "counter-offer": lambda: (
            f"[{sid}] server counter-offered {d.get('offered')} (asked {d.get('requested')})"
        ),
        "fallback-legacy": lambda: (
            f"[{sid}] server/discover failed ({d.get('code')}): falling back to initialize"
        ),
        "published": lambda: (
            f"[{sid}] tools generation {d.get('generation')}: {d.get('count')} tools"
            f" (+{len(d.get('added', []))} -{len(d.get('removed', []))}"
            f" ~{len(d.get('changed', []))})"
        ),
        "cache-hit": lambda: f"[{sid}] cache hit, generation {d.get('generation')}",
        "list-changed": lambda: f"[{sid}] list_changed: cache invalidated",
        "refresh-queued": lambda: f"[{sid}] refresh queued behind generation {d.get('generation')}",
        "stale-response": lambda: (
            f"[{sid}] dropped a stale page of generation {d.get('generation')}"
        ),
        "repeated-cursor": lambda: f"[{sid}] repeated cursor: gathering stopped",
        "call-ok": lambda: f"[{sid}] {d.get('name')} -> {d.get('text')}",
        "call-tool-error": lambda: f"[{sid}] {d.get('name')} -> isError: {d.get('text')}",
        "call-rejected": lambda: (
            f"[{sid}] {d.get('name')} rejected: {d.get('code')} {d.get('message')}"
        ),
        "call-retry": lambda: f"[{sid}] retrying {d.get('name')}",
        "tool-dropped": lambda: (
            f"[{sid}] warning: tool {d.get('name')} left out: invalid x-mcp-header"
            f" ({d.get('reason')})"
        ),
        "call-abandoned": lambda: f"[{sid}] {d.get('name')} unavailable: reported to the agent",
        "listen-acknowledged": lambda: (
            f"[{sid}] listening for {_json(sorted(d.get('notifications', {})))}"
        ),
        "version-refused": lambda: f"[{sid}] unsupported protocol {d.get('offered')}: disconnected",
    }
    make = lines.get(event.kind)
    return make() if make else None
