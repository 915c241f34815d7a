"""Where this machine's lab (`mcp-lab serve`) listens, so a served server or a tap prints a watch
link that opens.

The served server and the lab are two processes, and the lab's port is the user's choice. While
it runs, `mcp-lab serve` leaves its address in a small file of the user's runtime directory
(`announce`, removed again by `withdraw`); `lab_url` reads it back, after an explicit `--lab URL`
and before the default port. A file whose process is gone is ignored. LAB_RUNTIME_DIR moves the
directory (tests use their own).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

from app.bounded_json import JsonRefused, read_json

__all__ = ["DEFAULT_LAB", "announce", "lab_url", "watch_url", "withdraw"]

DEFAULT_LAB = "http://127.0.0.1:5000"
FILE = "lab.json"


def _directory() -> Path:
    chosen = os.environ.get("LAB_RUNTIME_DIR")
    if chosen:
        return Path(chosen)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) / "mcp-lab"
    return Path(tempfile.gettempdir()) / f"mcp-lab-{os.getuid()}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def announce(host: str, port: int) -> None:
    """Record this lab's address for served servers and taps (best effort)."""
    local = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    shown = f"[{local}]" if ":" in local else local
    with contextlib.suppress(OSError):
        directory = _directory()
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        record = {"url": f"http://{shown}:{port}", "pid": os.getpid()}
        (directory / FILE).write_text(json.dumps(record), "utf-8")


def withdraw() -> None:
    """Remove the record, if it is still this process's."""
    path = _directory() / FILE
    with contextlib.suppress(OSError, JsonRefused):
        record = read_json(path.read_bytes(), 4096)
        if isinstance(record, dict) and record.get("pid") == os.getpid():
            path.unlink()


def running_lab() -> str | None:
    """The address a running lab recorded, or None."""
    with contextlib.suppress(OSError, JsonRefused):
        record = read_json((_directory() / FILE).read_bytes(), 4096)
        if isinstance(record, dict) and isinstance(record.get("pid"), int):
            url = record.get("url")
            if isinstance(url, str) and url.startswith("http") and _alive(record["pid"]):
                return url.rstrip("/")
    return None


def lab_url(explicit: str | None = None) -> tuple[str, bool]:
    """The lab's address and whether it is known (False: the default, a guess)."""
    if explicit:
        return explicit.rstrip("/"), True
    found = running_lab()
    return (found, True) if found else (DEFAULT_LAB, False)


def watch_url(lab: str, served: str) -> str:
    """The watch page of `lab` showing the sessions a served server or a tap records."""
    return f"{lab}/watch?server={served}"
