"""What a browser downloads: pages compressed as it accepts, static files at URLs that carry
their content hash, cached for a year, compressed once, and never encoded in part."""

from __future__ import annotations

import gzip
import re
import shutil
from pathlib import Path

import brotli
import pytest
from flask import Flask

from app import paths
from app.web.factory import create_app

PAGE = "/scenario/pagination"
BROWSER = {"Accept-Encoding": "gzip, deflate, br, zstd"}


def static_urls(html: str) -> list[str]:
    return [u.replace("&amp;", "&") for u in re.findall(r'(?:src|href)="(/static/[^"]+)"', html)]


def decoded(response) -> bytes:
    encoding = response.headers.get("Content-Encoding")
    if encoding == "br":
        return bytes(brotli.decompress(response.data))
    if encoding == "gzip":
        return gzip.decompress(response.data)
    assert encoding is None
    return bytes(response.data)


@pytest.mark.parametrize(
    ("accepted", "expected"),
    [("gzip, deflate, br, zstd", "br"), ("gzip", "gzip"), ("", None), ("br;q=0, gzip", "gzip")],
)
def test_a_page_is_compressed_as_the_browser_accepts(client, accepted, expected):
    plain = client.get(PAGE, headers={"Accept-Encoding": ""})
    response = client.get(PAGE, headers={"Accept-Encoding": accepted})
    assert response.headers.get("Content-Encoding") == expected
    assert "Accept-Encoding" in response.headers["Vary"]
    assert decoded(response) == plain.data
    if expected:
        assert len(response.data) < len(plain.data) / 3
    # Compression changes no security header: the CSP stays the lab's strict one.
    assert response.headers["Content-Security-Policy"] == plain.headers["Content-Security-Policy"]
    assert "'unsafe-inline'" not in response.headers["Content-Security-Policy"]


def test_every_static_url_carries_the_hash_of_its_content_and_is_cached_for_good(client):
    urls = static_urls(client.get(PAGE).get_data(as_text=True))
    assert any("htmx.min.js" in url for url in urls) and any("lab.css" in url for url in urls)
    for url in urls:
        path, _, query = url.partition("?")
        assert re.fullmatch(r"v=[0-9a-f]{16}", query), url
        response = client.get(url, headers=BROWSER)
        assert response.status_code == 200
        assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        file = paths.STATIC / path.removeprefix("/static/")
        assert decoded(response) == file.read_bytes()
        # Without the hash (or with an old one) the answer may change: no promise of a year.
        for unhashed in (path, f"{path}?v=0123456789abcdef"):
            with client.get(unhashed) as plain:
                assert "immutable" not in plain.headers["Cache-Control"]


def test_the_embed_helper_other_sites_link_to_keeps_its_fixed_url(client):
    html = client.get(PAGE).get_data(as_text=True)
    assert 'data-helper="/static/js/mcp-lab-embed.js"' in html


def test_an_edited_static_file_gets_a_new_url(tmp_path: Path):
    static = tmp_path / "static"
    shutil.copytree(paths.STATIC, static)
    app: Flask = create_app({"TESTING": True})
    app.static_folder = str(static)
    client = app.test_client()
    before = [u for u in static_urls(client.get(PAGE).get_data(as_text=True)) if "lab.css" in u]
    css = static / "css" / "lab.css"
    css.write_text(css.read_text("utf-8") + "\n.edited { color: red; }\n", "utf-8")
    after = [u for u in static_urls(client.get(PAGE).get_data(as_text=True)) if "lab.css" in u]
    assert before and after and before != after
    assert b".edited" in decoded(client.get(after[0], headers=BROWSER))
    with client.get(before[0]) as stale:
        assert "immutable" not in stale.headers["Cache-Control"]


def test_a_revalidated_static_file_is_304_and_a_range_gets_the_whole_file(client):
    url = next(u for u in static_urls(client.get(PAGE).get_data(as_text=True)) if "viewer" in u)
    first = client.get(url, headers=BROWSER)
    again = client.get(url, headers={**BROWSER, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    # The plain file has another validator than its brotli form.
    with client.get(url, headers={"If-None-Match": first.headers["ETag"]}) as plain:
        assert plain.status_code == 200 and plain.headers.get("Content-Encoding") is None

    ranged = client.get(url, headers={**BROWSER, "Range": "bytes=0-9"})
    assert ranged.status_code == 200
    assert decoded(ranged) == (paths.STATIC / "js" / "viewer.js").read_bytes()
