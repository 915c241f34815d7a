"""Compiled templates kept on disk, so a new process renders its first page without compiling.

Jinja compiles each template to Python the first time a process renders it: about 30 templates
for a scenario page, a second of CPU on a loaded 2-core machine, paid by every server start and
by every app a test builds. Jinja's own `FileSystemBytecodeCache` keeps the compiled code in the
lab's cache folder (`LAB_CACHE_DIR`, beside the scenario verdicts of app.engine.verdicts).

Jinja checks each entry against the template's source (a checksum) and the Python version, so an
edited template is compiled again. It does not check the environment's options, which change
the compiled code: the folder's name hashes them (the Jinja version, the extensions, the
delimiters and whitespace flags), so an app built another way never reads these entries. A
folder that cannot be written only costs the compiling the cache would have saved.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import jinja2
from flask import Flask
from jinja2 import Environment, FileSystemBytecodeCache

from app.engine.verdicts import cache_root

__all__ = ["folder_for", "init_app"]


def folder_for(env: Environment) -> Path:
    """The cache folder of templates compiled by environments configured like `env`."""
    options = [
        jinja2.__version__,
        *sorted(env.extensions),
        env.block_start_string,
        env.block_end_string,
        env.variable_start_string,
        env.variable_end_string,
        env.comment_start_string,
        env.comment_end_string,
        str(env.line_statement_prefix),
        str(env.line_comment_prefix),
        str((env.trim_blocks, env.lstrip_blocks, env.keep_trailing_newline)),
        str(getattr(env, "newstyle_gettext", None)),
    ]
    digest = hashlib.sha256("\0".join(options).encode()).hexdigest()[:16]
    return cache_root() / f"templates-{digest}"


def init_app(app: Flask) -> None:
    """Keep `app`'s compiled templates on disk (call once its extensions are added)."""
    env = app.jinja_env
    folder = folder_for(env)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # a read-only home: templates are compiled in memory as before
    env.bytecode_cache = FileSystemBytecodeCache(str(folder))
