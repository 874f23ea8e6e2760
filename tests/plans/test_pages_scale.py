"""The /plans page with 10,000 plans shows one page of them and pages on; its speed is measured
by benchmarks/bench_plan_pages.py, never asserted here."""

from __future__ import annotations

from pathlib import Path

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.bootstrap import prepare_database
from app.main import create_app
from app.plans.bulk import insert_plans
from app.settings import Settings
from tests.accounts.helpers import make_account, sign_in

PLANS = 10_000


def test_plans_page_with_10000_plans_shows_one_page_and_a_next_link(tmp_path: Path) -> None:
    s = Settings(DATABASE_URL=f"sqlite:///{tmp_path / 'pages.db'}", STRATAGEM_LOAD_CATALOG=False)
    prepare_database(s, echo=lambda _: None)
    with TestClient(create_app(s)) as c:
        a = make_account(c, "sales")
        assert a.user.id is not None
        with Session(c.app.state.engine) as session:  # type: ignore[attr-defined]
            insert_plans(session=session, owner_id=a.user.id, count=PLANS)
        sign_in(c, a.user)
        r = c.get("/plans")
        assert r.status_code == 200
        page = BeautifulSoup(r.text, "html.parser")
        assert len(page.select("#plans-table tbody tr")) == 25
        assert page.select_one("a[rel=next]") is not None
        r = c.get("/plans", params={"q": "plan 999"}, headers={"HX-Request": "true"})
        assert r.status_code == 200 and "<html" not in r.text
