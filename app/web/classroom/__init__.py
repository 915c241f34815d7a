"""The live classroom: an instructor steps through a scenario, a room of students follows.

Modules: `codes` (join codes, secrets, QR), `room` (the room as data and its moves, sans-IO),
`store` and `redis_store` (one interface, in memory or in Redis), `seats` and `presence` (who
is in a room, as sockets that expire with their process, and the beat that keeps pages honest
about the store), `render` (regions and
deltas), `frames` (websocket frames encoded once), `fanout` (followers and the relay),
`service` (the app's `Classroom`; `needs`: what its parts call back of it, as Protocols),
`routes` (HTTP) and `socket` (the live websocket: who is on
it), served by its `conversation` (a student's commands) and `drive` (the instructor's); for
the instructor beside the projector `pages` (speaker view, results, history) with `speaker`,
`roster` (from the seats), `results` and `history` over the room's `ledger`, and `pacing` and
`timer` (a poll's deadline, closed by any process's beat).
"""

from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    """Install `Classroom` and register the live blueprints."""
    from app.web.classroom import pages, routes, socket
    from app.web.classroom.service import Classroom

    app.config.setdefault("LIVE_IDLE_SECONDS", 4 * 3600)
    app.config.setdefault("LIVE_CAPACITY", 5000)
    app.config.setdefault("LIVE_QUEUE", 16)
    # A process's seats expire this long after its last presence beat (presence.py).
    app.config.setdefault("LIVE_PRESENCE_SECONDS", 30)
    app.extensions["classroom"] = Classroom(app)
    app.register_blueprint(routes.bp)
    app.register_blueprint(socket.bp)
    app.register_blueprint(pages.bp)
