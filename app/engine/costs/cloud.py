"""Public cloud: on-demand instances by the hour, and 1-year reserved capacity.

Rules (seed 003 T10; PRODUCT.md §4): instances = ceil(GPUs / GPUs per instance); on demand
is paid for busy hours only; reserved is paid for all 730 h of every month of a 1-year term
(renewed by whole years while the need lasts). AWS p5.48xlarge: US$98.32/h before the June
2025 cut, US$55.04/h after; every cloud price carries its date and labels show it.
"""

from __future__ import annotations

import math

from app.engine.costs.context import Context, add_storage_network, finish_option
from app.engine.costs.ledger import Ledger
from app.engine.costs.model import (
    HOURS_PER_MONTH,
    RESERVED_TERM_MONTHS,
    Billed,
    CostOption,
    Usage,
)
from app.engine.explain import Explanation, money, number, operands
from app.engine.notices import Notice, Sentences
from app.engine.price_book import CloudInstance

_EPS = 1e-9
PRICE_AGE_WARNING_DAYS = 365


def instances_needed(gpu_count: float, inst: CloudInstance) -> int:
    """Whole instances to hold `gpu_count` GPUs."""
    return max(1, math.ceil(gpu_count / inst.gpu_count - _EPS))


def _price_text(ctx: Context, amount: float, ccy: str) -> str:
    """ "US$55.04/h (= NT$1,761.28/h at 32 TWD/USD)" when a conversion is involved."""
    if ccy == ctx.currency:
        return f"{money(amount, ccy)}/h"
    rate = ctx.conv(1.0, ccy)
    return (
        f"{money(amount, ccy)}/h (= {money(amount * rate, ctx.currency)}/h at "
        f"{number(rate, 4)} {ctx.currency}/{ccy})"
    )


def cloud_options(ctx: Context, usage: Usage, warnings: list[str]) -> list[CostOption]:
    """On-demand and (when priced) reserved options for every listed instance of the GPU."""
    options: list[CostOption] = []
    ccy = ctx.currency
    for inst in ctx.book.cloud:
        if inst.gpu_id != usage.gpu_id or inst.gpu_count <= 0:
            continue
        n = instances_needed(usage.gpu_count, inst)
        dated = f"{inst.region}, price of {inst.price_date.isoformat()}"
        src = (
            f"seed 003 T10; {inst.provider} {inst.name} {dated}"
            f"{'; ' + inst.source if inst.source else ''}"
        )
        note = ""
        if n * inst.gpu_count > usage.gpu_count + _EPS:
            note = Notice(
                "Pays for %(paid)s GPUs to use %(used)s.",
                paid=n * inst.gpu_count, used=number(usage.gpu_count),
            )  # fmt: skip
        age = (ctx.book.effective_date - inst.price_date).days
        if age > PRICE_AGE_WARNING_DAYS:
            warnings.append(
                Notice(
                    "%(provider)s %(name)s price is dated %(date)s, %(age)s days before the "
                    "price list (%(list_date)s): cloud prices change (AWS cut P5 prices by up "
                    "to 45 %% in June 2025).",
                    provider=inst.provider,
                    name=inst.name,
                    date=inst.price_date.isoformat(),
                    age=age,
                    list_date=ctx.book.effective_date.isoformat(),
                )
            )

        hourly = ctx.conv(inst.on_demand_hourly, inst.currency)
        rate = n * hourly * ctx.hours
        gpus = n * inst.gpu_count
        billed_hours = ctx.billed_hours()
        ledger = Ledger(ctx.horizon)
        if rate > 0:
            ledger.recurring("cloud", rate, billed_hours / ctx.hours)
        storage_x = add_storage_network(ctx, ledger)
        explain = [
            Explanation(
                "Cloud on demand",
                n * hourly * billed_hours,
                ccy,
                f"{n} × {_price_text(ctx, inst.on_demand_hourly, inst.currency)} × "
                f"{number(billed_hours, 0)} h billed = {money(n * hourly * billed_hours, ccy)}",
                f"billed by the hour of use; {src}",
                operands(
                    instances=(n, "instances"),
                    hourly=(hourly, f"{ccy}/h per instance"),
                    billed_hours=(billed_hours, "h"),
                ),
                "instances * hourly * billed_hours",
            ),
            *storage_x,
        ]
        options.append(
            finish_option(
                ctx,
                ledger,
                kind="cloud",
                key=f"cloud:{inst.id}",
                label=f"{inst.provider} {inst.name} on demand — {n} instance(s) ({dated})",
                lead_time_days=0.0,
                source_ids=[inst.id],
                explain=explain,
                fixed_monthly=ctx.storage_network,
                metered_monthly_full=n * hourly * HOURS_PER_MONTH,
                billed=Billed("hour", billed_hours, gpus, n),
                hourly_rate=n * hourly,
                note=note,
            )
        )

        if inst.reserved_hourly is None:
            continue
        r_hourly = ctx.conv(inst.reserved_hourly, inst.currency)
        r_rate = n * r_hourly * HOURS_PER_MONTH
        paid = math.ceil(ctx.period / RESERVED_TERM_MONTHS - _EPS) * RESERVED_TERM_MONTHS
        ledger = Ledger(ctx.horizon)
        ledger.recurring("cloud", r_rate, paid)
        storage_x = add_storage_network(ctx, ledger)
        r_note = note
        if paid > ctx.period + _EPS:
            r_note = Sentences(
                note,
                Notice(
                    "A %(term)s-month commitment: %(paid)s months are paid for a "
                    "%(period)s-month rental period.",
                    term=RESERVED_TERM_MONTHS, paid=number(paid), period=number(ctx.period),
                ),
            )  # fmt: skip
        explain = [
            Explanation(
                "Cloud reserved per month",
                r_rate,
                f"{ccy}/month",
                f"{n} × {_price_text(ctx, inst.reserved_hourly, inst.currency)} × 730 h "
                f"(paid whether used or not) = {money(r_rate, ccy)}/month for {number(paid)} "
                "months",
                src,
                operands(
                    instances=(n, "instances"),
                    reserved_hourly=(r_hourly, f"{ccy}/h per instance"),
                ),
                "instances * reserved_hourly * 730",
            ),
            *storage_x,
        ]
        options.append(
            finish_option(
                ctx,
                ledger,
                kind="cloud_reserved",
                key=f"cloud_reserved:{inst.id}",
                label=f"{inst.provider} {inst.name} 1-year reserved — {n} instance(s) ({dated})",
                lead_time_days=0.0,
                source_ids=[inst.id],
                explain=explain,
                fixed_monthly=r_rate + ctx.storage_network,
                metered_monthly_full=0.0,
                billed=Billed("month", float(min(paid, ctx.horizon)), gpus, n),
                note=r_note,
            )
        )
    return options
