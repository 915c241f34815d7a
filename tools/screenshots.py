"""The README's pictures of the lab's three faces, taken from the running lab (`make screenshots`).

A lesson in the viewer, the live classroom on the instructor's screen with two students voting,
and a lesson embedded in a course page on another origin. The lab is served from a thread with
the real engine, the course page from a second port, and headless Debian Chromium (the tests'
own) takes each picture at 1280×720 in the light theme with motion reduced, after waiting for
the state it shows, never for a time. PNGs go to docs/img/, squeezed by pngquant when it is
installed (`make screenshots` installs it), so they stay small and follow the interface:
re-run it after a change to what they show. tests/test_screenshots.py runs it into a folder of
its own, so a change that breaks a picture's recipe fails there.

    .venv/bin/python -m tools.screenshots [--out DIR]
"""

from __future__ import annotations

import argparse
import logging
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import Browser, Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.web.factory import create_app  # noqa: E402
from tests.conftest import served_from_a_thread  # noqa: E402
from tests.test_browser_viewer import ARGS, CHROMIUM  # noqa: E402

OUT = ROOT / "docs" / "img"
SIZE = {"width": 1280, "height": 720}
LOOK = {"viewport": SIZE, "color_scheme": "light", "reduced_motion": "reduce", "locale": "en-US"}

COURSE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>MCP 101 · Week 3</title><style>
body {{ font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f3f1ec; color: #222; }}
header {{ background: #2d3a4a; color: #fff; padding: 14px 28px; font-weight: 600; }}
main {{ max-width: 1100px; margin: 0 auto; padding: 8px 28px; }}
iframe {{ border: 1px solid #ccc; border-radius: 8px; background: #fff; }}
</style></head><body><header>MCP 101 · Week 3: how an agent finds its tools</header><main>
<p>Before Thursday's seminar, work through this lesson: it reports your progress to this page.</p>
<iframe src="{lab}/embed/pagination?lang=en&amp;step=3" title="Pagination" width="100%"
  height="900"></iframe></main></body></html>"""


@contextmanager
def course_site(lab: str) -> Iterator[str]:
    """A course page on its own origin that embeds a lesson of `lab`."""
    page = COURSE.format(lab=lab).encode()

    class Course(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Course)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def connected(page: Page) -> None:
    expect(page.locator("body")).to_have_attribute("data-ws", "open", timeout=20000)


def lesson(browser: Browser, lab: str, out: Path) -> Path:
    page = browser.new_context(**LOOK).new_page()  # type: ignore[arg-type]
    page.goto(f"{lab}/scenario/pagination?step=4&view=overview&lang=en")
    connected(page)
    expect(page.locator("#status")).to_have_attribute("data-step", "3")
    page.screenshot(path=out / "lesson.png")
    page.context.close()
    return out / "lesson.png"


def classroom(browser: Browser, lab: str, out: Path) -> Path:
    """The instructor's screen at a poll two students have answered."""
    teacher = browser.new_context(**LOOK).new_page()  # type: ignore[arg-type]
    teacher.goto(f"{lab}/scenario/pagination?lang=en")
    teacher.locator("#teach-pagination").click()
    expect(teacher).to_have_url(re.compile(r"/live/[A-Z2-9]{6}/present"))
    connected(teacher)
    code = teacher.locator("#room-code").inner_text().strip()
    students = []
    for _ in range(2):
        student = browser.new_context(**LOOK).new_page()  # type: ignore[arg-type]
        student.goto(f"{lab}/join?code={code}")
        connected(student)
        students.append(student)
    expect(teacher.locator("[data-students]")).to_have_attribute("data-students", "2")
    for n in range(2, 20):  # step on to the first question
        if teacher.locator("#checkpoint[data-state=idle]").count():
            break
        teacher.keyboard.press("ArrowRight")
        expect(teacher.locator("#counter")).to_contain_text(f"Step {n} of")
    teacher.get_by_role("button", name="Open poll").click()
    for student, choice in zip(students, (0, 1), strict=True):
        expect(student.locator("#checkpoint")).to_have_attribute("data-state", "open")
        student.locator(f"#choice-{choice}").click()
    for choice in (0, 1):
        count = teacher.locator(f"[data-choice='{choice}'][data-count]")
        expect(count).to_have_attribute("data-count", "1")
    # The poll took the focus and scrolled its panel: show the room from the top.
    teacher.evaluate("document.querySelectorAll('*').forEach(e => { e.scrollTop = 0; })")
    teacher.screenshot(path=out / "classroom.png")
    for page in (teacher, *students):
        page.context.close()
    return out / "classroom.png"


def embed(browser: Browser, course: str, out: Path) -> Path:
    page = browser.new_context(**LOOK).new_page()  # type: ignore[arg-type]
    page.goto(course)
    frame = page.frame_locator("iframe")
    connected(frame)  # type: ignore[arg-type]
    expect(frame.locator("#status")).to_have_attribute("data-step", "2")
    page.screenshot(path=out / "embed.png")
    page.context.close()
    return out / "embed.png"


def squeeze(paths: list[Path]) -> bool:
    """Quantize the PNGs in place with pngquant, if it is installed; True if it was."""
    if shutil.which("pngquant") is None:
        return False
    for path in paths:
        quality = ["--quality", "70-95", "--strip", "--skip-if-larger", "--force"]
        subprocess.run(
            ["pngquant", *quality, "--output", str(path), str(path)],
            check=False,
        )
    return True


def make(out: Path = OUT) -> list[Path]:
    """Take the three pictures into `out`; their paths."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    out.mkdir(parents=True, exist_ok=True)
    # The join screen would warn that phones cannot open 127.0.0.1: name a public address.
    app = create_app({"PUBLIC_URL": "https://lab.example.org"})
    with served_from_a_thread(app) as lab, course_site(lab) as course, sync_playwright() as p:
        app.config["FRAME_ANCESTORS"] = course  # read on each request: the course may frame it
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            paths = [
                lesson(browser, lab, out),
                classroom(browser, lab, out),
                embed(browser, course, out),
            ]
        finally:
            browser.close()
    squeeze(paths)
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    for path in make(args.out):
        print(
            f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: "
            f"{path.stat().st_size // 1024} KiB"
        )
    if shutil.which("pngquant") is None:
        print("pngquant is not installed: the pictures are not squeezed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
