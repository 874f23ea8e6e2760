"""Two price lists side by side: what a draft changes against the current list, and the numbers
that moved ×3 or more, to check before it is published (a unit slip is likelier than a price
that moved that far: a monthly NT$50,000 typed per hour is NT$68.49, ÷730)."""

from __future__ import annotations

import json
import math
from datetime import date

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.catalog import compare, io, service

from .helpers import csrf, soup

X1 = "stratagem-tpe-h100-x1"  # seed 003 T8: NT$50,000 per month
HOURS_A_MONTH = 730  # 8,760 h a year / 12


# -- one field ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "factor", "check"),
    [
        (15_000.0, 15_750.0, 1.05, False),  # a 5 % rise
        (100.0, 299.0, 2.99, False),  # just short of ×3
        (100.0, 300.0, 3.0, True),  # ×3 is flagged
        (50_000.0, 50_000 / HOURS_A_MONTH, 1 / HOURS_A_MONTH, True),  # monthly typed as hourly
        (31.5, 31_500.0, 1_000.0, True),  # three zeros too many
        (0.0, 5.0, None, True),  # from 0: every plan was priced at nothing
        (5.0, 0.0, None, True),  # to 0
        (None, 5.0, None, False),  # an optional price newly set: not a number before
        ("a", "b", None, False),  # text
    ],
)
def test_a_changed_number_carries_its_factor_and_whether_to_check_it(
    old: object, new: object, factor: float | None, check: bool
) -> None:
    got = io.field_change("monthly_price", old, new)
    assert got.check is check
    if factor is None:
        assert got.factor is None
    else:
        assert got.factor is not None and math.isclose(got.factor, factor, rel_tol=1e-12)


def test_booleans_are_not_numbers_to_compare() -> None:
    assert io.field_change("x", True, False).factor is None
    assert not io.field_change("x", True, False).check


# -- two sets of rows --------------------------------------------------------------------


def test_rows_are_matched_by_key_kind_by_kind() -> None:
    old = {
        "offers": {
            "a": {"id": "a", "monthly_price": 100.0, "currency": "TWD"},
            "b": {"id": "b", "monthly_price": 200.0, "currency": "TWD"},
        },
        "fx": {"USD/TWD": {"base": "USD", "quote": "TWD", "rate": 32.0}},
    }
    new = {
        "offers": {
            "a": {"id": "a", "monthly_price": 100.0, "currency": "TWD"},  # unchanged
            "c": {"id": "c", "monthly_price": 300.0, "currency": "TWD"},  # added
        },  # b removed
        "fx": {"USD/TWD": {"base": "USD", "quote": "TWD", "rate": 32_000.0}},
    }
    added, changed, removed, unchanged = compare.compare(new, old)
    assert [(r.kind, r.key) for r in added] == [("offers", "c")]
    assert [(r.kind, r.key) for r in removed] == [("offers", "b")]
    assert unchanged == 1
    assert [(r.kind, r.key) for r in changed] == [("fx", "USD/TWD")]
    (rate,) = changed[0].fields
    assert (rate.field, rate.old, rate.new, rate.factor, rate.check) == (
        "rate", 32.0, 32_000.0, 1_000.0, True,
    )  # fmt: skip
    assert changed[0].currency is None  # an FX rate is no amount


# -- stored lists ------------------------------------------------------------------------


def _draft_with_slips(session: Session) -> tuple[int, int]:
    """A copy of the current list with X1's monthly price typed per hour, USD/TWD typed in
    thousandths, and one offer 10 % cheaper: (draft id, current id)."""
    current = service.current_price_list(session=session)
    assert current is not None and current.id is not None
    draft = service.new_price_list_from(
        session=session, source_id=current.id, name="2027-01", effective_date=date(2027, 1, 1),
        actor="t",
    )  # fmt: skip
    assert draft.id is not None
    offers = service.kind("offers")
    for key, factor in ((X1, 1 / HOURS_A_MONTH), ("stratagem-tpe-h100-x2", 0.9)):
        row = service.get_row(session=session, kind_name="offers", price_list_id=draft.id, key=key)
        values = service.row_values(offers, row)
        values["monthly_price"] = round(values["monthly_price"] * factor, 2)
        data = service.validate_row(kind_name="offers", values=values)
        service.update_row(
            session=session, kind_name="offers", price_list_id=draft.id, key=key, data=data,
            actor="t",
        )  # fmt: skip
    fx = service.get_row(session=session, kind_name="fx", price_list_id=draft.id, key="USD/TWD")
    values = service.row_values(service.kind("fx"), fx)
    values["rate"] = values["rate"] * 1_000
    service.update_row(
        session=session, kind_name="fx", price_list_id=draft.id, key="USD/TWD",
        data=service.validate_row(kind_name="fx", values=values), actor="t",
    )  # fmt: skip
    return draft.id, current.id


def test_a_draft_is_compared_with_the_current_list(session: Session) -> None:
    draft, current = _draft_with_slips(session)
    found = service.compare_price_lists(session=session, price_list_id=draft)
    assert found.against.id == current
    assert found.to_check == 2  # X1 ÷730 and USD/TWD ×1,000; the 10 % cut is not flagged
    by_key = {(c.kind, c.key): c for c in found.changed}
    assert set(by_key) == {("offers", X1), ("offers", "stratagem-tpe-h100-x2"), ("fx", "USD/TWD")}
    (price,) = by_key[("offers", X1)].fields
    assert (price.old, price.new, price.check) == (50_000.0, 68.49, True)  # 50,000 / 730
    assert by_key[("offers", X1)].currency == "TWD"
    assert not found.added and not found.removed
    total = sum(service.counts(session=session, price_list_id=current).values())
    gpu_specs = service.counts(session=session, price_list_id=current).get("gpus", 0)
    assert found.unchanged == total - gpu_specs - 3  # GPU specifications are not compared


def test_a_change_to_either_list_is_seen_at_once(session: Session) -> None:
    """Comparisons are kept until either list changes (the price lists page compares every
    draft at each visit): a price put right drops from the numbers to check."""
    draft, _ = _draft_with_slips(session)
    assert service.compare_price_lists(session=session, price_list_id=draft).to_check == 2
    row = service.get_row(session=session, kind_name="offers", price_list_id=draft, key=X1)
    values = service.row_values(service.kind("offers"), row) | {"monthly_price": 50_000.0}
    service.update_row(
        session=session, kind_name="offers", price_list_id=draft, key=X1,
        data=service.validate_row(kind_name="offers", values=values), actor="t",
    )  # fmt: skip
    again = service.compare_price_lists(session=session, price_list_id=draft)
    assert again.to_check == 1  # USD/TWD is left
    assert ("offers", X1) not in {(c.kind, c.key) for c in again.changed}


def test_the_current_list_is_compared_with_a_published_one_never_a_draft(
    session: Session,
) -> None:
    draft, current = _draft_with_slips(session)
    # the only other list is a draft: no default (a draft is not every reader's to see)
    with pytest.raises(service.Conflict) as none:
        service.compare_price_lists(session=session, price_list_id=current)
    assert none.value.field == "against"
    # named, it is compared
    named = service.compare_price_lists(session=session, price_list_id=current, against_id=draft)
    assert named.against.id == draft


def test_a_list_is_not_compared_with_itself_or_a_missing_one(session: Session) -> None:
    draft, _ = _draft_with_slips(session)
    with pytest.raises(service.InvalidRow) as same:
        service.compare_price_lists(session=session, price_list_id=draft, against_id=draft)
    assert same.value.field == "against"
    with pytest.raises(service.NotFound) as missing:
        service.compare_price_lists(session=session, price_list_id=draft, against_id=99_999)
    assert missing.value.field == "against"


def test_the_only_list_has_nothing_to_compare_with(session: Session) -> None:
    current = service.current_price_list(session=session)
    assert current is not None and current.id is not None
    with pytest.raises(service.Conflict) as only:
        service.compare_price_lists(session=session, price_list_id=current.id)
    assert only.value.field == "against"


# -- API and pages -----------------------------------------------------------------------


def _client_draft(client: TestClient) -> tuple[int, int]:
    engine = client.app.state.engine  # type: ignore[attr-defined]
    with Session(engine) as session:
        return _draft_with_slips(session)


def test_the_api_lists_every_change_with_its_factor(catalog_client: TestClient) -> None:
    draft, current = _client_draft(catalog_client)
    r = catalog_client.get(f"/api/v1/price-lists/{draft}/changes")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["against"] == {
        "id": current,
        "name": body["against"]["name"],
        "status": "published",
    }
    assert body["to_check"] == 2
    fx = next(c for c in body["changed"] if c["key"] == "USD/TWD")
    assert fx["fields"][0]["factor"] == pytest.approx(1_000.0)
    assert fx["fields"][0]["check"] is True


@pytest.mark.parametrize(
    ("query", "status", "loc"),
    [
        ("?against=99999", 404, ["query", "against"]),
        ("?against=0", 422, ["query", "against"]),
        ("?against=x", 422, ["query", "against"]),
    ],
)
def test_the_api_names_a_bad_against(
    catalog_client: TestClient, query: str, status: int, loc: list[str]
) -> None:
    draft, _ = _client_draft(catalog_client)
    r = catalog_client.get(f"/api/v1/price-lists/{draft}/changes{query}")
    assert r.status_code == status, r.text
    assert r.json()["detail"][0]["loc"] == loc


def test_the_api_answers_404_for_an_unknown_list(catalog_client: TestClient) -> None:
    r = catalog_client.get("/api/v1/price-lists/99999/changes")
    assert r.status_code == 404
    assert r.json()["detail"][0]["loc"] == ["path", "price_list_id"]


def test_anonymous_callers_do_not_see_a_draft_compared(catalog_client: TestClient) -> None:
    draft, current = _client_draft(catalog_client)
    anonymous = TestClient(catalog_client.app)
    assert anonymous.get(f"/api/v1/price-lists/{draft}/changes").status_code == 404
    # the current list compared with the draft, named: the draft stays unseen
    r = anonymous.get(f"/api/v1/price-lists/{current}/changes?against={draft}")
    assert r.status_code == 404 and r.json()["detail"][0]["loc"] == ["query", "against"]
    # by default it is never compared with a draft, nor is a draft's id told (QA)
    r = anonymous.get(f"/api/v1/price-lists/{current}/changes")
    assert r.status_code == 409 and f"no price list {draft}" not in r.text


def test_the_changes_page_lists_the_numbers_to_check_first(catalog_client: TestClient) -> None:
    draft, _ = _client_draft(catalog_client)
    page = catalog_client.get(f"/catalog/price-lists/{draft}/changes")
    assert page.status_code == 200
    html = page.text
    check = html[
        html.index('id="check-rows"') : html.index("</table>", html.index('id="check-rows"'))
    ]
    assert "NT$50,000" in check and "NT$68.49" in check and "÷730" in check
    assert "×1,000" in check
    assert "stratagem-tpe-h100-x2" not in check  # a 10 % cut is listed, not flagged
    assert "−10%" in html
    lists = soup(catalog_client.get("/catalog/price-lists").text)
    note = lists.select_one(f"#to-check-{draft}")
    assert note is not None and note.get_text(strip=True).startswith("2 numbers to check")
    # Publish asks first, and says so there too
    publish = lists.select_one(f'form[action="/catalog/price-lists/{draft}/publish"]')
    assert publish is not None and "2 numbers in it moved ×3 or more" in publish["data-confirm"]
    # the draft's own pages link to its changes
    banner = soup(catalog_client.get(f"/catalog/offers?price_list={draft}").text)
    assert banner.select_one(f'.list-banner a[href="/catalog/price-lists/{draft}/changes"]')


def test_the_changes_page_speaks_chinese(catalog_client: TestClient) -> None:
    draft, _ = _client_draft(catalog_client)
    html = catalog_client.get(
        f"/catalog/price-lists/{draft}/changes", headers={"Accept-Language": "zh-TW"}
    ).text
    assert "待核對" in html and "以下 2 個數字變動達 3 倍以上" in html
    assert "To check" not in html and "Every change" not in html


def test_the_import_preview_flags_a_unit_slip(catalog_client: TestClient) -> None:
    """USD/TWD typed in thousandths (32,000 for the shipped 32): flagged, not refused."""
    csv = "base,quote,rate,as_of,source\nUSD,TWD,32000,2026-11-01,typed in thousandths\n"
    r = catalog_client.post(
        "/catalog/import",
        data={"kind": "fx", "target": "new", "mode": "upsert", "csrf_token": csrf(catalog_client)},
        files={"file": ("fx.csv", csv.encode(), "text/csv")},
    )
    assert r.status_code == 200, r.text[:2000]
    page = soup(r.text)
    note = page.select_one("#import-to-check")
    assert note is not None and "moved ×3 or more" in note.get_text()
    (row,) = page.select("#changed-rows tr.to-check")
    assert "×1,000" in row.get_text() and "32,000" in row.get_text()


# -- QA round: currencies, term discounts, whole-catalog imports --------------------------


def test_an_amount_in_another_currency_is_to_check_and_shown_in_its_own() -> None:
    """NT$100,000 re-typed as US$100,000 is the same number and a ×32 price; NT$200,000
    converted to US$6,250 is no ÷32 move. Without the rate neither can be judged: both are
    flagged, each amount in the currency it was in (QA)."""
    from app.catalog.views import change_rows

    old = {"offers": {"x": {"id": "x", "monthly_price": 100_000.0, "currency": "TWD"}}}
    new = {"offers": {"x": {"id": "x", "monthly_price": 100_000.0, "currency": "USD"}}}
    _, (row,), _, _ = compare.compare(new, old)
    assert (row.currency, row.old_currency) == ("USD", "TWD")
    price = next(f for f in row.fields if f.field == "monthly_price")
    assert (price.factor, price.check) == (None, True)
    shown = next(r for r in change_rows([row]) if r["field"] == "Monthly price")
    assert (shown["old"], shown["new"], shown["factor"]) == (
        "NT$100,000", "US$100,000.00", "other currency",
    )  # fmt: skip


def test_a_term_discount_that_moves_the_price_paid_3x_is_to_check() -> None:
    # 10 % → 90 % off leaves 0.1 of the price instead of 0.9: ÷9
    assert io.field_change("term_discounts", {6: 0.1}, {6: 0.9}).check
    assert io.field_change("term_discounts", {}, {6: 0.9}).check  # a new 90 % term
    from app.catalog.views import factor_text

    # the price paid on the 6-month term: 0.9 → 0.1 of the list price
    assert factor_text(io.field_change("term_discounts", {6: 0.1}, {6: 0.9})) == "÷9"
    assert not io.field_change("term_discounts", {1: 0.0, 6: 0.1}, {1: 0.05, 6: 0.12}).check


def test_a_json_import_previews_every_kind_it_will_write(catalog_client: TestClient) -> None:
    """The form's CSV kind (offers by default) dropped every other kind of a JSON file from
    the preview, while Apply wrote them all (QA)."""
    doc = catalog_client.get("/api/v1/catalog/export").json()
    doc["fx"][0]["rate"] = doc["fx"][0]["rate"] / 32  # TWD per USD typed as USD per TWD
    doc["offers"][0]["monthly_price"] += 1
    r = catalog_client.post(
        "/catalog/import",
        data={
            "kind": "offers", "target": "new", "mode": "upsert",
            "csrf_token": csrf(catalog_client),
        },
        files={"file": ("all.json", json.dumps(doc).encode(), "application/json")},
    )  # fmt: skip
    assert r.status_code == 200, r.text[:2000]
    page = soup(r.text)
    rows = page.select("#changed-rows tbody tr")
    assert {tr.select("td")[0].get_text(strip=True) for tr in rows} == {"Rental offers", "FX rates"}
    (flagged,) = page.select("#changed-rows tr.to-check")
    assert "÷32" in flagged.get_text()
