"""/static: versioned URLs cached a year, brotli/gzip, ETag revalidation, no path escapes."""

from __future__ import annotations

import brotli
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient


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
