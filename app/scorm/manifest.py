"""`imsmanifest.xml` for SCORM 1.2 and SCORM 2004 4th Edition, and the schema files it needs.

One organization with one item, whose resource is the launch page (a SCO: it talks to the
LMS's API). The manifest names only the namespaces it uses, so the package carries only the
schema files that validate it (listed in SCHEMAS; tests validate every manifest against the
copies inside the zip). No sequencing rules: an LMS's default for one SCO (choice, flow) is
what a lesson wants. Written as text rather than through ElementTree, whose namespace
prefixes are a process-wide registry; every value is escaped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

EDITIONS = ("1.2", "2004")
SCHEMA_DIR = Path(__file__).parent / "schemas"


@dataclass(frozen=True)
class Edition:
    """What differs between the two SCORM versions in a manifest."""

    name: str  # as a person says it
    folder: str  # under schemas/
    schemaversion: str  # the manifest's <schemaversion>
    namespaces: tuple[tuple[str, str, str], ...]  # (prefix, namespace, schema file)
    scormtype: str  # the adlcp attribute naming a resource's SCORM type
    files: tuple[str, ...]  # schema files at the package root


SCORM12 = Edition(
    name="SCORM 1.2",
    folder="scorm12",
    schemaversion="1.2",
    namespaces=(
        ("", "http://www.imsproject.org/xsd/imscp_rootv1p1p2", "imscp_rootv1p1p2.xsd"),
        ("adlcp", "http://www.adlnet.org/xsd/adlcp_rootv1p2", "adlcp_rootv1p2.xsd"),
    ),
    scormtype="adlcp:scormtype",
    files=("imscp_rootv1p1p2.xsd", "adlcp_rootv1p2.xsd", "ims_xml.xsd"),
)
SCORM2004 = Edition(
    name="SCORM 2004 4th Edition",
    folder="scorm2004",
    schemaversion="2004 4th Edition",
    namespaces=(
        ("", "http://www.imsglobal.org/xsd/imscp_v1p1", "imscp_v1p1.xsd"),
        ("adlcp", "http://www.adlnet.org/xsd/adlcp_v1p3", "adlcp_v1p3.xsd"),
    ),
    scormtype="adlcp:scormType",
    # xml.xsd (imported by imscp_v1p1.xsd) names XMLSchema.dtd, which names datatypes.dtd.
    files=("imscp_v1p1.xsd", "adlcp_v1p3.xsd", "xml.xsd", "XMLSchema.dtd", "datatypes.dtd"),
)


def edition(value: str) -> Edition:
    """The edition for "1.2" or "2004"; ValueError for anything else."""
    found = {"1.2": SCORM12, "2004": SCORM2004}.get(value)
    if found is None:
        raise ValueError(f"SCORM {value!r}: expected one of {', '.join(EDITIONS)}")
    return found


def schema_files(which: Edition) -> dict[str, bytes]:
    """The schema files a package of `which` carries at its root, byte for byte as ADL wrote."""
    return {name: (SCHEMA_DIR / which.folder / name).read_bytes() for name in which.files}


def manifest_xml(
    which: Edition, identifier: str, title: str, launch: str, files: list[str]
) -> bytes:
    """The manifest of a one-SCO package whose launch page is `launch` among `files`."""
    xmlns = " ".join(
        f'xmlns{":" + prefix if prefix else ""}="{uri}"' for prefix, uri, _ in which.namespaces
    )
    locations = " ".join(f"{uri} {file}" for _, uri, file in which.namespaces)
    name = escape(title)
    listed = "\n".join(f"      <file href={quoteattr(f)}/>" for f in files)
    text = f"""<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier={quoteattr(identifier)} version="1" {xmlns}
          xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
          xsi:schemaLocation="{locations}">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>{which.schemaversion}</schemaversion>
  </metadata>
  <organizations default="lesson-organization">
    <organization identifier="lesson-organization">
      <title>{name}</title>
      <item identifier="lesson-item" identifierref="lesson-resource" isvisible="true">
        <title>{name}</title>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="lesson-resource" type="webcontent" {which.scormtype}="sco" href={
        quoteattr(launch)
    }>
{listed}
    </resource>
  </resources>
</manifest>
"""
    return text.encode("utf-8")
