"""Phased plans: phases one after another instead of one workload (PRODUCT.md journey 4, T16).

A phased plan stores ``{"schedule": {"phases": [...], "currency": "TWD"}}`` as its workload.
Each phase is one of two kinds (`PhaseIn`):

* ``workload``: a planner workload (an `EstimateRequest`: task, model, data, GPU pins …) that
  the engine sizes (GPU type and count), rented for the phase's `months`;
* ``capacity``: a plain line, GPU type × count × months.

Both are billed the way the phase's `option` says (cheapest / hourly / monthly / contract,
`app.engine.costs.schedule_cost`). The result has the outline of an estimate's where lists,
diffs and repricing look (``tier``, ``gpu``, ``cost.options`` — the schedule's total as the
headline option ``schedule`` plus one option ``phase-<n>`` per phase, so the quote builder
quotes a line per phase) and a ``schedule`` block (the priced phases, the cumulative cost by
month) for the timeline. Errors name the field as the API body does: ``phases.<i>.<field>``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from app.engine.costs import (
    DAYS_PER_MONTH,
    HOURS_PER_MONTH,
    CostInputError,
    Phase,
    schedule_cost,
    select_offers,
)
from app.engine.costs.formulas import term_discount
from app.engine.estimate import InputError, estimate
from app.engine.formatting import number
from app.engine.gpus import default_gpus
from app.engine.notices import Notice
from app.engine.plan_costs import explanation_dict, machine_group, machines_independent
from app.engine.planner import tier_for
from app.engine.price_book import PriceBook
from app.engine.schemas import EstimateRequest
from app.engine.strict_numbers import NumbersNotBooleans
from app.i18n import N_
from app.text import PlainLine

H100: Final = "h100-sxm-80gb"
SCHEDULE_KEY: Final = "schedule"
OPTION_KEY: Final = "schedule"
KINDS: Final = ("workload", "capacity")
OPTIONS: Final = ("cheapest", "hourly", "monthly", "contract")
MAX_PHASES: Final = 24
MAX_MONTHS: Final = 120
MAX_GPUS: Final = 4096


def phase_key(index: int) -> str:
    """The cost option of phase `index` (0-based): ``phase-1``, ``phase-2`` …"""
    return f"phase-{index + 1}"


#: Names of a phase's own fields (`PhaseIn`), for labels and error messages.
PHASE_FIELDS: Final = {
    "kind": N_("Kind"),
    "label": N_("Name"),
    "months": N_("Months"),
    "option": N_("Billed as"),
    "hours_per_month": N_("Busy hours per month"),
    "gpu": N_("GPU"),
    "gpu_count": N_("GPU count"),
}
#: How a phase is billed and what it is, as the builder and the plan's history name them.
OPTION_NAMES: Final = {
    "cheapest": N_("Cheapest way"),
    "monthly": N_("Monthly rent"),
    "contract": N_("Contract (longest tier that fits)"),
    "hourly": N_("Hourly rent"),
}
KIND_NAMES: Final = {"workload": N_("Workload"), "capacity": N_("Capacity line")}


#: A phase's job that takes longer than the phase (`compute`'s warnings).
PHASE_TOO_SHORT: Final = N_(
    "Phase %(n)s: the job takes %(days)s days, longer than the phase's %(phase_days)s days; "
    "lengthen the phase or add GPUs."
)


class PhaseIn(NumbersNotBooleans, BaseModel):
    """One phase of a phased plan (API field `phases[i]`, stored in the plan's workload)."""

    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,  # NaN/Infinity: a 422
        json_schema_extra={
            "examples": [
                {
                    "kind": "workload",
                    "months": 2,
                    "option": "monthly",
                    "workload": {
                        "model": {"preset": "llama-2-13b"},
                        "task": "lora",
                        "dataset_gb": 5,
                        "epochs": 2,
                        "gpu": H100,
                    },
                },
                {
                    "kind": "capacity",
                    "gpu": H100,
                    "gpu_count": 1,
                    "months": 12,
                    "option": "contract",
                },
            ]
        },
    )

    kind: Literal["workload", "capacity"] = Field(
        description="workload: a planner workload the engine sizes; capacity: GPU × count."
    )
    label: PlainLine = Field(default="", max_length=120, description="Empty: the task's name.")
    months: float = Field(ge=1, le=MAX_MONTHS, description="How long the phase rents, months.")
    option: Literal["cheapest", "hourly", "monthly", "contract"] = Field(
        default="cheapest",
        description="How it is billed: cheapest (hourly or monthly, with the largest contract "
        "tier that fits), hourly (hours_per_month × months), monthly (list price), contract "
        "(the largest contract tier ≤ months; refused below the shortest tier).",
    )
    hours_per_month: float = Field(
        default=HOURS_PER_MONTH, ge=1, le=HOURS_PER_MONTH, description="Busy hours (hourly)."
    )
    gpu: str | None = Field(
        default=None,
        min_length=1,
        max_length=80,
        description="capacity: GPU id from GET /api/v1/gpus (a workload pins it in workload.gpu).",
    )
    gpu_count: float | None = Field(
        default=None,
        gt=0,
        le=MAX_GPUS,
        description="capacity: whole GPUs, or a MIG slice an offer lists (0.25).",
    )
    workload: EstimateRequest | None = Field(
        default=None, description="workload: what /api/v1/estimate takes."
    )

    @model_validator(mode="before")
    @classmethod
    def _older_phases(cls, data: Any) -> Any:
        # Phases saved before phases had kinds were capacity lines.
        if isinstance(data, Mapping) and "kind" not in data and "gpu" in data:
            return {"kind": "capacity", **data}
        return data


class ScheduleIn(NumbersNotBooleans, BaseModel):
    model_config = ConfigDict(extra="forbid")

    phases: list[PhaseIn] = Field(min_length=1, max_length=MAX_PHASES)
    currency: str = Field(default="TWD", pattern="^(TWD|USD)$")


class ScheduleError(ValueError):
    """A schedule the engine cannot price; `field` is its dotted path (`phases.1.gpu`),
    `message` a msgid (translated where it is shown) with its `params`."""

    def __init__(self, field: str, message: str, **params: Any) -> None:
        super().__init__(message % params if params else message)
        self.field = field
        self.message = message
        self.params = params


def is_schedule(workload: Any) -> bool:
    return isinstance(workload, Mapping) and SCHEDULE_KEY in workload


def phases_of(workload: Any) -> list[dict[str, Any]] | None:
    """The stored phases of a phased workload (None for a plain one)."""
    if not is_schedule(workload):
        return None
    return [dict(p) for p in (workload[SCHEDULE_KEY] or {}).get("phases") or []]


def _gpu_spec(gpu_id: str, book: PriceBook | None) -> Any:
    pool = (book.gpus if book is not None and book.gpus else None) or default_gpus()
    return next((g for g in pool if g.id == gpu_id), None)


def _gpu_name(gpu_id: str, book: PriceBook | None = None) -> str:
    spec = _gpu_spec(gpu_id, book)
    return spec.name if spec is not None else gpu_id


def _per_node(gpu_id: str, book: PriceBook | None = None) -> int:
    """GPUs in one server of this GPU (8 when the GPU is unknown)."""
    spec = _gpu_spec(gpu_id, book)
    return spec.gpus_per_node if spec is not None else 8


def _nodes(gpu_id: str, count: float, book: PriceBook | None = None) -> int:
    """Nodes the phase's GPUs fill (the GPU's node size; 8 when the GPU is unknown)."""
    return max(1, math.ceil(count / _per_node(gpu_id, book) - 1e-9))


def parse(workload: Mapping[str, Any]) -> ScheduleIn:
    try:
        return ScheduleIn.model_validate(workload[SCHEDULE_KEY])
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise ScheduleError(loc or "phases", str(err["msg"]).replace("%", "%%")) from e


def _check_gpu(i: int, gpu_id: str, count: float, book: PriceBook, field: str) -> None:
    """The GPU must be in the catalog with rental offers, the count whole or a listed slice."""
    offered = sorted({o.gpu_id for o in book.offers})
    if _gpu_spec(gpu_id, book) is None or gpu_id not in offered:
        raise ScheduleError(
            f"phases.{i}.{field}",
            N_("No rental offers for this GPU in the price list (GPUs with offers: %(gpus)s)."),
            gpus=", ".join(offered),
        )
    slices = sorted({o.gpu_count for o in book.offers if o.gpu_id == gpu_id and o.gpu_count < 1})
    whole = count >= 1 and float(count).is_integer()
    if not whole and not any(abs(count - s) < 1e-9 for s in slices):
        if slices:
            raise ScheduleError(
                f"phases.{i}.gpu_count",
                N_("Must be a whole number of GPUs or a listed slice (%(slices)s)."),
                slices=", ".join(f"{s:g}" for s in slices),
            )
        raise ScheduleError(f"phases.{i}.gpu_count", N_("Must be a whole number of GPUs."))


def _check_option(
    i: int,
    p: PhaseIn,
    gpu_id: str,
    count: float,
    book: PriceBook,
    group: int = 1,
    independent: bool = False,
) -> None:
    """An hourly phase needs an hourly price, a contract a tier no longer than the phase
    (on the rental `schedule_cost` bills: the cheapest that holds `group` GPUs per machine,
    as independent machines for a service)."""
    sel = select_offers(book, gpu_id, count, group, _per_node(gpu_id, book), independent)
    if sel is None:
        return  # _check_gpu said why, or schedule_cost says no machine holds the group
    if p.option == "hourly" and any(o.hourly_price is None for o, _ in sel.parts):
        raise ScheduleError(
            f"phases.{i}.option",
            N_("This GPU is not rented by the hour here: choose monthly or a contract."),
        )
    if p.option == "contract" and term_discount(sel.main, math.floor(p.months + 1e-9))[0] is None:
        raise ScheduleError(
            f"phases.{i}.option",
            N_("No contract of %(months)s months or less is listed for this GPU."),
            months=f"{p.months:g}",
        )


def _size(i: int, p: PhaseIn, book: PriceBook) -> tuple[str, float, int, dict[str, Any]]:
    """(GPU id, GPU count, GPUs that must share one machine, what the engine said) for phase
    `i`: a workload's machine group as its plan is priced (`plan_costs.machine_group`: a
    training job's node, a service's tensor-parallel group), 1 for a capacity line."""
    if p.kind == "capacity":
        if p.workload is not None:
            raise ScheduleError(f"phases.{i}.workload", N_("Only a workload phase has a workload."))
        if not p.gpu:
            raise ScheduleError(f"phases.{i}.gpu", N_("A capacity phase needs a GPU."))
        if p.gpu_count is None:
            raise ScheduleError(f"phases.{i}.gpu_count", N_("A capacity phase needs a GPU count."))
        _check_gpu(i, p.gpu, p.gpu_count, book, "gpu")
        _check_option(i, p, p.gpu, p.gpu_count, book)
        return p.gpu, p.gpu_count, 1, {}
    if p.workload is None:
        raise ScheduleError(f"phases.{i}.workload", N_("A workload phase needs a workload."))
    for name in ("gpu", "gpu_count"):
        if getattr(p, name) is not None:
            raise ScheduleError(
                f"phases.{i}.{name}", N_("A workload phase pins its GPU in its workload.")
            )
    try:
        resp = estimate(p.workload, prices=book)
    except InputError as e:
        where = f"phases.{i}.workload.{e.field}"
        if isinstance(e.message, Notice):  # its msgid, translated where it is shown
            raise ScheduleError(where, e.message.template, **e.message.params) from e
        raise ScheduleError(where, str(e).replace("%", "%%")) from e
    gpu_id, count = resp.gpu.id, float(resp.gpu.count)
    group = machine_group(
        task=p.workload.task,
        count=math.ceil(count),
        tp=resp.parallelism.tp,
        gpus_per_node=_per_node(gpu_id, book),
        fraction=count if count < 1 else None,
    )
    _check_gpu(i, gpu_id, count, book, "workload.gpu")
    independent = machines_independent(p.workload.task)
    _check_option(i, p, gpu_id, count, book, group, independent)
    job_days = resp.training.days if resp.training is not None else None
    return (
        gpu_id,
        count,
        group,
        {
            "task": p.workload.task,
            "model_name": str(resp.model.get("name") or ""),
            "job_days": job_days,
            "fits_in_phase": job_days is None or job_days <= p.months * DAYS_PER_MONTH + 1e-9,
            "engine_tier": resp.tier,
            "independent_machines": independent,
        },
    )


def compute(
    workload: Mapping[str, Any], book: PriceBook | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(workload dump, result dump) for a phased workload priced with `book`."""
    sched = parse(workload)
    if book is None:
        raise ScheduleError("price_list_id", N_("A phased plan needs a published price list."))
    sized = [_size(i, p, book) for i, p in enumerate(sched.phases)]
    phases = [
        Phase(
            gpu,
            count,
            p.months,
            p.hours_per_month,
            p.label,
            p.option,
            gpus_per_machine_min=group,
            gpus_per_node=_per_node(gpu, book),
            independent_machines=bool(said.get("independent_machines")),
        )
        for p, (gpu, count, group, said) in zip(sched.phases, sized, strict=True)
    ]
    try:
        cost = schedule_cost(phases, book, sched.currency)
    except CostInputError as e:
        field = e.field.replace("[", ".").replace("]", "").replace(".gpu_id", ".gpu")
        raise ScheduleError(field, str(e).replace("%", "%%")) from e
    priced = []
    options = []
    # A phase whose job outlasts its months (the plan page marks it beside the phase; an API
    # reader had only `fits_in_phase` — QA: a 25-million-day job quoted as one month carried
    # no warning).
    late = [
        Notice(
            PHASE_TOO_SHORT,
            n=str(i + 1),
            days=number(said["job_days"], 1),
            phase_days=number(p.months * DAYS_PER_MONTH, 1),
        )
        for i, (p, (*_, said)) in enumerate(zip(sched.phases, sized, strict=True))
        if not said.get("fits_in_phase", True)  # a capacity line has no job
    ]
    for i, (p, pc, (*_, said)) in enumerate(zip(sched.phases, cost.phases, sized, strict=True)):
        nodes = _nodes(pc.phase.gpu_id, pc.gpus, book)
        row = {
            "kind": p.kind,
            "label": p.label,
            "gpu": pc.phase.gpu_id,
            "gpu_name": _gpu_name(pc.phase.gpu_id, book),
            "gpu_count": pc.phase.gpu_count,
            "billed_gpus": pc.gpus,
            "nodes": nodes,
            "months": pc.phase.months,
            "option": p.option,
            "hours_per_month": pc.phase.hours_per_month,
            "billing": pc.kind,
            "term_months": pc.term_months,
            "hours": pc.hours,
            "start_month": pc.start_month,
            "monthly": pc.monthly,
            "total": pc.total,
            "source_ids": list(pc.source_ids),
            **said,
        }
        priced.append(row)
        hourly = pc.kind == "rent_hourly"
        options.append(
            {
                "key": phase_key(i),
                "kind": pc.kind,
                "label": f"Phase {i + 1}: {pc.phase.label or p.kind}",
                "phase": i,
                "phase_kind": p.kind,
                "phase_label": p.label,
                "task": said.get("task"),
                "gpu": {"count": pc.gpus, "name": row["gpu_name"], "nodes": nodes},
                "term_months": pc.term_months,
                "monthly_rate": None if hourly else pc.monthly,
                "hourly_rate": pc.monthly / pc.phase.hours_per_month if hourly else None,
                "billed": {
                    "unit": "hour" if hourly else "month",
                    "quantity": pc.hours if hourly else pc.phase.months,
                    "gpus": pc.gpus,
                    "nodes": nodes,
                },
                "period_months": pc.phase.months,
                "total": pc.total,
                "upfront": 0.0,
                "currency": cost.currency,
                "source_ids": list(pc.source_ids),
                "feasible": True,
                "economical": True,
                "note": "",
            }
        )
    explain = [explanation_dict(x) for x in cost.explain]
    headline = {
        "key": OPTION_KEY,
        "kind": "rent_monthly",
        "label": "Phased rental",
        "months": cost.months,  # what a quote line of the whole schedule covers
        "monthly_rate": cost.monthly,
        "total": cost.total,
        "upfront": 0.0,
        "currency": cost.currency,
        "cumulative": list(cost.cumulative),
        "source_ids": sorted({i for pc in cost.phases for i in pc.source_ids}),
        "feasible": True,
        "note": "",
    }
    top = max(priced, key=lambda r: r["billed_gpus"])
    result: dict[str, Any] = {
        "kind": "schedule",
        "tier": tier_for(top["billed_gpus"], top["nodes"]),
        "gpu": {
            "id": top["gpu"],
            "name": top["gpu_name"],
            "count": top["billed_gpus"],
            "nodes": top["nodes"],
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
            "options": [headline, *options],
            "break_even": [],
            "price_list": {
                "name": book.name,
                "effective_date": str(getattr(book, "effective_date", "") or ""),
                "currency": book.currency,
            },
        },
        "warnings": [str(n) for n in late],
        "notices": [{"template": n.template, "params": n.params} for n in late],
        "explain": explain,
    }
    return {SCHEDULE_KEY: sched.model_dump(mode="json", exclude_none=True)}, result


def schedule_workload(
    phases: Sequence[PhaseIn | Mapping[str, Any]], currency: str = "TWD"
) -> dict[str, Any]:
    """The workload JSON of a phased plan."""
    dumped = [
        p.model_dump(mode="json", exclude_none=True) if isinstance(p, PhaseIn) else dict(p)
        for p in phases
    ]
    return {SCHEDULE_KEY: {"phases": dumped, "currency": currency}}


def from_workload(workload: Mapping[str, Any], months: float = 1) -> dict[str, Any]:
    """A plain plan's workload as the first phase of a phased plan."""
    return {"kind": "workload", "months": months, "option": "cheapest", "workload": dict(workload)}


#: Seed 003 T16: a 13B customer-service model — 2 months of LoRA, 1 month of full
#: fine-tuning, then inference; the engine sizes each workload on H100s (1, 4 and 1 GPUs:
#: a 13B full fine-tune's weights, gradients and Adam states do not fit on fewer).
_T16_MODEL: Final = {"preset": "llama-2-13b"}
T16_PHASES: Final = (
    {
        "kind": "workload",
        "months": 2,
        "option": "monthly",
        "workload": {
            "model": _T16_MODEL,
            "task": "lora",
            "dataset_gb": 5,
            "epochs": 2,
            "gpu": H100,
        },
    },
    {
        "kind": "workload",
        "months": 1,
        "option": "monthly",
        "workload": {
            "model": _T16_MODEL,
            "task": "full_finetune",
            "dataset_gb": 5,
            "epochs": 2,
            "gpu": H100,
        },
    },
    {
        "kind": "workload",
        "months": 1,
        "option": "monthly",
        "workload": {"model": _T16_MODEL, "task": "inference", "concurrency": 16, "gpu": H100},
    },
)
#: The same four months on four GPUs from day one (T16's "nearly twice as much").
T16_DAY_ONE: Final = (
    {"kind": "capacity", "gpu": H100, "gpu_count": 4, "months": 4, "option": "monthly"},
)
