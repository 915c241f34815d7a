"""The viewer's websocket route: a few lines of I/O around `session.converse`.

Each viewer page opens one socket at /ws/scenario/<id> with its deep-link query, so a page that
reconnects after a drop comes back to the step in its URL. All per-connection state (the
viewer's cursor and its pacer) is created here, in the handler's locals, and dies with it. The
socket is the lab's one channel (app.web.channel: bounded sends, one heartbeat, one command
limit), opened by `upgrade.route`.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, request

from app.web import i18n, upgrade
from app.web.pacer import Pacer
from app.web.render import open_viewer
from app.web.session import converse
from app.web.whatif import routes as whatif

bp = Blueprint("socket", __name__)


def scenario_socket(ws: Any, sid: str) -> None:
    """Open a viewer in the state of the socket URL's query and serve it until it closes."""
    lab = whatif.socket_lab(current_app.extensions["lab"], sid, request.args)
    scenario = lab.scenario(sid)
    if scenario is None:
        ws.close(1008, "unknown scenario")
        return
    viewer = open_viewer(scenario, request.args, i18n.select_locale())
    # A URL's step past the end (step=999999) means the last step, before any command reads it.
    last = len(lab.trace(viewer.sid, viewer.version, viewer.transport)) - 1
    viewer.step = min(viewer.step, last)
    pacer = Pacer(current_app.config["AUTOPLAY_MS"])
    converse(ws, lab, viewer, pacer, current_app.config["WS_MAX_COMMAND"])


# Registered by call rather than as a decorator so the function stays importable for tests.
upgrade.route(bp, "/ws/scenario/<sid>")(scenario_socket)
