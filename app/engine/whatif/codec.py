"""The `whatif=` value: a what-if in a link, compact, versioned, bounded and URL-safe.

    1.<base64url of the raw-deflated canonical JSON, without padding>

The leading number is the format (model.FORMAT), so a link made by another format says so
instead of decoding into nonsense; the JSON is canonical (sorted keys, no spaces), so the same
what-if is the same text. Decoding trusts nothing: the length is checked before anything else,
the alphabet before base64, inflation stops at model.MAX_JSON bytes (a small link cannot
inflate into a large one), the JSON is read with the lab's bounded reader, and the shape is
checked change by change (shape.read). Every failure is a WhatIfError with a sentence.

`load` is the command line's door: a `whatif=` value, a whole link that holds one, or a file
holding either or the what-if's JSON (or YAML) object.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import urllib.parse
import zlib
from pathlib import Path
from typing import Any

import yaml

from app.bounded_json import JsonRefused, depth_of, read_json

from . import model, shape
from .model import WhatIf, WhatIfError

_VALUE = re.compile(r"^(?P<format>[0-9]{1,4})\.(?P<body>[A-Za-z0-9_-]*)$")
_DEPTH = 24  # a what-if nests a tool's inputSchema inside a change inside the list


def canonical(whatif: WhatIf) -> str:
    return json.dumps(whatif.as_data(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def encode(whatif: WhatIf) -> str:
    """The value of a what-if; WhatIfError when it is too long for a link (or not JSON)."""
    try:
        text = canonical(whatif).encode("utf-8")
    except (TypeError, ValueError, RecursionError):  # made in Python, not decoded: check it
        raise WhatIfError("unreadable", "not plain JSON data") from None
    if len(text) > model.MAX_JSON:
        raise WhatIfError("too-long", size=len(text), most=model.MAX_JSON)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = base64.urlsafe_b64encode(packer.compress(text) + packer.flush()).rstrip(b"=")
    value = f"{model.FORMAT}.{body.decode('ascii')}"
    if len(value) > model.MAX_ENCODED:
        raise WhatIfError("too-long", size=len(value), most=model.MAX_ENCODED)
    return value


def decode(value: str) -> WhatIf:
    """The what-if a `whatif=` value holds; WhatIfError for anything else."""
    if not isinstance(value, str):
        raise WhatIfError("unreadable", "not text")
    if len(value) > model.MAX_ENCODED:
        raise WhatIfError("too-long", size=len(value), most=model.MAX_ENCODED)
    found = _VALUE.match(value.strip())
    if found is None:
        raise WhatIfError("unreadable", "not <format>.<base64url>")
    if int(found["format"]) != model.FORMAT:
        raise WhatIfError("format", found=int(found["format"]), known=model.FORMAT)
    body = found["body"]
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        unpacker = zlib.decompressobj(-15)
        text = unpacker.decompress(packed, model.MAX_JSON + 1)
    except (binascii.Error, ValueError, zlib.error):
        raise WhatIfError("unreadable", "damaged or incomplete") from None
    if len(text) > model.MAX_JSON or unpacker.unconsumed_tail:
        raise WhatIfError("too-long", size=len(value), most=model.MAX_ENCODED)
    if not unpacker.eof:
        raise WhatIfError("unreadable", "cut short")
    try:
        data = read_json(text, model.MAX_JSON, depth=_DEPTH, want=dict)
    except JsonRefused as exc:
        raise WhatIfError("unreadable", str(exc)) from None
    return shape.read(data)


def from_text(text: str) -> WhatIf:
    """A what-if from what a person pastes: the value, `whatif=VALUE`, or a link holding it."""
    text = text.strip()
    if len(text) > model.MAX_ENCODED * 3:  # a link may percent-encode; still bounded
        raise WhatIfError("too-long", size=len(text), most=model.MAX_ENCODED)
    if "whatif=" in text:
        query = text.split("?", 1)[-1].split("#", 1)[0]
        values = urllib.parse.parse_qs(query).get("whatif") or [""]
        text = values[0]
    return decode(text)


def load(argument: str) -> WhatIf:
    """`--what-if VALUE`: a value or link, or a file that holds one or the JSON/YAML object."""
    path = Path(argument)
    if len(argument) < 4096 and "\n" not in argument and path.is_file():
        try:
            if path.stat().st_size > model.MAX_JSON * 2:
                raise WhatIfError("too-long", size=path.stat().st_size, most=model.MAX_JSON)
            text = path.read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise WhatIfError("unreadable", f"cannot read {path.name}: {exc}") from None
        if "whatif=" in text or _VALUE.match(text.strip()):
            return from_text(text)
        return shape.read(_object(text))
    return from_text(argument)


def _object(text: str) -> Any:
    try:
        return read_json(text, model.MAX_JSON, depth=_DEPTH)
    except JsonRefused as exc:
        if exc.reason != "syntax":
            raise WhatIfError("unreadable", str(exc)) from None
    if depth_of(text, _DEPTH) > _DEPTH:
        raise WhatIfError("unreadable", f"nested deeper than {_DEPTH} levels")
    try:  # a what-if file written by hand may be YAML, which is a superset of JSON
        # Aliases could make a small file a huge tree for whoever walks it: none are needed.
        if any(isinstance(e, yaml.AliasEvent) for e in yaml.parse(text, Loader=yaml.SafeLoader)):
            raise WhatIfError("unreadable", "YAML aliases are not accepted")
        return yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError):
        raise WhatIfError("unreadable", "neither JSON nor YAML") from None
