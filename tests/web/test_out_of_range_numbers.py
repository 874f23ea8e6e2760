"""A number typed past what a field allows is told the allowed range, however large it is;
a year's limit is written as a year.

QA: /plan?dataset_gb=<5,000 nines> and a catalog offer's monthly_price=1e400 said "請輸入數字，
例如 20" (enter a number): both are numbers, too large for a float. A GPU's launch_year=1800
said "至少須為 1,990"."""

from __future__ import annotations

import math
import sys

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.web.forms import message_for, number_text, parse_number
from tests.accounts.helpers import make_account, sign_in
from tests.catalog.helpers import OFFER_FORM, csrf

NINES = "9" * 5000


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (NINES, sys.float_info.max),
        ("1e400", sys.float_info.max),
        ("-1e400", -sys.float_info.max),
        ("1e307t", sys.float_info.max),  # a float as typed, past one with its suffix
        ("1e308", 1e308),  # within a float: as typed
    ],
)
def test_a_number_past_a_float_is_read_as_the_largest_float_of_its_sign(
    raw: str, expected: float
) -> None:
    assert parse_number("dataset_gb", raw) == expected
    if not raw.endswith("t"):
        assert float(number_text("monthly_price", raw)) == expected


def test_words_are_still_no_number() -> None:
    for raw in ("inf", "nan", "lots"):
        with pytest.raises(ValueError, match="Enter a number"):
            parse_number("dataset_gb", raw)
    assert number_text("monthly_price", "inf") == "inf"  # left to the model, which refuses it
    assert not math.isinf(float(number_text("monthly_price", "1,000")))


@pytest.mark.parametrize(
    ("lang", "said"),
    [("zh-TW", "最多為 100,000,000。"), ("en", "Must be at most 100,000,000.")],
)
@pytest.mark.parametrize("typed", [NINES, "1e400"])
def test_the_planner_states_the_range_of_a_huge_dataset(
    client: TestClient, lang: str, said: str, typed: str
) -> None:
    r = TestClient(client.app).get(
        "/plan", params={"dataset_gb": typed}, headers={"Accept-Language": lang}
    )
    assert r.status_code in (200, 422)
    error = BeautifulSoup(r.text, "html.parser").select_one("#err-dataset_gb")
    assert error is not None and error.get_text() == said


def _catalog_pages(client: TestClient) -> tuple[TestClient, int]:
    admin = make_account(client, "admin")
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, admin.user)
    api = TestClient(client.app)
    draft = api.post(
        "/api/v1/catalog/import",
        params={"dry_run": "false", "name": f"Huge numbers {admin.user.id}"},
        json=api.get("/api/v1/catalog/export").json(),
        headers=admin.headers,
    ).json()["price_list_id"]
    return pages, int(draft)


@pytest.mark.parametrize("typed", ["1e400", NINES])
def test_a_catalog_offer_states_the_range_of_a_huge_monthly_price(
    client: TestClient, typed: str
) -> None:
    pages, draft = _catalog_pages(client)
    form = {**OFFER_FORM, "id": "huge-price", "monthly_price": typed, "csrf_token": csrf(pages)}
    r = pages.post(f"/catalog/offers/new?price_list={draft}", data=form,
                   headers={"Accept-Language": "zh-TW"})  # fmt: skip
    assert r.status_code == 422
    said = BeautifulSoup(r.text, "html.parser").select_one("#err-monthly_price").get_text()
    assert said.startswith("最多為 ")


@pytest.mark.parametrize(
    ("lang", "said"), [("zh-TW", "至少須為 1990。"), ("en", "Must be at least 1990.")]
)
def test_a_launch_year_limit_is_written_as_a_year(client: TestClient, lang: str, said: str) -> None:
    pages, draft = _catalog_pages(client)
    form = {"id": "old-gpu", "name": "Old", "launch_year": "1800", "csrf_token": csrf(pages)}
    r = pages.post(f"/catalog/gpus/new?price_list={draft}", data=form,
                   headers={"Accept-Language": lang})  # fmt: skip
    assert r.status_code == 422
    assert BeautifulSoup(r.text, "html.parser").select_one("#err-launch_year").get_text() == said


def test_other_limits_keep_their_thousands_separator() -> None:
    err = {"type": "less_than_equal", "loc": ("body", "dataset_gb"), "ctx": {"le": 100_000_000}}
    assert message_for(err) == "Must be at most 100,000,000."
    year = {"type": "less_than_equal", "loc": ("body", "launch_year"), "ctx": {"le": 2100}}
    assert message_for(year) == "Must be at most 2100."
