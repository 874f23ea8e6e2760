"""The cost engine: rent (hourly, monthly, term), buy, or public cloud — and when each wins.

Pure Python (no FastAPI, SQLModel, Jinja or Plotly). It takes a `Usage` and a `PriceBook`
and returns `CostOption`s whose every figure carries an `Explanation`. Rules come from
seed 003 (T7 power, T8 rental prices, T9 buying, T10 cloud, T13 storage share, T16 phased
rental) and seed 000 (U4 rent vs buy, U8 cost per 1M tokens); see PRODUCT.md §3–4.

Modules: `model` (dataclasses), `formulas` (single formulas), `rental`, `ownership`
(buying), `cloud`, `compare` (`compare_costs`), `schedule` (`schedule_cost`), `tco`.
"""

from app.engine.costs.compare import compare_costs, priced_gpus
from app.engine.costs.formulas import (
    break_even_month,
    break_even_utilization,
    break_even_utilization_explained,
    cost_of_delay,
    cost_per_million_tokens,
    cost_per_million_tokens_explained,
    crossover_explained,
    energy_cost,
    energy_cost_explained,
    hourly_vs_monthly_crossover_hours,
    monthly_cost_at_utilization,
    monthly_kwh,
    simple_break_even_explained,
    simple_break_even_hours,
    term_discount,
)
from app.engine.costs.model import (
    DAYS_PER_MONTH,
    HOURS_PER_MONTH,
    MAX_HORIZON_MONTHS,
    PHASE_OPTIONS,
    STORAGE_NETWORK_MIN_SHARE,
    BreakEven,
    CostComparison,
    CostInputError,
    CostOption,
    Phase,
    PhaseCost,
    ScheduleCost,
    TcoCurve,
    Usage,
)
from app.engine.costs.ownership import book_value, servers_needed
from app.engine.costs.rental import OfferSelection, select_offers
from app.engine.costs.schedule import schedule_cost, schedule_ratio_explained
from app.engine.costs.tco import TCO_STACKS, tco_curves

__all__ = [
    "DAYS_PER_MONTH",
    "HOURS_PER_MONTH",
    "MAX_HORIZON_MONTHS",
    "PHASE_OPTIONS",
    "STORAGE_NETWORK_MIN_SHARE",
    "TCO_STACKS",
    "BreakEven",
    "CostComparison",
    "CostInputError",
    "CostOption",
    "OfferSelection",
    "Phase",
    "PhaseCost",
    "ScheduleCost",
    "TcoCurve",
    "Usage",
    "book_value",
    "break_even_month",
    "break_even_utilization",
    "break_even_utilization_explained",
    "compare_costs",
    "cost_of_delay",
    "cost_per_million_tokens",
    "cost_per_million_tokens_explained",
    "crossover_explained",
    "energy_cost",
    "energy_cost_explained",
    "hourly_vs_monthly_crossover_hours",
    "monthly_cost_at_utilization",
    "monthly_kwh",
    "priced_gpus",
    "schedule_cost",
    "schedule_ratio_explained",
    "select_offers",
    "servers_needed",
    "simple_break_even_explained",
    "simple_break_even_hours",
    "tco_curves",
    "term_discount",
]
