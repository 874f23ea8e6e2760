"""The plan list with 10,000 plans (its own database: the count is exact). Its speed is measured
by benchmarks/bench_plans.py, never asserted here."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.bootstrap import prepare_database
from app.main import create_app
from app.plans.bulk import insert_plans
from app.settings import Settings
from tests.accounts.helpers import make_account

PLANS = 10_000


def test_first_page_of_10000_plans_is_the_newest_and_the_count_is_exact(tmp_path: Path) -> None:
    s = Settings(DATABASE_URL=f"sqlite:///{tmp_path / 'scale.db'}", STRATAGEM_LOAD_CATALOG=False)
    prepare_database(s, echo=lambda _: None)
    with TestClient(create_app(s)) as c:
        a = make_account(c, "sales")
        assert a.user.id is not None
        with Session(c.app.state.engine) as session:  # type: ignore[attr-defined]
            insert_plans(session=session, owner_id=a.user.id, count=PLANS)
        r = c.get("/api/v1/plans", headers=a.headers)
        assert r.status_code == 200
        body = r.json()
        assert body["total"] == PLANS - PLANS // 20  # every 20th is archived
        assert body["items"][0]["name"] == "bulk plan 1"  # the most recently updated live one
        r = c.get(
            "/api/v1/plans", params={"search": "plan 999", "status": "sent"}, headers=a.headers
        )
        assert r.status_code == 200 and r.json()["total"] > 0
