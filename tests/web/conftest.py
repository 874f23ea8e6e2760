"""Web tests: a fresh in-process client per test (cookies never leak between tests)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings

LANGS = ("zh-TW", "en")


@pytest.fixture(scope="session")
def web_app(settings: Settings) -> FastAPI:
    return create_app(settings)


@pytest.fixture
def web(web_app: FastAPI) -> Iterator[TestClient]:
    with TestClient(web_app) as c:
        yield c


@pytest.fixture(params=LANGS)
def lang(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def get_soup(web: TestClient, lang: str) -> Callable[..., BeautifulSoup]:
    """GET a page in `lang` and parse it (asserts 200 unless told otherwise)."""

    def get(path: str, status: int = 200, **headers: str) -> BeautifulSoup:
        r = web.get(path, headers={"Accept-Language": lang, **headers})
        assert r.status_code == status, (path, r.status_code, r.text[:500])
        return BeautifulSoup(r.text, "html.parser")

    return get


def htmx(**extra: str) -> dict[str, str]:
    return {"HX-Request": "true", **extra}
