"""The watch view of real sessions: a page of `mcp-lab serve` watching a served MCP server.

`mcp-lab mcp-server ... --transport http` records every client's session as trace steps while it
happens (app.serving.sessions, through the engine's Recorder) and serves them as JSON on its own
loopback port (/lab/sessions, /lab/steps). This page, /watch?server=URL, shows them in the
viewer's own four views.

Modules: `client` (the served server's /lab/* JSON over loopback HTTP), `feed` (a watched
session as a scenario-like trace, brought up to date step by step), `render` (the viewer's Lab
over that trace and the page's own regions), `routes` (/watch, /watch/change, /watch/open and
the socket's URL) and `socket` (one page's live conversation on /ws/watch).

Why `mcp-lab serve` serves the page and not the served server: the served server is an h11
shell around the sans-IO core that speaks MCP and a little JSON; templates, translations, the
CSP, the Origin check and the websocket live in the Flask app, and one lab can watch any served
server on this machine. Only http:// loopback addresses are watched, so the lab never fetches
from elsewhere.
"""

from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    """Register the watch view's blueprint (its pages and its socket)."""
    from app.web.watch import routes

    app.register_blueprint(routes.bp)
