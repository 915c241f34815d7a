"""The websocket route: a few lines of I/O around `session.converse`.

Each viewer page opens one socket at /ws/scenario/<id> with its deep-link query, so a page that
reconnects after a drop comes back to the step in its URL. All per-connection state (the
viewer's cursor and its pacer) is created here, in the handler's locals, and dies with it.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, request

from app.web import i18n, sock
from app.web.pacer import Pacer
from app.web.render import open_viewer
from app.web.session import converse

bp = Blueprint("socket", __name__)


def scenario_socket(ws: Any, sid: str) -> None:
    """Open a viewer in the state of the socket URL's query and serve it until it closes."""
    lab = current_app.extensions["lab"]
    scenario = lab.scenario(sid)
    if scenario is None:
        ws.close(reason=1008, message="unknown scenario")
        return
    viewer = open_viewer(scenario, request.args, i18n.select_locale())
    pacer = Pacer(current_app.config["AUTOPLAY_MS"])
    converse(ws, lab, viewer, pacer, current_app.config["WS_MAX_COMMAND"])


# Registered by call rather than as a decorator so the function stays importable for tests.
sock.route("/ws/scenario/<sid>", bp=bp)(scenario_socket)
