"""What every option builder needs: the price list, the currency and the resolved usage."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from app.engine.costs.ledger import Ledger
from app.engine.costs.model import (
    DAYS_PER_MONTH,
    HOURS_PER_MONTH,
    Billed,
    CostInputError,
    CostOption,
    money_places,
    round_money,
)
from app.engine.explain import Explanation, Operand, number, operands
from app.engine.formatting import exact_money, plural
from app.engine.formatting import gpus as fmt_gpus
from app.engine.formatting import months as fmt_months
from app.engine.notices import Notice
from app.engine.price_book import EnergyPrice, PriceBook


def book_currencies(book: PriceBook) -> list[str]:
    """Currencies this price list can convert between."""
    found = {book.currency}
    for r in book.fx:
        found |= {r.base, r.quote}
    return sorted(found)


def convert(book: PriceBook, amount: float, from_ccy: str, to_ccy: str) -> float:
    """`book.convert`, but a missing rate is an input error naming the currency."""
    try:
        return book.convert(amount, from_ccy, to_ccy)
    except KeyError:
        raise CostInputError(
            "currency",
            f"one of {', '.join(book_currencies(book))} (price list {book.name!r} has no "
            f"{from_ccy}→{to_ccy} rate)",
            to_ccy,
        ) from None


def period_notice(templates: Mapping[str, str], months: float, **params: object) -> Notice:
    """A note about a rental period of `months`, the period said in months — or, under a
    month, in days (30.42 a month) or, under a day, in hours (730 a month).

    `templates`: "months", "days" and "hours" (and optionally "month", "day" and "hour", for
    exactly one) → the sentence with a %(period)s placeholder.
    A 2-hour job is "a rental period of 2 hours", where "a 0-month rental period" (the
    period to two decimals) said nothing (QA L6).
    """
    unit, value = period_in_units(months)
    if value == "1" and unit[:-1] in templates:
        unit = unit[:-1]  # "Held 1 month", "a rental period of 1 day", never "1 days"
    return Notice(templates[unit], period=value, **params)


def period_in_units(months: float) -> tuple[str, str]:
    """("months" | "days" | "hours", the number as written) for a period of `months`: in
    months from one month, under a month in days (30.42 a month), under a day in hours (730
    a month)."""
    if months >= 1 - 1e-9:
        return "months", number(months)
    if months * DAYS_PER_MONTH >= 1 - 1e-9:  # a day's months back in days: 0.99999… is 1
        return "days", number(months * DAYS_PER_MONTH, 1)
    return "hours", number(months * HOURS_PER_MONTH, 1)


@dataclass(frozen=True)
class Context:
    """A resolved comparison request.

    hours: busy GPU hours per month; need_months: how long the need lasts (the compute
    time of a job); covered: the months of need inside the horizon; period: the rental
    period quoted — `rent_months` when asked, else the need — which period-billed options
    (monthly, term, reserved) pay for and a purchase is held for; pricing_mode: "job"
    (metered options bill the job's hours) or "capacity" (an ongoing service: metered
    options bill every busy hour of the period and every option has a rate per month);
    storage_network: the usage's separately priced storage + network per month, already
    in `currency`.
    """

    book: PriceBook
    currency: str
    horizon: int
    hours: float
    need_months: float
    covered: float
    storage_network: float
    energy: EnergyPrice | None
    term_months: int | None
    period: float = 0.0
    pricing_mode: str = "job"

    @property
    def period_covered(self) -> float:
        """Months of the rental period inside the horizon."""
        return min(self.period, float(self.horizon))

    @property
    def metered_months(self) -> float:
        """Months of busy hours a metered option (hourly rent, on-demand cloud) pays for."""
        return self.period_covered if self.pricing_mode == "capacity" else self.covered

    def billed_hours(self) -> float:
        """Whole hours a metered option bills: busy hours per month × months, rounded up."""
        return float(math.ceil(self.hours * self.metered_months - 1e-6))

    def conv(self, amount: float, ccy: str) -> float:
        return convert(self.book, amount, ccy, self.currency)

    @property
    def book_ref(self) -> str:
        return f"price list {self.book.name!r} ({self.book.effective_date.isoformat()})"


def finish_option(
    ctx: Context,
    ledger: Ledger,
    *,
    kind: str,
    key: str,
    label: str,
    lead_time_days: float,
    source_ids: list[str],
    explain: list[Explanation],
    fixed_monthly: float,
    metered_monthly_full: float,
    billed: Billed,
    hourly_rate: float | None = None,
    feasible: bool = True,
    economical: bool = True,
    note: str = "",
    provider: str = "",
    held_months: float = 0.0,
    contract_months: int | None = None,
    amortisation_months: float = 0.0,
) -> CostOption:
    """Read totals and curves off the ledger; add the rate and total explanations.

    monthly_rate = fixed + metered × (busy hours / 730) — the same run-rate the utilisation
    chart draws (`monthly_cost_at_utilization`). A metered option costed for a job (billed
    by the hour) has no rate per month: its total is the job's hours × the hourly rate.

    Each part of the total is rounded once to the currency's unit (`round_money`: NT$1,
    US$0.01) and the total is the sum of the rounded parts, as printed: the parts of a
    purchase listed "NT$25,512,073" in all beside a total of NT$25,512,071 (QA).
    """
    ccy = ctx.currency
    ledger.round_parts(lambda v: round_money(v, ccy))
    breakdown = {part: round_money(v, ccy) for part, v in ledger.breakdown().items()}
    total = round_money(sum(breakdown.values()), ccy)  # float noise only: the parts are whole
    cumulative = ledger.cumulative()
    metered_job = billed.unit == "hour" and ctx.pricing_mode == "job"
    monthly_rate = (
        None if metered_job else fixed_monthly + metered_monthly_full * ctx.hours / HOURS_PER_MONTH
    )
    parts = " + ".join(
        f"{name} {exact_money(v, ccy, 2)}" for name, v in breakdown.items() if v != 0
    )
    what = (
        f"{plural(billed.quantity, billed.unit)} of {fmt_gpus(billed.gpus)} "
        f"({plural(str(billed.nodes), 'node')})"
    )
    explain = [*explain]
    if monthly_rate is not None:
        explain.append(
            Explanation(
                f"{label}: per month",
                monthly_rate,
                f"{ctx.currency}/month",
                f"{exact_money(fixed_monthly, ccy, 2)} fixed + "
                # to the cent: it is multiplied by the busy share (NT$125,587.50 × 584 / 730)
                f"{exact_money(metered_monthly_full, ccy, 2)} at 730 h × "
                f"{number(ctx.hours)} / 730 h = {exact_money(monthly_rate, ccy, 2)}/month",
                "recurring charges per month at this utilisation (fixed + metered × busy share)",
                operands(
                    fixed_monthly=(fixed_monthly, f"{ctx.currency}/month"),
                    metered_monthly_full=(metered_monthly_full, f"{ctx.currency}/month at 730 h"),
                    hours=(ctx.hours, "busy h/month"),
                ),
                "fixed_monthly + metered_monthly_full * hours / 730",
            )
        )
    explain.append(
        Explanation(
            f"{label}: total",
            total,
            ctx.currency,
            f"{parts or '0'} = {exact_money(total, ccy, 2)}",
            f"billed {what}; sum of the parts over the quoted period ({ctx.horizon}-month horizon)",
            [Operand(name, v, ctx.currency) for name, v in breakdown.items()],
            " + ".join(breakdown) or "0",
        )
    )
    return CostOption(
        kind=kind,
        label=label,
        monthly_rate=monthly_rate,
        total=total,
        upfront=cumulative[0],
        currency=ctx.currency,
        breakdown=breakdown,
        cumulative=cumulative,
        lead_time_days=lead_time_days,
        source_ids=source_ids,
        explain=explain,
        feasible=feasible,
        note=note,
        key=key,
        fixed_monthly=fixed_monthly,
        metered_monthly_full=metered_monthly_full,
        cumulative_parts=ledger.cumulative_parts(),
        hourly_rate=hourly_rate,
        billed=billed,
        period_months=billed.quantity if billed.unit == "month" else ctx.metered_months,
        economical=economical,
        provider=provider,
        held_months=held_months,
        contract_months=contract_months,
        amortisation_months=amortisation_months,
    )


def add_storage_network(ctx: Context, ledger: Ledger) -> list[Explanation]:
    """Charge the usage's separately priced storage + network for the months of need."""
    sn, ccy = ctx.storage_network, ctx.currency
    if sn <= 0:
        return []
    months = ctx.period_covered
    ledger.recurring("storage_network", sn, months)
    total = round_money(sn * months, ccy)  # as the ledger's part is rounded
    return [
        Explanation(
            "Storage + network",
            total,
            ccy,
            f"{exact_money(sn, ccy)}/month × {fmt_months(months)} = {exact_money(total, ccy)}",
            "usage input (separately priced storage/network); seed 003 T13 (≥15 % of budget)",
            operands(per_month=(sn, f"{ccy}/month"), months=(months, "months")),
            f"round_half_up(per_month * months, {money_places(ccy)})",
        )
    ]
