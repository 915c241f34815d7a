"""The panel's markup, and the names of the change kinds in the student's language."""

from __future__ import annotations

from flask import render_template
from flask_babel import lazy_gettext as _l

from app.web.whatif.panel import Panel

# What each change kind is called on the page (the engine describes each change made; these
# name the moves a challenge allows and the panel's forms).
KIND_NAMES = {
    "pageSize": _l("Page size"),
    "ttl": _l("Time to live (ttlMs)"),
    "pageTtl": _l("Each page's ttlMs"),
    "listChanged": _l("Declares listChanged"),
    "addTool": _l("Add a tool"),
    "removeTool": _l("Remove a tool"),
    "renameTool": _l("Rename a tool"),
    "toolSchema": _l("Change a tool's input schema"),
    "twinServer": _l("A second server with a tool of the same name"),
    "protocolVersion": _l("Protocol version"),
    "transport": _l("Transport"),
    "cache": _l("Client cache"),
    "refreshOnListChanged": _l("Refresh on list_changed"),
    "poll": _l("Poll every N seconds"),
    "rediscover": _l("Re-discover on a failed call"),
    "addToolNow": _l("The server adds a tool now"),
    "removeToolNow": _l("The server removes a tool now"),
    "toolSchemaNow": _l("The server changes a schema now"),
    "loseNext": _l("The next message is lost"),
    "restartServer": _l("The server restarts"),
    "wait": _l("Time passes"),
    "callTool": _l("The model calls a tool"),
}

COUNT_NAMES = {
    "messages": _l("Messages"),
    "roundTrips": _l("Round trips"),
    "bytes": _l("Bytes"),
    "lists": _l("tools/list requests"),
}


def panel_html(p: Panel, lang: str) -> str:
    """The panel in `lang` (the caller forces the locale)."""
    return render_template(
        "whatif/_panel.html", lang=lang, p=p, kind_names=KIND_NAMES, count_names=COUNT_NAMES
    )
