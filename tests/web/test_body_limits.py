"""Request bodies past the limit are a 413 before the app reads them (issue 13)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from app.main import create_app
from app.settings import Settings


@pytest.fixture(scope="module")
def small(settings: Settings) -> Iterator[TestClient]:
    """The app with 2,000-byte JSON and 5,000-byte upload limits."""
    tight = settings.model_copy(update={"max_json_bytes": 2_000, "max_upload_bytes": 5_000})
    # Seen from 127.0.0.1, an address /metrics answers by default.
    with TestClient(create_app(tight), client=("127.0.0.1", 50000)) as c:
        yield c


def test_defaults_are_one_and_ten_megabytes() -> None:
    s = Settings()
    assert (s.max_json_bytes, s.max_upload_bytes) == (1_000_000, 10_000_000)


def test_a_declared_length_over_the_limit_is_refused_unread(small: TestClient) -> None:
    body = b'{"model": {"preset": "llama-3.1-8b"}, "task": "lora", "pad": "' + b"x" * 3_000 + b'"}'
    r = small.post("/api/v1/estimate", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 413
    body = r.json()
    # FastAPI's list of {loc, msg, type}, as every other error (QA: a string here alone).
    assert body["detail"] == [
        {"loc": ["body"], "msg": "The request body is larger than the limit of 2,000 bytes.",
         "type": "too_large"}
    ]  # fmt: skip
    assert body["request_id"] == r.headers["x-request-id"]  # as every other error carries


def test_a_streamed_body_is_counted(small: TestClient) -> None:
    """No Content-Length (a generator body is sent chunked): refused at the first chunk past."""
    read: list[int] = []

    def chunks() -> Iterator[bytes]:
        for i in range(100):
            read.append(i)
            yield b" " * 500

    r = small.post(
        "/api/v1/estimate", content=chunks(), headers={"content-type": "application/json"}
    )
    assert r.status_code == 413


def test_within_the_limit_still_works(small: TestClient) -> None:
    r = small.post("/api/v1/estimate", json={"model": {"preset": "llama-3.1-8b"}, "task": "lora"})
    assert r.status_code == 200


def test_imports_get_the_upload_limit(small: TestClient) -> None:
    """4,000 bytes: over the JSON limit, under the upload limit → not a 413 (401: no token)."""
    r = small.post(
        "/api/v1/catalog/import", content=b"a" * 4_000, headers={"content-type": "text/csv"}
    )
    assert r.status_code == 401
    r = small.post(
        "/api/v1/catalog/import", content=b"a" * 6_000, headers={"content-type": "text/csv"}
    )
    assert r.status_code == 413


@pytest.mark.parametrize(
    ("lang", "title", "back"),
    [("en", "Too large to send", "Back to the form"), ("zh-TW", "內容過大，無法送出", "回到表單")],
)
def test_pages_get_a_413_page_with_a_way_back(
    small: TestClient, lang: str, title: str, back: str
) -> None:
    # QA 2026-12-07: a 12 MB upload got a bare line of text, no layout and no way back.
    r = small.post(
        "/login",
        content=b"a" * 3_000,
        headers={"content-type": "application/x-www-form-urlencoded", "accept-language": lang,
                 "referer": "http://testserver/login?next=/plans"},
    )  # fmt: skip
    assert r.status_code == 413
    assert r.headers["content-type"].startswith("text/html")
    page = BeautifulSoup(r.text, "html.parser")
    assert page.html["lang"] == lang and page.h1.get_text() == title
    assert "2,000" in page.select_one("[role=alert]").get_text()
    link = page.select_one("a.btn")
    assert link.get_text() == back and link["href"] == "/login?next=/plans"
    # A Referer from elsewhere is not followed back.
    r = small.post("/login", content=b"a" * 3_000,
                   headers={"content-type": "application/x-www-form-urlencoded",
                            "referer": "https://evil.example/x"})  # fmt: skip
    assert BeautifulSoup(r.text, "html.parser").select_one("a.btn")["href"] == "/"


def test_the_413_is_in_the_readers_language(small: TestClient) -> None:
    r = small.post(
        "/api/v1/estimate",
        content=b"[" + b" " * 3_000 + b"]",
        headers={"content-type": "application/json", "accept-language": "zh-TW"},
    )
    assert r.status_code == 413
    assert r.json()["detail"][0]["msg"] == "請求內容超過上限 2,000 位元組。"


def _count_413_and_500(client: TestClient) -> tuple[float, float]:
    by_status = {"413": 0.0, "500": 0.0}
    for fam in text_string_to_metric_families(client.get("/metrics").text):
        for s in fam.samples:
            if s.name == "stratagem_http_requests_total" and s.labels["status"] in by_status:
                by_status[s.labels["status"]] += s.value
    return by_status["413"], by_status["500"]


def test_a_refused_body_is_counted_as_a_413_not_a_500(small: TestClient) -> None:
    """QA: a chunked body past the limit was answered 413 but counted (and logged) as a 500,
    which sets off 5xx alerts; one refused by its Content-Length was not counted at all."""
    before = _count_413_and_500(small)

    def chunks() -> Iterator[bytes]:
        for _ in range(10):
            yield b" " * 500

    json_type = {"content-type": "application/json"}
    assert small.post("/api/v1/estimate", content=chunks(), headers=json_type).status_code == 413
    declared = small.post("/api/v1/estimate", content=b" " * 3_000, headers=json_type)
    assert declared.status_code == 413
    after = _count_413_and_500(small)
    assert (after[0] - before[0], after[1] - before[1]) == (2, 0)
