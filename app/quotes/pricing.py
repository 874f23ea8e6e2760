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
    MAX_VALID_DAYS,
    TAX_RATE_REFUSED,
    TAX_RATES,
    VALID_DAYS,
    QuoteIn,
    QuoteLineIn,
)

MINOR_UNIT: Final = {"TWD": Decimal("1"), "USD": Decimal("0.01")}
HUNDRED: Final = Decimal(100)
# Kinds whose price a customer's quote can carry as a line (clouds are comparisons only).
QUOTABLE_KINDS: Final = ("rent_hourly", "rent_monthly", "rent_term", "mig", "buy")
# A msgid without parameters: app.plans.service passes a QuoteInputError on as its message.
NO_FX_RATE: Final = N_("the plan's price list has no exchange rate for this currency")
CURRENCY_FOLLOWS_CUSTOMER: Final = N_(
    "is read-only: a quote is in its customer's currency (change the customer's currency to "
    "change it)"
)
Figures = tuple[str, Decimal, Decimal, Decimal]  # unit, unit price, quantity, months
#: Quantities and months an option gives a line, to this many places: the engine's floats
#: carry noise (12.000000000000004 months) that would make the line's product inexact.
QUANTITY_PLACES: Final = Decimal("0.0001")


class QuoteInputError(ValueError):
    """A quote value refused; `field` is its dotted path under `quote`, the message a msgid
    (marked `N_`) that the error path translates into the page's or request's language."""

    def __init__(self, field: str, message: str, **params: str) -> None:
        super().__init__(message % params if params else message)
        self.field = field
        self.message_id = message
        self.params = params


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
    discount_by_pct: Decimal = Decimal(0)  # the part of `discount` the percentage takes
    discount_fixed: Decimal = Decimal(0)  # the part a fixed amount takes (`discount_amount`)

    def public(self) -> dict[str, str]:
        """The read-only `quote_totals` of the API (Decimals as strings)."""
        return {
            "subtotal": str(self.subtotal),
            "tax": str(self.tax),
            "total": str(self.total),
            "currency": self.currency,
            "lines_total": str(self.lines_total),
            "discount": str(self.discount),
            "discount_by_pct": str(self.discount_by_pct),
            "discount_fixed": str(self.discount_fixed),
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
    # started at the currency's zero ("0.00" in USD), as every other total reads
    lines_total = sum(amounts, round_money(Decimal(0), currency))
    pct_off = round_money(lines_total * dec(quote.get("discount_pct", 0)) / HUNDRED, currency)
    # A fixed amount off (NT$10,000), after the percentage; never below zero (resolve refuses
    # more than the lines come to; a quote saved before its lines shrank keeps 0 at least).
    # In the currency's minor unit like every other total ("0.00", never "0", in USD: QA).
    amount_off = round_money(
        min(dec(quote.get("discount_amount", 0)), lines_total - pct_off), currency
    )
    discount = pct_off + amount_off
    subtotal = lines_total - discount
    tax_rate = dec(quote.get("tax_rate", DOMESTIC_TAX_RATE))
    tax = round_money(subtotal * tax_rate, currency)
    return Totals(
        amounts,
        lines_total,
        discount,
        subtotal,
        tax,
        subtotal + tax,
        tax_rate,
        currency,
        pct_off,
        amount_off,
    )


def max_discount_pct(quote: Mapping[str, Any]) -> Decimal:
    """The deepest discount any line gets: line and quote discounts compounded, in %, a unit
    price typed below the option's own (`list_price`) counted as a discount as well.

    A fixed amount off (`discount_amount`) is spread over the lines it is taken from: it
    adds amount / (lines after their percentages) of each line's price, so NT$10,000 off
    NT$100,000 of lines counts as 10% more (compounded) for the approval limit."""
    q = dec(quote.get("discount_pct", 0))
    lines = quote.get("lines") or []
    if not lines:
        return q
    kept = (HUNDRED - q) / HUNDRED
    fixed = dec(quote.get("discount_amount", 0))
    if fixed > 0:
        t = totals(quote)
        after_pct = t.lines_total - t.discount_by_pct
        kept *= (after_pct - t.discount_fixed) / after_pct if after_pct > 0 else Decimal(0)
    deepest = HUNDRED - min(
        (HUNDRED - dec(line.get("discount_pct", 0))) * _price_kept(line) * kept for line in lines
    )
    return deepest.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def _price_kept(line: Mapping[str, Any]) -> Decimal:
    """The share of its option's own price a line's unit price keeps (1 when not lower, or
    for a line of the seller's own, which has no list price): NT$150,000 typed for a
    NT$200,000 server keeps 0.75, a 25% discount."""
    listed = dec(line.get("list_price") or 0)
    price = dec(line.get("unit_price") or 0)
    if listed <= 0 or price >= listed:
        return Decimal(1)
    return price / listed


def option_defaults(option: Mapping[str, Any], hours_per_month: float) -> dict[str, Any]:
    """(unit, unit_price, quantity, months) a line takes from a plan's cost option.

    Reads the new option shape (`billed` {unit, quantity}, `monthly_rate`) and falls back to
    the older one (`fixed_monthly` the monthly rate of a rental, `metered_monthly_full` a full
    month of hourly billing at `hours_per_month`).

    Buying is quoted as what the customer pays the seller: the option's up-front price
    (servers, installation, network and storage), once. Its `monthly_rate` is an amortised
    run-rate for comparing with rent — no one is billed it — and its `total` nets the resale
    value and the owner's own running costs, so neither is a price to quote; the running
    costs are printed under the line (`running_costs`).

    `amount`: what the option comes to as the plan prices it — its `total`, the engine's
    figure rounded once (the up-front price for buying). A rent's `unit_price` is its rate
    in full (`hourly_rate` where the option states it: NT$1,761.28/h, not the NT$1,761.2800
    of total ÷ hours), so rate × hours, rounded once, is that amount (`default_figures`)."""
    billed = option.get("billed") or {}
    total = dec(option.get("total") or 0)
    rate = option.get("monthly_rate")
    if option.get("kind") == "buy" and option.get("upfront"):
        return {
            "unit": "item",
            "unit_price": dec(option["upfront"]),
            "quantity": Decimal(1),
            "months": Decimal(1),
            "amount": dec(option["upfront"]),
        }
    if billed.get("unit") == "month" and rate:
        return {
            "unit": "month",
            "unit_price": dec(rate),
            "quantity": Decimal(1),
            "months": clean_quantity(dec(billed.get("quantity") or 1)),
            "amount": total,
        }
    if billed.get("unit") == "hour" and billed.get("quantity"):
        hours = clean_quantity(dec(billed["quantity"]))
        hourly = option.get("hourly_rate")
        return {
            "unit": "hour",
            "unit_price": dec(hourly) if hourly else total / hours,
            "quantity": hours,
            "months": Decimal(1),
            "amount": total,
        }
    kind = option.get("kind")
    fixed = option.get("fixed_monthly") or 0
    if kind in ("rent_monthly", "rent_term", "mig") and fixed:
        months = (total / dec(fixed)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        return {
            "unit": "month",
            "unit_price": dec(fixed),
            "quantity": Decimal(1),
            "months": months,
            "amount": total,
        }
    metered = option.get("metered_monthly_full") or 0
    if kind == "rent_hourly" and metered and hours_per_month:
        hourly = dec(metered) / dec(hours_per_month)
        hours = (total / hourly).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        return {
            "unit": "hour",
            "unit_price": hourly,
            "quantity": hours,
            "months": Decimal(1),
            "amount": total,
        }
    return {
        "unit": "item",
        "unit_price": total,
        "quantity": Decimal(1),
        "months": Decimal(1),
        "amount": total,
    }


#: The most decimals a rate is printed with in full ("NT$1,761.28/h", "US$0.1334/kWh"), as
#: the engine prints its formulas (app.engine.formatting.exact_money).
RATE_PLACES: Final = Decimal("0.0001")


def rate_in_full(rate: Decimal) -> Decimal:
    """A rate as printed in full: to at most 4 decimals, without trailing zeros (1761.28,
    55.04, 0.1334); a converted rate with more (1,761.28 ÷ 31.5) to 4, half up."""
    return rate.quantize(RATE_PLACES, rounding=ROUND_HALF_UP).normalize()


@dataclass(frozen=True, slots=True)
class OptionRate:
    """A rent or cloud option as "rate × hours (or months) = total": `rate` printed in full
    (`rate_in_full`), `quantity` its hours or months, `total` the option's own amount
    rounded once; round_money(rate × quantity) == total, so the three multiply out."""

    unit: str  # "hour" | "month"
    rate: Decimal
    quantity: Decimal
    total: Decimal


def option_rate(d: Mapping[str, Any], currency: str) -> OptionRate | None:
    """`d` (`option_defaults`, in `currency`) as rate × hours or months = its amount, or None
    where it is no such product: buying, a monthly rate for several units, or a rate whose
    printed figure × the quantity does not round to the amount (a plan saved before options
    stated their rate)."""
    if d["unit"] not in ("hour", "month") or (d["unit"] == "month" and d["quantity"] != 1):
        return None
    quantity = d["quantity"] if d["unit"] == "hour" else d["months"]
    if quantity <= 0:
        return None
    total = round_money(d["amount"], currency)
    rate = rate_in_full(d["unit_price"])
    if round_money(rate * quantity, currency) != total:
        return None
    return OptionRate(str(d["unit"]), rate, quantity, total)


def default_figures(d: Mapping[str, Any], currency: str) -> Figures:
    """The unit, unit price, quantity and months of a line of an option with nothing typed,
    from `d` (`option_defaults`, in `currency`). The one rule: the line comes to the option's
    own amount, the total the plan, the ways-to-pay table and the API show (the engine's,
    rounded once). It is priced per hour or month at the option's rate when that rate is a
    whole unit price (NT$120/h, US$55.04/h) and rate × quantity × months is that amount;
    otherwise — a rate with cents in NT$ (AWS p5 at NT$1,761.28/h), a rate for part of a
    month — it is one item at that amount, so no rate is rounded into another total (QA:
    NT$1,761/h × 15,768 h = NT$27,767,448 beside the plan's NT$27,771,863)."""
    unit, rate, quantity, months = str(d["unit"]), d["unit_price"], d["quantity"], d["months"]
    amount = round_money(d.get("amount", rate * quantity * months), currency)
    if unit == "item" or (is_whole(rate, currency) and rate * quantity * months == amount):
        return unit, round_money(rate, currency), quantity, months
    return "item", amount, Decimal(1), Decimal(1)


def clean_quantity(value: Decimal) -> Decimal:
    """An engine quantity (hours, months) to `QUANTITY_PLACES`, without trailing zeros:
    12.000000000000004 → 12, 0.5 → 0.5."""
    return value.quantize(QUANTITY_PLACES, rounding=ROUND_HALF_UP).normalize()


def denoised(value: Decimal) -> Decimal:
    """A typed quantity or months without float noise: a quote saved before quantities were
    cleaned reads back "12.000000000000004" months (the builder and an export post it
    again); anything further than 1e-9 from `clean_quantity`'s value is kept as typed."""
    clean = clean_quantity(value)
    return clean if abs(value - clean) < Decimal("1e-9") else value


def is_whole(amount: Decimal, currency: str) -> bool:
    """True when `amount` is a whole number of the currency's minor unit (NT$1, US$0.01)."""
    return amount == round_money(amount, currency)


def gross(line: Mapping[str, Any]) -> Decimal:
    """A stored line's unit price × quantity × months (before its discount)."""
    return (
        dec(line.get("unit_price") or 0)
        * dec(line.get("quantity") or 1)
        * dec(line.get("months") or 1)
    )


def multiplies_out(line: Mapping[str, Any], currency: str) -> bool:
    """True when a stored line's unit price × quantity × months is a whole amount (the rule
    `resolve` holds every new line to; a quote saved before it may hold one that is not)."""
    return line.get("unit_price") is None or is_whole(gross(line), currency)


#: Parts of a buy option's `breakdown` paid once (the up-front price) or given back (resale);
#: every other part is a running cost of owning the servers (power, colocation, maintenance,
#: operations staff).
_NOT_RUNNING: Final = frozenset({"capex", "storage_network", "residual"})


@dataclass(frozen=True, slots=True)
class RunningCosts:
    """What owning bought servers costs over the option's period, beside the up-front price:
    `total` over `months` months (`per_month` = total / months), in the option's currency;
    `resale`: the book value the option counts back at the end (≥ 0)."""

    per_month: Decimal
    months: Decimal
    total: Decimal
    resale: Decimal


def running_costs(option: Mapping[str, Any]) -> RunningCosts | None:
    """A buy option's running costs and resale value (None for any other option, or one
    without a breakdown or a period).

    total = Σ breakdown parts other than capex, storage_network and residual (power,
    facility, maintenance, staff: app.engine.costs.ownership); months = the months the
    servers are held (`held_months`; a plan saved before it was stated: the billed months,
    which round the holding period up to whole months — QA: a job of 2.8 hours read
    "running costs over 1 month"); resale = −breakdown.residual. By construction
    upfront + total − resale = the option's total."""
    if option.get("kind") != "buy":
        return None
    parts = option.get("breakdown") or {}
    months = dec(
        option.get("held_months")
        or (option.get("billed") or {}).get("quantity")
        or option.get("period_months")
        or 0
    )
    if not parts or months <= 0:
        return None
    total = sum((dec(v) for k, v in parts.items() if k not in _NOT_RUNNING), Decimal(0))
    return RunningCosts(total / months, months, total, -dec(parts.get("residual") or 0))


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


def validity_problem(valid_until: date, today: date) -> str | None:
    """What is wrong with a quote's validity date (a msgid), or None: never in the past, and
    at most a year ahead (prices hold for a price list's life, not for ever: 9999-12-31
    printed a quote whose prices could never be withdrawn, QA)."""
    if valid_until < today:
        return N_("must not be in the past")
    if valid_until > today + timedelta(days=MAX_VALID_DAYS):
        return N_("must be at most a year from today")
    return None


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
    if quote.valid_until is not None and (problem := validity_problem(quote.valid_until, today)):
        raise QuoteInputError("quote.valid_until", problem)
    if quote.currency is not None and quote.currency.upper() != currency:
        # The currency follows the customer: a quote sent back in another one would be
        # priced in this one without a word (QA).
        raise QuoteInputError("quote.currency", CURRENCY_FOLLOWS_CUSTOMER)
    by_key = {str(o.get("key")): o for o in options}
    lines: list[dict[str, Any]] = []
    for i, line in enumerate(quote.lines):
        if line.unit_price is not None and line.unit_price != round_money(
            line.unit_price, currency
        ):
            # A price the customer could not be billed (NT$480.5): refused, never rounded.
            raise QuoteInputError(
                f"quote.lines.{i}.unit_price",
                N_("no decimals in NT$ (whole New Taiwan dollars)")
                if minor_unit(currency) == 1
                else N_("at most 2 decimal places in this currency (cents)"),
            )
        if line.option_key:
            out = _option_line(i, line, by_key, plan_currency, currency, hours_per_month, fx)
        else:
            out = _free_line(i, line, currency)
        if dec(out["unit_price"]) * dec(out["quantity"]) * dec(out["months"]) > MAX_LINE_AMOUNT:
            typed = next(
                (f for f in ("quantity", "unit_price", "months") if getattr(line, f) is not None),
                "option_key",
            )
            raise QuoteInputError(f"quote.lines.{i}.{typed}", TOO_LARGE)
        lines.append(out)
    if quote.tax_rate is not None:
        if quote.tax_rate not in TAX_RATES:
            # 營業稅 is 5% on a domestic sale and 0% on a zero-rated export: a 3% (or a "5"
            # meant as 5%) would print a tax no invoice can carry.
            raise QuoteInputError("quote.tax_rate", TAX_RATE_REFUSED)
        tax_rate = next(r for r in TAX_RATES if r == quote.tax_rate)  # "0.050", "-0" as such
    else:
        tax_rate = EXPORT_TAX_RATE if export else DOMESTIC_TAX_RATE
    if quote.discount_amount != round_money(quote.discount_amount, currency):
        raise QuoteInputError(
            "quote.discount_amount",
            N_("no decimals in NT$ (whole New Taiwan dollars)")
            if minor_unit(currency) == 1
            else N_("at most 2 decimal places in this currency (cents)"),
        )
    stored: dict[str, Any] = {
        "lines": lines,
        "discount_pct": _s(quote.discount_pct),
        "discount_amount": _s(quote.discount_amount),
        "tax_rate": _s(tax_rate),
        "valid_until": (quote.valid_until or today + timedelta(days=VALID_DAYS)).isoformat(),
        "payment_terms": (quote.payment_terms or "").strip() or default_terms,
        "include_cloud_comparison": quote.include_cloud_comparison,
        "currency": currency,
        "issued": today.isoformat(),
    }
    if quote.discount_amount > 0:
        t = totals(stored)
        if quote.discount_amount > t.lines_total - t.discount_by_pct:
            # A quote never comes to less than nothing: a fixed discount is at most what the
            # lines come to after the percentage.
            raise QuoteInputError("quote.discount_amount", TOO_MUCH_OFF)
    if currency == "USD" and fx is not None:
        stored["fx"] = {
            "base": fx.base,
            "quote": fx.quote,
            "rate": _s(fx.rate),
            "as_of": fx.as_of.isoformat(),
        }
    return stored


#: A fixed discount larger than what the lines come to after the percentage discount.
TOO_MUCH_OFF: Final = N_(
    "is more than the lines come to after their discounts: a quote cannot be below zero"
)
#: The most one line may come to before discounts, in the quote's currency: ten trillion
#: (NT$10^13, about US$300 billion), far past any GPU deal (100,000 GPUs bought at
#: US$40,000 each are NT$1.3 × 10^11), while the fields' own caps multiply out to 10^23,
#: a figure no document can print in its amount column (QA).
MAX_LINE_AMOUNT: Final = Decimal(10) ** 13
TOO_LARGE: Final = N_(
    "unit price × quantity × months comes to more than 10,000,000,000,000 (ten trillion): "
    "check the figures"
)
#: An option the engine marks `feasible: false`, quoted as a line.
NOT_RUNNABLE: Final = N_(
    "cannot run this plan (the option's note on the plan says why): choose a runnable option"
)


def _not_whole(currency: str) -> str:
    # msgids without parameters: app.plans.service passes the message on as it is.
    if minor_unit(currency) == 1:
        return N_(
            "unit price × quantity × months must come to whole New Taiwan dollars (NT$): "
            "change the quantity or the months"
        )
    return N_(
        "unit price × quantity × months must come to whole cents in this currency: "
        "change the quantity or the months"
    )


def _option_line(
    i: int,
    line: QuoteLineIn,
    by_key: Mapping[str, Mapping[str, Any]],
    plan_currency: str,
    currency: str,
    hours_per_month: float,
    fx: Fx | None,
) -> dict[str, Any]:
    """A line quoting one of the plan's cost options: what was typed, the option's own
    unit price, quantity and months for the rest (`option_defaults`), in `currency`."""
    option = by_key.get(str(line.option_key))
    if option is None:
        # Which keys would do, as an integrator needs them (QA: the bare refusal left a CRM
        # client guessing): the options a line can quote, those that can run the plan.
        keys = sorted(k for k, o in by_key.items() if o.get("feasible", True) is not False)
        raise QuoteInputError(
            f"quote.lines.{i}.option_key",
            N_("is not a cost option of this plan; its options are: %(keys)s"),
            keys=", ".join(keys) or "—",
        )
    if option.get("feasible", True) is False:
        # RunPod's single-GPU machines for a plan that needs 8 GPUs on NVLink: printed as an
        # ordinary priced line, the customer would buy what cannot run the job (QA).
        raise QuoteInputError(f"quote.lines.{i}.option_key", NOT_RUNNABLE)
    d = option_defaults(option, hours_per_month)
    if currency != plan_currency:
        if fx is None:
            if line.unit_price is None:
                raise QuoteInputError("currency", NO_FX_RATE)
        else:
            # The rate and the amount each converted once at the quote's rate: the line
            # comes to the option's total in this currency, rounded once (`default_figures`).
            d["unit_price"] = fx.convert(d["unit_price"], plan_currency, currency)
            d["amount"] = fx.convert(d["amount"], plan_currency, currency)
    listed = default_figures(d, currency)
    if line.unit == "item" and d["unit"] != "item":
        unit, unit_price, quantity, months = _item_figures(i, line, d, currency)
    else:
        unit, unit_price, quantity, months = _option_figures(i, line, d, currency)
    out: dict[str, Any] = {
        "discount_pct": _s(line.discount_pct),
        "option_key": line.option_key,
        "kind": str(option.get("kind", "")),
        "unit": unit,
        "unit_price": _s(unit_price),
        "quantity": _s(quantity),
        "months": _s(months),
    }
    if currency == plan_currency or fx is not None:
        # The option's own price in the line's unit: a unit price typed below it is a
        # discount too, and counts toward the approval limit (`max_discount_pct`; QA sent
        # NT$1 for a NT$200,000 server without one).
        # Worked out as the line's own default is (`default_figures`): an untouched line
        # keeps exactly its list price; one quoted as an item lists the option's amount.
        l_unit, l_price, _qty, _months = listed
        if unit == "item" and l_unit != "item":
            l_price = round_money(d["amount"], currency)
        out["list_price"] = _s(l_price)
    if line.description and line.description.strip():
        out["description"] = line.description.strip()
    return out


def _option_figures(i: int, line: QuoteLineIn, d: Mapping[str, Any], currency: str) -> Figures:
    """An option line's unit, price, quantity and months: what was typed, the option's own
    (`d`) for the rest."""
    # Rates are kept to the minor unit: the customer sees the price they pay, and the line's
    # amount is that price × quantity × months (never a rate rounded only for display).
    unit = str(d["unit"])
    # A purchase is paid once and an hourly option by its hours: a 12 typed in months
    # multiplied the servers' price by 12 (QA: NT$5,426,381 × 1 × 12 = NT$65,116,572).
    _no_months(i, line, unit)
    if line.unit_price is None and line.quantity is None and line.months is None:
        return default_figures(d, currency)
    unit_price = round_money(
        line.unit_price if line.unit_price is not None else d["unit_price"], currency
    )
    quantity = denoised(line.quantity) if line.quantity is not None else d["quantity"]
    months = _typed_months(i, line) if line.months is not None else d["months"]
    if not is_whole(unit_price * quantity * months, currency):
        typed = next(
            (f for f in ("quantity", "months") if getattr(line, f) is not None),
            "unit_price" if line.unit_price is not None else None,
        )
        if typed is not None:
            raise QuoteInputError(f"quote.lines.{i}.{typed}", _not_whole(currency))
        # The option's own figures do not multiply out (part of a month at a rate in
        # dollars): quoted as one item at the rounded amount, which the document can show
        # exactly, its description still naming the option.
        unit, unit_price = "item", round_money(unit_price * quantity * months, currency)
        quantity = months = Decimal(1)
    return unit, unit_price, quantity, months


def _item_figures(i: int, line: QuoteLineIn, d: Mapping[str, Any], currency: str) -> Figures:
    """An option line quoted as one item (`unit: item`): how a line whose option's own
    figures do not multiply out is saved, and what it stays on every later save (builder,
    duplicate, export, a move to another customer). Without it the next save read the one
    item back as "NT$139,693 per month × 0.5 months". Its price is the option's amount
    (its total, as the plan shows it, rounded once: `default_figures`) unless typed."""
    _no_months(i, line, "item")
    unit_price = round_money(
        line.unit_price if line.unit_price is not None else d["amount"],
        currency,
    )
    quantity = denoised(line.quantity) if line.quantity is not None else Decimal(1)
    if not is_whole(unit_price * quantity, currency):
        raise QuoteInputError(f"quote.lines.{i}.quantity", _not_whole(currency))
    return "item", unit_price, quantity, Decimal(1)


def _no_months(i: int, line: QuoteLineIn, unit: str) -> None:
    """Refuse months typed on a line billed once (`item`) or by the hour: such a line has no
    months multiplier to print (the document shows "—"), so a 3 there would multiply the
    amount unseen. Every kind of line — an option's, one quoted as an item, one's own —
    says so beside the field."""
    if unit == "month" or line.months is None or line.months == 1:
        return
    raise QuoteInputError(
        f"quote.lines.{i}.months",
        N_("a one-off line has no months: leave them empty")
        if unit == "item"
        else N_("an hourly line has no months: put every hour in the quantity"),
    )


def _typed_months(i: int, line: QuoteLineIn) -> Decimal:
    """The line's typed months, cleaned of float noise; a 422 when that leaves none (1e-10
    months was saved as "0", a line of NT$0 that says it is billed)."""
    assert line.months is not None
    months = denoised(line.months)
    if months <= 0:
        raise QuoteInputError(f"quote.lines.{i}.months", N_("must be more than 0"))
    return months


def _free_line(i: int, line: QuoteLineIn, currency: str) -> dict[str, Any]:
    """A line of the sales engineer's own. One-off (`item`) unless it says per month (months
    given, or `unit` month) or per hour (`unit` hour); the stored `unit` read back keeps it
    so on the next save, whatever its months multiplier reads."""
    assert line.unit_price is not None  # QuoteLineIn checks it
    unit = line.unit or ("item" if line.months is None else "month")
    _no_months(i, line, unit)
    if unit == "hour" and line.quantity is None:
        # Never a silent 1 hour: the hours are what the line is priced by.
        raise QuoteInputError(f"quote.lines.{i}.quantity", N_("enter the number of hours"))
    unit_price = round_money(line.unit_price, currency)
    quantity = denoised(line.quantity) if line.quantity is not None else Decimal(1)
    months = _typed_months(i, line) if line.months is not None else Decimal(1)
    if not is_whole(unit_price * quantity * months, currency):
        field = "quantity" if line.quantity is not None else "months"
        raise QuoteInputError(f"quote.lines.{i}.{field}", _not_whole(currency))
    return {
        "discount_pct": _s(line.discount_pct),
        "description": (line.description or "").strip(),
        "unit": unit,
        "unit_price": _s(unit_price),
        "quantity": _s(quantity),
        "months": _s(months),
    }


def domestic_at_zero(*, export: bool, tax_rate: Any) -> bool:
    """Whether a quote charges 0% to a domestic customer: its document would call the sale a
    zero-rated export (PRODUCT.md §6; `DOMESTIC_AT_ZERO` says so). Refused when the quote is
    saved (app.plans.service) and when it is sent (app.quotes.service: one saved before)."""
    return not export and tax_rate not in (None, "") and dec(tax_rate) == 0
