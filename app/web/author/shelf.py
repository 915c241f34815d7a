"""Saving a scenario into the instructor's library folder (LAB_SCENARIOS_DIR), and who may.

Who: a browser on the lab's own machine, or anyone who gives the instructor's key
(LAB_INSTRUCTOR_KEY, compared in constant time). "On the lab's own machine" means three things:
the connection comes from a loopback address; no proxy relayed it (a reverse proxy on the same
machine relays strangers from 127.0.0.1, and says so with Forwarded / X-Forwarded-For); and the
page asked for a loopback name (`Host`), since a page of attacker.example whose name was made to
resolve to 127.0.0.1 (DNS rebinding) is same-origin with itself and passes the guard. The
cross-site half is the guard's: every POST passes app.guard before it reaches a view.

Where: only `<id>.yaml` straight inside the folder, the name spelled as a scenario id may be
(so no separator, no dot-dot, no hidden file, nothing a file system reads specially), checked
again once resolved, and never through a symbolic link. The file is written beside its target
and moved into place, so the library never reads half a file; an existing file is replaced
only when asked.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import re
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from app import guard

NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,63}\.yaml")  # a scenario id (the schema's) + .yaml
PROXY_HEADERS = ("forwarded", "x-forwarded-for", "x-forwarded-host", "x-real-ip")


class SaveRefused(Exception):
    """Why a save did not happen: `key` is one of rights, invalid, busy, name, id, folder,
    outside, exists, write; `status` is the HTTP status that says it."""

    STATUS: ClassVar[dict[str, int]] = {
        "rights": 403,
        "exists": 409,
        "busy": 503,
        "folder": 500,
        "write": 500,
    }

    def __init__(self, key: str, detail: str = "") -> None:
        super().__init__(f"{key}: {detail}" if detail else key)
        self.key = key
        self.detail = detail

    @property
    def status(self) -> int:
        return self.STATUS.get(self.key, 400)


def _loopback(name: str) -> bool:
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name.split("%")[0]).is_loopback
    except ValueError:
        return False


def is_local(remote_addr: str | None, headers: Mapping[str, str]) -> bool:
    """Whether the request comes straight from this machine, for a loopback name."""
    named = {name.lower(): value for name, value in headers.items()}
    if remote_addr is None or any(h in named for h in PROXY_HEADERS):
        return False
    host = guard.authority(named.get("host", ""))
    return host is not None and _loopback(host[0]) and _loopback(remote_addr)


def may_save(remote_addr: str | None, headers: Mapping[str, str], key: str, setting: str) -> bool:
    """Loopback without a proxy, or the instructor's key when one is configured."""
    if setting and key and hmac.compare_digest(key.encode(), setting.encode()):
        return True
    return is_local(remote_addr, headers)


def check_name(name: str, scenario_id: str) -> None:
    """SaveRefused unless `name` is `<scenario_id>.yaml` spelled as a library file may be."""
    if not NAME.fullmatch(name):
        raise SaveRefused("name", name[:80])
    if name != f"{scenario_id}.yaml":
        raise SaveRefused("id", f"{name} holds {scenario_id}")


def save(folder: str | Path, name: str, text: str, *, replace: bool = False) -> Path:
    """Write `text` as folder/name (name already checked); the path written."""
    if not NAME.fullmatch(name):
        raise SaveRefused("name", name[:80])
    try:
        root = Path(folder).resolve(strict=True)
    except OSError as exc:
        raise SaveRefused("folder", str(exc)) from None
    if not root.is_dir():
        raise SaveRefused("folder", f"{root} is not a folder")
    target = root / name
    if target.is_symlink() or target.resolve().parent != root:
        raise SaveRefused("outside", str(target))
    if target.exists() and not replace:
        raise SaveRefused("exists", name)
    temporary = root / f".{name}.{secrets.token_hex(6)}.part"
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="\n") as file:
            file.write(text)
        os.replace(temporary, target)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise SaveRefused("write", str(exc)) from None
    return target
