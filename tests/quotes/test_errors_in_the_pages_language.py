"""Quote errors read in the page's (or the API request's) language (QA: "a line needs an
option_key or a description" and "must not be in the past" were English on the zh-TW quote
builder), and a money limit prints grouped, never "1E+12"."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account
from tests.quotes.test_builder_input import _builder
from tests.quotes.test_quote_life import _answered

EMPTY_LINE = {"line-0-option_key": "", "line-0-description": "", "line-0-unit_price": "5"}
FREE_LINE_NO_PRICE = {"line-0-option_key": "", "line-0-description": "NAS 20 TB",
                      "line-0-unit_price": ""}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "field", "en", "zh"),
    [
        (EMPTY_LINE, "line-0-description",
         "a line needs a cost option or a description", "每一列須選擇計價方案或填寫說明"),
        # Beside the empty price, not under the description that was filled in (QA).
        (FREE_LINE_NO_PRICE, "line-0-unit_price",
         "a line of your own needs a unit price", "自訂項目須填寫單價"),
        ({"valid_until": "2020-01-31"}, "valid_until",
         "must not be in the past", "不可為過去的日期"),
        ({"line-0-unit_price": "2000000000000"}, "line-0-unit_price",
         "Must be at most 1,000,000,000,000.", "最多為 1,000,000,000,000。"),
        ({"line-0-quantity": "2000000000"}, "line-0-quantity",
         "Must be at most 1,000,000,000.", "最多為 1,000,000,000。"),
        # Each number's example is one of its own (QA: "e.g. 4096", a sequence length, beside
        # a price and a discount).
        ({"line-0-unit_price": "abc"}, "line-0-unit_price",
         "Enter a number, e.g. 180,000.", "請輸入數字，例如 180,000。"),
        ({"line-0-discount_pct": "five"}, "line-0-discount_pct",
         "Enter a number, e.g. 5.", "請輸入數字，例如 5。"),
        ({"discount_amount": "x"}, "discount_amount",
         "Enter a number, e.g. 10,000.", "請輸入數字，例如 10,000。"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_builder_errors_are_in_the_pages_language(
    client: TestClient, change: dict[str, str], field: str, en: str, zh: str, lang: str
) -> None:
    _sales, pages, plan, data = _builder(client)
    r = pages.post(
        f"/plans/{plan['id']}/quote",
        data={**data, **change, "action": "save"},
        headers={"Accept-Language": lang, "HX-Request": "true"},
    )
    assert r.status_code == 422, r.text[:300]
    err = BeautifulSoup(r.text, "html.parser").select_one(f"#err-{field}")
    assert err is not None
    assert err.get_text(strip=True) == (zh if lang == "zh-TW" else en)


def test_an_answer_to_an_answered_quote_is_refused_in_chinese(client: TestClient) -> None:
    # The customer's share link is Chinese by default: a state refusal must be too, with no
    # status value ("accepted") inside the Chinese sentence.
    _a, _p, link = _answered(client, "accepted")
    again = TestClient(client.app).post(
        f"{link}/accept",
        json={"name": "Mallory", "title": "x"},
        headers={"Accept-Language": "zh-TW"},
    )
    assert again.status_code == 409
    assert again.json()["detail"][0]["msg"] == "此報價已接受"


def test_an_import_error_is_in_the_requests_language(client: TestClient) -> None:
    a = make_account(client, "sales")
    body = {"name": "x", "workload": {"model": {"preset": "llama-2-13b"}, "task": "lora"},
            "reprice": False, "price_list_id": 987654}  # fmt: skip
    for lang, expected in (("en", "no price list 987654"), ("zh-TW", "找不到價目表 987654")):
        r = client.post(
            "/api/v1/plans/import", json=body, headers={**a.headers, "Accept-Language": lang}
        )
        assert r.status_code == 422, r.text
        (detail,) = r.json()["detail"]
        assert detail["loc"] == ["body", "price_list_id"] and detail["msg"] == expected


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_one_save_names_every_wrong_input_of_the_builder(client: TestClient, lang: str) -> None:
    """QA: a line discount of 150 % and a validity date in the past were named one per save
    (the date only after the discount was fixed)."""
    _sales, pages, plan, data = _builder(client)
    wrong = {"line-0-discount_pct": "150", "valid_until": "2020-01-31", "customer_id": "x"}
    r = pages.post(
        f"/plans/{plan['id']}/quote",
        data={**data, **wrong, "action": "save"},
        headers={"Accept-Language": lang, "HX-Request": "true"},
    )
    assert r.status_code == 422
    page = BeautifulSoup(r.text, "html.parser")
    said = {
        f: (e.get_text(strip=True) if (e := page.select_one(f"#err-{f}")) else None)
        for f in ("line-0-discount_pct", "valid_until", "customer_id")
    }
    expected = {
        "en": {
            "line-0-discount_pct": "Must be at most 100.",
            "valid_until": "must not be in the past",
            "customer_id": "Choose one of the listed options.",
        },
        "zh-TW": {
            "line-0-discount_pct": "最多為 100。",
            "valid_until": "不可為過去的日期",
            "customer_id": "請從列出的選項中選擇。",
        },
    }
    assert said == expected[lang]


def test_a_line_of_ones_own_without_a_price_is_refused_on_its_price(client: TestClient) -> None:
    """The API names `unit_price`, the field to fill in, not the line (QA read the message
    under the description, which was filled in)."""
    a = make_account(client, "sales")
    body = {"name": "no price", "workload": {"model": {"preset": "llama-3.1-8b"},
            "task": "lora"}, "quote": {"lines": [{"description": "NAS 20 TB"}]}}  # fmt: skip
    before = client.get("/api/v1/plans", headers=a.headers).json()["total"]
    r = client.post("/api/v1/plans", json=body, headers={**a.headers, "Accept-Language": "en"})
    assert r.status_code == 422, r.text
    assert [(d["loc"], d["msg"]) for d in r.json()["detail"]] == [
        (["body", "quote", "lines", 0, "unit_price"], "a line of your own needs a unit price")
    ]
    assert client.get("/api/v1/plans", headers=a.headers).json()["total"] == before
