"""Request bodies past the limit are a 413 before the app reads them (issue 13)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings


@pytest.fixture(scope="module")
def small(settings: Settings) -> Iterator[TestClient]:
    """The app with 2,000-byte JSON and 5,000-byte upload limits."""
    tight = settings.model_copy(update={"max_json_bytes": 2_000, "max_upload_bytes": 5_000})
    with TestClient(create_app(tight)) as c:
        yield c


def test_defaults_are_one_and_ten_megabytes() -> None:
    s = Settings()
    assert (s.max_json_bytes, s.max_upload_bytes) == (1_000_000, 10_000_000)


def test_a_declared_length_over_the_limit_is_refused_unread(small: TestClient) -> None:
    body = b'{"model": {"preset": "llama-3.1-8b"}, "task": "lora", "pad": "' + b"x" * 3_000 + b'"}'
    r = small.post("/api/v1/estimate", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert r.json() == {"detail": "The request body is larger than the limit of 2,000 bytes."}


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


def test_pages_get_a_plain_413(small: TestClient) -> None:
    r = small.post(
        "/login",
        content=b"a" * 3_000,
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 413
    assert r.headers["content-type"].startswith("text/plain")
