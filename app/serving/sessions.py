"""Each real client's session with a served server, recorded as trace steps while it happens.

`SessionLog.observe` is an endpoint observer: every `Exchange` (a message with the HTTP text that
carried it) becomes one step of that client's session, written by the engine's own `Recorder`
(app.engine.recorder), so a live session is the very kind of step a scenario's trace is and the
viewer's four views show it. The lab has no `MCPClient` of its own in a real client's session,
so the narration is the server's side of the story (what the client asked, what was served),
and the client's state is a mirror built from the traffic: the version it negotiated, the pages
of its current tools/list walk, and the tools of its last complete walk as its cache, from which
the lab's Host computes the host table and the tools a model would be given. The console says
what the server did: sessions opened, pages served, changes applied, notifications sent. Each
step's `events` are the engine's own event types (app.mcp.events) for what the message means as
far as the server can tell (initialize sent, negotiated, a page, the walk published with what it
added and removed, list_changed, a call and its result), as a scenario's client would report them.

A catalog change is an internal step in every open session. Sessions are keyed by conversation;
a modern client's stateless requests and its listen stream are one session, keyed by its
clientInfo. A session keeps at most MAX_STEPS steps (the recorder's cap) and at most
MAX_SESSIONS sessions are kept, oldest dropped. `revision` grows with every step recorded, so a
page can ask cheaply whether anything happened.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from app.engine.recorder import Recorder, StepCap, session_state
from app.engine.step import ClientState, ServerState, State, Step, Text
from app.mcp import events as ev
from app.mcp import versions
from app.mcp.framing import Frame
from app.mcp.host import Host, HostConfig
from app.mcp.jsonrpc import Message
from app.mcp.tooldiff import diff_tools

from .catalog import Change, ServedServer
from .conversations import Exchange

__all__ = ["SessionLog"]

MAX_STEPS = 2000
MAX_SESSIONS = 50

_SAY: dict[str, dict[str, str]] = {
    "request": {
        "en": "{client} sends {method}.",
        "zh": "{client} 发送 {method}。",
        "ru": "{client} отправляет {method}.",
    },
    "initialize": {
        "en": "{client} opens a session with initialize, asking for version {version}.",
        "zh": "{client} 用 initialize 打开会话，请求版本 {version}。",
        "ru": "{client} открывает сеанс запросом initialize и просит версию {version}.",
    },
    "list-first": {
        "en": "{client} asks for the first page of tools/list.",
        "zh": "{client} 请求 tools/list 的第一页。",
        "ru": "{client} запрашивает первую страницу tools/list.",
    },
    "list-next": {
        "en": "{client} asks for the next page of tools/list with the cursor it was given.",
        "zh": "{client} 用拿到的游标请求 tools/list 的下一页。",
        "ru": "{client} запрашивает следующую страницу tools/list с полученным курсором.",
    },
    "notification": {
        "en": "{client} sends the notification {method}.",
        "zh": "{client} 发送通知 {method}。",
        "ru": "{client} отправляет уведомление {method}.",
    },
    "initialized": {
        "en": "The server answers initialize: version {version} for {client}.",
        "zh": "服务器回复 initialize：与 {client} 使用版本 {version}。",
        "ru": "Сервер отвечает на initialize: с {client} работает версия {version}.",
    },
    "page-more": {
        "en": "The server serves page {page} of tools/list ({names}); a nextCursor says more "
        "follow.",
        "zh": "服务器送出 tools/list 的第 {page} 页（{names}）；nextCursor 表示后面还有。",
        "ru": "Сервер отдаёт страницу {page} списка tools/list ({names}); nextCursor говорит, "
        "что будут ещё.",
    },
    "page-last": {
        "en": "The server serves page {page} of tools/list ({names}), the last: no nextCursor.",
        "zh": "服务器送出 tools/list 的第 {page} 页（{names}），也是最后一页：没有 nextCursor。",
        "ru": "Сервер отдаёт страницу {page} списка tools/list ({names}), последнюю: "
        "nextCursor нет.",
    },
    "call": {
        "en": "{client} calls the tool {name}.",
        "zh": "{client} 调用工具 {name}。",
        "ru": "{client} вызывает инструмент {name}.",
    },
    "call-ok": {
        "en": 'The server answers the call to {name}: "{text}".',
        "zh": "服务器回复对 {name} 的调用：“{text}”。",
        "ru": "Сервер отвечает на вызов {name}: «{text}».",
    },
    "call-tool-error": {
        "en": 'The call to {name} ran but failed (isError: "{text}"). That answer is for the '
        "model to read and try again; it is not a protocol error.",
        "zh": "对 {name} 的调用执行了但失败了（isError：“{text}”）。"
        "这个结果是给模型看、让它重试的，"
        "不是协议错误。",
        "ru": "Вызов {name} выполнен, но неудачно (isError: «{text}»). Этот ответ — для модели, "
        "чтобы она попробовала снова, а не ошибка протокола.",
    },
    "listen": {
        "en": "{client} opens a subscriptions/listen stream to be told when the tool list changes.",
        "zh": "{client} 打开 subscriptions/listen 流，以便在工具列表变化时得到通知。",
        "ru": "{client} открывает поток subscriptions/listen, чтобы узнавать об изменениях "
        "списка инструментов.",
    },
    "listen-acknowledged": {
        "en": "The server confirms the subscription on the listen stream: {client} will hear of "
        "changes there.",
        "zh": "服务器在 listen 流上确认订阅：{client} 之后会在这里收到变化通知。",
        "ru": "Сервер подтверждает подписку в потоке listen: об изменениях {client} узнает там.",
    },
    "discovered": {
        "en": "The server answers server/discover: it supports {versions}; no initialize is "
        "needed in this era.",
        "zh": "服务器回复 server/discover：它支持 {versions}；这个时代不需要 initialize。",
        "ru": "Сервер отвечает на server/discover: он поддерживает {versions}; initialize в "
        "этой эпохе не нужен.",
    },
    "published-first": {
        "en": "{client} now has the whole list: {count} tools.",
        "zh": "{client} 现在拿到了完整的列表：{count} 个工具。",
        "ru": "Теперь у {client} весь список, инструментов: {count}.",
    },
    "published-diff": {
        "en": "Compared with its previous list: {diff}.",
        "zh": "与它上一次的列表相比：{diff}。",
        "ru": "По сравнению с прошлым списком: {diff}.",
    },
    "published-same": {
        "en": "The same tools as its previous list: nothing changed.",
        "zh": "与它上一次的列表相同：没有变化。",
        "ru": "Те же инструменты, что в прошлом списке: ничего не изменилось.",
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
    "list-changed": {
        "en": "The server tells {client} its tool list changed: the client should list again.",
        "zh": "服务器告诉 {client} 工具列表变了：客户端应当重新获取列表。",
        "ru": "Сервер сообщает {client}, что список инструментов изменился: клиенту пора "
        "запросить его заново.",
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
        "en": "nothing is sent to this client: the server does not announce changes",
        "zh": "不会给这个客户端发送任何消息：服务器不通告变化",
        "ru": "этому клиенту ничего не отправляется: сервер не объявляет об изменениях",
    },
    "none": {"en": "no tools", "zh": "没有工具", "ru": "инструментов нет"},
    # The console: what the server did, one line each.
    "console-session": {
        "en": "session with {client} open: version {version}",
        "zh": "与 {client} 的会话已打开：版本 {version}",
        "ru": "сеанс с {client} открыт: версия {version}",
    },
    "console-walk": {
        "en": "served every page: {client} now holds {count} tools (walk {generation})",
        "zh": "所有页都已送出：{client} 现在持有 {count} 个工具（第 {generation} 次获取）",
        "ru": "все страницы отданы: у {client} теперь инструментов — {count} (обход {generation})",
    },
    "console-change": {
        "en": "catalog change {number} applied: {summary}",
        "zh": "已应用目录变化 {number}：{summary}",
        "ru": "применено изменение каталога {number}: {summary}",
    },
    "console-notified": {
        "en": "sent {method} to {client}",
        "zh": "已向 {client} 发送 {method}",
        "ru": "{client} отправлено {method}",
    },
}


def _say(key: str, **params: Any) -> Text:
    texts = {}
    for lang, template in _SAY[key].items():
        values = {k: (v[lang] if isinstance(v, dict) else v) for k, v in params.items()}
        texts[lang] = template.format(**values)
    return {"en": texts["en"], "zh": texts["zh"], "ru": texts["ru"]}


@dataclass
class _Mirror:
    """What the server can see of one client, and the recorder of its session."""

    key: str
    transport: str
    recorder: Recorder
    version: str | None = None
    client: dict[str, Any] = field(default_factory=dict)
    asked: dict[Any, str] = field(default_factory=dict)
    calls: dict[Any, str] = field(default_factory=dict)  # tools/call ids: the tool's name
    walk: list[list[dict[str, Any]]] | None = None
    next_cursor: str | None = None
    generation: int = 0
    tools: list[dict[str, Any]] = field(default_factory=list)
    fetched_ms: int | None = None
    ttl_ms: int | None = None
    scope: str | None = None
    listening: bool = False
    console: list[Text] = field(default_factory=list)
    host: Host = field(default_factory=lambda: Host(["?"], HostConfig()))
    full: bool = False  # the recorder reached its cap: later messages are not recorded

    @property
    def label(self) -> str:
        name = self.client.get("name") or "client"
        return f"{name} {self.client.get('version', '')}".strip()

    @property
    def steps(self) -> list[Step]:
        return self.recorder.trace

    def known_version(self) -> str:
        return self.version if self.version in versions.VERSIONS else versions.LATEST

    def snapshot(self, served: ServedServer) -> ClientState:
        version = self.known_version()
        return {
            "phase": "ready" if self.version else "connecting",
            "protocolVersion": version,
            "era": versions.era_of(version).value,
            "serverInfo": {"name": served.config.name, "version": served.config.version},
            "serverCapabilities": {
                "tools": {"listChanged": True} if served.config.list_changed else {}
            },
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


def _joined(first: Text, second: Text) -> Text:
    """Two sentences in every language: zh runs on with no space, en and ru after one."""
    return {
        "en": f"{first['en']} {second['en']}",
        "zh": first["zh"] + second["zh"],
        "ru": f"{first['ru']} {second['ru']}",
    }


def _diff_text(found: dict[str, list[str]]) -> str:
    """+added -removed ~changed, names as the protocol spells them (no language of their own)."""
    marks = (("+", "added"), ("-", "removed"), ("~", "changed"))
    return " ".join(f"{mark}{name}" for mark, key in marks for name in found[key])


def _result_text(result: dict[str, Any]) -> str:
    """The text a tools/call result carries (its text content, joined), shortened."""
    content = result.get("content") if isinstance(result.get("content"), list) else []
    said = " ".join(
        str(c.get("text")) for c in content or [] if isinstance(c, dict) and c.get("type") == "text"
    )
    return said if len(said) <= 160 else said[:159] + "…"


def _names(page: list[dict[str, Any]]) -> str | dict[str, str]:
    names = [str(t.get("name")) for t in page]
    return ", ".join(names) if names else _SAY["none"]


class SessionLog:
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
            recorder = Recorder(versions.LATEST, "http", max_steps=MAX_STEPS)
            mirror = _Mirror(key, exchange.transport, recorder, host=Host([self.sid], HostConfig()))
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

    def _state(self, mirror: _Mirror) -> State:
        server: ServerState = {
            "name": self.served.config.name,
            "phase": "serving",
            "revision": self.served.revision,
            "listChanged": self.served.config.list_changed,
            "tools": list(self.served.tools),
            "subscriptions": [],
        }
        client = mirror.snapshot(self.served)
        return session_state(self.sid, server, client, mirror.console, self._now(), mirror.host)

    def _record(self, mirror: _Mirror, write: Any) -> None:
        if mirror.full:
            return
        try:
            write()
        except StepCap:
            mirror.full = True
            return
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
        text, events = self._learn(mirror, message, from_client, answers)
        version = mirror.known_version()
        frame = Frame("http", exchange.channel, exchange.frame) if exchange.frame else None
        self._record(
            mirror,
            lambda: mirror.recorder.peer_message(
                self.sid,
                message,
                frame,
                self._state(mirror),
                from_client=from_client,
                narration_text=text,
                events=events,
                method=message.get("method") or answers,
                era=versions.era_of(version).value,
                version=version,
            ),
        )

    def _learn(
        self, mirror: _Mirror, message: Message, from_client: bool, answers: str | None
    ) -> tuple[Text, list[ev.Event]]:
        """Update the mirror from one message; the step's narration and its events."""
        who = mirror.label
        method = message.get("method")
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        params = params or {}
        if from_client:
            return self._from_client(mirror, message, str(method), params, who)
        if method is not None:
            if method == "notifications/subscriptions/acknowledged":
                mirror.listening = True
            mirror.console.append(_say("console-notified", client=who, method=method))
            if method == "notifications/tools/list_changed":
                declared = self.served.config.list_changed
                return _say("list-changed", client=who), [ev.ListChanged(declared)]
            if method == "notifications/subscriptions/acknowledged":
                got = params.get("notifications") if isinstance(params, dict) else None
                acknowledged = ev.ListenAcknowledged(got if isinstance(got, dict) else {})
                return _say("listen-acknowledged", client=who), [acknowledged]
            text = _say("server-notification", client=who, method=method)
            return text, [ev.OtherNotification(str(method))]
        name = mirror.calls.pop(message.get("id"), None)
        if "error" in message:
            error = message.get("error") or {}
            code = error.get("code") if isinstance(error, dict) else None
            text = _say("error", method=answers, code=code, text=(error or {}).get("message", ""))
            if name is not None:
                return text, [ev.CallRejected(name, code, (error or {}).get("message"))]
            return text, [ev.RequestFailed(code, str(answers))]
        result = message.get("result") if isinstance(message.get("result"), dict) else {}
        result = result or {}
        tools = (result.get("capabilities") or {}).get("tools")
        announces = isinstance(tools, dict) and bool(tools.get("listChanged"))
        if answers == "initialize":
            version = str(result.get("protocolVersion", "?"))
            mirror.console.append(_say("console-session", client=who, version=version))
            return _say("initialized", client=who, version=version), [
                ev.Negotiated(version, announces)
            ]
        if answers == "server/discover":
            offered = result.get("supportedVersions")
            shown = ", ".join(map(str, offered)) if isinstance(offered, list) else "?"
            return _say("discovered", versions=shown), [ev.Discovered(offered, announces)]
        if answers == "tools/list":
            return self._page(mirror, result, who)
        if name is not None:
            said = _result_text(result)
            if result.get("isError"):
                return _say("call-tool-error", name=name, text=said), [ev.CallToolError(name, said)]
            return _say("call-ok", name=name, text=said), [ev.CallOk(name, said)]
        return _say("response", method=answers), []

    def _from_client(
        self, mirror: _Mirror, message: Message, method: str, params: dict[str, Any], who: str
    ) -> tuple[Text, list[ev.Event]]:
        if method == "initialize":
            asked = str(params.get("protocolVersion", "?"))
            return _say("initialize", client=who, version=asked), [ev.InitializeSent(asked)]
        if method == "tools/list" and "id" in message:
            if not params.get("cursor"):
                mirror.walk = []  # a walk from page 1 begins
                started = ev.GatherStarted(mirror.generation + 1, "client asked")
                return _say("list-first", client=who), [started]
            return _say("list-next", client=who), []
        if method == "tools/call" and "id" in message:
            name = str(params.get("name", "?"))
            mirror.calls[message["id"]] = name
            return _say("call", client=who, name=name), [ev.CallSent(name)]
        if method == "subscriptions/listen" and "id" in message:
            return _say("listen", client=who), [ev.ListenSent(message["id"])]
        if "id" in message:
            return _say("request", client=who, method=method), []
        return _say("notification", client=who, method=method), []

    def _page(
        self, mirror: _Mirror, result: dict[str, Any], who: str
    ) -> tuple[Text, list[ev.Event]]:
        page = [t for t in result.get("tools") or [] if isinstance(t, dict)]
        if mirror.walk is None:
            mirror.walk = []
        mirror.walk.append(page)
        number = len(mirror.walk)
        mirror.next_cursor = result.get("nextCursor")
        got = ev.PageReceived(
            mirror.generation + 1, number, [t.get("name") for t in page], mirror.next_cursor
        )
        if mirror.next_cursor is not None:
            return _say("page-more", page=number, names=_names(page)), [got]
        before = mirror.tools
        mirror.generation += 1
        mirror.tools = [t for p in mirror.walk for t in p]
        mirror.fetched_ms = self._now()
        mirror.ttl_ms = result.get("ttlMs")
        mirror.scope = result.get("cacheScope")
        mirror.walk = None
        mirror.console.append(
            _say("console-walk", client=who, count=len(mirror.tools), generation=mirror.generation)
        )
        named = [t for t in mirror.tools if isinstance(t.get("name"), str)]
        found = diff_tools([t for t in before if isinstance(t.get("name"), str)], named)
        published = ev.Published(
            mirror.generation,
            len(mirror.tools),
            number,
            found["added"],
            found["removed"],
            found["changed"],
        )
        text = _joined(
            _say("page-last", page=number, names=_names(page)),
            _say("published-first", client=who, count=len(mirror.tools))
            if mirror.generation == 1
            else _say("published-diff", diff=_diff_text(found))
            if any(found.values())
            else _say("published-same"),
        )
        return text, [got, published]

    def changed(self, change: Change) -> None:
        """A catalog change: one internal step in every session."""
        summary = change.describe().split(": ", 1)[-1]
        told = _SAY["told"] if self.served.config.list_changed else _SAY["not-told"]
        server_actor = f"server:{self.sid}"
        for mirror in self.sessions.values():
            mirror.console.append(_say("console-change", number=change.number, summary=summary))
            text = _say("change", summary=summary, notified=told)
            self._record(
                mirror,
                lambda m=mirror, t=text: m.recorder.record(
                    "internal",
                    server_actor,
                    server_actor,
                    t,
                    self._state(m),
                    era=versions.era_of(m.known_version()).value,
                    version=m.known_version(),
                ),
            )
        self.revision += 1  # the count of changes applied moved, sessions or not

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

    def steps(self, key: str, since: int = 0) -> list[Step] | None:
        """The session's steps from index `since` on (all of them by default), or None."""
        mirror = self.sessions.get(key)
        return None if mirror is None else list(mirror.steps[max(0, since) :])
