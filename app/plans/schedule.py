"""Phased plans: a rental schedule of consecutive phases instead of one workload (seed T16).

A phased plan stores ``{"schedule": {"phases": [...], "currency": "TWD"}}`` as its workload;
each phase is ``{label, gpu, gpu_count, months, hours_per_month}``. It is priced with
`app.engine.costs.schedule_cost` and its result has the same outline as an estimate's where
lists, diffs and repricing look (``tier``, ``gpu``, ``cost.options`` with one option), plus a
``schedule`` block (the priced phases and the cumulative cost by month) for the timeline.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.engine.costs import CostInputError, Phase, schedule_cost
from app.engine.gpus import default_gpus
from app.engine.planner import tier_for
from app.engine.price_book import PriceBook
from app.i18n import N_

H100: Final = "h100-sxm-80gb"
SCHEDULE_KEY: Final = "schedule"
OPTION_KEY: Final = "schedule"


class PhaseIn(BaseModel):
    """One phase as stored in the plan's workload JSON."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # NaN/Infinity: a 422

    label: str = Field(default="", max_length=120)
    gpu: str = Field(default=H100, min_length=1, max_length=80)
    gpu_count: float = Field(ge=0.01, le=4096)
    months: float = Field(ge=0.01, le=120)
    hours_per_month: float = Field(default=730.0, ge=1, le=730)


class ScheduleIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    phases: list[PhaseIn] = Field(min_length=1, max_length=24)
    currency: str = Field(default="TWD", pattern="^(TWD|USD)$")


#: Seed 003 T16: a 13B customer-service model, phased vs four GPUs from day one.
T16_PHASED: Final = (
    {
        "label": N_("LoRA fine-tune"),
        "gpu": H100,
        "gpu_count": 1,
        "months": 2,
        "hours_per_month": 730,
    },
    {
        "label": N_("Full fine-tune"),
        "gpu": H100,
        "gpu_count": 4,
        "months": 1,
        "hours_per_month": 730,
    },
    {"label": N_("Inference"), "gpu": H100, "gpu_count": 1, "months": 1, "hours_per_month": 730},
)
T16_DAY_ONE: Final = (
    {
        "label": N_("4×H100 from day one"),
        "gpu": H100,
        "gpu_count": 4,
        "months": 4,
        "hours_per_month": 730,
    },
)


class ScheduleError(ValueError):
    """A schedule the engine cannot price; `field` is its dotted path in the workload."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def is_schedule(workload: Any) -> bool:
    return isinstance(workload, Mapping) and SCHEDULE_KEY in workload


def _nodes(gpu_id: str, count: float) -> int:
    """Nodes the phase's GPUs fill (the GPU's node size; 8 when the GPU is unknown)."""
    per_node = next((g.gpus_per_node for g in default_gpus() if g.id == gpu_id), 8)
    return max(1, math.ceil(count / per_node))


def _gpu_name(gpu_id: str) -> str:
    return next((g.name for g in default_gpus() if g.id == gpu_id), gpu_id)


def parse(workload: Mapping[str, Any]) -> ScheduleIn:
    try:
        return ScheduleIn.model_validate(workload[SCHEDULE_KEY])
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise ScheduleError(f"workload.schedule.{loc}", err["msg"]) from e


def compute(
    workload: Mapping[str, Any], book: PriceBook | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(workload dump, result dump) for a phased workload priced with `book`."""
    sched = parse(workload)
    if book is None:
        raise ScheduleError("price_list_id", "a phased plan needs a published price list")
    phases = [Phase(p.gpu, p.gpu_count, p.months, p.hours_per_month, p.label) for p in sched.phases]
    try:
        cost = schedule_cost(phases, book, sched.currency)
    except CostInputError as e:
        raise ScheduleError(f"workload.schedule.{e.field}", str(e)) from e
    top = max(sched.phases, key=lambda p: p.gpu_count)
    priced = [
        {
            "label": pc.phase.label,
            "gpu": pc.phase.gpu_id,
            "gpu_name": _gpu_name(pc.phase.gpu_id),
            "gpu_count": pc.phase.gpu_count,
            "months": pc.phase.months,
            "hours_per_month": pc.phase.hours_per_month,
            "kind": pc.kind,
            "start_month": pc.start_month,
            "monthly": pc.monthly,
            "total": pc.total,
            "source_ids": list(pc.source_ids),
        }
        for pc in cost.phases
    ]
    explain = [
        {
            "figure": x.figure,
            "value": x.value,
            "unit": x.unit,
            "formula": x.formula,
            "source": x.source,
        }
        for x in cost.explain
    ]
    option = {
        "key": OPTION_KEY,
        "kind": "rent_monthly",
        "label": "Phased rental",
        "monthly_rate": cost.monthly,
        "total": cost.total,
        "upfront": 0.0,
        "currency": cost.currency,
        "cumulative": list(cost.cumulative),
        "source_ids": sorted({i for pc in cost.phases for i in pc.source_ids}),
        "feasible": True,
        "note": "",
    }
    nodes = _nodes(top.gpu, top.gpu_count)
    result: dict[str, Any] = {
        "kind": "schedule",
        "tier": tier_for(top.gpu_count, nodes),
        "gpu": {
            "id": top.gpu,
            "name": _gpu_name(top.gpu),
            "count": top.gpu_count,
            "nodes": nodes,
        },
        "schedule": {
            "phases": priced,
            "total": cost.total,
            "months": cost.months,
            "monthly": cost.monthly,
            "currency": cost.currency,
            "cumulative": list(cost.cumulative),
        },
        "cost": {
            "currency": cost.currency,
            "months": cost.months,
            "cheapest": OPTION_KEY,
            "options": [option],
            "break_even": [],
            "price_list": {
                "name": book.name,
                "effective_date": str(getattr(book, "effective_date", "") or ""),
                "currency": book.currency,
            },
        },
        "warnings": [],
        "explain": explain,
    }
    return {SCHEDULE_KEY: sched.model_dump(mode="json")}, result


def schedule_workload(phases: Sequence[Mapping[str, Any]], currency: str = "TWD") -> dict[str, Any]:
    """The workload JSON of a phased plan."""
    return {SCHEDULE_KEY: {"phases": [dict(p) for p in phases], "currency": currency}}
