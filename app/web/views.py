"""What each of the four views shows for a step, computed from the trace as plain data.

The region builders (app.web.panels) read these: the message log up to the step with requests
and responses paired (transport; each message's schema badge is made once, with the trace, in
app.web.lab), the client caches with this step's added, changed and removed rows and the pages
gathered (transform). `step_context` gathers all of a step's view data at once, which is how
app.web.recorded checks that every step of an uploaded trace can be shown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from app.engine.phrasebook import phrases
from app.engine.step import LANGUAGES, Step
from app.mcp.versions import http_flavour
from app.web import stage

__all__ = ["caches", "http_flavour", "log", "step_context"]


def log(trace: list[Step], upto: int) -> list[dict[str, Any]]:
    """Everything that crossed the wire up to step `upto`, newest last, with pairs.

    That is every JSON-RPC message, and also the transport's own framing that carries none (a
    `transport` step: the HTTP+SSE `GET /sse` whose `event: endpoint` names the POST URL, the
    Streamable HTTP `GET /mcp` stream). A step's `reply` (the bare HTTP answer to a POST, such
    as `202 Accepted`) is shown by the template under the step's own frame.
    """
    entries: list[dict[str, Any]] = []
    open_requests: dict[tuple[str, str, str], dict[str, Any]] = {}
    for step in trace[: upto + 1]:
        if step.get("message") is None and step.get("frame") is None:
            continue
        src, dst = str(step.get("from")), str(step.get("to"))
        entry = {"step": step, "outgoing": src.startswith(("client", "host")), "pair": None}
        key = (str(step.get("id")), min(src, dst), max(src, dst))
        if step.get("kind") == "request" and step.get("id") is not None:
            open_requests[key] = entry
        elif step.get("kind") in ("response", "error") and key in open_requests:
            request = open_requests.pop(key)
            request["pair"], entry["pair"] = step["index"], request["step"]["index"]
        entries.append(entry)
    return entries


def caches(step: Step, prev: Step | None) -> list[dict[str, Any]]:
    """Per client: cache rows (tool, model name, schema hash, status), removed rows, gathering."""
    state = step["state"]
    host_tools = {(t["serverId"], t["tool"]): t for t in state["host"]["tools"]}
    changes = step["changes"].get("cache") or {"added": [], "removed": [], "changed": []}
    added, changed = set(changes["added"]), set(changes["changed"])
    removed = set(changes["removed"])
    before = prev["state"]["clients"] if prev is not None else {}
    out = []
    for sid, client in state["clients"].items():
        cache = client["cache"]
        pages = cache.get("pages") or []
        # each tool's time left is its own page's: pages are cached and expire one by one
        page_left = {
            name: max(0, page["expiresAtMs"] - state["clockMs"])
            for page in pages
            for name in page["tools"]
        }
        rows = []
        for tool in cache["tools"]:
            name = tool.get("name")
            host: Mapping[str, Any] = host_tools.get((sid, str(name)), {})
            model_name = host.get("modelName")
            keys = {name, model_name, f"{sid}/{name}"}
            status = next(
                (s for s, names in (("added", added), ("changed", changed)) if keys & names), ""
            )
            rows.append(
                {
                    "tool": name,
                    "model": model_name,
                    "hash": host.get("schemaHash"),
                    "status": status,
                    "ttl": page_left.get(name),
                }
            )
        had = [t.get("name") for t in before[sid]["cache"]["tools"]] if sid in before else []
        now = {r["tool"] for r in rows}
        out.append(
            {
                "id": sid,
                "client": client,
                "cache": cache,
                "rows": rows,
                "removed": [n for n in had if {n, f"{sid}/{n}"} & removed and n not in now],
                "ttl": stage.ttl_left(cache, state["clockMs"]),
                "pages": [
                    {**page, "left": max(0, page["expiresAtMs"] - state["clockMs"])}
                    for page in pages
                ],
                "gathering": client["gathering"],
            }
        )
    return out


@cache
def _verdict() -> re.Pattern[str]:
    """A leading verdict in any language, with the punctuation after it: the words are
    verdict.words of phrases.yaml, so a translation adds its own."""
    table = phrases()["verdict.words"]
    words = [w for lang in LANGUAGES for w in str(table[lang]).split("|")]
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    stops = "\uff1a\u3002\uff01\uff0c\uff1b"  # full-width : . ! , ;
    return re.compile(rf"^\s*({alternatives})\s*[:.!,;{stops}\u2014\u2013-]\s*", re.IGNORECASE)


def reason(text: str) -> str:
    """A choice's explanation without a leading verdict ("Right: ...", in any language).

    The page says the verdict itself, once, in its own words ("Right." / "Not quite."), so a
    reason that starts with one would repeat it.
    """
    stripped = _verdict().sub("", text, count=1)
    return stripped[:1].upper() + stripped[1:] if stripped else text


def step_context(trace: list[Step], index: int) -> dict[str, Any]:
    """The template context of step `index` (language and session state are added later)."""
    step = trace[index]
    state = step.get("state") or {}
    geometry = stage.layout(state)
    shapes = stage.layouts(state)
    return {
        "step": step,
        "index": index,
        "total": len(trace),
        "last": len(trace) - 1,
        "kinds": [(s.get("kind"), s.get("method")) for s in trace],
        "checkpoints": [i for i, s in enumerate(trace) if s.get("checkpoint")],
        "state": state,
        "stage": geometry,
        "motion": stage.motion(step, geometry),
        "stages": [(g, stage.motion(step, g)) for g in shapes],
        "fit": stage.fit,
        "reason": reason,
        "label_lines": stage.label_lines,
        "log": log(trace, index),
        "caches": caches(step, trace[index - 1] if index else None),
        "host": state.get("host") or {},
        "model": state.get("model") or {},
        "console": state.get("console") or [],
        "model_changes": (step.get("changes") or {}).get("model") or {},
    }
