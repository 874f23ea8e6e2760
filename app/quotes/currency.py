"""A plan's figures in the currency its quote is in.

A plan is priced in its price list's currency (NT$); a customer billed in US dollars gets a
quote whose lines are converted at the rate the quote states (`quote.fx`, the price list's
own rate on its date). Everything else the customer's document prints — the ways to pay, the
phases, the charts — is converted here at that same rate, so the document reads one currency
and every converted figure can be checked against the rate printed under the totals (QA of
stop 22: a US$ quote printed "NT$3,523/h × 955 h" under its US$ lines).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final

from app.quotes import pricing

#: Money fields of a cost option (app.engine.plan_costs.comparison_dict, app.plans.schedule).
OPTION_MONEY: Final = (
    "monthly_rate",
    "hourly_rate",
    "total",
    "upfront",
    "fixed_monthly",
    "metered_monthly_full",
)
#: Money fields of the cost block itself: unit costs of a serving or image plan.
COST_MONEY: Final = ("cost_per_million_tokens", "cost_per_image")
#: Money fields of a phase of a phased plan and of the schedule's own totals.
PHASE_MONEY: Final = ("monthly", "total")


def in_quote_currency(amount: Decimal, from_ccy: str, quote: Mapping[str, Any]) -> Decimal | None:
    """`amount` (in `from_ccy`) in the quote's currency, through the quote's own FX rate;
    unchanged when the two are the same; None when the quote states no rate between them."""
    to_ccy = str(quote.get("currency") or from_ccy)
    if from_ccy == to_ccy:
        return amount
    fx = quote.get("fx") or {}
    if not fx.get("rate"):
        return None
    rate = pricing.dec(fx["rate"])
    if (from_ccy, to_ccy) == (fx.get("base"), fx.get("quote")):
        return amount * rate
    if (from_ccy, to_ccy) == (fx.get("quote"), fx.get("base")):
        return amount / rate
    return None


def result_in_quote_currency(result: Mapping[str, Any], quote: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a plan's stored `result` whose money is in the quote's currency.

    Converted: every option's rates, totals, up-front price, cost breakdown and cumulative
    cost (in `cost.options` and `cost.tco_options.options`), the TCO bars, the unit costs,
    and a phased plan's phases and totals. Unchanged: quantities, months, keys, the
    engine's explanations (the sales engineer's, in the plan's own currency). The result is
    returned as it is when it is already in the quote's currency, or when the quote states
    no rate to convert with (then nothing is half-converted)."""
    cost: Mapping[str, Any] = result.get("cost") or {}
    from_ccy = str(cost.get("currency") or "TWD")
    to_ccy = str(quote.get("currency") or from_ccy)
    if to_ccy == from_ccy or in_quote_currency(Decimal(1), from_ccy, quote) is None:
        return dict(result)

    def conv(value: Any) -> Any:
        if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            return value
        out = in_quote_currency(pricing.dec(value), from_ccy, quote)
        return float(out) if out is not None else value

    def option(o: Mapping[str, Any]) -> dict[str, Any]:
        out = {**o, **{k: conv(o[k]) for k in OPTION_MONEY if k in o}}
        if isinstance(o.get("breakdown"), Mapping):
            out["breakdown"] = {k: conv(v) for k, v in o["breakdown"].items()}
        if isinstance(o.get("cumulative"), list):
            out["cumulative"] = [conv(v) for v in o["cumulative"]]
        if "currency" in o:
            out["currency"] = to_ccy
        return out

    def options(block: Mapping[str, Any]) -> dict[str, Any]:
        out = {**block, "options": [option(o) for o in block.get("options") or []]}
        if "currency" in block:
            out["currency"] = to_ccy
        return out

    new_cost = options(cost)
    for key in COST_MONEY:
        if key in cost:
            new_cost[key] = conv(cost[key])
    if isinstance(cost.get("tco_options"), Mapping):
        new_cost["tco_options"] = options(cost["tco_options"])
    if isinstance(cost.get("tco"), list):
        new_cost["tco"] = [
            {
                **row,
                "years": [
                    {k: (v if k == "year" else conv(v)) for k, v in year.items()}
                    for year in row.get("years") or []
                ],
            }
            for row in cost["tco"]
        ]
    out = {**result, "cost": new_cost}
    sched = result.get("schedule")
    if isinstance(sched, Mapping):
        out["schedule"] = {
            **sched,
            **{k: conv(sched[k]) for k in PHASE_MONEY if k in sched},
            "cumulative": [conv(v) for v in sched.get("cumulative") or []],
            "phases": [
                {**p, **{k: conv(p[k]) for k in PHASE_MONEY if k in p}}
                for p in sched.get("phases") or []
            ],
            "currency": to_ccy,
        }
    return out
