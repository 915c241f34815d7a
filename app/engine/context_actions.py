"""Script verbs and narration for the host's context strategies (app.mcp.context): none of them
is protocol, and the narration says so.

`set_agent: name` switches the host to an agent with its own allow-list; `tool_search: query`
is the model calling the host's search_tools meta-tool, whose matches are loaded into the next
request. `describe_request` adds to a model request's narration what the host put in the context
besides the tools: the servers' instructions, or the deferred tools and the token budget.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.mcp import context

from . import narration
from .stage import Stage
from .step import LANGUAGES, Text


def joined(first: Text, more: Text) -> Text:
    """Two sentences in every language: zh runs on with no space, en and ru after one."""
    out = {
        lang: (first[lang] + more[lang] if lang == "zh" else f"{first[lang]} {more[lang]}")  # type: ignore[literal-required]
        for lang in LANGUAGES
    }
    return {"en": out["en"], "zh": out["zh"], "ru": out["ru"]}


def describe_request(run: Stage) -> None:
    """Say what else the last model request carried (the step just emitted), unless the
    scenario's own `say` tells it."""
    host, step = run.world.host, run.trace[-1]
    if step["kind"] != "model-request" or "say" in run.current_action:
        return
    extra: list[Text] = []
    held = [sid for sid, text in run.world.instructions().items() if text]
    if host.last_instructions:
        servers = [s["server"] for s in host.last_instructions]
        params = {"servers": servers, "n": len(servers)}
        extra.append(narration.text("context.instructions", params))
    elif held:
        extra.append(narration.text("context.instructions-ignored", {"servers": held}))
    budget = host.last_budget
    if budget is not None and host.deferred:
        extra.append(narration.text("context.deferred", {**budget, "n": budget["deferred"]}))
    elif budget is not None and budget["limit"]:
        percent = round(100 * budget["all"] / budget["limit"])
        extra.append(narration.text("context.budget", {**budget, "percent": percent}))
    for text in extra:
        step["narration"] = joined(step["narration"], text)


def set_strategy(run: Stage, settings: dict[str, Any]) -> None:
    """set_host with serverInstructions or deferLoading: one step that says what changed."""
    host = run.world.host
    if "serverInstructions" in settings:
        host.server_instructions = str(settings["serverInstructions"])
        run.emit("internal", "host", "host", phrase=f"context.placement-{host.server_instructions}")
    if "deferLoading" in settings:
        host.deferred = bool(settings["deferLoading"])
        host.loaded = []
        run.emit(
            "internal", "host", "host", phrase=f"context.defer-{'on' if host.deferred else 'off'}"
        )


def set_agent(run: Stage, agent: str, action: dict[str, Any]) -> None:
    host = run.world.host
    host.agent = agent
    host.loaded = []  # what a search loaded was for the other agent
    rows = host.table(run.world.tool_snapshots())
    allowed = [r["modelName"] for r in rows if r["allowed"]]
    run.emit(
        "internal",
        "host",
        "host",
        phrase="context.agent",
        params={"agent": agent, "count": len(allowed), "all": len(rows)},
    )


def tool_search(run: Stage, query: str, action: dict[str, Any]) -> None:
    """The model calls search_tools; the host searches what this agent may use and loads the
    matches, which the next model request will carry."""
    host = run.world.host
    every = host.model_tools(run.world.tool_snapshots())
    found = context.search(every, query, host.config.search_results)
    host.loaded = [*host.loaded, *(n for n in found if n not in host.loaded)]
    run.world.last_search = {"query": query, "found": found}
    run.world.console.append(
        narration.text("console.tool-search", {"query": query, "n": len(found)})
    )
    phrase = "context.search" if found else "context.search-none"
    run.emit(
        "internal",
        "model",
        "host",
        phrase=phrase,
        params={"query": query, "names": found, "count": len(found), "tools": len(every)},
    )


VERBS: dict[str, Callable[[Stage, Any, dict[str, Any]], None]] = {
    "set_agent": set_agent,
    "tool_search": tool_search,
}
