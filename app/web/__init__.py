"""The web shell: extensions created unbound here, bound to an app by `init_app`.

flaskr style: `sock`, `babel` and `htmx` exist once, in this module, and every web module
registers its routes on its own blueprint named `bp`. `init_app` installs the security hooks
first (headers on every response, the guard on every POST and websocket upgrade: `security`;
bounded bodies and a readable 413: `limits`),
then the `Lab` (the scenario library plus the cache of rendered fragments) under
`app.extensions["lab"]` and the Jinja filters that make tool text safe to show.
"""

from __future__ import annotations

from flask import Flask
from flask_babel import Babel
from flask_sock import Sock
from htmx_flask import Htmx

sock = Sock()
babel = Babel()
htmx = Htmx()


def init_app(app: Flask) -> None:
    """Bind the extensions and register the blueprints of the web shell."""
    from app.web import (
        author,
        bodies,
        classroom,
        course,
        embed,
        export,
        glossary,
        i18n,
        library,
        limits,
        lti,
        recorded,
        render,
        scorm,
        security,
        socket,
        text,
        viewer,
        watch,
        whatif,
    )
    from app.web.lab import Lab

    security.init_app(app)
    babel.init_app(app, locale_selector=i18n.select_locale)
    sock.init_app(app)
    htmx.init_app(app)
    limits.init_app(app)  # after htmx, whose request class it extends
    app.extensions["lab"] = Lab(app.config)
    text.init_app(app)
    course.init_app(app)
    glossary.init_app(app)
    i18n.init_app(app)
    render.init_app(app)
    app.register_blueprint(library.bp)
    app.register_blueprint(viewer.bp)
    app.register_blueprint(bodies.bp)
    app.register_blueprint(socket.bp)
    app.register_blueprint(export.bp)
    app.register_blueprint(embed.bp)
    lti.init_app(app)
    scorm.init_app(app)
    app.register_blueprint(recorded.bp)
    app.register_blueprint(whatif.bp)
    watch.init_app(app)
    recorded.init_app(app)
    classroom.init_app(app)
    author.init_app(app)
