"""The sans-IO core and the engine load without the web shell.

`mcp-lab mcp-server` and `mcp-lab trace` import only app.mcp and app.engine (and app.cli); if
any of them pulled in Flask or werkzeug, every such run would pay for ~300 modules it never
uses, and the core would no longer be the plain library a real transport can wrap.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import app.engine
import app.mcp

WEB_PACKAGES = ("flask", "werkzeug", "flask_sock", "flask_babel", "htmx_flask", "jinja2")


def core_modules() -> list[str]:
    names = ["app", "app.cli", "app.serving.stdio_server"]
    for package in (app.mcp, app.engine):
        names.append(package.__name__)
        names += [m.name for m in pkgutil.iter_modules(package.__path__, package.__name__ + ".")]
    return names


def test_importing_the_core_and_the_engine_loads_no_flask_or_werkzeug() -> None:
    modules = core_modules()
    assert "app.mcp.client" in modules and "app.engine.runner" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {WEB_PACKAGES!r})\n"
        "print(','.join(loaded))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "", f"the core loaded {result.stdout.strip()}"


def test_the_app_factory_lives_in_the_web_shell() -> None:
    from app.web.factory import create_app

    flask_app = create_app({"TESTING": True})
    assert flask_app.name == "app"
    assert not hasattr(app, "create_app")
