"""Quote arithmetic: exact money (`Decimal`), one rounding per line, subtotal + tax = total.

Pure functions (no database, no web): `resolve` turns what the sales engineer typed into the
stored quote (defaults filled from the plan's cost options and the customer), `totals`
prices a stored quote. Rounding is to the currency's minor unit as quoted in Taiwan: whole
NT$ for TWD, cents for USD (PRODUCT.md §6), half up, once per line and once for the
quote-level discount and the tax — so the printed lines add up to the printed subtotal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Final

from app.i18n import N_
from app.quotes.models import (
    DOMESTIC_TAX_RATE,
    EXPORT_TAX_RATE,
    VALID_DAYS,
    QuoteIn,
)

MINOR_UNIT: Final = {"TWD": Decimal("1"), "USD": Decimal("0.01")}
HUNDRED: Final = Decimal(100)
# Kinds whose price a customer's quote can carry as a line (clouds are comparisons only).
QUOTABLE_KINDS: Final = ("rent_hourly", "rent_monthly", "rent_term", "mig", "buy")
# A msgid without parameters: app.plans.service passes a QuoteInputError on as its message.
NO_FX_RATE: Final = N_("the plan's price list has no exchange rate for this currency")


class QuoteInputError(ValueError):
    """A quote value refused; `field` is its dotted path under `quote`, the message a msgid
    (marked `N_`) that the error path translates into the page's or request's language."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def round_money(value: Decimal, currency: str) -> Decimal:
    """`value` rounded half up to the currency's minor unit (NT$1, US$0.01)."""
    return value.quantize(minor_unit(currency), rounding=ROUND_HALF_UP)


def minor_unit(currency: str) -> Decimal:
    """The currency's smallest billable amount (NT$1, US$0.01; 0.01 for any other)."""
    return MINOR_UNIT.get(currency, Decimal("0.01"))


def dec(value: Any) -> Decimal:
    """A stored number (str, int, float) as Decimal; floats via their shortest repr."""
    if isinstance(value, Decimal):
        return value
    return Decimal(str(value))


def line_amount(
    *, unit_price: Decimal, quantity: Decimal, months: Decimal, discount_pct: Decimal, currency: str
) -> Decimal:
    """unit_price × quantity × months × (1 − discount_pct/100), rounded once."""
    gross = unit_price * quantity * months
    return round_money(gross * (HUNDRED - discount_pct) / HUNDRED, currency)


@dataclass(frozen=True, slots=True)
class Totals:
    line_amounts: tuple[Decimal, ...]
    lines_total: Decimal  # Σ line amounts (each already rounded)
    discount: Decimal  # the quote-level discount, rounded once
    subtotal: Decimal  # 未稅
    tax: Decimal  # 稅額
    total: Decimal  # 含稅
    tax_rate: Decimal
    currency: str

    def public(self) -> dict[str, str]:
        """The read-only `quote_totals` of the API (Decimals as strings)."""
        return {
            "subtotal": str(self.subtotal),
            "tax": str(self.tax),
            "total": str(self.total),
            "currency": self.currency,
            "lines_total": str(self.lines_total),
            "discount": str(self.discount),
            "tax_rate": str(self.tax_rate),
            "line_amounts": [str(a) for a in self.line_amounts],  # type: ignore[dict-item]
        }


def totals(quote: Mapping[str, Any]) -> Totals:
    """Price a stored quote (see `resolve`): lines, quote discount, tax, total."""
    currency = str(quote.get("currency") or "TWD")
    amounts = tuple(
        line_amount(
            unit_price=dec(line["unit_price"]),
            quantity=dec(line["quantity"]),
            months=dec(line["months"]),
            discount_pct=dec(line.get("discount_pct", 0)),
            currency=currency,
        )
        for line in quote.get("lines") or []
    )
    lines_total = sum(amounts, Decimal(0))
    discount = round_money(lines_total * dec(quote.get("discount_pct", 0)) / HUNDRED, currency)
    subtotal = lines_total - discount
    tax_rate = dec(quote.get("tax_rate", DOMESTIC_TAX_RATE))
    tax = round_money(subtotal * tax_rate, currency)
    return Totals(amounts, lines_total, discount, subtotal, tax, subtotal + tax, tax_rate, currency)


def max_discount_pct(quote: Mapping[str, Any]) -> Decimal:
    """The deepest discount any line gets: line and quote discounts compounded, in %."""
    q = dec(quote.get("discount_pct", 0))
    lines = quote.get("lines") or []
    if not lines:
        return q
    deepest = HUNDRED - min(
        (HUNDRED - dec(line.get("discount_pct", 0))) * (HUNDRED - q) / HUNDRED for line in lines
    )
    return deepest.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def option_defaults(option: Mapping[str, Any], hours_per_month: float) -> dict[str, Any]:
    """(unit, unit_price, quantity, months) a line takes from a plan's cost option.

    Reads the new option shape (`billed` {unit, quantity}, `monthly_rate`) and falls back to
    the older one (`fixed_monthly` the monthly rate of a rental, `metered_monthly_full` a full
    month of hourly billing at `hours_per_month`)."""
    billed = option.get("billed") or {}
    total = dec(option.get("total") or 0)
    rate = option.get("monthly_rate")
    if billed.get("unit") == "month" and rate:
        return {
            "unit": "month",
            "unit_price": dec(rate),
            "quantity": Decimal(1),
            "months": dec(billed.get("quantity") or 1),
        }
    if billed.get("unit") == "hour" and billed.get("quantity"):
        hours = dec(billed["quantity"])
        return {
            "unit": "hour",
            "unit_price": total / hours,
            "quantity": hours,
            "months": Decimal(1),
        }
    kind = option.get("kind")
    fixed = option.get("fixed_monthly") or 0
    if kind in ("rent_monthly", "rent_term", "mig") and fixed:
        months = (total / dec(fixed)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        return {"unit": "month", "unit_price": dec(fixed), "quantity": Decimal(1), "months": months}
    metered = option.get("metered_monthly_full") or 0
    if kind == "rent_hourly" and metered and hours_per_month:
        hourly = dec(metered) / dec(hours_per_month)
        hours = (total / hourly).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        return {"unit": "hour", "unit_price": hourly, "quantity": hours, "months": Decimal(1)}
    return {"unit": "item", "unit_price": total, "quantity": Decimal(1), "months": Decimal(1)}


@dataclass(frozen=True, slots=True)
class Fx:
    """Units of `quote` per one `base` on `as_of` (the plan's price list's own rate)."""

    base: str
    quote: str
    rate: Decimal
    as_of: date

    def convert(self, amount: Decimal, from_ccy: str, to_ccy: str) -> Decimal:
        if from_ccy == to_ccy:
            return amount
        if (from_ccy, to_ccy) == (self.base, self.quote):
            return amount * self.rate
        if (from_ccy, to_ccy) == (self.quote, self.base):
            return amount / self.rate
        raise QuoteInputError("currency", NO_FX_RATE)


def _s(value: Decimal) -> str:
    # Stored without float noise and without an exponent ("180000", "0.05").
    return format(value.normalize(), "f")


def resolve(
    quote: QuoteIn,
    *,
    options: Sequence[Mapping[str, Any]],
    plan_currency: str,
    currency: str,
    hours_per_month: float,
    export: bool,
    default_terms: str,
    today: date,
    fx: Fx | None = None,
) -> dict[str, Any]:
    """The quote as stored on the plan: every default filled in, prices in `currency`.

    Raises QuoteInputError (field under `quote`) for an unknown option, a validity date in
    the past, or a currency the price list cannot convert to."""
    if quote.valid_until is not None and quote.valid_until < today:
        raise QuoteInputError("quote.valid_until", N_("must not be in the past"))
    by_key = {str(o.get("key")): o for o in options}
    lines: list[dict[str, Any]] = []
    for i, line in enumerate(quote.lines):
        if line.unit_price is not None and line.unit_price != round_money(
            line.unit_price, currency
        ):
            # A price the customer could not be billed (NT$480.5): refused, never rounded.
            raise QuoteInputError(
                f"quote.lines.{i}.unit_price",
                N_("no decimals in this currency (whole dollars)")
                if minor_unit(currency) == 1
                else N_("at most 2 decimal places in this currency (cents)"),
            )
        out: dict[str, Any] = {"discount_pct": _s(line.discount_pct)}
        if line.option_key:
            option = by_key.get(line.option_key)
            if option is None:
                raise QuoteInputError(
                    f"quote.lines.{i}.option_key", N_("is not a cost option of this plan")
                )
            d = option_defaults(option, hours_per_month)
            if line.unit_price is None and currency != plan_currency:
                if fx is None:
                    raise QuoteInputError("currency", NO_FX_RATE)
                d["unit_price"] = fx.convert(d["unit_price"], plan_currency, currency)
            unit_price = line.unit_price if line.unit_price is not None else d["unit_price"]
            out.update(
                option_key=line.option_key,
                kind=str(option.get("kind", "")),
                unit=d["unit"],
                # Rates are kept to the minor unit: the customer sees the price they pay.
                unit_price=_s(round_money(unit_price, currency)),
                quantity=_s(line.quantity if line.quantity is not None else d["quantity"]),
                months=_s(line.months if line.months is not None else d["months"]),
            )
            if line.description and line.description.strip():
                out["description"] = line.description.strip()
        else:
            assert line.unit_price is not None  # QuoteLineIn checks it
            out.update(
                description=(line.description or "").strip(),
                unit="item" if line.months is None else "month",
                unit_price=_s(round_money(line.unit_price, currency)),
                quantity=_s(line.quantity if line.quantity is not None else Decimal(1)),
                months=_s(line.months if line.months is not None else Decimal(1)),
            )
        lines.append(out)
    if quote.tax_rate is not None:
        tax_rate = quote.tax_rate
    else:
        tax_rate = EXPORT_TAX_RATE if export else DOMESTIC_TAX_RATE
    stored: dict[str, Any] = {
        "lines": lines,
        "discount_pct": _s(quote.discount_pct),
        "tax_rate": _s(tax_rate),
        "valid_until": (quote.valid_until or today + timedelta(days=VALID_DAYS)).isoformat(),
        "payment_terms": (quote.payment_terms or "").strip() or default_terms,
        "include_cloud_comparison": quote.include_cloud_comparison,
        "currency": currency,
        "issued": today.isoformat(),
    }
    if currency == "USD" and fx is not None:
        stored["fx"] = {
            "base": fx.base,
            "quote": fx.quote,
            "rate": _s(fx.rate),
            "as_of": fx.as_of.isoformat(),
        }
    return stored
