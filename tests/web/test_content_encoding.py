"""A request body sent with a Content-Encoding (compressed) is refused with a 415 naming the
encoding, and never read as if it were plain (app/web/content_encoding.py).

QA: `POST /api/v1/estimate` with a gzip body and `Content-Encoding: gzip` answered 422 "The
body is not UTF-8 text", which blamed the JSON for the compression."""

from __future__ import annotations

import gzip
import json

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in
from tests.catalog.helpers import csrf

ESTIMATE = {"model": {"preset": "llama-2-13b"}, "task": "inference"}
PLAIN = json.dumps(ESTIMATE).encode()


@pytest.mark.parametrize(
    ("lang", "msg"),
    [
        ("en", "The body is sent with Content-Encoding: gzip, which this server does not read: "
         "send it uncompressed, without a Content-Encoding header."),
        ("zh-TW", "內容以 Content-Encoding: gzip 送出，本伺服器不讀取這種編碼：請不要壓縮，也不要"
         "加上 Content-Encoding 標頭。"),
    ],
)  # fmt: skip
def test_a_gzip_body_is_a_415_naming_the_encoding_in_the_readers_language(
    client: TestClient, lang: str, msg: str
) -> None:
    r = TestClient(client.app).post("/api/v1/estimate", content=gzip.compress(PLAIN), headers={
        "Content-Type": "application/json", "Content-Encoding": "gzip",
        "Accept-Language": lang})  # fmt: skip
    assert r.status_code == 415
    assert r.headers["accept-encoding"] == "identity"
    body = r.json()
    assert body["detail"] == [{"loc": ["header", "content-encoding"], "msg": msg,
                               "type": "content_encoding", "input": "gzip"}]  # fmt: skip
    assert body["request_id"]


@pytest.mark.parametrize("encoding", ["gzip", "br", "deflate, identity", "x-custom"])
def test_a_body_labelled_compressed_is_never_read_as_plain(
    client: TestClient, encoding: str
) -> None:
    """Plain JSON that says it is compressed is refused too: what it holds is unknown."""
    r = TestClient(client.app).post("/api/v1/estimate", content=PLAIN, headers={
        "Content-Type": "application/json", "Content-Encoding": encoding})  # fmt: skip
    assert r.status_code == 415
    assert r.json()["detail"][0]["input"] == encoding


@pytest.mark.parametrize("encoding", ["identity", "", "Identity"])
def test_an_uncompressed_body_is_read(client: TestClient, encoding: str) -> None:
    r = TestClient(client.app).post("/api/v1/estimate", content=PLAIN, headers={
        "Content-Type": "application/json", "Content-Encoding": encoding})  # fmt: skip
    assert r.status_code == 200


def test_a_request_without_a_body_is_not_refused(client: TestClient) -> None:
    r = TestClient(client.app).get("/api/v1/gpus", headers={"Content-Encoding": "gzip"})
    assert r.status_code == 200


def test_a_compressed_form_gets_the_error_page_in_the_pages_language(client: TestClient) -> None:
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, make_account(client, "sales").user)
    body = f"csrf_token={csrf(pages, '/customers/new')}&name=Gzip".encode()
    r = pages.post("/customers/new", content=gzip.compress(body), headers={
        "Content-Type": "application/x-www-form-urlencoded", "Content-Encoding": "gzip",
        "Accept-Language": "zh-TW"})  # fmt: skip
    assert r.status_code == 415 and r.headers["content-type"].startswith("text/html")
    said = BeautifulSoup(r.text, "html.parser").select_one("main .error-page p").get_text()
    assert said.startswith("內容以 Content-Encoding: gzip 送出")
