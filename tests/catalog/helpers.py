"""Helpers for the catalog's page and API tests."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from app.catalog import service as catalog
from app.catalog.kinds import KINDS
from app.catalog.models import AuditEntry, PriceList

#: A valid new offer as the row form posts it (3 × H100 at NT$150,000 a month).
OFFER_FORM: dict[str, str] = {
    "id": "tpe-h100-x3", "provider": "Stratagem Taipei", "gpu_id": "h100-sxm-80gb",
    "gpu_count": "3", "monthly_price": "150000", "currency": "TWD", "interconnect": "nvlink",
    "includes_power": "true", "lead_time_hours": "2", "source": "test",
}  # fmt: skip


def draft_copy(client: TestClient, name: str) -> int:
    """A new draft price list copied from the current one (the import API, applied): its id."""
    return int(
        client.post(
            "/api/v1/catalog/import",
            params={"dry_run": "false", "name": name},
            json=client.get("/api/v1/catalog/export").json(),
        ).json()["price_list_id"]
    )


def csrf(client: TestClient, url: str = "/catalog") -> str:
    """The CSRF token of the client's session (a GET sets the cookie, the form carries it)."""
    page = client.get(url)
    token = BeautifulSoup(page.text, "html.parser").select_one("meta[name=csrf-token]")
    assert token is not None
    return str(token["content"])


def post_form(client: TestClient, url: str, data: dict[str, Any], **kw: Any) -> Any:
    return client.post(url, data={**data, "csrf_token": csrf(client)}, follow_redirects=False, **kw)


def soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


def catalog_counts(session: Session) -> dict[str, int]:
    """Rows in every catalog table (all price lists), to prove nothing changed."""
    session.expire_all()
    out = {
        name: int(session.exec(select(func.count()).select_from(k.table)).one())
        for name, k in KINDS.items()
    }
    out["price_lists"] = int(session.exec(select(func.count()).select_from(PriceList)).one())
    return out


def audit_count(session: Session) -> int:
    return int(session.exec(select(func.count()).select_from(AuditEntry)).one())


def publish_copy(
    client: TestClient,
    name: str,
    *,
    actor: str = "t",
    edit: Callable[[Session, int], None] | None = None,
) -> int:
    """A copy of the current price list, changed by `edit(session, its id)` and published
    today: its id. Every later plan of `client`'s database is priced with it (use a database
    of the test's own)."""
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        current = catalog.current_price_list(session=s)
        assert current is not None and current.id is not None
        pl = catalog.new_price_list_from(
            session=s, source_id=current.id, name=name, effective_date=date.today(), actor=actor
        )
        assert pl.id is not None
        if edit is not None:
            edit(s, pl.id)
        catalog.publish_price_list(session=s, price_list_id=pl.id, actor=actor)
        return pl.id


def change_row(s: Session, list_id: int, kind_name: str, key: str, **values: Any) -> None:
    """Set `values` on row `key` of `kind_name` in price list `list_id`, validated as the
    row form does (for `publish_copy`'s `edit`)."""
    row = catalog.get_row(session=s, kind_name=kind_name, price_list_id=list_id, key=key)
    merged = catalog.row_values(catalog.kind(kind_name), row) | values
    catalog.update_row(
        session=s, kind_name=kind_name, price_list_id=list_id, key=key, actor="t",
        data=catalog.validate_row(kind_name=kind_name, values=merged),
    )  # fmt: skip
