"""SCORM packages as an LMS gets them: a valid manifest, the files it names, a clean launch page.

Every manifest is validated with lxml against the schema files inside its own zip (no network:
a package whose schemas are missing or wrong fails here as it would in a strict LMS). The
viewer's link and `mcp-lab package` must give the same bytes for the same choices, and a choice
the scenario does not have is refused in the author's language.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from lxml import etree

from app.cli import main
from app.scorm.package import lab_address

QUERY = "version=2025-06-18&transport=http"


def unpack(data: bytes, into: Path) -> dict[str, bytes]:
    archive = zipfile.ZipFile(io.BytesIO(data))
    archive.extractall(into)
    return {name: archive.read(name) for name in archive.namelist()}


def download(client: FlaskClient, scorm: str, query: str = QUERY, sid: str = "pagination"):
    return client.get(f"/scenario/{sid}/scorm.zip?scorm={scorm}&{query}")


# The schemas each manifest's root and extension namespaces are validated by, as an LMS would.
DRIVER = """<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">{imports}</xs:schema>"""


def validate(folder: Path) -> None:
    manifest = etree.parse(str(folder / "imsmanifest.xml"))
    hints = manifest.getroot().get("{http://www.w3.org/2001/XMLSchema-instance}schemaLocation")
    pairs = hints.split()
    imports = "".join(
        f'<xs:import namespace="{ns}" schemaLocation="{(folder / file).as_uri()}"/>'
        for ns, file in zip(pairs[::2], pairs[1::2], strict=True)
    )
    parser = etree.XMLParser(no_network=True)
    schema = etree.XMLSchema(etree.fromstring(DRIVER.format(imports=imports), parser))
    schema.assertValid(manifest)


@pytest.mark.parametrize(
    ("scorm", "schemaversion", "schemas"),
    [
        ("1.2", "1.2", {"imscp_rootv1p1p2.xsd", "adlcp_rootv1p2.xsd", "ims_xml.xsd"}),
        (
            "2004",
            "2004 4th Edition",
            {"imscp_v1p1.xsd", "adlcp_v1p3.xsd", "xml.xsd", "XMLSchema.dtd", "datatypes.dtd"},
        ),
    ],
)
def test_each_edition_is_a_zip_whose_manifest_its_own_schema_files_validate(
    client: FlaskClient, tmp_path: Path, scorm: str, schemaversion: str, schemas: set[str]
) -> None:
    response = download(client, scorm)
    assert response.status_code == 200 and response.mimetype == "application/zip"
    assert response.headers["Content-Disposition"] == (
        f'attachment; filename="pagination-scorm{scorm.replace(".", "")}-2025-06-18-http-en.zip"'
    )
    files = unpack(response.data, tmp_path)
    assert (
        set(files) == {"imsmanifest.xml", "index.html", "lab-scorm.js", "lab-scorm.css"} | schemas
    )
    validate(tmp_path)
    manifest = files["imsmanifest.xml"].decode()
    assert f"<schemaversion>{schemaversion}</schemaversion>" in manifest
    assert "<title>Pagination: gathering every page of tools/list</title>" in manifest
    listed = set(re.findall(r'<file href="([^"]+)"/>', manifest))
    assert listed == {"index.html", "lab-scorm.js", "lab-scorm.css"} <= set(files)
    assert re.search(r'scorm[tT]ype="sco" href="index.html"', manifest)


@pytest.mark.parametrize("scorm", ["1.2", "2004"])
def test_the_check_rejects_what_the_adl_schemas_forbid(
    client: FlaskClient, tmp_path: Path, scorm: str
) -> None:
    # The ADL extension is checked too (a SCO type its vocabulary lacks), and IMS's structure.
    unpack(download(client, scorm).data, tmp_path)
    manifest = tmp_path / "imsmanifest.xml"
    good = manifest.read_text()
    manifest.write_text(re.sub(r'(scorm[tT]ype)="sco"', r'\1="lesson"', good))
    with pytest.raises(etree.DocumentInvalid):
        validate(tmp_path)
    manifest.write_text(re.sub(r"<resources>.*</resources>", "", good, flags=re.S))
    with pytest.raises(etree.DocumentInvalid):
        validate(tmp_path)


def test_the_launch_page_frames_the_lesson_chosen_at_the_labs_address_with_nothing_inline(
    client: FlaskClient,
) -> None:
    page = unpack(download(client, "1.2", QUERY + "&lang=ru").data, Path("/nonexistent") / "x")
    html = page["index.html"].decode()
    assert '<html lang="ru">' in html and 'data-edition="1.2"' in html
    assert 'data-lab="http://localhost"' in html
    assert (
        'data-src="http://localhost/embed/pagination?version=2025-06-18&amp;transport=http'
        '&amp;lang=ru"' in html
    )
    assert "Урок загружается с http://localhost…" in html  # the student's language
    # Nothing inline, nothing from elsewhere: two files of its own and the lab's frame.
    assert re.findall(r"<script[^>]*>", html) == ['<script src="lab-scorm.js" defer>']
    assert "<style" not in html and " style=" not in html and "on" + "load=" not in html
    assert re.findall(r'\s(?:src|href)="([^"]+)"', html) == [
        "lab-scorm.css",
        "lab-scorm.js",
        "http://localhost/embed/pagination?version=2025-06-18&amp;transport=http&amp;lang=ru",
    ]


def test_a_package_names_the_public_address_when_the_lab_has_one(app, client) -> None:
    app.config["PUBLIC_URL"] = "https://lab.example.org/"
    html = unpack(download(client, "2004").data, Path("/nonexistent"))["index.html"].decode()
    assert 'data-lab="https://lab.example.org"' in html
    assert 'data-src="https://lab.example.org/embed/pagination?' in html


def test_the_same_choices_give_the_same_bytes(client: FlaskClient) -> None:
    assert download(client, "1.2").data == download(client, "1.2").data
    assert download(client, "1.2").data != download(client, "2004").data


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("scorm=3&lang=zh", "课件包只能是 SCORM 1.2 或 SCORM 2004"),
        ("scorm=2004&version=1999-01-01", "does not run under protocol version 1999-01-01"),
        ("scorm=1.2&transport=carrier-pigeon&lang=ru", "не работает через carrier-pigeon"),
        ("lang=en", "A package is SCORM 1.2 or SCORM 2004"),
    ],
)
def test_a_choice_the_scenario_lacks_is_refused_in_the_authors_language(
    client: FlaskClient, query: str, said: str
) -> None:
    response = client.get(f"/scenario/pagination/scorm.zip?{query}")
    assert response.status_code == 400 and said in response.get_data(as_text=True)
    assert client.get("/scenario/no-such-lesson/scorm.zip?scorm=1.2").status_code == 404


def test_the_viewer_offers_both_editions_beside_download_trace(client: FlaskClient) -> None:
    page = client.get(f"/scenario/pagination?{QUERY}&lang=zh").get_data(as_text=True)
    tools = page[page.index('id="btn-trace"') : page.index('id="btn-handout"')]
    assert "<summary" in tools and "SCORM 课件包" in tools
    for scorm in ("1.2", "2004"):
        link = re.search(
            rf'id="btn-scorm-{scorm.replace(".", "")}" class="btn" href="([^"]+)"', tools
        )
        assert link, scorm
        href = link.group(1).replace("&amp;", "&")
        assert client.get(href).status_code == 200
        assert f"scorm={scorm}" in href and "lang=zh" in href and "version=2025-06-18" in href


def test_mcp_lab_package_writes_what_the_viewer_downloads(
    client: FlaskClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "lesson.zip"
    argv = ["package", "pagination", "--scorm", "2004", "--base-url", "http://localhost/"]
    argv += ["--output", str(out), "--protocol-version", "2025-06-18", "--transport", "http"]
    assert main(argv) == 0
    assert out.read_bytes() == download(client, "2004", QUERY + "&lang=en").data
    assert "SCORM 2004 4th Edition" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--base-url", "lab.example.org"], "not an http:// or https:// address"),
        (["--base-url", "https://lab.example.org/?x=1"], "without query"),
        (
            ["--base-url", "https://lab.example.org", "--protocol-version", "2024-11-05"],
            "does not run under protocol version 2024-11-05; it runs under 2026-07-28",
        ),
        (
            ["--base-url", "https://lab.example.org", "--lang", "ru", "--transport", "http"],
            "не работает через http",
        ),
    ],
)
def test_mcp_lab_package_refuses_what_would_leave_students_an_empty_frame(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], said: str
) -> None:
    out = tmp_path / "lesson.zip"
    argv = ["package", "challenge-expired-page", "--scorm", "1.2", "--output", str(out), *extra]
    assert main(argv) == 2
    assert said in capsys.readouterr().err and not out.exists()
    assert (
        main(
            [
                "package",
                "no-such-lesson",
                "--scorm",
                "1.2",
                "--output",
                str(out),
                "--base-url",
                "https://lab.example.org",
            ]
        )
        == 2
    )
    assert "no scenario 'no-such-lesson'" in capsys.readouterr().err


def test_lab_address_keeps_a_path_and_drops_the_trailing_slash() -> None:
    assert lab_address("https://school.example.org/lab/") == "https://school.example.org/lab"
    with pytest.raises(ValueError, match="credentials"):
        lab_address("https://user:pw@lab.example.org")
