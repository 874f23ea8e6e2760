"""Non-finite, negative and absurd prices are refused at every entry point of the catalog —
CSV import, JSON import and the row form — with the row and the field named (issue 13)."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from app.catalog.models import MONEY_MAX
from tests.catalog.helpers import OFFER_FORM, draft_copy, post_form, soup

ROW = "stratagem-tpe-h100-x1"  # the shipped NT$50,000/month single-H100 offer (seed 003 T1)


def offers_csv(client: TestClient) -> str:
    return client.get("/api/v1/catalog/export", params={"format": "csv", "kind": "offers"}).text


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("inf", "monthly_price must be a finite number (got inf)"),
        ("Infinity", "monthly_price must be a finite number (got Infinity)"),
        ("1e309", "monthly_price must be a finite number (got 1e309)"),
        ("NaN", "monthly_price must be a finite number (got NaN)"),
        ("-5", "monthly_price must be ≥ 0 (got -5)"),
        # QA: a NT$0 offer was imported, became the planner's cheapest and could be quoted.
        (
            "0",
            "monthly_price must be more than 0: a price of 0 would quote it as free; "
            "leave it out instead",
        ),
        ("1e30", f"monthly_price must be ≤ {MONEY_MAX:.0f} (got 1e30)"),
    ],
)
def test_csv_import_names_row_and_field(
    catalog_client: TestClient, cell: str, message: str
) -> None:
    text = offers_csv(catalog_client)
    lines = text.split("\r\n")
    row_no = next(i for i, line in enumerate(lines) if line.startswith(ROW + ",")) + 1
    assert ",50000," in lines[row_no - 1]
    lines[row_no - 1] = lines[row_no - 1].replace(",50000,", f",{cell},", 1)
    files = {"file": ("offers.csv", "\r\n".join(lines).encode(), "text/csv")}
    r = catalog_client.post("/api/v1/catalog/import", params={"kind": "offers"}, files=files)
    assert r.status_code == 200
    body = r.json()
    assert not body["ok"]
    assert body["messages"] == [f"row {row_no}: {message}"]


@pytest.mark.parametrize(
    ("kind", "field"),
    [("offers", "hourly_price"), ("cloud", "on_demand_hourly"), ("servers", "price")],
)
def test_json_import_refuses_a_price_of_zero(
    catalog_client: TestClient, kind: str, field: str
) -> None:
    doc = catalog_client.get("/api/v1/catalog/export").json()
    row = next(r for r in doc[kind] if r.get(field))
    row[field] = 0
    r = catalog_client.post("/api/v1/catalog/import", json=doc)
    assert r.status_code == 200
    body = r.json()
    assert not body["ok"] and not body.get("applied")
    n = doc[kind].index(row) + 1
    assert body["messages"] == [
        f"{kind} row {n}: {field} must be more than 0: a price of 0 would quote it as free; "
        "leave it out instead"
    ]


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_json_import_refuses_non_finite_prices(catalog_client: TestClient, literal: str) -> None:
    doc = catalog_client.get("/api/v1/catalog/export").json()
    doc["offers"][0]["monthly_price"] = "__X__"
    raw = json.dumps(doc).replace('"__X__"', literal)
    r = catalog_client.post(
        "/api/v1/catalog/import", content=raw, headers={"content-type": "application/json"}
    )
    assert r.status_code == 200
    body = r.json()
    assert not body["ok"]
    (msg,) = body["messages"]
    assert msg.startswith("offers row 1: monthly_price must be a finite number")


@pytest.mark.parametrize(
    ("field", "value"),
    [("monthly_price", "inf"), ("monthly_price", "1e30"), ("hourly_price", "NaN"),
     ("monthly_price", "-1"), ("monthly_price", "0"), ("hourly_price", "0")],
)  # fmt: skip
def test_row_form_refuses_absurd_prices(catalog_client: TestClient, field: str, value: str) -> None:
    draft = draft_copy(catalog_client, "sanity draft")
    data = {**OFFER_FORM, field: value}
    r = post_form(catalog_client, f"/catalog/offers/new?price_list={draft}", data)
    assert r.status_code == 422
    assert soup(r.text).select_one(f"#err-{field}").get_text(strip=True)
    assert soup(r.text).select_one(f"#f-{field}")["aria-invalid"] == "true"


def test_free_text_is_bounded(catalog_client: TestClient) -> None:
    """A 1 MB provider name (issue 13) is a rejected row naming the field and the limit."""
    text = offers_csv(catalog_client)
    lines = text.split("\r\n")
    row_no = next(i for i, line in enumerate(lines) if line.startswith(ROW + ",")) + 1
    cells = lines[row_no - 1].split(",")
    cells[1] = "x" * 1_000_000  # provider, the second column
    lines[row_no - 1] = ",".join(cells)
    files = {"file": ("offers.csv", "\r\n".join(lines).encode(), "text/csv")}
    r = catalog_client.post("/api/v1/catalog/import", params={"kind": "offers"}, files=files)
    assert r.status_code == 200, r.text[:300]
    assert r.json()["messages"] == [
        f"row {row_no}: field larger than field limit (131072); nothing after it was read"
    ]
    assert len(r.content) < 20_000  # the megabyte is not echoed back
    # 201 characters: past the column's limit, within csv's.
    cells[1] = "x" * 201
    lines[row_no - 1] = ",".join(cells)
    files = {"file": ("offers.csv", "\r\n".join(lines).encode(), "text/csv")}
    r = catalog_client.post("/api/v1/catalog/import", params={"kind": "offers"}, files=files)
    assert r.json()["messages"] == [f"row {row_no}: provider must be at most 200 characters"]


def _draft_with_offer_form(client: TestClient) -> tuple[int, dict[str, str]]:
    return draft_copy(client, "typed numbers draft"), dict(OFFER_FORM)


def test_row_form_reads_numbers_as_people_type_them(catalog_client: TestClient) -> None:
    # As on /tco and /assess (app.web.forms.number_text): a comma separates thousands and
    # full-width digits are digits, so "150,000" and "３" are NT$150,000 for 3 GPUs.
    draft, data = _draft_with_offer_form(catalog_client)
    data.update(monthly_price="150,000", gpu_count="３", provider="Stratagem, Taipei")
    r = post_form(catalog_client, f"/catalog/offers/new?price_list={draft}", data)
    assert r.status_code in (302, 303), r.text[:500]
    rows = catalog_client.get(
        "/api/v1/catalog/export", params={"kind": "offers", "price_list": draft}
    ).json()
    row = next(o for o in rows if o["id"] == "tpe-h100-x3")
    assert (row["monthly_price"], row["gpu_count"]) == (150_000, 3)
    assert row["provider"] == "Stratagem, Taipei"  # text is not a number: its comma stays


def test_row_form_refuses_a_decimal_comma_beside_the_field(catalog_client: TestClient) -> None:
    # "1,5" is not 15: refused beside the field, in the page's language, nothing saved.
    draft, data = _draft_with_offer_form(catalog_client)
    data["monthly_price"] = "1,5"
    r = post_form(
        catalog_client, f"/catalog/offers/new?price_list={draft}", data,
        headers={"Accept-Language": "zh-TW"},
    )  # fmt: skip
    assert r.status_code == 422
    assert soup(r.text).select_one("#err-monthly_price").get_text(strip=True) == (
        "小數請用小數點（1.5）；逗號只用來分隔千位（1,500）。"
    )
    rows = catalog_client.get(
        "/api/v1/catalog/export", params={"kind": "offers", "price_list": draft}
    ).json()
    assert all(o["id"] != "tpe-h100-x3" for o in rows)


def test_an_uploaded_json_file_with_a_lone_surrogate_is_refused_naming_the_row(
    catalog_client: TestClient,
) -> None:
    # A JSON *file* (multipart, not a JSON body) may spell "\ud800" too: it was stored, and
    # the import answered 500 when the database could not encode it. Now a row error, no list.
    doc = catalog_client.get("/api/v1/catalog/export").json()
    lists = len(catalog_client.get("/api/v1/price-lists").json())
    doc["offers"][1]["provider"] = "@@"
    raw = json.dumps(doc).replace('"@@"', '"Bad \\ud800 provider"')
    files = {"file": ("catalog.json", raw.encode(), "application/json")}
    r = catalog_client.post(
        "/api/v1/catalog/import", params={"dry_run": "false", "name": "surrogate"}, files=files
    )
    assert r.status_code == 422, r.text[:300]  # an applied import that cannot apply
    body = r.json()
    assert not body["ok"]
    assert body["errors"] == [
        "offers row 2: provider must be valid Unicode text; it holds a lone UTF-16 surrogate "
        "(half of a pair)"
    ]
    assert len(catalog_client.get("/api/v1/price-lists").json()) == lists


def test_row_form_takes_term_discounts_with_commas(catalog_client: TestClient) -> None:
    # Review: the number reading took term_discounts (dict[int, float]) for a number and
    # refused '{"6": 0.1, "12": 0.2}' as a decimal comma; io.parse_terms documents that form.
    draft, data = _draft_with_offer_form(catalog_client)
    data["term_discounts"] = '{"6": 0.1, "12": 0.2}'
    r = post_form(catalog_client, f"/catalog/offers/new?price_list={draft}", data)
    assert r.status_code in (302, 303), r.text[:500]
    rows = catalog_client.get(
        "/api/v1/catalog/export", params={"kind": "offers", "price_list": draft}
    ).json()
    row = next(o for o in rows if o["id"] == "tpe-h100-x3")
    assert {int(k): v for k, v in row["term_discounts"].items()} == {6: 0.1, 12: 0.2}


def test_a_decimal_comma_is_named_beside_the_rows_other_errors(catalog_client: TestClient) -> None:
    # Seen at 1440 px: with "1,5" the form named the price alone; the missing source came
    # only on the next submit. One submit names both, the price with its own message.
    draft, data = _draft_with_offer_form(catalog_client)
    data.update(monthly_price="1,5", source="")
    r = post_form(catalog_client, f"/catalog/offers/new?price_list={draft}", data)
    assert r.status_code == 422
    page = soup(r.text)
    assert page.select_one("#err-monthly_price").get_text(strip=True) == (
        "Use a point for decimals (1.5); a comma only separates thousands (1,500)."
    )
    assert page.select_one("#err-source").get_text(strip=True)


@pytest.mark.parametrize(
    ("column", "cell", "message"),
    [
        # 1e-320 is more than 0: saved, it divided into infinity and every estimate, /plan
        # and /tco answered 500 (QA).
        ("monthly_price", "1e-320", "monthly_price must be 0 or at least 0.01 (got 1e-320)"),
        ("gpu_count", "1e-320", "gpu_count must be ≥ 0.001 (got 1e-320)"),
        ("gpu_count", "0.3", "gpu_count must be a whole number of GPUs, or a MIG slice from 1/2 to 1/8 "
         "(got 0.3)"),
        # A price is kept as a float: 30 decimals were saved as 50000.12345678901 without a
        # word (QA, "money is exact"). Cents for a month's price, six places for an hour's.
        ("monthly_price", "50000.123456789012345678901234567890",
         "monthly_price must have at most 2 decimal places (got 50000.123456789012345678901234567890)"),
        ("monthly_price", "50000.125", "monthly_price must have at most 2 decimal places (got 50000.125)"),
        ("hourly_price", "1.1234567", "hourly_price must have at most 6 decimal places (got 1.1234567)"),
    ],
)  # fmt: skip
def test_import_refuses_numbers_too_small_to_be_a_price_or_a_gpu(
    catalog_client: TestClient, column: str, cell: str, message: str
) -> None:
    text = offers_csv(catalog_client)
    lines = text.split("\r\n")
    header = lines[0].split(",")
    row_no = next(i for i, line in enumerate(lines) if line.startswith(ROW + ",")) + 1
    cells = lines[row_no - 1].split(",")
    cells[header.index(column)] = cell
    lines[row_no - 1] = ",".join(cells)
    files = {"file": ("offers.csv", "\r\n".join(lines).encode(), "text/csv")}
    r = catalog_client.post("/api/v1/catalog/import", params={"kind": "offers"}, files=files)
    assert r.status_code == 200
    assert r.json()["messages"] == [f"row {row_no}: {message}"]


def _edit_form(client: TestClient, url: str) -> dict[str, str]:
    """The values a row's edit form posts as shown (inputs and selected options)."""
    form = soup(client.get(url).text).select_one("form.row-form, form[method=post]")
    assert form is not None
    data: dict[str, str] = {}
    for el in form.select("input[name], textarea[name]"):
        if el.get("type") == "checkbox" and not el.has_attr("checked"):
            continue
        data[str(el["name"])] = el.get_text() if el.name == "textarea" else str(el.get("value", ""))
    for sel in form.select("select[name]"):
        chosen = sel.select_one("option[selected]") or sel.select_one("option")
        data[str(sel["name"])] = str(chosen.get("value", "")) if chosen else ""
    data.pop("csrf_token", None)
    return data


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("bandwidth_gbs", "1e-320", "Must be at least 0.001."),
        ("bf16_tflops", "1e-300", "Must be at least 0.001."),
        ("pcie_gbs", "1e-320", "Must be at least 0.001."),
        ("nvlink_gbs", "1e-320", "must be 0 or at least 0.001 (got 1e-320)"),
    ],
)
def test_a_gpu_spec_too_small_to_divide_by_is_refused_and_estimates_still_answer(
    catalog_client: TestClient, field: str, value: str, message: str
) -> None:
    """QA: bandwidth 1e-320 GB/s saved (the specs apply to every list at once), then every
    estimate answered 500 (ZeroDivisionError in the planner), and /plan too."""
    url = "/catalog/gpus/a100-pcie-80gb/edit"
    data = {**_edit_form(catalog_client, url), field: value}
    r = post_form(catalog_client, url, data)
    assert r.status_code == 422, r.text[:300]
    assert soup(r.text).select_one(f"#err-{field}").get_text(strip=True) == message
    est = catalog_client.post("/api/v1/estimate", json={"model": {"preset": "llama-2-13b"},
                                                       "task": "lora"})  # fmt: skip
    assert est.status_code == 200


def test_a_figure_that_is_not_finite_prints_as_a_dash() -> None:
    """The pages' number filter answered 500 on infinity (f"{inf:.2e}" has no exponent)."""
    from app.web.templating import figure

    assert [figure(float("inf")), figure(float("-inf")), figure(float("nan"))] == ["—"] * 3
    assert figure(3.4e18) == "3.40×10¹⁸"
