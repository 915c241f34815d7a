"""The Flask application factory (as in Flask's tutorial), outside the package root.

`create_app` reads configuration, binds the extensions created unbound in `app.web`
(flask-sock, Flask-Babel, htmx-flask) and registers one blueprint per web module. It lives here,
not in `app/__init__.py`, so that importing the sans-IO core (`app.mcp`) or the engine
(`app.engine`), as `mcp-lab mcp-server` and `mcp-lab trace` do, loads no Flask or werkzeug.
Templates, assets and scenarios are found by `app.paths`: beside the package in a checkout,
inside it once installed from a wheel. `flask --app app.web.factory run` finds it.
"""

from __future__ import annotations

from typing import Any

from flask import Flask

from app import paths


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the lab's Flask app; `test_config` overrides the defaults (e.g. SCENARIOS_DIR)."""
    app = Flask(
        "app",
        template_folder=str(paths.TEMPLATES),
        static_folder=str(paths.STATIC),
    )
    app.config.from_mapping(
        SCENARIOS_DIR=str(paths.SCENARIOS),
        # The engine, swappable for a stand-in in tests: an object with load_library and
        # run_trace (None means app.engine.library / app.engine.runner).
        LAB_ENGINE=None,
        # Commands are tiny JSON objects; anything larger than this is refused with an error
        # the user can read (its bytes dropped as they arrive), and the connection stays open.
        WS_MAX_COMMAND=4096,
        # A peer that answers no ping for one interval, or cannot take a frame within the send
        # timeout, is closed (app.web.channel).
        WS_PING_INTERVAL=25,
        WS_SEND_TIMEOUT=10,
        AUTOPLAY_MS=1600,
        BABEL_DEFAULT_LOCALE="en",
        SEND_FILE_MAX_AGE_DEFAULT=3600,
    )
    app.config.from_prefixed_env("LAB")
    if test_config:
        app.config.update(test_config)

    from app import web
    from app.web import assets, templatecache

    web.init_app(app)
    assets.init_app(app)
    templatecache.init_app(app)
    return app
