"""The zip of a SCORM package: manifest, launch page, its script and stylesheet, schema files.

The bytes depend only on what was chosen (scenario, edition, language, version, transport, the
lab's address): entries in a fixed order with a fixed date, so the viewer's download and
`mcp-lab package` give the same file, and a course author who packages again gets an identical
upload. `lab_address` checks the address the launch page will frame, since a package made with
a wrong one shows every student an empty frame inside the LMS.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from app.scorm.manifest import Edition, manifest_xml, schema_files

RUNTIME_DIR = Path(__file__).parent / "runtime"
LAUNCH = "index.html"
RUNTIME = ("lab-scorm.js", "lab-scorm.css")
# Zip entries carry a date; a fixed one keeps packages of the same choices identical.
STAMP = (2026, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Lesson:
    """What a package shows: one scenario in one language, protocol version and transport."""

    sid: str
    title: str
    lang: str
    version: str
    transport: str
    edition: Edition

    @property
    def identifier(self) -> str:
        """The manifest's identifier (an xs:ID: starts with a letter, no colon or space)."""
        return f"mcp-lab-{self.sid}-{self.version}-{self.transport}-{self.lang}-{self.short}"

    @property
    def short(self) -> str:
        return self.edition.folder  # scorm12 or scorm2004

    @property
    def filename(self) -> str:
        return f"{self.sid}-{self.short}-{self.version}-{self.transport}-{self.lang}.zip"


def lab_address(url: str) -> str:
    """The lab's public address without a trailing slash; ValueError saying what is wrong."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http:// or https:// address of the lab")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"{url!r}: give the lab's address alone, without query or credentials")
    return f"{parts.scheme}://{parts.netloc}{parts.path}".rstrip("/")


def build(lesson: Lesson, launch_html: str) -> bytes:
    """The package's bytes, its launch page being `launch_html` (rendered in its language)."""
    content = {LAUNCH: launch_html.encode("utf-8")}
    content |= {name: (RUNTIME_DIR / name).read_bytes() for name in RUNTIME}
    manifest = manifest_xml(lesson.edition, lesson.identifier, lesson.title, LAUNCH, list(content))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in [
            ("imsmanifest.xml", manifest),
            *content.items(),
            *schema_files(lesson.edition).items(),
        ]:
            entry = zipfile.ZipInfo(name, date_time=STAMP)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16  # a plain readable file once unpacked
            archive.writestr(entry, data)
    return out.getvalue()
