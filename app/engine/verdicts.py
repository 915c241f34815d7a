"""Scenario verdicts kept on disk, so a server's first page does not wait for the whole library
to be validated again (16 scenarios, every version and transport run: seconds of CPU).

A verdict is the list of errors `library.validate` found in a file (empty when it is valid). It
is stored under a key that hashes everything the verdict depends on: the file's name and bytes,
every file of `app.engine` and `app.mcp` (the scenario schema, the runner, the protocol core and
the official message schemas it checks against), the modules at the top of `app` (such as the
bounded JSON reader) and the versions of jsonschema and PyYAML. Change any of them and the key
changes, so an old verdict is never read; nothing has to be invalidated by hand. A test checks
that validation imports nothing of the lab beyond these.

Where: `LAB_CACHE_DIR`, else `$XDG_CACHE_HOME/mcp-discovery-lab`, else
`~/.cache/mcp-discovery-lab`. Entries are small JSON files written atomically; a folder that
cannot be written only costs the time the cache would have saved.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import cache
from importlib import metadata
from pathlib import Path

from .scenario import ScenarioError

__all__ = ["cache_dir", "cache_root", "code_fingerprint", "fingerprint", "key", "load", "store"]

# The packages whose code decides a verdict (app/engine: schema, loader, runner, checks;
# app/mcp: the core the runner drives and the message schemas), besides app/*.py.
_PACKAGES = ("engine", "mcp")
_SUFFIXES = (".py", ".json", ".yaml")
_LIBRARIES = ("jsonschema", "PyYAML")
_FORMAT = "1"  # bump when the stored shape changes


def cache_root() -> Path:
    """The lab's cache folder, which holds verdicts and compiled templates (app.web.templates)."""
    configured = os.environ.get("LAB_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mcp-discovery-lab"


def cache_dir() -> Path:
    """Where verdicts live (the folder may not exist yet)."""
    return cache_root() / "verdicts"


@cache
def code_fingerprint() -> str:
    """The fingerprint of the installed lab's validating code; computed once per process."""
    return fingerprint(Path(__file__).resolve().parents[1])


def fingerprint(root: Path) -> str:
    """A hash of every file of the validating code under `root` (the `app` folder: its own
    modules, app/engine and app/mcp), and of the versions of the libraries that parse and check
    a file."""
    digest = hashlib.sha256(_FORMAT.encode())
    for library in _LIBRARIES:
        digest.update(f"{library}=={metadata.version(library)}\0".encode())
    files = [*root.glob("*.py"), *(p for package in _PACKAGES for p in (root / package).rglob("*"))]
    for path in sorted(files):
        if path.suffix in _SUFFIXES and path.is_file():
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def key(name: str, content: bytes) -> str:
    """The key of the verdict on a file called `name` holding `content`."""
    digest = hashlib.sha256(code_fingerprint().encode())
    digest.update(name.encode() + b"\0" + content)
    return digest.hexdigest()


def load(entry: str) -> list[ScenarioError] | None:
    """The stored errors for `entry` ([] for a valid file), or None when nothing usable is kept."""
    try:
        raw = json.loads((cache_dir() / f"{entry}.json").read_text("utf-8"))
        return [ScenarioError(str(f), int(n), str(fld), str(m)) for f, n, fld, m in raw["errors"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent, unreadable or from another shape: validate again


def store(entry: str, errors: list[ScenarioError]) -> None:
    """Keep the errors for `entry`; written to a temporary file and renamed, so a reader in
    another process never sees half an entry."""
    folder = cache_dir()
    data = {"errors": [[e.file, e.line, e.field, e.message] for e in errors]}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(data, out, ensure_ascii=False)
            os.replace(temporary, folder / f"{entry}.json")
        except OSError:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        pass  # a read-only home or a full disk: the lab still works, only slower to start
