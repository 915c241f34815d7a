"""Install the lab as a user does and serve a scenario page from the install (`make installed`).

The suite runs from an editable install with the test extras, which hide what a user's
`pip install .` lacks: an undeclared dependency (gunicorn's gevent worker imports `packaging`)
or a file that lives in the checkout but not in the wheel (templates, static files, scenarios,
compiled translations). So: a fresh venv, `pip install .` alone (pip's cache keeps it cheap),
`mcp-lab serve` started from an empty folder, and the page, every static file it links and its
Chinese translation fetched from that server. Exit 0 when all answer, else 1 with the reason.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import venv
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
PAGE = "/scenario/pagination"
START_TIMEOUT = 300  # seconds: a net, not a measure; it runs beside the suite on a loaded machine
ZH_NEXT = "下一步"  # the stepper's Next from the zh gettext catalog: the .mo files are there


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(url: str, timeout: float = 30) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return bytes(response.read())


def wait_for_page(url: str, server: subprocess.Popen[bytes]) -> bytes:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"mcp-lab serve exited with {server.returncode} before serving")
        try:
            # The first page validates the whole library of a fresh install: on a loaded
            # machine that is minutes of wall clock, so it may take all the time that is left.
            return fetch(url, timeout=max(1.0, deadline - time.monotonic()))
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    raise SystemExit(f"{url} did not answer within {START_TIMEOUT} s")


def check_served(base: str, server: subprocess.Popen[bytes]) -> None:
    page = wait_for_page(base + PAGE, server).decode("utf-8")
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', page)
    if not any("htmx" in asset for asset in assets):
        raise SystemExit(f"{PAGE} links no htmx: {assets}")
    for asset in assets:
        if not fetch(base + asset.replace("&amp;", "&")):
            raise SystemExit(f"{asset} is empty")
    if ZH_NEXT not in fetch(base + PAGE + "?lang=zh").decode("utf-8"):
        raise SystemExit(f"{PAGE}?lang=zh is not in Chinese: are the .mo catalogs installed?")
    print(f"installed lab served {PAGE}, {len(assets)} static files and its Chinese page")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="mcp-lab-installed-") as tmp:
        env_dir, cwd = Path(tmp) / "venv", Path(tmp) / "elsewhere"
        cwd.mkdir()
        # The venv gets no pip of its own (ensurepip costs seconds): this pip installs into it.
        venv.create(env_dir, with_pip=False)
        python = str(env_dir / "bin" / "python")
        pip = [sys.executable, "-m", "pip", "--python", python, "install", "-qq"]
        subprocess.run([*pip, "--disable-pip-version-check", str(CHECKOUT)], check=True)
        port = free_port()
        command = [str(env_dir / "bin" / "mcp-lab"), "serve", "--port", str(port)]
        # Its own cache folder: the install validates its library from scratch, as a new user's.
        env = {**os.environ, "LAB_CACHE_DIR": str(Path(tmp) / "cache")}
        log = Path(tmp) / "serve.log"
        with log.open("wb") as out:
            server = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=out)
        try:
            check_served(f"http://127.0.0.1:{port}", server)
        except SystemExit:
            server.terminate()
            server.wait(timeout=10)
            sys.stderr.write(log.read_text("utf-8", errors="replace")[-4000:])
            raise
        finally:
            if server.poll() is None:
                server.terminate()
                server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
