"""Prices a sized plan: the bridge from an estimate to the cost engine.

Two comparisons are made with the same price list: the *job* (the GPUs the plan needs, for
as long as it needs them) and a five-year *TCO* view of the same configuration kept busy at
the requested utilisation — the view that decides rent versus buy versus cloud (T9, T10, U8).
"""

from __future__ import annotations

import math
from dataclasses import asdict, replace
from typing import Any

from app.engine.costs import (
    HOURS_PER_MONTH,
    CostComparison,
    Usage,
    compare_costs,
    cost_per_million_tokens_explained,
    priced_gpus,
    tco_curves,
)
from app.engine.costs.formulas import utilization_break_evens
from app.engine.costs.model import MAX_HORIZON_MONTHS, TCO_MONTHS, five_year_usage
from app.engine.costs.rental import OfferSelection, offer_selections
from app.engine.explain import Explanation, Operand, money
from app.engine.formatting import number
from app.engine.hardware import GpuSpec
from app.engine.infra import Infra
from app.engine.notices import Notice, sentence_pairs
from app.engine.price_book import PriceBook
from app.engine.schemas import TRAINING_TASKS, EstimateRequest, InferenceOut
from app.engine.units import fmt

DAYS_PER_MONTH = 365.0 / 12
DEFAULT_SERVICE_MONTHS = 12  # inference runs as a service: price a year unless told


def five_year_contract(job: CostComparison) -> int:
    """The contract, in months, the five-year view rents on when the request names none: the
    plan's own when it is a year or longer (capped at the view's 60 months), else 12.

    QA: a 36-month plan's quote listed "36-month contract" while its cumulative and TCO charts
    drew "12-month contract" at the same price: one customer document, two contracts.
    """
    terms = [o.contract_months for o in job.options if o.kind == "rent_term" and o.contract_months]
    return min(max(terms[0], 12), TCO_MONTHS) if terms else 12


def explanation_dict(e: Explanation) -> dict[str, Any]:
    """One explanation as the API gives it: figure, value, unit, formula, source."""
    return {
        "figure": e.figure,
        "value": e.value,
        "unit": e.unit,
        "formula": e.formula,
        "source": e.source,
    }


def comparison_dict(cmp: CostComparison) -> dict[str, Any]:
    """JSON-ready comparison: options, break-even months, cheapest, warnings.

    Each option says what it buys (PRODUCT.md §5 "Cost options"): `billed` {unit "hour" |
    "month", quantity, gpus, nodes}, `monthly_rate` (per month, or null where the option is
    billed by the hour for a job), `hourly_rate`, `upfront` and `total` for the quoted
    `period_months`. No field named `monthly` exists: it used to hold a total. `explain`:
    the option's own figures (its rent, capex, power, resale…), each with the formula and
    source that reproduce it, as the comparison's `explain` lists its shared ones.
    """
    return {
        "currency": cmp.currency,
        "horizon_months": cmp.horizon_months,
        "utilization": cmp.utilization,
        "hours_per_month": cmp.hours_per_month,
        "pricing_mode": cmp.pricing_mode,
        "rent_months": cmp.period_months,
        "cheapest": cmp.cheapest,
        "storage_network_share": cmp.storage_network_share,
        "options": [
            {
                "key": o.key,
                "kind": o.kind,
                "label": o.label,
                "provider": o.provider,
                "billed": asdict(o.billed) if o.billed is not None else None,
                "monthly_rate": o.monthly_rate,
                "hourly_rate": o.hourly_rate,
                "period_months": o.period_months,
                "held_months": o.held_months,
                "contract_months": o.contract_months,
                "amortisation_months": o.amortisation_months,
                "total": o.total,
                "upfront": o.upfront,
                "economical": o.economical,
                "currency": o.currency,
                "breakdown": o.breakdown,
                "cumulative": o.cumulative,
                "lead_time_days": o.lead_time_days,
                "source_ids": o.source_ids,
                "feasible": o.feasible,
                "note": o.note,
                # The note's sentences as gettext templates and values, for a page to translate.
                "note_notices": sentence_pairs(o.note),
                "fixed_monthly": o.fixed_monthly,
                "metered_monthly_full": o.metered_monthly_full,
                "explain": [explanation_dict(e) for e in o.explain],
            }
            for o in cmp.options
        ],
        "break_even": [asdict(b) for b in cmp.break_even],
    }


def tco_dict(cmp: CostComparison) -> list[dict[str, Any]]:
    """Per option, cumulative cost at the end of years 1–5 split into stacked parts."""
    out: list[dict[str, Any]] = []
    span = range(1, min(5, cmp.horizon_months // 12) + 1)
    if not span:
        return out
    for c in tco_curves(cmp, span):
        rows = []
        for i, month in enumerate(c.months):
            row: dict[str, float] = {"year": month / 12}
            for part, values in c.parts.items():
                row[part] = values[i]
            row["total"] = c.total[i]
            rows.append(row)
        out.append({"key": c.key, "kind": c.kind, "label": c.label, "years": rows})
    return out


def utilization_pairs(cmp: CostComparison) -> list[dict[str, Any]]:
    """Utilisation at which two options cost the same per month (`utilization_break_evens`,
    the one source the hint, the chart and the explanations share)."""
    return [
        {"a": a.key, "b": b.key, "utilization": u, "hours_per_month": u * 730.0}
        for a, b, u in utilization_break_evens(cmp.options)
    ]


def pricing_mode_for(req: EstimateRequest) -> str:
    """ "capacity" for a service (inference, an image service with a target images/hour),
    else "job" (training, a batch of images)."""
    if req.pricing_mode is not None:
        return req.pricing_mode
    if req.task == "image" and req.images_per_hour is not None:
        return "capacity"
    return "capacity" if req.task == "inference" else "job"


def latest_cloud_prices(book: PriceBook) -> PriceBook:
    """The list with only the newest price of each cloud instance (older rows stay in the
    catalog to explain old quotes, e.g. T10's pre-June-2025 AWS price, but are not options)."""
    newest: dict[tuple[str, str, str], Any] = {}
    for c in book.cloud:
        k = (c.provider, c.name, c.region)
        if k not in newest or c.price_date > newest[k].price_date:
            newest[k] = c
    kept = tuple(c for c in book.cloud if newest[(c.provider, c.name, c.region)] is c)
    return replace(book, cloud=kept)


def machine_group(
    *,
    task: str,
    count: int,
    tp: int,
    gpus_per_node: int,
    fraction: float | None = None,
) -> int:
    """GPUs of the plan that must sit inside one NVLink machine (`Usage.gpus_per_machine_min`).

    Training (pre-train, fine-tunes) on more than one GPU: a whole node, min(GPUs, GPUs per
    node). The training planner times it so — every layout's GPUs of a node all-reduce over
    NVLink and nodes talk over InfiniBand (`compute.layout_factors`: "intra_node" at
    NVLINK_EFFICIENCY, ZeRO-3 "nearly hidden inside an NVLink node") —, so 4 single-GPU
    pods, networked without NVLink, are not the 4-GPU job it sized and timed.
    Serving: the tensor-parallel group of one replica, `tp` (its all-reduces run on every
    layer, so it stays inside one node: Narayanan et al. 2021 §3); replicas are independent
    copies and may each be a machine of their own. An MoE's expert-parallel group is not
    added: the planner spreads experts over the data-parallel ranks (`planner.expert_parallel`).
    A MIG slice is 1 (it is less than one GPU).
    """
    if fraction:
        return 1
    if task in TRAINING_TASKS and count > 1:
        return max(1, tp, min(count, gpus_per_node))
    return max(1, tp)


def machines_independent(task: str) -> bool:
    """Whether the plan's machines need no fabric between them (`Usage.independent_machines`):
    serving and image generation run independent copies, each inside one machine (its
    `machine_group`), which exchange no data; a training job is timed on InfiniBand between
    its nodes."""
    return task not in TRAINING_TASKS


def provider_selection(
    prices: PriceBook,
    *,
    provider: str,
    task: str,
    gpu_id: str,
    count: int,
    tp: int,
    gpus_per_node: int,
    fraction: float | None = None,
) -> OfferSelection | None:
    """The rental of `provider` that `price_plan` prices a plan on: its offers covering the
    plan's GPUs with the plan's machine group (`machine_group`) and, for serving, machines
    that need no fabric between them (`machines_independent`); None when the provider
    cannot run it. One rule for every page that names a rent for a plan (the self-assessment's
    monthly range is this selection's list and contract rent)."""
    group = machine_group(
        task=task, count=count, tp=tp, gpus_per_node=gpus_per_node, fraction=fraction
    )
    gpus = fraction if fraction else float(count)
    sels = offer_selections(prices, gpu_id, gpus, group, gpus_per_node, machines_independent(task))
    return next((s for s in sels if s.provider == provider and s.runnable), None)


def price_plan(
    *,
    req: EstimateRequest,
    gpu: GpuSpec,
    count: int,
    fraction: float | None,
    infra: Infra,
    days: float | None,
    inference: InferenceOut | None,
    prices: PriceBook,
    tp: int | None = None,
) -> tuple[dict[str, Any] | None, list[str], list[Explanation]]:
    """(cost block, warnings, explanations). None when the list prices nothing for this GPU.

    tp: the chosen layout's tensor-parallel degree (`Plan.layout.tp`; None: the pinned
    `req.tp`, else 1), which with the task sets the GPUs that must share one machine
    (`machine_group`).
    """
    gpus = fraction if fraction else float(count)
    util = req.utilization if req.utilization is not None else 1.0
    mode = pricing_mode_for(req)
    if days is not None and mode == "job":
        # A job (training, a batch of images) is priced by its duration: a 10-hour SDXL
        # batch is 10 hours of rent, not a year's contract.
        months = max(days / DAYS_PER_MONTH, 1 / 24 / DAYS_PER_MONTH)
    else:
        months = float(req.rent_months or req.term_months or DEFAULT_SERVICE_MONTHS)
    usage = Usage(
        gpu_id=gpu.id,
        gpu_count=gpus,
        hours_per_month=730.0 * util,
        months=months,
        power_kw=infra.power_typical_kw * (fraction or 1.0),
        gpus_per_node=gpu.gpus_per_node,
        nvlink=gpu.has_nvlink,
        gpus_per_machine_min=machine_group(
            task=req.task,
            count=count,
            tp=tp if tp is not None else (req.tp or 1),
            gpus_per_node=gpu.gpus_per_node,
            fraction=fraction,
        ),
        independent_machines=machines_independent(req.task),
    )
    period = req.rent_months if req.rent_months is not None else months
    horizon = max(1, math.ceil(months), math.ceil(period), req.term_months or 0)
    warnings: list[str] = []
    if days is not None and mode == "job" and months > MAX_HORIZON_MONTHS:
        # The cost engine prices at most 10 years: a longer job was billed for 120 months
        # of its 2.3 million (QA: NT$9.6M for a 192,000-year run, with no word that the
        # total covered a fraction of it). Said, and left unpriced, as a GPU without a price.
        warnings.append(
            Notice(
                "Not priced: the job takes %(days)s days (about %(years)s years), longer than "
                "the %(most)s months (%(most_years)s years) the cost comparison covers, and a "
                "total for part of it would understate its cost. Shorten it (more GPUs, fewer "
                "training tokens, or a deadline that has the planner add GPUs) to have it "
                "priced.",
                days=number(days, 0),
                years=number(days / 365, 0 if days >= 3650 else 1),
                most=MAX_HORIZON_MONTHS,
                most_years=MAX_HORIZON_MONTHS // 12,
            )
        )
        return None, warnings, []
    prices = latest_cloud_prices(prices)
    priced = priced_gpus(prices)
    if gpu.id not in priced:
        # Said in the reader's words (QA: the cost engine's "gpu_id must be one of …
        # (got 'b300-sxm-288gb')" reached a Chinese page as it was).
        names = {g.id: g.name for g in prices.gpus}
        warnings.append(
            Notice(
                "Not priced: price list %(list)s has no rental, server or cloud price for the "
                "%(gpu)s; choose a GPU it prices (%(gpus)s), or add a price for this one.",
                list=prices.name,
                gpu=gpu.name,
                gpus=", ".join(names.get(g, g) for g in priced) or "—",
            )
        )
        return None, warnings, []
    try:
        job = compare_costs(
            usage,
            prices,
            horizon_months=min(horizon, MAX_HORIZON_MONTHS),
            currency=req.currency,
            term_months=req.term_months,
            utilization=req.utilization,
            rent_months=req.rent_months,
            pricing_mode=mode,
        )
        tco = compare_costs(
            five_year_usage(usage),
            prices,
            horizon_months=TCO_MONTHS,
            currency=req.currency,
            term_months=req.term_months or five_year_contract(job),
            utilization=req.utilization,
        )
    except ValueError as e:
        warnings.append(Notice("Not priced: %(reason)s", reason=e))
        return None, warnings, []
    warnings.extend(job.warnings)
    # The utilisation break-evens come from the five-year view the chart draws, so each
    # pair shows one figure (the job's own pairs would repeat them under other labels).
    explain = [x for x in job.explain if not x.figure.startswith("Break-even utilisation")]
    explain += [x for x in tco.explain if x.figure.startswith("Break-even utilisation")]
    block: dict[str, Any] = comparison_dict(job)
    block["price_list"] = {
        "name": prices.name,
        "effective_date": prices.effective_date.isoformat(),
        "currency": prices.currency,
    }
    block["months"] = months
    block["tco"] = tco_dict(tco)
    block["tco_options"] = comparison_dict(tco)
    block["break_even_utilization"] = utilization_pairs(tco)
    block["cost_per_million_tokens"] = None
    # A unit cost needs an option that can run the plan: when none can (an L4 service laid
    # out at TP 2 on a list that rents L4s one per machine), none is the cheapest, and a
    # cost per 1M tokens from any would be a price nobody offers (QA).
    cheapest = job.option(job.cheapest) if job.cheapest is not None else None
    if cheapest is None or not cheapest.feasible:
        block["cost_per_image"] = None
        return block, warnings, explain
    if inference is not None and inference.tokens_per_s > 0:
        per_month = (
            cheapest.monthly_rate
            if cheapest.monthly_rate is not None
            else cheapest.total / max(job.period_months, 1e-9)
        )
        ex = cost_per_million_tokens_explained(
            per_month, inference.tokens_per_s, util, req.currency
        )
        block["cost_per_million_tokens"] = ex.value
        explain.append(ex)
    block["cost_per_image"] = None
    if inference is not None and inference.images_per_hour:
        ex = _cost_per_image(req, mode, cheapest.total, cheapest.monthly_rate, inference, util)
        block["cost_per_image"] = ex.value
        block["cost_of_images"] = ex.value * req.images
        explain.append(ex)
    return block, warnings, explain


def _cost_per_image(
    req: EstimateRequest,
    mode: str,
    total: float,
    monthly_rate: float | None,
    inference: InferenceOut,
    utilization: float,
) -> Explanation:
    """Money per image at the cheapest option: a batch's total over its images (a job is
    priced by its duration), or a service's monthly cost over the images of a month."""
    cur = req.currency
    if mode == "job" or monthly_rate is None:
        value = total / req.images
        return Explanation(
            "cost.per_image",
            value,
            f"{cur}/image",
            f"{money(total, cur)} for the batch / {req.images:,} images = {money(value, cur, 4)}",
            "the cheapest option's total for the batch's duration",
            operands=[Operand("total", total, cur), Operand("images", req.images, "images")],
            expression="total / images",
        )
    # The images a month makes: at the target rate where one is asked (what the customer
    # will generate; QA read NT$0.113 "per image" computed at the GPUs' full 972 images/h
    # for a studio asking 500), else at the GPUs' capacity.
    capacity = inference.images_per_hour or 0.0
    per_hour = min(req.images_per_hour, capacity) if req.images_per_hour else capacity
    source = (
        "the cheapest option's monthly rate over a month of images at the target images/hour "
        "(at most what the GPUs make); 730 h = 8,760 h / 12"
        if req.images_per_hour
        else "the cheapest option's monthly rate; 730 h = 8,760 h / 12"
    )
    value = monthly_rate / (per_hour * HOURS_PER_MONTH * utilization)
    return Explanation(
        "cost.per_image",
        value,
        f"{cur}/image",
        f"{money(monthly_rate, cur)} per month / ({fmt(per_hour)} images/h × 730 h × "
        f"{fmt(utilization)}) = {money(value, cur, 4)}",
        source,
        operands=[
            Operand("monthly", monthly_rate, f"{cur}/month"),
            Operand("images_per_hour", per_hour, "images/h"),
            Operand("hours", HOURS_PER_MONTH, "h/month"),
            Operand("utilization", utilization, ""),
        ],
        expression="monthly / (images_per_hour * hours * utilization)",
    )
