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
    CostComparison,
    Usage,
    compare_costs,
    cost_per_million_tokens_explained,
    tco_curves,
)
from app.engine.costs.formulas import break_even_utilization
from app.engine.costs.model import TCO_MONTHS, five_year_usage
from app.engine.explain import Explanation
from app.engine.hardware import GpuSpec
from app.engine.infra import Infra
from app.engine.notices import Notice
from app.engine.price_book import PriceBook
from app.engine.schemas import EstimateRequest, InferenceOut

DAYS_PER_MONTH = 365.0 / 12
DEFAULT_SERVICE_MONTHS = 12  # inference runs as a service: price a year unless told


def comparison_dict(cmp: CostComparison) -> dict[str, Any]:
    """JSON-ready comparison: options, break-even months, cheapest, warnings."""
    return {
        "currency": cmp.currency,
        "horizon_months": cmp.horizon_months,
        "utilization": cmp.utilization,
        "hours_per_month": cmp.hours_per_month,
        "cheapest": cmp.cheapest,
        "storage_network_share": cmp.storage_network_share,
        "options": [
            {
                "key": o.key,
                "kind": o.kind,
                "label": o.label,
                "monthly": o.monthly,
                "total": o.total,
                "upfront": o.upfront,
                "currency": o.currency,
                "breakdown": o.breakdown,
                "cumulative": o.cumulative,
                "lead_time_days": o.lead_time_days,
                "source_ids": o.source_ids,
                "feasible": o.feasible,
                "note": o.note,
                "fixed_monthly": o.fixed_monthly,
                "metered_monthly_full": o.metered_monthly_full,
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
    """Utilisation at which each metered option costs the same as each fixed one."""
    pairs = []
    opts = [o for o in cmp.options if o.feasible]
    for i, a in enumerate(opts):
        for b in opts[i + 1 :]:
            u = break_even_utilization(a, b)
            if u is not None and 0 < u <= 1:
                pairs.append({"a": a.key, "b": b.key, "utilization": u})
    return pairs


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
) -> tuple[dict[str, Any] | None, list[str], list[Explanation]]:
    """(cost block, warnings, explanations). None when the list prices nothing for this GPU."""
    gpus = fraction if fraction else float(count)
    util = req.utilization if req.utilization is not None else 1.0
    if days is not None and inference is None:
        months = max(days / DAYS_PER_MONTH, 1 / DAYS_PER_MONTH)
    else:
        months = float(req.term_months or DEFAULT_SERVICE_MONTHS)
    usage = Usage(
        gpu_id=gpu.id,
        gpu_count=gpus,
        hours_per_month=730.0 * util,
        months=months,
        power_kw=infra.power_typical_kw * (fraction or 1.0),
    )
    horizon = max(1, math.ceil(months), req.term_months or 0)
    warnings: list[str] = []
    prices = latest_cloud_prices(prices)
    try:
        job = compare_costs(
            usage,
            prices,
            horizon_months=min(horizon, 120),
            currency=req.currency,
            term_months=req.term_months,
            utilization=req.utilization,
        )
        tco = compare_costs(
            five_year_usage(usage),
            prices,
            horizon_months=TCO_MONTHS,
            currency=req.currency,
            term_months=req.term_months or 12,
            utilization=req.utilization,
        )
    except ValueError as e:
        warnings.append(Notice("Not priced: %(reason)s", reason=e))
        return None, warnings, []
    warnings.extend(job.warnings)
    explain = list(job.explain)
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
    if inference is not None and inference.tokens_per_s > 0:
        cheapest = job.option(job.cheapest)
        ex = cost_per_million_tokens_explained(
            cheapest.monthly, inference.tokens_per_s, util, req.currency
        )
        block["cost_per_million_tokens"] = ex.value
        explain.append(ex)
    return block, warnings, explain
