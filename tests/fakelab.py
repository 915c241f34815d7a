"""A small stand-in for app.engine: a library of two scenarios and hand-made traces.

The web shell renders traces as pure data, so its tests can run without the engine: this module
builds steps of the engine's own typed contract (app.engine.step.Step: every key, a complete
state), and a test validates its traces against docs/step.schema.json like the engine's. One
scenario, "hostile", carries tool names and descriptions with markup, control characters, a
10 KB string and non-BMP characters, to prove they are always escaped.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from app.engine.scenario import ScenarioError
from app.engine.step import ModelTool, State, Step

HOSTILE_NAME = '<img src=x onerror="alert(1)">𝔘\x07'
LONG = "A" * 10_000


def _t(en: str, zh: str = "", ru: str = "") -> dict[str, str]:
    return {"en": en, "zh": zh or "中文：" + en, "ru": ru or "Рус: " + en}


@dataclass
class FakeScenario:
    id: str
    title: dict[str, str]
    summary: dict[str, str]
    goals: list[dict[str, str]]
    topics: list[str]
    versions: list[str]
    transports: list[str]
    path: str = ""


# Errors look exactly like the engine's: the same dataclass.
FakeError = ScenarioError


@dataclass
class FakeLibrary:
    scenarios: dict[str, FakeScenario] = field(default_factory=dict)
    errors: list[FakeError] = field(default_factory=list)


def load_library(path: Any) -> FakeLibrary:
    lib = FakeLibrary()
    lib.scenarios["pagination"] = FakeScenario(
        "pagination",
        _t("Pagination", "分页", "Постраничная выдача"),
        _t("The client gathers tools page by page.", "客户端逐页收集工具。", "Клиент собирает"),
        [_t("See nextCursor")],
        ["tools/list", "pagination"],
        ["2025-06-18", "2026-07-28"],
        ["stdio", "http"],
    )
    lib.scenarios["hostile"] = FakeScenario(
        "hostile",
        _t("Hostile <b>tools</b>"),
        _t("Markup & control chars \x00 in tool text."),
        [],
        ["security"],
        ["2025-06-18"],
        ["stdio"],
    )
    lib.errors.append(FakeError("broken.yaml", 7, "steps[2].action", "unknown action 'jump'"))
    return lib


def _tool(name: str, desc: str = "A tool.") -> dict[str, Any]:
    return {"name": name, "description": desc, "inputSchema": {"type": "object"}}


def _state(clock: int, pages: list[list[str]], cache: list[str], cursor: str | None) -> State:
    tools = [_tool(n) for n in cache]
    allowed = [n for n in cache if n != "write"]
    model_tools: list[ModelTool] = [
        {"name": f"files__{n}", "description": "A tool.", "input_schema": {"type": "object"}}
        for n in allowed
    ]
    return {
        "clockMs": clock,
        "servers": {
            "files": {
                "name": "Files",
                "phase": "operating",
                "revision": 1,
                "listChanged": True,
                "tools": [_tool(n) for n in ("read", "write", "list")],
                "subscriptions": [],
            }
        },
        "clients": {
            "files": {
                "phase": "ready" if cache else "initializing",
                "protocolVersion": "2025-06-18",
                "era": "legacy",
                "serverInfo": {"name": "Files", "version": "1.0.0"},
                "serverCapabilities": {"tools": {"listChanged": True}},
                "listening": False,
                "cache": {
                    "generation": 1 if cache else 0,
                    "tools": tools,
                    "fetchedAtMs": 100 if cache else None,
                    "ttlMs": 60000 if cache else None,
                    "expiresAtMs": 60100 if cache else None,
                    "cacheScope": "session",
                    "valid": bool(cache),
                    "fresh": bool(cache),
                },
                "gathering": None
                if cache or not pages
                else {
                    "generation": 1,
                    "reason": "host asked",
                    "pages": pages,
                    "nextCursor": cursor,
                },
                "pendingRefresh": False,
                "inFlight": [],
            }
        },
        "host": {
            "user": "student" if cache else None,
            "rebuildEveryRequest": True,
            "tools": [
                {
                    "serverId": "files",
                    "tool": n,
                    "qualified": f"files/{n}",
                    "modelName": f"files__{n}",
                    "schemaHash": f"h{i}abc",
                    "allowed": n != "write",
                    "displayName": n.title(),
                    "icons": [],
                    "approval": "auto",
                }
                for i, n in enumerate(cache)
            ],
            "collisions": [{"tool": "read", "servers": ["files", "web"]}] if cache else [],
            "denied": ["files__write"] if cache else [],
        },
        "model": {
            "tools": model_tools,
            "next": model_tools,
            "requests": 1 if cache else 0,
            "prompt": None,
        },
        "console": [],
    }


def _frame(transport: str, message: dict, outgoing: bool) -> tuple[str, str]:
    body = json.dumps(message, separators=(",", ":"))
    if transport == "stdio":
        return body + "\n", "stdin" if outgoing else "stdout"
    if outgoing:
        return (
            "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\n\r\n{body}"
        ), "POST /mcp"
    return (
        f"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
        f"event: message\ndata: {body}\n\n"
    ), "POST /mcp"


def run_trace(scenario: FakeScenario, protocol_version: str, transport: str) -> list[Step]:
    era = "modern" if protocol_version >= "2026" else "legacy"
    steps: list[Step] = []

    def add(kind, frm, to, method, mid, message, state, narr, changes=None, checkpoint=None):
        frame = channel = None
        if message is not None:
            frame, channel = _frame(transport, message, frm.startswith("client"))
        steps.append(
            {
                "index": len(steps),
                "kind": kind,
                "from": frm,
                "to": to,
                "protocolVersion": protocol_version,
                "era": era,
                "transport": transport,
                "method": method,
                "id": mid,
                "message": message,
                "frame": frame,
                "channel": channel,
                "reply": None,
                "events": [],
                "state": copy.deepcopy(state),
                "changes": changes or {},
                "narration": narr,
                "checkpoint": checkpoint,
                "action": len(steps) if kind != "terminal" else -1,
            }
        )

    names = ["read", "write", "list"]
    if scenario.id == "hostile":
        names = [HOSTILE_NAME, LONG[:50], "ok"]
    s0 = _state(0, [], [], None)
    add(
        "request",
        "client:files",
        "server:files",
        "tools/list",
        1,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        s0,
        _t(
            "The client asks for the first page.",
            "客户端请求第一页。",
            "Клиент просит первую страницу.",
        ),
    )
    s1 = _state(10, [names[:2]], [], "c2")
    page1 = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "tools": [_tool(n, LONG if scenario.id == "hostile" else "A tool.") for n in names[:2]],
            "nextCursor": "c2",
        },
    }
    add(
        "response",
        "server:files",
        "client:files",
        "tools/list",
        1,
        page1,
        s1,
        _t(
            "Page one arrives with a nextCursor.",
            "第一页带着 nextCursor 到达。",
            "Первая страница приходит с nextCursor.",
        ),
        checkpoint={
            "question": _t(
                "What does the client do next?",
                "客户端接下来做什么？",
                "Что клиент сделает дальше?",
            ),
            "choices": [
                {"text": _t("Call the tool"), "why": _t("Not yet: more pages.")},
                {"text": _t("Ask for the next page"), "why": _t("Right: it follows nextCursor.")},
            ],
            "answer": 1,
            "action": 1,
        },
    )
    add(
        "request",
        "client:files",
        "server:files",
        "tools/list",
        2,
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": "c2"}},
        s1,
        _t("It sends the cursor back.", "它把游标发回去。", "Он отправляет курсор обратно."),
    )
    s3 = _state(20, [], names, None)
    add(
        "response",
        "server:files",
        "client:files",
        "tools/list",
        2,
        {"jsonrpc": "2.0", "id": 2, "result": {"tools": [_tool(names[2])]}},
        s3,
        _t(
            "The last page has no cursor: the cache is filled.",
            "最后一页没有游标：缓存已填满。",
            "На последней странице нет курсора: кэш заполнен.",
        ),
        changes={"cache": {"added": names, "removed": [], "changed": []}},
    )
    add(
        "notification",
        "server:files",
        "client:files",
        "notifications/tools/list_changed",
        None,
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
        s3,
        _t("The server says its list changed.", "服务器说它的列表变了。", "Сервер сообщает."),
    )
    add(
        "cache-hit",
        "host",
        "client:files",
        "tools/list",
        None,
        None,
        s3,
        _t(
            "A cache hit: nothing on the wire.",
            "缓存命中：线路上没有任何东西。",
            "Попадание в кэш: по проводу ничего.",
        ),
    )
    s6 = copy.deepcopy(s3)
    s6["console"] = [_t("agent: 2 tools offered to the model")]
    s6["model"]["requests"] = 2
    add(
        "model-request",
        "host",
        "model",
        None,
        None,
        None,
        s6,
        _t("The host sends the tools to the model.", "主机把工具发给模型。", "Хост отдаёт модели."),
    )
    add("terminal", "host", "host", None, None, None, s6, _t("Done.", "完成。", "Готово."))
    return steps
