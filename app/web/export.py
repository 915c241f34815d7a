"""What a course takes away from a lesson: the trace as JSON Lines, and a printable handout.

`/scenario/<id>/trace.jsonl?version=&transport=` is the trace on screen, encoded by the same
`app.engine.jsonl` the CLI's `mcp-lab trace --format jsonl` uses, so the two are the same bytes.
`/scenario/<id>/handout?version=&transport=&lang=` lays out every step (narration, the JSON-RPC
message and its frame), the questions with their answers at the end, and the myths; its print
stylesheet (static/css/handout.css) drops the controls and keeps a step whole, and a long message
is folded with a note (app/web/handout.py), so two or three steps share a page.
`/scenario/<id>/handout.pdf` is that page printed by headless Chromium on the server. Chromium
reads the handout from a temporary file, not from a request back to this server: nothing a
client sends (a Host header) can point it at another address, and a one-worker server cannot
deadlock waiting on itself. Without Chromium the endpoint answers 503 and says to use Print.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, render_template, url_for
from flask_babel import force_locale, gettext

from app.engine.jsonl import jsonl_lines
from app.web import lesson
from app.web.course import questions
from app.web.handout import fold_frame, fold_message
from app.web.render import Viewer
from app.web.viewer import _viewer

bp = Blueprint("export", __name__)

# One Chromium at a time: a print takes a second of CPU, and a class clicking together must not
# start thirty browsers on a two-core server.
_printing = threading.BoundedSemaphore(1)


def _filename(v: Viewer, suffix: str) -> str:
    return f"{v.sid}-{v.version}-{v.transport}{suffix}"


@bp.get("/scenario/<sid>/trace.jsonl")
def trace_jsonl(sid: str) -> Response:
    v = _viewer(sid)
    body = "".join(jsonl_lines(current_app.extensions["lab"].trace(sid, v.version, v.transport)))
    return Response(
        body.encode("utf-8"),
        mimetype="application/x-ndjson",
        headers={
            "Content-Disposition": f'attachment; filename="{_filename(v, ".jsonl")}"',
        },
    )


def handout_html(v: Viewer, asset: Any = None) -> str:
    """The handout page; `asset(filename)` gives stylesheet URLs (file:// ones for printing)."""
    lab = current_app.extensions["lab"]
    trace = lab.trace(v.sid, v.version, v.transport)
    with force_locale(v.lang):
        return render_template(
            "handout.html",
            lang=v.lang,
            v=v,
            scenario=v.scenario,
            trace=trace,
            questions=questions(trace),
            lesson=lesson.lesson(v.scenario, trace),
            asset=asset or (lambda name: url_for("static", filename=name)),
            printing=asset is not None,
            fold_message=fold_message,
            fold_frame=fold_frame,
        )


@bp.get("/scenario/<sid>/handout")
def handout(sid: str) -> str:
    return handout_html(_viewer(sid))


def chromium() -> str | None:
    """The Chromium to print with: LAB_CHROMIUM, else chromium on the PATH, else None."""
    configured = current_app.config.get("CHROMIUM")
    if configured:
        return str(configured) if Path(str(configured)).exists() else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


def print_pdf(browser: str, html: str, timeout: float = 60) -> bytes:
    """Print `html` to PDF with headless Chromium, reading it from a temporary file."""
    with tempfile.TemporaryDirectory(prefix="mcp-lab-pdf-") as tmp:
        page, pdf = Path(tmp) / "handout.html", Path(tmp) / "handout.pdf"
        page.write_text(html, encoding="utf-8")
        command = [
            browser,
            "--headless",
            "--no-sandbox",  # the server may run as root in a container; the page is our own
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            f"--user-data-dir={tmp}/profile",
            "--no-pdf-header-footer",
            f"--print-to-pdf={pdf}",
            page.as_uri(),
        ]
        with _printing:
            subprocess.run(command, capture_output=True, timeout=timeout, check=False)
        if not pdf.exists() or not pdf.read_bytes().startswith(b"%PDF"):
            raise RuntimeError("chromium produced no PDF")
        return pdf.read_bytes()


@bp.get("/scenario/<sid>/handout.pdf")
def handout_pdf(sid: str) -> Response | tuple[str, int]:
    v = _viewer(sid)
    browser = chromium()
    if browser is None:
        with force_locale(v.lang):
            message = gettext(
                "This server cannot make PDFs (Chromium is not installed). Open the handout "
                "and use your browser's Print, then Save as PDF."
            )
        return message, 503
    static = Path(current_app.static_folder or "")
    html = handout_html(v, asset=lambda name: (static / name).resolve().as_uri())
    try:
        pdf = print_pdf(browser, html)
    except (OSError, RuntimeError, subprocess.TimeoutExpired):
        current_app.logger.exception("printing the handout of %s failed", sid)
        with force_locale(v.lang):
            return gettext("The PDF could not be made; the printable handout still works."), 503
    return Response(
        pdf,
        mimetype="application/pdf",
        headers={"Content-Disposition": f'attachment; filename="{_filename(v, ".pdf")}"'},
    )
