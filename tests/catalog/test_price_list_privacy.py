"""Anyone may read the price lists' prices; who made a list (a staff e-mail) and its
internal notes are for signed-in catalog users (QA: an anonymous GET /api/v1/price-lists
answered "created_by": "admin@qa.tw" and the notes)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.bootstrap import prepare_database
from app.catalog import service as catalog
from app.catalog.models import PriceListUpdate
from app.main import create_app
from app.settings import Settings
from tests.accounts.helpers import make_account
from tests.catalog.helpers import publish_copy


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[TestClient]:
    s = Settings(DATABASE_URL=f"sqlite:///{tmp_path}/lists.db", STRATAGEM_SECRET_KEY="lists")
    prepare_database(s, echo=lambda _: None)
    with TestClient(create_app(s)) as c:
        yield c


def test_anonymous_readers_get_prices_without_staff_e_mails_or_notes(fresh: TestClient) -> None:
    def annotate(s: Session, list_id: int) -> None:
        catalog.update_price_list(session=s, price_list_id=list_id, actor="admin@qa.tw",
                                  data=PriceListUpdate(notes="H100 −10% to win NTU"))  # fmt: skip

    new_id = publish_copy(fresh, "2027-01", actor="admin@qa.tw", edit=annotate)

    anon = fresh.get("/api/v1/price-lists").json()
    assert [(p["created_by"], p["notes"]) for p in anon] == [("", "")] * len(anon)
    for path in ("/api/v1/price-lists/current", f"/api/v1/price-lists/{new_id}"):
        got = fresh.get(path).json()
        assert (got["created_by"], got["notes"]) == ("", "")
        assert got["offers"]  # the prices themselves stay public

    staff = make_account(fresh, "sales").headers
    mine = next(p for p in fresh.get("/api/v1/price-lists", headers=staff).json()
                if p["id"] == new_id)  # fmt: skip
    assert (mine["created_by"], mine["notes"]) == ("admin@qa.tw", "H100 −10% to win NTU")
    got = fresh.get(f"/api/v1/price-lists/{new_id}", headers=staff).json()
    assert got["created_by"] == "admin@qa.tw"
