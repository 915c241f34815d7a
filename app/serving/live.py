"""Each real client's session with a served server, recorded as trace steps while it happens.

`LiveLog.observe` is an endpoint observer: every `Exchange` (a message with the HTTP or stdio
text that carried it) becomes one step of that client's session, in the shape `mcp-lab trace`
prints, so the lab's viewer shows a real session in its four views. Steps carry the complete
state after the message: the served catalog (server side), and the client as far as the server
can see it (a mirror built from the traffic: the version and clientInfo it gave, the pages of
its current tools/list walk, and the tools of its last complete walk as its cache, which the
host table and the model's next tools are computed from by the lab's own Host). A catalog
change is a step in every open session. Sessions are keyed by conversation; a modern client's
stateless requests and its listen stream are one session, keyed by its clientInfo. Each
session keeps at most MAX_STEPS steps and at most MAX_SESSIONS sessions are kept.
"""

from __future__ import annotations

import copy
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.engine.recorder import changes_between as _changes  # between two states
from app.mcp import versions
from app.mcp.host import Host, HostConfig
from app.mcp.jsonrpc import Message

from .catalog import Change, ServedServer

if TYPE_CHECKING:
    from .endpoint import Exchange

__all__ = ["LiveLog"]

MAX_STEPS = 2000
MAX_SESSIONS = 50
Step = dict[str, Any]

_SAY: dict[str, dict[str, str]] = {
    "request": {
        "en": "{client} sends {method}.",
        "zh": "{client} 发送 {method}。",
        "ru": "{client} отправляет {method}.",
    },
    "notification": {
        "en": "{client} sends the notification {method}.",
        "zh": "{client} 发送通知 {method}。",
        "ru": "{client} отправляет уведомление {method}.",
    },
    "page": {
        "en": "The server answers tools/list with {count} tool(s); {more}.",
        "zh": "服务器用 {count} 个工具回复 tools/list；{more}。",
        "ru": "Сервер отвечает на tools/list: инструментов — {count}; {more}.",
    },
    "more": {
        "en": "a nextCursor says there is more",
        "zh": "nextCursor 表示还有下一页",
        "ru": "nextCursor говорит, что есть ещё",
    },
    "last": {
        "en": "no nextCursor: that was the last page",
        "zh": "没有 nextCursor：这是最后一页",
        "ru": "nextCursor нет: это последняя страница",
    },
    "response": {
        "en": "The server answers {method}.",
        "zh": "服务器回复 {method}。",
        "ru": "Сервер отвечает на {method}.",
    },
    "error": {
        "en": "The server answers {method} with error {code}: {text}",
        "zh": "服务器以错误 {code} 回复 {method}：{text}",
        "ru": "Сервер отвечает на {method} ошибкой {code}: {text}",
    },
    "server-notification": {
        "en": "The server sends {method} to {client}.",
        "zh": "服务器向 {client} 发送 {method}。",
        "ru": "Сервер отправляет {client} {method}.",
    },
    "change": {
        "en": "The served catalog changes ({summary}); {notified}.",
        "zh": "所服务的工具目录发生变化（{summary}）；{notified}。",
        "ru": "Каталог сервера меняется ({summary}); {notified}.",
    },
    "told": {
        "en": "this client is told",
        "zh": "会通知这个客户端",
        "ru": "этому клиенту сообщат",
    },
    "not-told": {
        "en": "nothing is sent to this client yet",
        "zh": "暂时不会给这个客户端发送任何消息",
        "ru": "этому клиенту пока ничего не отправляется",
    },
}


def _say(key: str, **params: Any) -> dict[str, str]:
    texts = {}
    for lang, template in _SAY[key].items():
        values = {k: (v[lang] if isinstance(v, dict) else v) for k, v in params.items()}
        texts[lang] = template.format(**values)
    return texts


@dataclass
class _Mirror:
    """What the server can see of one client."""

    key: str
    transport: str
    version: str | None = None
    client: dict[str, Any] = field(default_factory=dict)
    asked: dict[Any, str] = field(default_factory=dict)
    walk: list[list[dict[str, Any]]] | None = None
    next_cursor: str | None = None
    generation: int = 0
    tools: list[dict[str, Any]] = field(default_factory=list)
    fetched_ms: int | None = None
    ttl_ms: int | None = None
    scope: str | None = None
    listening: bool = False
    steps: list[Step] = field(default_factory=list)
    console: list[dict[str, str]] = field(default_factory=list)

    @property
    def label(self) -> str:
        name = self.client.get("name") or "client"
        return f"{name} {self.client.get('version', '')}".strip()

    def snapshot(self, served: ServedServer) -> dict[str, Any]:
        era = versions.era_of(self.version) if self.version in versions.VERSIONS else None
        return {
            "phase": "ready" if self.version else "connecting",
            "protocolVersion": self.version,
            "era": era.value if era else None,
            "serverInfo": {"name": served.config.name, "version": served.config.version},
            "serverCapabilities": {
                "tools": {"listChanged": True} if served.config.list_changed else {}
            },
            "clientInfo": dict(self.client),
            "listening": self.listening,
            "cache": {
                "generation": self.generation,
                "tools": list(self.tools),
                "fetchedAtMs": self.fetched_ms,
                "ttlMs": self.ttl_ms,
                "expiresAtMs": None
                if self.fetched_ms is None or self.ttl_ms is None
                else self.fetched_ms + self.ttl_ms,
                "cacheScope": self.scope,
                "valid": self.generation > 0,
                "fresh": self.generation > 0,
            },
            "gathering": None
            if self.walk is None
            else {
                "generation": self.generation + 1,
                "reason": "client asked",
                "pages": [[t.get("name") for t in page] for page in self.walk],
                "nextCursor": self.next_cursor,
            },
            "pendingRefresh": False,
            "inFlight": [str(i) for i in self.asked],
        }


class LiveLog:
    """The sessions of one served server, as steps."""

    def __init__(self, served: ServedServer):
        self.served = served
        self.sid = served.server_id
        self.sessions: OrderedDict[str, _Mirror] = OrderedDict()
        self._started = time.monotonic()
        self.revision = 0  # bumps on every new step, so a page can ask "anything new?"

    # ----------------------------------------------------------------- recording
    def _key(self, exchange: Exchange) -> str:
        if exchange.conversation == "stateless" or exchange.conversation.startswith("listen:"):
            name = exchange.client.get("name", "?")
            return f"modern:{name}/{exchange.client.get('version', '?')}"
        return exchange.conversation

    def _mirror(self, exchange: Exchange) -> _Mirror:
        key = self._key(exchange)
        mirror = self.sessions.get(key)
        if mirror is None:
            mirror = _Mirror(key, exchange.transport)
            self.sessions[key] = mirror
            while len(self.sessions) > MAX_SESSIONS:
                self.sessions.popitem(last=False)
        if exchange.client:
            mirror.client = dict(exchange.client)
        if exchange.version:
            mirror.version = exchange.version
        return mirror

    def _now(self) -> int:
        return int((time.monotonic() - self._started) * 1000)

    def _state(self, mirror: _Mirror) -> dict[str, Any]:
        host = Host([self.sid], HostConfig())
        snapshots = {self.sid: mirror.tools}
        return {
            "clockMs": self._now(),
            "servers": {
                self.sid: {
                    "name": self.served.config.name,
                    "phase": "serving",
                    "revision": self.served.revision,
                    "listChanged": self.served.config.list_changed,
                    "tools": list(self.served.tools),
                    "subscriptions": [],
                }
            },
            "clients": {self.sid: mirror.snapshot(self.served)},
            "host": host.snapshot(snapshots),
            "model": {
                "tools": [],
                "next": host.next_tools(snapshots),
                "requests": 0,
                "prompt": None,
            },
            "console": list(mirror.console),
        }

    def _append(self, mirror: _Mirror, step: Step) -> None:
        if len(mirror.steps) >= MAX_STEPS:
            return
        state = self._state(mirror)
        previous = mirror.steps[-1]["state"] if mirror.steps else None
        version = mirror.version if mirror.version in versions.VERSIONS else versions.LATEST
        step.update(
            {
                "index": len(mirror.steps),
                "protocolVersion": version,
                "era": versions.era_of(version).value,
                "transport": "http" if mirror.transport != "stdio" else "stdio",
                "state": state,
                "changes": _changes(previous, state) if previous else {},
                "checkpoint": None,
                "action": -1,
            }
        )
        mirror.steps.append(step)
        self.revision += 1

    def observe(self, exchange: Exchange) -> None:
        mirror = self._mirror(exchange)
        message = exchange.message
        from_client = exchange.sender == "client"
        answers = None
        if from_client and "method" in message and "id" in message:
            mirror.asked[message["id"]] = str(message["method"])
        elif not from_client and "method" not in message:
            answers = mirror.asked.pop(message.get("id"), None)
        narration = self._learn(mirror, message, from_client, answers)
        kind = (
            ("request" if "id" in message else "notification")
            if "method" in message
            else ("error" if "error" in message else "response")
        )
        client_actor, server_actor = f"client:{self.sid}", f"server:{self.sid}"
        self._append(
            mirror,
            {
                "kind": kind,
                "from": client_actor if from_client else server_actor,
                "to": server_actor if from_client else client_actor,
                "method": message.get("method") or answers,
                "id": message.get("id"),
                "message": copy.deepcopy(message),
                "frame": exchange.frame or None,
                "channel": exchange.channel,
                "reply": None,
                "events": [],
                "narration": narration,
            },
        )

    def _learn(
        self, mirror: _Mirror, message: Message, from_client: bool, answers: str | None
    ) -> dict[str, str]:
        """Update the mirror from one message; the step's narration."""
        who = mirror.label
        method = message.get("method")
        if from_client:
            if method == "tools/list" and not (message.get("params") or {}).get("cursor"):
                mirror.walk = []  # a walk from page 1 begins
            return _say("request" if "id" in message else "notification", client=who, method=method)
        if method is not None:
            if method == "notifications/subscriptions/acknowledged":
                mirror.listening = True
            return _say("server-notification", client=who, method=method)
        if "error" in message:
            error = message.get("error") or {}
            return _say(
                "error", method=answers, code=error.get("code"), text=error.get("message", "")
            )
        result = message.get("result") or {}
        if answers == "tools/list":
            page = [t for t in result.get("tools") or [] if isinstance(t, dict)]
            if mirror.walk is None:
                mirror.walk = []
            mirror.walk.append(page)
            mirror.next_cursor = result.get("nextCursor")
            if mirror.next_cursor is None:
                mirror.generation += 1
                mirror.tools = [t for p in mirror.walk for t in p]
                mirror.fetched_ms = self._now()
                mirror.ttl_ms = result.get("ttlMs")
                mirror.scope = result.get("cacheScope")
                mirror.walk = None
            more = _SAY["more"] if mirror.next_cursor is not None else _SAY["last"]
            return _say("page", count=len(page), more=more)
        return _say("response", method=answers)

    def changed(self, change: Change) -> None:
        """A catalog change: one internal step in every session."""
        summary = change.describe().split(": ", 1)[-1]
        for mirror in self.sessions.values():
            told = _SAY["told"] if self.served.config.list_changed else _SAY["not-told"]
            server_actor = f"server:{self.sid}"
            self._append(
                mirror,
                {
                    "kind": "internal",
                    "from": server_actor,
                    "to": server_actor,
                    "method": None,
                    "id": None,
                    "message": None,
                    "frame": None,
                    "channel": None,
                    "reply": None,
                    "events": [],
                    "narration": _say("change", summary=summary, notified=told),
                },
            )

    # ----------------------------------------------------------------- reading
    def summary(self) -> list[dict[str, Any]]:
        return [
            {
                "id": m.key,
                "client": m.client,
                "label": m.label,
                "protocolVersion": m.version,
                "transport": m.transport,
                "steps": len(m.steps),
                "last": (m.steps[-1]["method"] if m.steps else None),
            }
            for m in self.sessions.values()
        ]

    def steps(self, key: str) -> list[Step] | None:
        mirror = self.sessions.get(key)
        return None if mirror is None else list(mirror.steps)
