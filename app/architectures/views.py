"""The reference architectures page's context: the three templates sized by the engine, priced live."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from fastapi import Request

from app.architectures import content
from app.catalog.current import price_book
from app.charts import figures
from app.engine.estimate import estimate
from app.engine.gpus import default_gpus, find_gpu
from app.engine.schemas import EstimateRequest, InfraOut
from app.i18n import gettext as _
from app.web.templating import choose_currency

#: A representative workload per template, to size its power with the engine (T6/T7).
WORKLOADS = {
    "entry": {"model": {"preset": "llama-3.1-8b"}, "task": "lora", "gpu_count": 1},
    "growth": {"model": {"preset": "llama-2-13b"}, "task": "full_finetune", "gpu_count": 4},
    "training": {"model": {"preset": "llama-3.1-70b"}, "task": "full_finetune", "gpu_count": 16},
}


@lru_cache(maxsize=8)
def template_infra(key: str) -> InfraOut:
    """The engine's infrastructure sizing for the template's representative workload."""
    req = EstimateRequest.model_validate({**WORKLOADS[key], "gpu": content.REFERENCE_GPU})
    return estimate(req, prices=None, search_all=False).infra


@dataclass(frozen=True, slots=True)
class Card:
    arch: content.Architecture
    infra: InfraOut
    monthly: float | None  # list price per month, or None when not on the list
    best: float | None  # the best term price per month
    gpu_memory_gb: float


def architectures_context(request: Request) -> dict[str, Any]:
    currency = choose_currency(request)
    book = price_book(request)
    memory = find_gpu(content.REFERENCE_GPU, default_gpus()).memory_gb
    cards: list[Card] = []
    for arch in content.ARCHITECTURES:
        monthly = content.monthly_offer(book, arch.gpus, currency)
        offer = next((o for o in content.house_offers(book) if o.gpu_count == arch.gpus), None)
        best = None
        if monthly is not None and offer is not None:
            best = monthly * (1 - max(offer.term_discounts.values(), default=0.0))
        infra = template_infra(arch.key)
        cards.append(Card(arch, infra, monthly, best, arch.gpus * memory))
    chart = figures.architectures(
        [
            {
                "label": _(c.arch.name),
                "monthly": c.monthly or 0.0,
                "monthly_min": c.best,
                "monthly_max": c.monthly,
                "gpu_memory_gb": c.gpu_memory_gb,
                "power_kw": c.infra.power_kw,
            }
            for c in cards
        ],
        currency,
    )
    four = content.monthly_offer(book, 4, currency)
    return {
        "nav_active": "architectures",
        # The upgrade path's "four idle GPUs for three months" in the page's currency (seed
        # 003's NT$600,000 = 3 × the 4-GPU monthly rent; QA read NT$ on a US$ page), and the
        # rate a converted price was converted at, as /assess says it (PRODUCT.md §6).
        "idle_four_gpus": 3 * four if four is not None else None,
        "fx_note": content.fx_note(book, currency),
        "cards": cards,
        "compare_chart": chart,
        "tier_label": {t.key: t.name for t in content.TIERS},
    }
