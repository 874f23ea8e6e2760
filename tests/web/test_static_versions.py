"""/static keeps a file for a year only under the URL of exactly its content.

During a rolling deploy a browser holding a new page can ask an old replica for
`app.css?v=<new hash>` and get the old file: stored as immutable for a year, it would outlive
the deploy. So `immutable` needs `v` to be the hash of the file being served (what
`static_url` writes); another `v` is revalidated by ETag before each use, no `v` is kept
five minutes.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.web import static
from app.web.templating import STATIC_DIR, static_url

IMMUTABLE = "public, max-age=31536000, immutable"
CSS = "css/app.css"


def _version(rel: str) -> str:
    """The file's own version: the start of its sha256, as pages write it."""
    return hashlib.sha256((STATIC_DIR / rel).read_bytes()).hexdigest()[: static.VERSION_CHARS]


def test_pages_link_each_asset_under_its_own_version(web: TestClient) -> None:
    soup = BeautifulSoup(web.get("/").text, "html.parser")
    link = soup.select_one('link[rel=stylesheet][href^="/static/css/app.css"]')
    assert link is not None and link["href"] == f"/static/{CSS}?v={_version(CSS)}"
    assert static_url(CSS) == link["href"]


def test_the_own_version_is_immutable(web: TestClient) -> None:
    r = web.get(f"/static/{CSS}?v={_version(CSS)}")
    assert r.status_code == 200 and r.headers["cache-control"] == IMMUTABLE


@pytest.mark.parametrize(
    "query",
    [
        "v=deadbeef0000",  # another deploy's version (QA's example)
        "v=",  # empty
        "v={own}&v=deadbeef0000",  # two versions: which one would the cache believe?
        "v={full}",  # the whole sha256: not what pages write, so not this URL
        "v={short}",  # one digit short
    ],
)
def test_another_version_is_revalidated_every_time(web: TestClient, query: str) -> None:
    own = _version(CSS)
    full = hashlib.sha256((STATIC_DIR / CSS).read_bytes()).hexdigest()
    url = f"/static/{CSS}?" + query.format(own=own, full=full, short=own[:-1])
    r = web.get(url)
    assert r.status_code == 200
    assert r.headers["cache-control"] == "no-cache"
    # ...and revalidating costs a 304, not the file: the ETag is the content's.
    again = web.get(url, headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and not again.content
    assert again.headers["cache-control"] == "no-cache"


@pytest.mark.parametrize("query", ["", "?lang=en", "?xv=0&version=1"])
def test_no_version_is_cached_five_minutes(web: TestClient, query: str) -> None:
    """`xv=` and `version=` are not `v` (the old check looked for the bytes `v=` anywhere)."""
    r = web.get(f"/static/{CSS}{query}")
    assert r.headers["cache-control"] == "public, max-age=300"


def test_a_changed_file_loses_the_old_versions_immutability(tmp_path: Path) -> None:
    """The replica-skew case in one process: the file changes (a deploy) and the version an
    old page wrote now names other content."""
    asset = tmp_path / "app.css"
    asset.write_text("body { color: red }\n")
    old = hashlib.sha256(asset.read_bytes()).hexdigest()[: static.VERSION_CHARS]
    files = TestClient(static.StaticAssets(tmp_path))
    assert files.get(f"/app.css?v={old}").headers["cache-control"] == IMMUTABLE

    asset.write_text("body { color: blue }\n")
    later = asset.stat().st_mtime + 5
    os.utime(asset, (later, later))  # a new mtime, as a deploy gives
    new = hashlib.sha256(asset.read_bytes()).hexdigest()[: static.VERSION_CHARS]
    stale = files.get(f"/app.css?v={old}")
    assert stale.text == "body { color: blue }\n"
    assert stale.headers["cache-control"] == "no-cache"
    assert files.get(f"/app.css?v={new}").headers["cache-control"] == IMMUTABLE
