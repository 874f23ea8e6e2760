"""SQLite's write lock held past the busy timeout is "busy", not an outage.

QA of stop 30: while a 64 s price-list import held SQLite's one write lock, a customer saved
meanwhile waited the 30 s busy timeout and was told "the database is not answering right
now" — as if the server were down. It is up, and busy: the 503 now says so, in the
visitor's language, and asks for a retry after `BUSY_RETRY_AFTER_S` (the timeout has already
been waited). A database that really cannot be reached keeps its own answer
(tests/ops/test_database_outage.py). The busy timeout is shortened to 1 s here so that the
test does not wait 30.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from app import db
from app.bootstrap import prepare_database
from app.customers.models import Customer
from app.main import create_app
from app.ops import outage
from app.settings import Settings
from tests.accounts.helpers import make_account, sign_in

BUSY_PAGE = {
    "zh-TW": ("正在處理另一項變更", "請約 30 秒後再試。"),
    "en": ("Busy with another change", "Please try again in about 30 seconds."),
}


@pytest.fixture
def app_and_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[TestClient, Path]]:
    monkeypatch.setattr(db, "SQLITE_BUSY_TIMEOUT_S", 1)
    file = tmp_path / "stratagem.db"
    settings = Settings(
        DATABASE_URL=f"sqlite:///{file}", STRATAGEM_SECRET_KEY="busy", STRATAGEM_LOAD_CATALOG=False
    )
    prepare_database(settings, echo=lambda _: None)
    with TestClient(create_app(settings)) as client:
        yield client, file


def _held(file: Path) -> sqlite3.Connection:
    """Another writer in the middle of a long write: SQLite's write lock taken and kept."""
    other = sqlite3.connect(file, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    return other


def test_an_api_write_while_another_holds_the_lock_is_told_busy_not_down(
    app_and_file: tuple[TestClient, Path],
) -> None:
    client, file = app_and_file
    account = make_account(client, "sales")
    other = _held(file)
    try:
        r = client.post("/api/v1/customers", json={"name": "甲公司"}, headers=account.headers)
        zh = client.post(
            "/api/v1/customers",
            json={"name": "甲公司"},
            headers={**account.headers, "Accept-Language": "zh-TW"},
        )
    finally:
        other.rollback()
        other.close()
    assert r.status_code == 503 and r.headers["retry-after"] == str(outage.BUSY_RETRY_AFTER_S)
    assert r.json()["detail"] == (
        "The database is busy with another change (a large import, for example); nothing was "
        "done. Try again in about 30 seconds."
    )
    assert zh.json()["detail"] == (
        "資料庫正忙於另一項變更（例如大型匯入），這次沒有執行任何動作。請約 30 秒後再試。"
    )
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        assert s.exec(select(func.count()).select_from(Customer)).one() == 0  # nothing half-saved
    # the lock gone, the same request goes through
    r = client.post("/api/v1/customers", json={"name": "甲公司"}, headers=account.headers)
    assert r.status_code == 201


@pytest.mark.parametrize("lang", ["zh-TW", "en"])
def test_a_form_sent_while_another_holds_the_lock_gets_the_busy_page(
    app_and_file: tuple[TestClient, Path], lang: str
) -> None:
    client, file = app_and_file
    sign_in(client, make_account(client, "sales").user)
    page = BeautifulSoup(client.get("/customers/new").text, "html.parser")
    token = page.select_one("input[name=csrf_token]")["value"]
    other = _held(file)
    try:
        r = client.post(
            "/customers/new",
            data={"csrf_token": token, "name": "乙公司", "language": "zh-TW", "currency": "TWD"},
            headers={"Accept-Language": lang},
        )
    finally:
        other.rollback()
        other.close()
    assert r.status_code == 503 and r.headers["retry-after"] == str(outage.BUSY_RETRY_AFTER_S)
    soup = BeautifulSoup(r.text, "html.parser")
    heading, advice = BUSY_PAGE[lang]
    assert soup.select_one("h1").get_text(strip=True) == heading
    assert advice in soup.get_text()
    assert "Traceback" not in r.text and "locked" not in r.text


def test_only_a_lock_held_past_the_timeout_is_busy() -> None:
    """The file missing or the disk full is an outage, not a busy database."""
    assert outage.database_busy(sqlite3.OperationalError("database is locked"))
    assert outage.database_busy(sqlite3.OperationalError("database table is locked"))
    assert not outage.database_busy(sqlite3.OperationalError("unable to open database file"))
    assert not outage.database_busy(sqlite3.OperationalError("database or disk is full"))
    assert not outage.database_busy(RuntimeError("database is locked"))
