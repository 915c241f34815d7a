"""Pages and static files as few bytes as a browser can take: compressed, and cached for good.

Pages (HTML, JSON) are compressed per response by flask-compress, brotli or gzip as the browser
accepts. Streamed responses are left alone: a compressor would hold back what a stream sends.

Static files carry their content hash in every URL the lab writes (`url_for('static', ...)` adds
`v=<hash>`), and a request whose `v` is the file's current hash is answered with a year's
`Cache-Control: immutable`: a returning visitor's browser asks for none of them again, and a
changed file gets a new URL. Not the embed helper, which course pages link to by a fixed URL.
Each file is compressed once per process, at brotli's best quality (10 % smaller than gzip,
too slow to repeat per request) or gzip, and kept in memory: the lab's own static files are a
few hundred kilobytes. A `Range` request gets the whole file (HTTP allows it), so no encoding
is ever applied to part of one.

Websocket frames are none of this module's business: the classroom writes one encoded frame to
every follower's socket, which a per-socket compressor would have to compress again.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from functools import lru_cache
from typing import Any

import brotli
from flask import Flask, Response, current_app, request
from flask_compress import Compress
from werkzeug.security import safe_join

__all__ = ["init_app", "static_hash"]

YEAR = 365 * 24 * 3600
IMMUTABLE = f"public, max-age={YEAR}, immutable"
# The static types worth compressing; images other than SVG and fonts are compressed already.
TEXT_TYPES = frozenset(
    {"text/css", "text/javascript", "application/javascript", "application/json", "image/svg+xml"}
)
MIN_SIZE = 512  # below this, the Content-Encoding header costs about what it saves
# Files that other sites link to by a fixed URL (the embed helper, docs/EMBEDDING.md): a snippet
# pasted into a course page cannot follow a URL that changes with the file.
FIXED_URLS = frozenset({"js/mcp-lab-embed.js"})

# Brotli's best quality costs about 3 ms per kilobyte: fine once for the lab's files, too slow
# for a large one (the accessibility tests' axe.min.js, 650 KB), which gets a quick quality.
BEST_UP_TO = 128 * 1024


@lru_cache(maxsize=512)
def _hash_of(path: str, mtime_ns: int, size: int) -> str:
    """The content hash of a file at one (mtime, size): read once, again after an edit."""
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()[:16]


def static_hash(filename: str) -> str | None:
    """The current content hash of static/`filename`, None when there is no such file."""
    path = safe_join(current_app.static_folder or "", filename)
    try:
        stat = os.stat(path) if path else None
    except OSError:
        stat = None
    if path is None or stat is None:
        return None
    return _hash_of(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=256)
def _encoded(path: str, digest: str, encoding: str) -> bytes:
    """static/`path` at content `digest`, compressed once with `encoding` (br or gzip)."""
    with open(path, "rb") as handle:
        data = handle.read()
    if encoding == "br":
        return bytes(brotli.compress(data, quality=11 if len(data) <= BEST_UP_TO else 5))
    return gzip.compress(data, 9, mtime=0)


def _add_hash(endpoint: str, values: dict[str, Any]) -> None:
    filename = values.get("filename")
    if endpoint == "static" and filename and filename not in FIXED_URLS and "v" not in values:
        digest = static_hash(str(filename))
        if digest is not None:
            values["v"] = digest


def _whole_files() -> None:
    if request.endpoint == "static":
        request.environ.pop("HTTP_RANGE", None)


def _choose(accepted: Any) -> str | None:
    for encoding in ("br", "gzip"):
        if accepted.quality(encoding) > 0:
            return encoding
    return None


def _serve_static(response: Response) -> Response:
    if request.endpoint != "static" or response.status_code != 200:
        return response
    filename = str((request.view_args or {}).get("filename", ""))
    digest = static_hash(filename)
    if digest is None:
        return response
    if request.args.get("v") == digest:
        response.headers["Cache-Control"] = IMMUTABLE
    response.vary.add("Accept-Encoding")
    encoding = _choose(request.accept_encodings)
    if encoding is None or response.mimetype not in TEXT_TYPES:
        return response
    if response.content_length is not None and response.content_length < MIN_SIZE:
        return response
    path = safe_join(current_app.static_folder or "", filename)
    assert path is not None  # static_hash found the file
    body = _encoded(path, digest, encoding)
    if hasattr(response.response, "close"):
        response.response.close()  # the open file Flask would have streamed
    response.direct_passthrough = False
    response.set_data(body)
    response.headers["Content-Encoding"] = encoding  # flask-compress leaves it alone now
    etag, weak = response.get_etag()
    if etag:
        # Another representation, another validator; a browser revalidating this one gets 304.
        response.set_etag(f"{etag}-{encoding}", weak=bool(weak))
        response.make_conditional(request)
    return response


def init_app(app: Flask) -> None:
    """Compress pages, hash static URLs, serve static files compressed and cacheable."""
    app.config.setdefault("COMPRESS_ALGORITHM", "br, gzip")
    app.config.setdefault("COMPRESS_STREAMS", False)
    Compress(app)
    app.url_defaults(_add_hash)
    app.before_request(_whole_files)
    # after_request hooks run last-registered first: this one runs before flask-compress's.
    app.after_request(_serve_static)
