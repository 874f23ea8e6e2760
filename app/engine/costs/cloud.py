"""Public cloud: on-demand instances by the hour, and 1-year reserved capacity.

Rules (seed 003 T10; PRODUCT.md §4): instances = ceil(GPUs / GPUs per instance); on demand
is paid for busy hours only; reserved is paid for all 730 h of every month of a 1-year term
(renewed by whole years while the need lasts). AWS p5.48xlarge: US$98.32/h before the June
2025 cut, US$55.04/h after; every cloud price carries its date and labels show it.

An instance is one machine: a plan whose machine group (`Usage.gpus_per_machine_min`: a
service's tensor-parallel group, a training job's node) needs more GPUs on NVLink in one
machine than an instance has cannot run on it (p5.4xlarge, 1 GPU, for a TP 2 service or an
8-GPU-node pre-train); that instance is still listed, with `feasible` False and a note saying
why, as rental machines are (`rental.rental_options`).
"""

from __future__ import annotations

import math

from app.engine.costs.context import Context, add_storage_network, finish_option, period_notice
from app.engine.costs.ledger import Ledger
from app.engine.costs.model import (
    HOURS_PER_MONTH,
    RESERVED_TERM_MONTHS,
    Billed,
    CostOption,
    Usage,
    money_places,
    round_money,
)
from app.engine.explain import Explanation, number, operands
from app.engine.formatting import exact_money, plural
from app.engine.notices import Notice, Sentences, one_or_many
from app.engine.price_book import CloudInstance

_EPS = 1e-9
PRICE_AGE_WARNING_DAYS = 365
#: A reserved term longer than the rental period (`period_notice`: under a month in days or
#: hours).
COMMITMENT = {
    "months": "A %(term)s-month commitment: %(paid)s months are paid for a %(period)s-month "
    "rental period.",
    "days": "A %(term)s-month commitment: %(paid)s months are paid for a rental period of "
    "%(period)s days.",
    "hours": "A %(term)s-month commitment: %(paid)s months are paid for a rental period of "
    "%(period)s hours.",
    "day": ("A %(term)s-month commitment: %(paid)s months are paid for a rental period of 1 day."),
    "hour": (
        "A %(term)s-month commitment: %(paid)s months are paid for a rental period of 1 hour."
    ),
}


def groups_per_instance(inst: CloudInstance, group: int) -> int:
    """Whole groups of `group` GPUs one instance holds (0: the instance cannot run them)."""
    return inst.gpu_count // max(1, group)


def instances_needed(gpu_count: float, inst: CloudInstance, group: int = 1) -> int:
    """Whole instances to hold `gpu_count` GPUs as whole groups of `group` inside one
    instance: ceil(ceil(gpu_count / group) / groups per instance) — ceil(gpu_count / GPUs
    per instance) for a group of 1. An instance too small for one group is counted as if
    the group were 1, for an option that is shown but cannot run."""
    per = groups_per_instance(inst, group)
    if group <= 1 or per == 0:
        return max(1, math.ceil(gpu_count / inst.gpu_count - _EPS))
    return max(1, math.ceil(math.ceil(gpu_count / group - _EPS) / per - _EPS))


def _price_text(ctx: Context, amount: float, ccy: str) -> str:
    """ "US$55.04/h (= NT$1,761.28/h at 32 TWD/USD)" when a conversion is involved."""
    if ccy == ctx.currency:
        return f"{exact_money(amount, ccy)}/h"
    rate = ctx.conv(1.0, ccy)
    return (
        f"{exact_money(amount, ccy)}/h (= {exact_money(amount * rate, ctx.currency)}/h at "
        f"{number(rate, 4)} {ctx.currency}/{ccy})"
    )


def _instances(n: int) -> str:
    """ "1 instance", "2 instances": an option's label counts what it rents."""
    return plural(str(n), "instance")


def _unused_gpus(
    ctx: Context, inst: CloudInstance, usage: Usage, n: int, group: int, runnable: bool
) -> Notice:
    """Why an instance holding more GPUs than the plan uses is the one priced (QA: a 2-GPU
    plan compared against an 8-GPU p5.48xlarge read as a cloud price inflated 4×): the
    provider's smaller instance of this GPU cannot hold the plan's NVLink group, or there is
    none. An instance that cannot run the plan says only what it pays for."""
    paid, used = n * inst.gpu_count, number(usage.gpu_count)
    # "Pays for 1 GPU to use 0.25.": a MIG slice on a one-GPU instance.
    plain = one_or_many(
        paid, "Pays for %(paid)s GPU to use %(used)s.", "Pays for %(paid)s GPUs to use %(used)s."
    )
    if not runnable:
        return Notice(plain, paid=paid, used=used)
    smaller = [
        i
        for i in ctx.book.cloud
        if i.provider == inst.provider
        and i.gpu_id == inst.gpu_id
        and 0 < i.gpu_count < inst.gpu_count
    ]
    if not smaller:
        # The smallest there is (QA: "only with 1" beside the 8-GPU p5.48xlarge on the same
        # list, for a plan of a quarter GPU on the 1-GPU p5.4xlarge).
        return Notice(
            one_or_many(
                paid,
                "Pays for %(paid)s GPU to use %(used)s: the smallest instance of this GPU the "
                "price list has from %(provider)s holds %(per)s.",
                "Pays for %(paid)s GPUs to use %(used)s: the smallest instance of this GPU the "
                "price list has from %(provider)s holds %(per)s.",
            ),
            paid=paid, used=used, provider=inst.provider, per=inst.gpu_count,
        )  # fmt: skip
    small = max(smaller, key=lambda i: i.gpu_count)
    if group > small.gpu_count:
        # QA read "…, and AWS p5.4xlarge has 1" on the p5.48xlarge row as naming the instance
        # priced: it names the smaller one, which cannot hold the group, and says so.
        return Notice(
            "Pays for %(paid)s GPUs to use %(used)s: the plan needs %(need)s GPUs on NVLink "
            "in one machine, more than %(provider)s's smaller instance of this GPU "
            "(%(name)s, %(have)s) holds."
            if usage.nvlink
            else "Pays for %(paid)s GPUs to use %(used)s: the plan needs %(need)s GPUs in one "
            "machine, more than %(provider)s's smaller instance of this GPU (%(name)s, "
            "%(have)s) holds.",
            paid=paid, used=used, need=group, provider=inst.provider, name=small.name,
            have=small.gpu_count,
        )  # fmt: skip
    return Notice(plain, paid=paid, used=used)


def cloud_options(ctx: Context, usage: Usage, warnings: list[str]) -> list[CostOption]:
    """On-demand and (when priced) reserved options for every listed instance of the GPU.

    An instance smaller than the usage's `gpus_per_machine_min` gives options with
    `feasible` False and a note naming the instance and the group it cannot hold.
    """
    options: list[CostOption] = []
    ccy = ctx.currency
    group = max(1, usage.gpus_per_machine_min)
    for inst in ctx.book.cloud:
        if inst.gpu_id != usage.gpu_id or inst.gpu_count <= 0:
            continue
        n = instances_needed(usage.gpu_count, inst, group)
        runnable = groups_per_instance(inst, group) > 0
        dated = f"{inst.region}, price of {inst.price_date.isoformat()}"
        src = (
            f"seed 003 T10; {inst.provider} {inst.name} {dated}"
            f"{'; ' + inst.source if inst.source else ''}"
        )
        notes = []
        if not runnable:
            notes.append(
                Notice(
                    "Not runnable: this plan needs %(need)s GPUs on NVLink in one machine; "
                    "%(provider)s %(name)s has %(have)s per instance."
                    if usage.nvlink
                    else "Not runnable: this plan needs %(need)s GPUs in one machine; "
                    "%(provider)s %(name)s has %(have)s per instance.",
                    need=group,
                    provider=inst.provider,
                    name=inst.name,
                    have=inst.gpu_count,
                )
            )
        if n * inst.gpu_count > usage.gpu_count + _EPS:
            notes.append(_unused_gpus(ctx, inst, usage, n, group, runnable))
        note = Sentences(*notes)
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
        # The total as billed, rounded once (finish_option's ledger rounds it the same way).
        on_demand = round_money(n * hourly * billed_hours, ccy)
        explain = [
            Explanation(
                "Cloud on demand",
                on_demand,
                ccy,
                f"{n} × {_price_text(ctx, inst.on_demand_hourly, inst.currency)} × "
                f"{number(billed_hours, 0)} h billed = {exact_money(on_demand, ccy)}",
                f"billed by the hour of use; {src}",
                operands(
                    instances=(n, "instances"),
                    hourly=(hourly, f"{ccy}/h per instance"),
                    billed_hours=(billed_hours, "h"),
                ),
                f"round_half_up(instances * hourly * billed_hours, {money_places(ccy)})",
            ),
            *storage_x,
        ]
        options.append(
            finish_option(
                ctx,
                ledger,
                kind="cloud",
                key=f"cloud:{inst.id}",
                label=f"{inst.provider} {inst.name} on demand — {_instances(n)} ({dated})",
                lead_time_days=0.0,
                source_ids=[inst.id],
                explain=explain,
                fixed_monthly=ctx.storage_network,
                metered_monthly_full=n * hourly * HOURS_PER_MONTH,
                billed=Billed("hour", billed_hours, gpus, n),
                hourly_rate=n * hourly,
                feasible=runnable,
                provider=inst.provider,
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
                period_notice(COMMITMENT, ctx.period, term=RESERVED_TERM_MONTHS, paid=number(paid)),
            )
        explain = [
            Explanation(
                "Cloud reserved per month",
                r_rate,
                f"{ccy}/month",
                f"{n} × {_price_text(ctx, inst.reserved_hourly, inst.currency)} × 730 h "
                f"(paid whether used or not) = {exact_money(r_rate, ccy)}/month for {number(paid)} "
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
                label=f"{inst.provider} {inst.name} 1-year reserved — {_instances(n)} ({dated})",
                lead_time_days=0.0,
                source_ids=[inst.id],
                explain=explain,
                fixed_monthly=r_rate + ctx.storage_network,
                metered_monthly_full=0.0,
                billed=Billed("month", float(min(paid, ctx.horizon)), gpus, n),
                feasible=runnable,
                provider=inst.provider,
                note=r_note,
            )
        )
    return options
