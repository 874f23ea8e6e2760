"""/static: versioned URLs cached a year, brotli/gzip, ETag revalidation, no path escapes."""

from __future__ import annotations

import functools
import gzip
import hashlib
import multiprocessing
import os
import time
from pathlib import Path

import brotli
import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.web import static
from app.web.templating import STATIC_DIR


def _asset_urls(web: TestClient) -> list[str]:
    soup = BeautifulSoup(web.get("/plan").text, "html.parser")
    return [s["src"] for s in soup.select("script[src]")] + [
        link["href"] for link in soup.select("link[rel=stylesheet]")
    ]


def test_versioned_assets_are_immutable_and_compressed(web: TestClient) -> None:
    urls = _asset_urls(web)
    assert any("plotly" in u for u in urls) and any("htmx" in u for u in urls)
    for url in urls:
        r = web.get(url, headers={"Accept-Encoding": "br, gzip"})
        assert r.status_code == 200, url
        assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert r.headers["content-encoding"] == "br"
        assert r.headers["vary"] == "Accept-Encoding"
        assert r.headers["etag"]


def test_gzip_when_no_brotli(web: TestClient) -> None:
    url = next(u for u in _asset_urls(web) if "app.css" in u)
    r = web.get(url, headers={"Accept-Encoding": "gzip"})
    assert r.headers["content-encoding"] == "gzip"
    assert "--brand" in r.text


def test_brotli_body_is_the_file(web: TestClient) -> None:
    url = next(u for u in _asset_urls(web) if "app.css" in u)
    r = web.get(url, headers={"Accept-Encoding": "br"})
    # httpx decodes br when it can; either way the CSS comes back intact.
    body = r.content
    if not body.startswith(b"/*"):
        body = brotli.decompress(body)
    assert b"--brand" in body


def test_etag_revalidation(web: TestClient) -> None:
    url = next(u for u in _asset_urls(web) if "app.js" in u)
    etag = web.get(url).headers["etag"]
    r = web.get(url, headers={"If-None-Match": etag})
    assert r.status_code == 304 and not r.content


def test_each_encoding_has_its_own_etag_and_one_vary(web: TestClient) -> None:
    """The br, gzip and plain bodies are different representations, so each has its own
    strong ETag (RFC 9110 §8.8.3), and a validator revalidates only its own body; each
    response says Vary: Accept-Encoding once (QA: the plain one said it twice)."""
    url = next(u for u in _asset_urls(web) if "app.js" in u)
    got = {
        enc: web.get(url, headers={"Accept-Encoding": enc}) for enc in ("br", "gzip", "identity")
    }
    assert {enc: r.headers.get("content-encoding") for enc, r in got.items()} == {
        "br": "br", "gzip": "gzip", "identity": None
    }  # fmt: skip
    etags = {enc: r.headers["etag"] for enc, r in got.items()}
    assert len(set(etags.values())) == 3, etags
    assert all(r.headers.get_list("vary") == ["Accept-Encoding"] for r in got.values())
    # The brotli body's ETag does not make a plain-text client's copy current, nor the reverse.
    plain = web.get(url, headers={"Accept-Encoding": "identity", "If-None-Match": etags["br"]})
    assert plain.status_code == 200 and plain.content
    brotli_again = web.get(url, headers={"Accept-Encoding": "br", "If-None-Match": etags["br"]})
    assert brotli_again.status_code == 304
    # If-None-Match as clients write it: a list, a weak tag, "*".
    for header in (f'"other", {etags["gzip"]}', f"W/{etags['gzip']}", "*"):
        r = web.get(url, headers={"Accept-Encoding": "gzip", "If-None-Match": header})
        assert r.status_code == 304, header


def test_a_file_served_as_it_is_is_not_gzipped_on_the_way_out(web: TestClient) -> None:
    """The app's gzip leaves /static alone: a licence text /static serves uncompressed keeps
    its body, its ETag and a single Vary."""
    r = web.get("/static/vendor/plotly.LICENSE", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200 and "content-encoding" not in r.headers
    assert r.content == (STATIC_DIR / "vendor" / "plotly.LICENSE").read_bytes()
    assert r.headers.get_list("vary") == ["Accept-Encoding"]


def test_unversioned_url_is_cached_briefly(web: TestClient) -> None:
    r = web.get("/static/css/app.css")
    assert r.headers["cache-control"] == "public, max-age=300"


def test_no_escape_from_static(web: TestClient) -> None:
    for path in ["/static/../app/settings.py", "/static/%2e%2e/app/settings.py", "/static/nope.js"]:
        assert web.get(path).status_code == 404, path


def test_html_pages_are_gzipped_and_vary(web: TestClient) -> None:
    r = web.get("/plan", headers={"Accept-Encoding": "gzip"})
    assert r.headers["content-encoding"] == "gzip"
    assert "Accept-Language" in r.headers["vary"] and "Cookie" in r.headers["vary"]


def test_no_csrf_cookie_on_static(web: TestClient) -> None:
    r = web.get("/static/css/app.css")
    assert "set-cookie" not in r.headers


# --- compressed bodies on disk, shared by the app's processes --------------------------------


def _count_and_compress(raw: bytes, encoding: str, log: Path) -> bytes:
    with log.open("a") as f:
        f.write(f"{os.getpid()}\n")
    time.sleep(0.3)  # long enough for the other processes to arrive while this one works
    return static._compress(raw, encoding)


def _compress_in_child(raw: bytes, directory: str, log: str) -> bytes:
    return static.cached_compress(
        raw, "d" * 64, "br", Path(directory),
        functools.partial(_count_and_compress, log=Path(log)),
    )  # fmt: skip


def test_a_body_compressed_once_is_read_back_from_disk(tmp_path: Path) -> None:
    raw = b"body { color: red }\n" * 200
    digest = hashlib.sha256(raw).hexdigest()
    first = static.cached_compress(raw, digest, "br", tmp_path)
    assert brotli.decompress(first) == raw
    assert (tmp_path / f"{digest}.br").read_bytes() == first

    def must_not_run(_raw: bytes, _encoding: str) -> bytes:
        raise AssertionError("compressed again although the body was on disk")

    assert static.cached_compress(raw, digest, "br", tmp_path, must_not_run) == first


def test_processes_starting_together_compress_each_body_once(tmp_path: Path) -> None:
    """Three app processes warming at once: one compresses, the others wait and read it."""
    raw = b"function f() { return 1 }\n" * 500
    log = tmp_path / "compressions.log"
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(3) as pool:
        bodies = pool.starmap(_compress_in_child, [(raw, str(tmp_path), str(log))] * 3)
    assert len(log.read_text().split()) == 1
    assert len(set(bodies)) == 1 and brotli.decompress(bodies[0]) == raw


def test_the_configured_directory_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STRATAGEM_STATIC_CACHE_DIR", str(tmp_path / "static-cache"))
    assert static.disk_cache_dir() == tmp_path / "static-cache"
    assert (tmp_path / "static-cache").is_dir()


def test_without_a_usable_directory_bodies_are_compressed_in_memory(tmp_path: Path) -> None:
    raw = b"x" * 5000
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where the directory should be")
    body = static.cached_compress(raw, "e" * 64, "gzip", blocked)
    assert gzip.decompress(body) == raw


@pytest.mark.parametrize(
    ("accept", "encoding"),
    [
        ("br, gzip", "br"),
        ("gzip", "gzip"),
        ("br;q=0", None),  # QA: refused, and answered in br
        ("br;q=0, gzip", "gzip"),
        ("gzip;q=0, identity;q=0", None),  # QA: answered in gzip
        ("*", "br"),
        ("br;q=0, *", "gzip"),
        ("*;q=0", None),
        ("identity", None),
    ],
)
def test_an_encoding_the_client_refuses_is_never_sent(
    web: TestClient, accept: str, encoding: str | None
) -> None:
    """Accept-Encoding's q=0 refuses a coding (RFC 9110 §12.5.3); "*" stands for the rest."""
    url = next(u for u in _asset_urls(web) if "app.js" in u)
    r = web.get(url, headers={"Accept-Encoding": accept})
    assert r.status_code == 200
    assert r.headers.get("content-encoding") == encoding
