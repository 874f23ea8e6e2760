"""Cost comparison service: a configuration (GPU, count, months, utilisation) priced every way."""

from __future__ import annotations

import math
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.engine.architectures import from_param_count
from app.engine.costs import CostInputError, Usage, compare_costs, priced_gpus
from app.engine.costs.model import TCO_MONTHS, five_year_usage
from app.engine.estimate import InputError, gpu_pool
from app.engine.gpus import find_gpu
from app.engine.infra import size_infra
from app.engine.notices import Notice, as_pair
from app.engine.plan_costs import (
    comparison_dict,
    explanation_dict,
    latest_cloud_prices,
    tco_dict,
    utilization_pairs,
)
from app.engine.price_book import PriceBook
from app.engine.strict_numbers import NumbersNotBooleans

#: The engine's name of an input → the request field a client sent (a 422 names the field of
#: the request, never the engine's: `{"gpu": "b300-sxm-288gb"}` was refused at `gpu_id`).
REQUEST_FIELDS: Final = {"gpu_id": "gpu", "hours_per_month": "utilization"}
UNPRICED_GPU: Final = (
    "%(gpu)s is not priced in the current price list. GPUs with prices: %(choices)s."
)


class CostRequest(NumbersNotBooleans, BaseModel):
    """A configuration to price: which GPUs, how many, for how long, how busy."""

    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,  # NaN, ±Infinity and 1e400 are a 422, never arithmetic
        json_schema_extra={
            "examples": [
                {"gpu": "h100-sxm-80gb", "gpu_count": 8, "months": 36, "utilization": 0.8},
                {"gpu": "h100-sxm-80gb", "gpu_count": 0.25, "months": 6, "currency": "USD"},
            ]
        },
    )

    gpu: str = Field("h100-sxm-80gb", description="GPU id from GET /api/v1/gpus.")
    gpu_count: float = Field(
        1, ge=0.01, le=100_000, description="GPUs; 0.25 is a MIG 1/4 slice (0.01–100,000)."
    )
    months: float = Field(
        12, ge=0.01, le=120, description="How long the capacity is needed (0.01–120)."
    )
    utilization: float = Field(
        1.0, ge=0.01, le=1, description="Share of the month's 730 hours the GPUs are busy."
    )
    horizon_months: int | None = Field(
        None, ge=1, le=120, description="Months compared (default: the need, at least 12)."
    )
    term_months: int | None = Field(None, ge=1, le=60, description="Rental contract length.")
    rent_months: float | None = Field(
        None,
        gt=0,
        le=120,
        description="Rent for: the rental period, months (default: `months`, rounded up to "
        "each option's billing unit).",
    )
    pricing_mode: Literal["job", "capacity"] = Field(
        "capacity",
        description="capacity (default): GPUs kept for `months`, every option priced per "
        "month; job: a piece of work of `months` compute time, hourly options bill its hours.",
    )
    power_kw: float | None = Field(
        None,
        ge=0.001,
        le=100_000,
        description="IT power when running, for rentals that bill electricity apart (default: "
        "sized, T7). Buying charges the servers it buys at their rated draw (seed T7/T9).",
    )
    storage_network_monthly: float = Field(
        0, ge=0, le=1e12, description="Storage and network per month, price-list currency."
    )
    currency: Literal["TWD", "USD"] = "TWD"


def compare(req: CostRequest, *, prices: PriceBook) -> dict[str, Any]:
    """Every option for `req` under `prices`: options, break-even, TCO, utilisation pairs."""
    pool = gpu_pool(None, prices)
    try:
        gpu = find_gpu(req.gpu, pool)
    except KeyError as e:
        raise InputError("gpu", e.args[0]) from e
    priced = set(priced_gpus(prices))
    if gpu.id not in priced:
        raise InputError(
            "gpu",
            Notice(
                UNPRICED_GPU,
                gpu=gpu.name,
                # each by its name and the id the field takes (QA: names alone, for a field
                # that takes ids)
                choices=", ".join(f"{g.name} ({g.id})" for g in pool if g.id in priced) or "—",
            ),
        )
    power = req.power_kw
    if power is None:
        count = max(1, math.ceil(req.gpu_count))
        infra = size_infra(
            gpu=gpu,
            gpus=count,
            gpus_per_node=gpu.gpus_per_node,
            model=from_param_count(7),
            task="inference",
            dataset_gb=0,
            trainable=0,
            interconnect="nvlink",
        )
        power = infra.power_typical_kw * min(1.0, req.gpu_count / count)
    usage = Usage(
        gpu_id=gpu.id,
        gpu_count=req.gpu_count,
        hours_per_month=730.0 * req.utilization,
        months=req.months,
        power_kw=power,
        storage_network_monthly=req.storage_network_monthly,
        gpus_per_node=gpu.gpus_per_node,
        # No plan here, so no tensor-parallel group: any machine of the GPU can hold the need.
        gpus_per_machine_min=1,
    )
    horizon = req.horizon_months or max(12, math.ceil(req.months), math.ceil(req.rent_months or 0))
    book = latest_cloud_prices(prices)
    try:
        cmp = compare_costs(
            usage,
            book,
            horizon_months=horizon,
            currency=req.currency,
            term_months=req.term_months,
            utilization=req.utilization,
            rent_months=req.rent_months,
            pricing_mode=req.pricing_mode,
        )
    except CostInputError as e:
        raise InputError(REQUEST_FIELDS.get(e.field, e.field), str(e)) from e
    except ValueError as e:
        raise InputError("gpu", str(e)) from e
    out = comparison_dict(cmp)
    out["power_kw"] = power
    out["price_list"] = {
        "name": prices.name,
        "effective_date": prices.effective_date.isoformat(),
        "currency": prices.currency,
    }
    # The 1–5-year TCO view keeps the same configuration busy for five years.
    tco = compare_costs(
        five_year_usage(usage),
        book,
        horizon_months=TCO_MONTHS,
        currency=req.currency,
        term_months=req.term_months or 12,
        utilization=req.utilization,
    )
    out["tco"] = tco_dict(tco)
    out["break_even_utilization"] = utilization_pairs(cmp)
    out["warnings"] = cmp.warnings
    out["notices"] = [as_pair(w) for w in cmp.warnings]
    out["explain"] = [explanation_dict(e) for e in cmp.explain]
    return out
