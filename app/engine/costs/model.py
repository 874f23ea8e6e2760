"""The cost engine's inputs and results: plain frozen dataclasses, no I/O.

Money fields are in the `currency` the caller asked for (converted with the price list's
own FX rates, never a live one). Months are average calendar months of 730 h
(8,760 h / 12), the convention of the whole engine (`app.engine.units`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from app.engine.explain import Explanation
from app.engine.expression import round_half_up
from app.engine.formatting import CURRENCY_DIGITS
from app.engine.units import HOURS_PER_MONTH

DAYS_PER_MONTH = 365.0 / 12  # 30.42 days: the same average month as HOURS_PER_MONTH
MAX_HORIZON_MONTHS = 120
STORAGE_NETWORK_MIN_SHARE = 0.15  # seed 003 T13: storage + network ≥ 15% of the budget
RESERVED_TERM_MONTHS = 12  # CloudInstance.reserved_hourly is a 1-year commitment
GPUS_PER_NODE = 8  # HGX baseboard; seed 003 T6: the 16-GPU template is 2 nodes of 8
#: job: a finite piece of work (training, a batch of images) priced by its duration;
#: capacity: an ongoing service (inference, image serving) priced per month.
PRICING_MODES = ("job", "capacity")

__all__ = [
    "DAYS_PER_MONTH",
    "HOURS_PER_MONTH",
    "MAX_HORIZON_MONTHS",
    "PHASE_OPTIONS",
    "PRICING_MODES",
    "RESERVED_TERM_MONTHS",
    "STORAGE_NETWORK_MIN_SHARE",
    "Billed",
    "BreakEven",
    "CostComparison",
    "CostInputError",
    "CostOption",
    "Phase",
    "PhaseCost",
    "ScheduleCost",
    "TcoCurve",
    "Usage",
    "money_places",
    "round_money",
]


def money_places(currency: str) -> int:
    """Decimals of the currency's smallest amount: 0 for NT$, 2 for US$ (as quotes bill)."""
    return CURRENCY_DIGITS.get(currency, 2)


def round_money(amount: float, currency: str) -> float:
    """`amount` rounded once, half up, to the currency's unit (NT$1, US$0.01), as a quote
    rounds each line (app.quotes.pricing.round_money): a cost figure is rounded where it is
    computed and every sum or product of it is taken from the rounded figure, so the parts
    printed add up to the total printed (QA: "NT$13,565,952 + NT$678,298 + NT$2,034,893 =
    NT$16,279,142")."""
    return round_half_up(amount, money_places(currency))


class CostInputError(ValueError):
    """Invalid input to the cost engine; `field` names the input, `allowed` its range.

    A ValueError, so callers that only know ValueError still catch it; the API layer can
    turn `field` and `allowed` into a 422 without parsing the message.
    """

    def __init__(self, field: str, allowed: str, got: object) -> None:
        self.field = field
        self.allowed = allowed
        self.got = got
        super().__init__(f"{field} must be {allowed} (got {got!r})")


@dataclass(frozen=True)
class Usage:
    """What the customer needs, independent of how it is paid for.

    gpu_id: `GpuSpec.id`; gpu_count: GPUs needed (0.25 = a MIG 1/4 slice);
    hours_per_month: hours the GPUs are busy per month (730 = always on);
    months: how long the need lasts; power_kw: IT power of the whole configuration when
    running (GPUs + CPUs + the rest), kW, which a rental without power is charged for (buying
    charges the servers it buys at their rated kW instead, `ownership.buy_option`);
    storage_network_monthly: separately priced storage
    and network per month, in the price list's home currency (seed 003 T13); gpus_per_node:
    GPUs in one server of this GPU (counts the nodes a rental or purchase bills for);
    gpus_per_machine_min: the GPUs that must sit inside one machine (on NVLink where the
    GPU has it, `nvlink`)
    (`plan_costs.machine_group`): a service's tensor-parallel group, whose all-reduces run on
    every layer (Narayanan et al. 2021 §3: tensor parallelism inside a node), or a training
    job's node, which its planner times on NVLink. 1 for single-GPU replicas, a MIG slice, or
    where no plan exists (the /tco page). A rental machine or cloud instance must hold whole
    groups of it, else that option cannot run the plan (`feasible` False).
    """

    gpu_id: str
    gpu_count: float
    hours_per_month: float
    months: float
    power_kw: float
    storage_network_monthly: float = 0.0
    gpus_per_node: int = GPUS_PER_NODE
    gpus_per_machine_min: int = 1
    # Whether that group talks over NVLink (an H100 SXM box) or the machine's PCIe (an L4,
    # L40S or RTX 4090 box): a "not runnable" note says which (QA read "needs 2 GPUs on
    # NVLink" for L4s, which have none).
    nvlink: bool = True
    # Whether the machines holding the need exchange no data, so they need no fabric
    # (InfiniBand) between them: serving replicas, each a whole copy of the model inside one
    # machine (`gpus_per_machine_min` is its tensor-parallel group). Rent then takes the
    # cheapest mix of machines of any size (`rental._cover`: 26 single-GPU replicas as
    # 8 + 8 + 8 + 2, not two 16-GPU InfiniBand offers). False for a training job, which its
    # planner times on InfiniBand between nodes (`plan_costs.machine_group`), and where no
    # plan says (the /tco page): a need larger than every offer is then rented as the
    # largest offer repeated, never spread over more separate machines than that.
    independent_machines: bool = False


#: Months of the 1–5-year TCO view.
TCO_MONTHS = 60


def five_year_usage(usage: Usage) -> Usage:
    """The same configuration kept busy for the five years of the TCO view."""
    return replace(usage, months=TCO_MONTHS)


@dataclass(frozen=True)
class Billed:
    """What an option bills for: `quantity` × `unit` ("hour" | "month") of `gpus` GPUs in
    `nodes` servers (rental nodes, bought servers or cloud instances).

    Hourly rent and on-demand cloud are billed by whole hours of use; monthly, term and
    reserved capacity by whole months of the rental period; buying by the months the
    hardware is held before it is resold.
    """

    unit: str
    quantity: float
    gpus: float
    nodes: int


@dataclass(frozen=True)
class CostOption:
    """One way of paying for a `Usage`, over the comparison horizon.

    kind: rent_hourly | rent_monthly | rent_term | mig | buy | cloud | cloud_reserved.
    key: unique within a comparison, "<kind>:<main source id>" (what `BreakEven` and
    `CostComparison.cheapest` refer to). total: what the option costs for the quoted period
    (`period_months`). monthly_rate: the recurring charge per month (rent or cloud per month
    plus storage/network and power, or buying's amortised run-rate) where the option has
    one, None where it is billed by the hour for a job. hourly_rate: price per billed hour
    (hourly rent, on-demand cloud), else None. billed: the quantity billed (`Billed`).
    economical: False when buying for a period too short to pay back (the total is then
    not a fair comparison and is left out of "cheapest"). provider: who rents it or runs the
    cloud ("Stratagem Taipei", "RunPod", "AWS"; "" for buying) — two providers' monthly rent
    are both "Monthly rent". upfront: paid at month 0 (capex when buying). breakdown: named parts that sum to
    `total` (rent, cloud, capex, storage_network, power, facility, maintenance, staff,
    residual ≤ 0). cumulative: cumulative cost at the end of months 0..horizon, index 0 =
    upfront; cumulative_parts: the same per breakdown part. fixed_monthly and
    metered_monthly_full: the run-rate per month that does not depend on utilisation and
    the part that does, at 100 % (730 h) — `break_even_utilization` uses them.
    held_months: buying only, the months the servers are held before they are resold (its
    running costs and resale value are for this period; `billed` counts whole months).
    """

    kind: str
    label: str
    monthly_rate: float | None
    total: float
    upfront: float
    currency: str
    breakdown: dict[str, float]
    cumulative: list[float]
    lead_time_days: float
    source_ids: list[str]
    explain: list[Explanation]
    feasible: bool = True
    note: str = ""
    key: str = ""
    fixed_monthly: float = 0.0
    metered_monthly_full: float = 0.0
    cumulative_parts: dict[str, list[float]] = field(default_factory=dict)
    hourly_rate: float | None = None
    billed: Billed | None = None
    period_months: float = 0.0
    economical: bool = True
    provider: str = ""
    held_months: float = 0.0  # buying: the months the servers are held, then resold
    # rent_term: the contract's length in months, the least a quote may bill at its price
    contract_months: int | None = None
    # buying: the months its monthly run-rate spreads the hardware over (the amortisation
    # period), which need not be the months it is held: the rate × the held months is not
    # its total (QA read NT$470,732 a month × 12 ≠ the 12-month total of NT$5,950,250)
    amortisation_months: float = 0.0


@dataclass(frozen=True)
class BreakEven:
    """Where two options' cumulative cost curves cross.

    a: key of the option that is cheaper first; b: the other; month: the first (fractional)
    month at which `a` stops being cheaper, or None if it never does within the horizon.
    """

    a: str
    b: str
    month: float | None
    note: str = ""


@dataclass(frozen=True)
class CostComparison:
    """All options for one `Usage` side by side (PRODUCT.md journey 3)."""

    options: list[CostOption]
    break_even: list[BreakEven]
    # key of the feasible option with the lowest total; None when no option can run the plan
    # (none is named the cheapest then: a warning says so, and each option's note says why)
    cheapest: str | None
    storage_network_share: float | None  # seed 003 T13; None when nothing is budgeted
    warnings: list[str]
    explain: list[Explanation]
    currency: str = "TWD"
    horizon_months: int = 0
    hours_per_month: float = HOURS_PER_MONTH
    utilization: float = 1.0
    pricing_mode: str = "job"
    period_months: float = 0.0  # the rental period quoted (rent_months, else the need)

    def option(self, key: str) -> CostOption:
        """The option with this key, or the first of this kind ("buy", "rent_monthly")."""
        for o in self.options:
            if o.key == key:
                return o
        for o in self.options:
            if o.kind == key:
                return o
        raise KeyError(f"no option {key!r}; options: {', '.join(o.key for o in self.options)}")


@dataclass(frozen=True)
class Phase:
    """One stretch of a mixed schedule (seed 003 T16: 2 months LoRA on 1 GPU, …)."""

    gpu_id: str
    gpu_count: float
    months: float
    hours_per_month: float = HOURS_PER_MONTH
    label: str = ""
    #: How the phase is billed: "cheapest" (hourly or monthly, with the largest contract tier
    #: that fits inside the phase), "hourly" (hours_per_month × months), "monthly" (list
    #: price per month, no contract) or "contract" (the largest contract tier ≤ months).
    option: str = "cheapest"
    #: GPUs that must share one machine (a sized workload's machine group; 1 for a capacity
    #: line) and GPUs in one server of this GPU: see `Usage`.
    gpus_per_machine_min: int = 1
    gpus_per_node: int = GPUS_PER_NODE
    #: Whether the phase's machines need no fabric between them (`Usage.independent_machines`:
    #: a serving phase's replicas), so it rents the cheapest mix of machines at any size.
    independent_machines: bool = False


PHASE_OPTIONS = ("cheapest", "hourly", "monthly", "contract")


@dataclass(frozen=True)
class PhaseCost:
    """What one phase costs when rented the cheapest way for its hours and length."""

    phase: Phase
    kind: str  # rent_hourly | rent_monthly | rent_term | mig
    start_month: float
    monthly: float
    total: float
    source_ids: list[str]
    explain: list[Explanation]
    gpus: float = 0.0  # GPUs billed (3 asked for rent as a 4-GPU machine)
    term_months: int | None = None  # the contract tier applied, if any
    hours: float = 0.0  # hours billed, for a phase billed by the hour


@dataclass(frozen=True)
class ScheduleCost:
    """A sequence of rented phases (PRODUCT.md journey 4, seed 003 T16)."""

    phases: list[PhaseCost]
    total: float
    months: float
    monthly: float  # total / months
    currency: str
    cumulative: list[float]  # at the end of months 0..ceil(months)
    explain: list[Explanation]


@dataclass(frozen=True)
class TcoCurve:
    """Cumulative cost of one option at the end of each year, split into stacked parts."""

    key: str
    kind: str
    label: str
    currency: str
    months: list[int]
    parts: dict[str, list[float]]  # capex, storage_network, residual, power, facility, …
    total: list[float]
