"""Mixed schedules: phases rented one after another (PRODUCT.md journey 4, seed 003 T16).

T16: a 13B customer-service model — two months of LoRA on one GPU, one month of full
fine-tuning on four, then back to one GPU for inference — costs under NT$400,000; renting
four GPUs from day one costs "nearly twice as much". Each phase is rented the cheapest way
for its own hours and length: hourly, or monthly with the discount of the largest contract
tier that fits inside the phase (seed 003 T8).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from app.engine.costs.context import convert
from app.engine.costs.formulas import term_discount
from app.engine.costs.ledger import Ledger
from app.engine.costs.model import (
    HOURS_PER_MONTH,
    PHASE_OPTIONS,
    CostInputError,
    Phase,
    PhaseCost,
    ScheduleCost,
    money_places,
    round_money,
)
from app.engine.costs.rental import Converter, OfferSelection, select_offers
from app.engine.costs.validate import in_range, positive, whole
from app.engine.explain import Explanation, Operand, money, number, operands, percent
from app.engine.formatting import exact_money
from app.engine.formatting import months as fmt_months
from app.engine.price_book import PriceBook


def schedule_cost(phases: Sequence[Phase], book: PriceBook, currency: str = "TWD") -> ScheduleCost:
    """Total rent of consecutive phases, each billed the cheapest way (seed 003 T8, T16).

    Money in `currency`; months are 730-hour months. Each phase rents the cheapest runnable
    selection by monthly list rent (`select_offers`: machines that hold the phase's
    `gpus_per_machine_min`), the one rent a phase line quotes. Raises CostInputError naming
    the phase field (`phases[1].gpu_count`) and its allowed range.
    """
    if not phases:
        raise CostInputError("phases", "at least one phase", list(phases))
    convert(book, 1.0, book.currency, currency)  # fails early on an unknown currency

    def conv(amount: float, ccy: str) -> float:
        return convert(book, amount, ccy, currency)

    total_months = 0.0
    for i, ph in enumerate(phases):
        if ph.option not in PHASE_OPTIONS:
            raise CostInputError(f"phases[{i}].option", " | ".join(PHASE_OPTIONS), ph.option)
        positive(f"phases[{i}].gpu_count", ph.gpu_count)
        whole(f"phases[{i}].gpus_per_machine_min", ph.gpus_per_machine_min, 1, 4096)
        total_months += positive(f"phases[{i}].months", ph.months)
        in_range(
            f"phases[{i}].hours_per_month", ph.hours_per_month, 0, HOURS_PER_MONTH, lo_open=True
        )
    ledger = Ledger(max(1, math.ceil(total_months - 1e-9)))
    results: list[PhaseCost] = []
    start = 0.0
    for i, ph in enumerate(phases):
        label = ph.label or f"Phase {i + 1}"
        sel = select_offers(
            book,
            ph.gpu_id,
            ph.gpu_count,
            ph.gpus_per_machine_min,
            ph.gpus_per_node,
            independent=ph.independent_machines,
        )
        if sel is None:
            rentable = sorted({o.gpu_id for o in book.offers})
            if ph.gpu_id in rentable:
                raise CostInputError(
                    f"phases[{i}].gpu_id",
                    f"a GPU rented in machines of at least {ph.gpus_per_machine_min} GPUs on "
                    f"NVLink (what the phase's plan keeps in one machine) in price list "
                    f"{book.name!r}",
                    ph.gpu_id,
                )
            raise CostInputError(
                f"phases[{i}].gpu_id",
                f"a GPU with rental offers in price list {book.name!r} ({', '.join(rentable)})",
                ph.gpu_id,
            )
        src = f"seed 003 T8/T16; price list {book.name!r}; offers {', '.join(sel.ids)}"
        monthly, kind, how, tier, hours = _bill(sel, ph, i, conv, currency)
        ledger.recurring(label, monthly, ph.months, start)
        # Rounded once to NT$1 / US$0.01, as a quote line is: the schedule's total is the sum
        # of the phases as printed (they were float sums, a fraction of a dollar apart).
        cost = round_money(monthly * ph.months, currency)
        x = Explanation(
            f"{label}: {number(sel.gpus)}× {ph.gpu_id}",
            cost,
            currency,
            f"{how} = {exact_money(monthly, currency)}/month × {fmt_months(ph.months)} "
            f"= {exact_money(cost, currency)}",
            src,
            operands(monthly=(monthly, f"{currency}/month"), months=(ph.months, "months")),
            f"round_half_up(monthly * months, {money_places(currency)})",
        )
        results.append(
            PhaseCost(
                ph,
                kind,
                start,
                monthly,
                cost,
                sel.ids,
                [x],
                gpus=sel.gpus,
                term_months=tier,
                hours=hours * ph.months,
            )
        )
        start += ph.months

    total = round_money(sum(p.total for p in results), currency)  # float noise only
    explain = [x for p in results for x in p.explain]
    explain.append(
        Explanation(
            "Schedule total",
            total,
            currency,
            " + ".join(exact_money(p.total, currency) for p in results)
            + f" = {exact_money(total, currency)} over {fmt_months(total_months)} "
            f"({money(total / total_months, currency)}/month on average)",
            "seed 003 T16 (phased rental: < NT$400,000 for the worked example)",
            [Operand(f"phase_{i}", p.total, currency) for i, p in enumerate(results, 1)],
            " + ".join(f"phase_{i}" for i in range(1, len(results) + 1)) or "0",
        )
    )
    return ScheduleCost(
        phases=results,
        total=total,
        months=total_months,
        monthly=total / total_months,
        currency=currency,
        cumulative=ledger.cumulative(),
        explain=explain,
    )


def _bill(
    sel: OfferSelection, ph: Phase, i: int, conv: Converter, currency: str
) -> tuple[float, str, str, int | None, float]:
    """(monthly rent, kind, its formula, contract tier, hours billed per month) of a phase
    billed the way its `option` says (seed 003 T8 prices and contract tiers).

    cheapest: hourly when hours_per_month × the hourly price is below the month's rent,
    else monthly with the largest contract tier that fits inside the phase; contract: that
    tier, refused (`phases[i].option`) when the phase is shorter than the shortest tier;
    hourly: refused when an offer has no hourly price."""
    term = math.floor(ph.months + 1e-9)
    hourly = sel.hourly(conv)
    if ph.option == "hourly":
        if hourly is None:
            raise CostInputError(
                f"phases[{i}].option", "monthly or a contract (no hourly price listed)", "hourly"
            )
        how = f"{exact_money(hourly, currency)}/h × {number(ph.hours_per_month)} h/month"
        return hourly * ph.hours_per_month, "rent_hourly", how, None, ph.hours_per_month
    tier, discount = term_discount(sel.main, term) if term >= 1 else (None, 0.0)
    if ph.option == "monthly":
        tier, discount = None, 0.0
    if ph.option == "contract" and tier is None:
        shortest = min(sel.main.term_discounts, default=None)
        raise CostInputError(
            f"phases[{i}].option",
            f"a phase of at least {shortest} months for a contract"
            if shortest
            else "monthly or hourly (no contract listed)",
            ph.months,
        )
    monthly = sel.term_monthly(conv, term) if tier is not None else sel.monthly(conv)
    if not (discount > 0 or ph.option == "contract"):
        tier = None  # the cheapest way: a contract at list price is plain monthly rent
    kind = "mig" if sel.is_slice else ("rent_term" if tier is not None else "rent_monthly")
    list_price = sel.formula(conv, currency, lambda o: o.monthly_price, group=discount > 0)
    how = (
        f"{list_price} × (1 − {number(discount)}) ({tier}-month tier)"
        if discount
        else (f"{list_price} ({tier}-month contract at list price)" if tier else list_price)
    )
    if ph.option == "cheapest" and hourly is not None and hourly * ph.hours_per_month < monthly:
        how = f"{exact_money(hourly, currency)}/h × {number(ph.hours_per_month)} h/month"
        return hourly * ph.hours_per_month, "rent_hourly", how, None, ph.hours_per_month
    return monthly, kind, how, tier, 0.0


def schedule_ratio_explained(a: ScheduleCost, b: ScheduleCost, what: str) -> Explanation:
    """How many times `b` costs `a` ("4 GPUs from day one" vs the phased plan, T16)."""
    ratio = b.total / a.total
    return Explanation(
        what,
        ratio,
        "×",
        f"{exact_money(b.total, b.currency)} / {exact_money(a.total, a.currency)} = {number(ratio)}× "
        f"({percent(ratio - 1)} more)",
        'seed 003 T16 ("nearly twice as much")',
        operands(total_b=(b.total, b.currency), total_a=(a.total, a.currency)),
        "total_b / total_a",
    )
