"""Quote arithmetic (app/quotes/pricing.py): exact Decimal money, one rounding per line."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.quotes import pricing
from app.quotes.models import QuoteIn

TODAY = date(2026, 12, 1)
money = st.decimals(min_value=0, max_value=10**7, places=2, allow_nan=False, allow_infinity=False)
pct = st.decimals(min_value=0, max_value=100, places=2, allow_nan=False, allow_infinity=False)
qty = st.decimals(min_value=0, max_value=1000, places=3, allow_nan=False, allow_infinity=False)
months = st.decimals(
    min_value=Decimal("0.5"), max_value=60, places=1, allow_nan=False, allow_infinity=False
)
line = st.fixed_dictionaries(
    {"unit_price": money, "quantity": qty, "months": months, "discount_pct": pct}
)


@given(
    lines=st.lists(line, max_size=12),
    discount=pct,
    tax=st.sampled_from([Decimal("0.05"), Decimal("0")]),
    currency=st.sampled_from(["TWD", "USD"]),
)
def test_subtotal_plus_tax_is_the_total_exactly(
    lines: list[dict], discount: Decimal, tax: Decimal, currency: str
) -> None:
    quote = {"lines": lines, "discount_pct": discount, "tax_rate": tax, "currency": currency}
    t = pricing.totals(quote)
    unit = pricing.MINOR_UNIT[currency]
    assert t.subtotal + t.tax == t.total
    # Each line is rounded once to the minor unit, and the lines add up to the lines total.
    assert all(a == a.quantize(unit) for a in t.line_amounts)
    assert sum(t.line_amounts, Decimal(0)) == t.lines_total
    assert t.subtotal == t.lines_total - t.discount
    assert t.tax == (t.subtotal * tax).quantize(unit, rounding="ROUND_HALF_UP")
    assert Decimal(0) <= t.subtotal <= t.lines_total


@pytest.mark.parametrize(
    ("lines", "discount", "tax_rate", "expected"),
    [
        # 4×H100 on a 6-month contract at NT$180,000/month (seed 003 T8: 200,000 −10%) plus
        # NAS 20 TB at NT$8,000/month: 1,080,000 + 48,000 = 1,128,000; 10% off → 1,015,200;
        # 5% 營業稅 → 50,760; total 1,065,960.
        (
            [("180000", "1", "6", "0"), ("8000", "1", "6", "0")],
            "10",
            "0.05",
            ("1128000", "112800", "1015200", "50760", "1065960"),
        ),
        # Hourly rent NT$480/h for 24.35 h = 11,688 exactly; 0% export tax.
        ([("480", "24.35", "1", "0")], "0", "0", ("11688", "0", "11688", "0", "11688")),
        # Rounding once per line, half up: 333.5 → 334 (and 1 × 0.5 → 1).
        (
            [("667", "0.5", "1", "0"), ("1", "0.5", "1", "0")],
            "0",
            "0.05",
            ("335", "0", "335", "17", "352"),
        ),
    ],
)
def test_totals_by_hand(lines, discount, tax_rate, expected) -> None:  # type: ignore[no-untyped-def]
    quote = {
        "lines": [
            {"unit_price": u, "quantity": q, "months": m, "discount_pct": d} for u, q, m, d in lines
        ],
        "discount_pct": discount,
        "tax_rate": tax_rate,
        "currency": "TWD",
    }
    t = pricing.totals(quote)
    assert (
        str(t.lines_total),
        str(t.discount),
        str(t.subtotal),
        str(t.tax),
        str(t.total),
    ) == expected


def test_option_defaults_read_old_and_new_cost_shapes() -> None:
    # Old shape (before the cost-label issue): a 6-month term's `fixed_monthly` is its rate.
    old = {
        "key": "rent_term:x",
        "kind": "rent_term",
        "total": 1_080_000.0,
        "fixed_monthly": 180_000.0,
    }
    assert pricing.option_defaults(old, 730) == {
        "unit": "month",
        "unit_price": Decimal("180000.0"),
        "quantity": Decimal(1),
        "months": Decimal("6.00"),
        "amount": Decimal("1080000.0"),  # the option's own total, as the plan shows it
    }
    new = {
        "key": "rent_term:x",
        "kind": "rent_term",
        "total": 1_080_000.0,
        "monthly_rate": 180_000.0,
        "billed": {"unit": "month", "quantity": 6},
    }
    assert pricing.option_defaults(new, 730)["months"] == Decimal(6)
    # Hourly: NT$350,400 for a full 730-h month → NT$480/h; NT$11,688 → 24.35 h.
    hourly = {"kind": "rent_hourly", "total": 11_688.0, "metered_monthly_full": 350_400.0}
    d = pricing.option_defaults(hourly, 730)
    assert (
        d["unit"] == "hour"
        and d["unit_price"] == Decimal(480)
        and d["quantity"] == Decimal("24.35")
    )


def test_resolve_defaults_and_refusals() -> None:
    options = [
        {
            "key": "rent_term:x",
            "kind": "rent_term",
            "total": 1_080_000.0,
            "fixed_monthly": 180_000.0,
        }
    ]
    q = QuoteIn.model_validate({"lines": [{"option_key": "rent_term:x"}]})
    kw = dict(
        options=options,
        plan_currency="TWD",
        currency="TWD",
        hours_per_month=730,
        default_terms="T",
        today=TODAY,
    )
    stored = pricing.resolve(q, export=False, **kw)  # type: ignore[arg-type]
    assert stored["tax_rate"] == "0.05" and stored["valid_until"] == "2026-12-31"
    assert stored["lines"][0]["unit_price"] == "180000" and stored["lines"][0]["months"] == "6"
    assert pricing.resolve(q, export=True, **kw)["tax_rate"] == "0"  # type: ignore[arg-type]
    with pytest.raises(pricing.QuoteInputError) as e:
        pricing.resolve(
            QuoteIn.model_validate({"lines": [{"option_key": "nope"}]}), export=False, **kw
        )  # type: ignore[arg-type]
    assert e.value.field == "quote.lines.0.option_key"
    with pytest.raises(pricing.QuoteInputError) as e:
        pricing.resolve(QuoteIn(valid_until=date(2026, 11, 30)), export=False, **kw)  # type: ignore[arg-type]
    assert e.value.field == "quote.valid_until"
    # USD: converted with the price list's own rate (32 NT$/US$): 180,000 / 32 = 5,625.00.
    fx = pricing.Fx("USD", "TWD", Decimal(32), date(2026, 11, 1))
    usd = pricing.resolve(q, export=False, fx=fx, **{**kw, "currency": "USD"})  # type: ignore[arg-type]
    assert usd["lines"][0]["unit_price"] == "5625" and usd["fx"]["rate"] == "32"
    assert usd["fx"]["as_of"] == "2026-11-01"


def test_deepest_discount_compounds_line_and_quote() -> None:
    # 10% on the quote and 5% on a line: 1 − 0.9 × 0.95 = 14.5%.
    quote = {"lines": [{"discount_pct": "5"}, {"discount_pct": "0"}], "discount_pct": "10"}
    assert pricing.max_discount_pct(quote) == Decimal("14.50")


@pytest.mark.parametrize(
    ("currency", "amount_off", "pattern"),
    [("USD", "0", r"\d+\.\d\d"), ("USD", "10", r"\d+\.\d\d"), ("TWD", "0", r"\d+")],
)
def test_every_money_total_is_written_in_the_currencys_minor_unit(
    currency: str, amount_off: str, pattern: str
) -> None:
    """QA: a USD quote read "discount": "0.00" beside "discount_fixed": "0"."""
    import re

    quote = {
        "currency": currency,
        "discount_pct": "10",
        "discount_amount": amount_off,
        "tax_rate": "0.05",
        "lines": [{"unit_price": "1200", "quantity": "2", "months": "3", "discount_pct": "0"}],
    }
    public = pricing.totals(quote).public()
    money = ("subtotal", "tax", "total", "lines_total", "discount", "discount_by_pct",
             "discount_fixed")  # fmt: skip
    assert {k: bool(re.fullmatch(pattern, public[k])) for k in money} == dict.fromkeys(money, True)
    assert all(re.fullmatch(pattern, a) for a in public["line_amounts"])
