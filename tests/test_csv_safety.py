"""CSV formula injection (OWASP): every CSV the app writes keeps formulas as text, numbers
as numbers, and the catalog's own export imports back unchanged (issue 13)."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest

from app.catalog import io as catalog_io
from app.catalog.kinds import KINDS
from app.csv_safety import safe_cell, unescape_cell
from app.quotes.bom import Bom, BomLine, bom_csv

# One payload per dangerous first character (OWASP CSV Injection page).
PAYLOADS = [
    '=HYPERLINK("http://evil.example/","x")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]


@pytest.mark.parametrize("payload", PAYLOADS, ids=["eq", "plus", "minus", "at", "tab", "cr"])
def test_formulas_become_text(payload: str) -> None:
    assert safe_cell(payload) == "'" + payload
    assert unescape_cell(safe_cell(payload)) == payload


@pytest.mark.parametrize("number", ["-5", "+1.5", "-1e3", "-0.25", "12", "0"])
def test_numbers_stay_numbers(number: str) -> None:
    assert safe_cell(number) == number


@pytest.mark.parametrize(
    "text", ["Stratagem Taipei", "'quoted already", "a=b", "h100-sxm-80gb", ""]
)
def test_other_text_is_untouched(text: str) -> None:
    assert safe_cell(text) == text
    assert unescape_cell(text) == text


def read(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))


@pytest.mark.parametrize("payload", PAYLOADS, ids=["eq", "plus", "minus", "at", "tab", "cr"])
def test_catalog_export_neutralises_and_round_trips(payload: str) -> None:
    k = KINDS["offers"]
    row = {
        "id": "evil-offer",
        "provider": payload,
        "gpu_id": "h100-sxm-80gb",
        "gpu_count": 1,
        "monthly_price": 50000.0,
        "hourly_price": -0.0,
        "currency": "TWD",
        "source": "test",
    }
    text = catalog_io.to_csv(k, [row])
    header, cells = read(text)
    by_name = dict(zip(header, cells, strict=True))
    assert by_name["provider"] == "'" + payload  # a spreadsheet shows it as text
    assert by_name["monthly_price"] == "50000"  # still a number
    parsed = catalog_io.parse(text, fmt="csv", kind="offers")
    assert parsed.rows["offers"][0].values["provider"] == payload  # imports back unchanged


@pytest.mark.parametrize("payload", PAYLOADS, ids=["eq", "plus", "minus", "at", "tab", "cr"])
def test_bom_csv_neutralises(payload: str) -> None:
    line = BomLine(
        section="rental",
        item=payload,
        description=payload,
        unit_price=Decimal("-12.50"),
        unit="month",
        quantity=Decimal("2"),
        discount=0.0,
        line_total=Decimal("-25.00"),
        currency="TWD",
    )
    rows = read(
        bom_csv(Bom(option=None, lines=[line], currency="TWD"), quote_number="Q-1").decode()
    )
    _section, item, description, unit_price, *_rest, line_total, _currency = rows[1]
    assert item == "'" + payload and description == "'" + payload
    assert (unit_price, line_total) == ("-12.50", "-25.00")  # negative numbers stay numeric
    assert rows[2][:2] == ["total", "Q-1"]
