"""Compare every way of paying for a need: rent (hourly, monthly, term), buy, public cloud.

PRODUCT.md journey 3. Options are costed over `horizon_months` from the day the capacity is
usable; the need itself lasts `usage.months` (costs stop when it ends, except contracts that
run longer). All money is converted into the requested currency with the price list's own
FX rates.
"""

from __future__ import annotations

import math

from app.engine.costs.cloud import cloud_options
from app.engine.costs.context import Context, convert
from app.engine.costs.formulas import (
    break_even_utilization_explained,
    crossing,
    utilization_break_evens,
)
from app.engine.costs.model import (
    HOURS_PER_MONTH,
    MAX_HORIZON_MONTHS,
    PRICING_MODES,
    STORAGE_NETWORK_MIN_SHARE,
    BreakEven,
    CostComparison,
    CostInputError,
    CostOption,
    Usage,
)
from app.engine.costs.ownership import buy_option, group_fits
from app.engine.costs.rental import OfferSelection, offer_selections, rental_options
from app.engine.costs.validate import fraction, in_range, non_negative, positive, whole
from app.engine.explain import Explanation, Operand, money, number, operands, percent
from app.engine.formatting import gpus as fmt_gpus
from app.engine.formatting import months as fmt_months
from app.engine.notices import Notice
from app.engine.price_book import EnergyPrice, PriceBook


def priced_gpus(book: PriceBook) -> list[str]:
    """GPU ids that have any price in the list (rental, server or cloud)."""
    ids = {o.gpu_id for o in book.offers} | {s.gpu_id for s in book.servers}
    return sorted(ids | {c.gpu_id for c in book.cloud})


def _energy(book: PriceBook, energy_id: str | None) -> EnergyPrice | None:
    if energy_id is None:
        return book.energy[0] if book.energy else None
    for e in book.energy:
        if e.id == energy_id:
            return e
    known = ", ".join(e.id for e in book.energy) or "none"
    raise CostInputError("energy_id", f"one of the energy prices in the list ({known})", energy_id)


def resolve(
    usage: Usage,
    book: PriceBook,
    *,
    horizon_months: int,
    currency: str,
    term_months: int | None,
    utilization: float | None,
    energy_id: str | None,
    rent_months: float | None = None,
    pricing_mode: str = "job",
) -> Context:
    """Validate the request and resolve hours, months, the rental period and currency."""
    whole("horizon_months", horizon_months, 1, MAX_HORIZON_MONTHS)
    positive("gpu_count", usage.gpu_count)
    positive("months", usage.months)
    non_negative("power_kw", usage.power_kw)
    non_negative("storage_network_monthly", usage.storage_network_monthly)
    whole("gpus_per_machine_min", usage.gpus_per_machine_min, 1, 4096)
    if utilization is not None:
        hours = HOURS_PER_MONTH * fraction("utilization", utilization)
    else:
        hours = in_range("hours_per_month", usage.hours_per_month, 0, HOURS_PER_MONTH, lo_open=True)
    if term_months is not None:
        whole("term_months", term_months, 1, MAX_HORIZON_MONTHS)
    if rent_months is not None:
        in_range("rent_months", rent_months, 0, MAX_HORIZON_MONTHS, lo_open=True)
    if pricing_mode not in PRICING_MODES:
        raise CostInputError("pricing_mode", " or ".join(PRICING_MODES), pricing_mode)
    if not isinstance(currency, str) or not currency:
        raise CostInputError("currency", "a currency code such as TWD or USD", currency)
    storage = convert(book, usage.storage_network_monthly, book.currency, currency)
    if usage.gpu_id not in priced_gpus(book):
        raise CostInputError(
            "gpu_id",
            f"one of the GPUs priced in price list {book.name!r} "
            f"({', '.join(priced_gpus(book)) or 'none'})",
            usage.gpu_id,
        )
    return Context(
        book=book,
        currency=currency,
        horizon=horizon_months,
        hours=hours,
        need_months=usage.months,
        covered=min(usage.months, float(horizon_months)),
        storage_network=storage,
        energy=_energy(book, energy_id),
        term_months=term_months,
        period=float(rent_months) if rent_months is not None else usage.months,
        pricing_mode=pricing_mode,
    )


def break_evens(options: list[CostOption], until: float | None = None) -> list[BreakEven]:
    """Break-even month for every pair of options (cheaper-first option as `a`).

    A crossing that exists only because bought hardware is resold at book value is the
    month of the sale, a whole month with its `note` (QA H2): the resale is paid at once at
    the end of that month, so interpolating across it ("month 59.4") names a month in which
    nothing crosses.

    until: the last month the options pay for the need (`_need_end`); a crossing after it is
    none (month None). Past the need each curve is the payment schedule of a total already
    fixed, not the cost of using the capacity longer: a 12-month contract for a 5-day job
    keeps billing NT$840,000 a month while monthly rent stopped at NT$1,050,000, so its
    curve passes monthly rent's in month 1.25 — "the contract stops being cheaper than
    monthly rent", of a contract that costs NT$10,080,000 against NT$1,050,000 (QA).
    """
    out: list[BreakEven] = []
    for i, x in enumerate(options):
        for y in options[i + 1 :]:
            first, month = crossing(x.cumulative, y.cumulative)
            a, b = (y, x) if first == 1 else (x, y)
            note = _resale_note(a, b, month)
            if note and month is not None:
                month = float(math.ceil(month - 1e-9))
            if month is not None and until is not None and month > until + 1e-9:
                month, note = None, ""
            out.append(BreakEven(a.key, b.key, month, note))
    return out


def _need_end(ctx: Context) -> float:
    """The last month-end at which the options still pay for the need: the need or the
    rental period quoted, in the whole months monthly rent bills and bought hardware is
    held, within the horizon (`break_evens` until)."""
    months = max(ctx.covered, ctx.period_covered)
    return min(float(ctx.horizon), max(1.0, float(math.ceil(months - 1e-9))))


def _resale_note(a: CostOption, b: CostOption, month: float | None) -> str:
    """Say so when the curves cross only because bought hardware is resold that month."""
    if month is None:
        return ""
    i = math.ceil(month - 1e-9)

    def credit(o: CostOption) -> float:
        res = o.cumulative_parts.get("residual")
        return (res[i] - res[i - 1]) if res and i >= 1 else 0.0

    ca, cb = credit(a), credit(b)
    if ca == 0 and cb == 0:
        return ""
    # Without the resale credits, would `a` still be at least as expensive as `b` at month i?
    if (a.cumulative[i] - ca) - (b.cumulative[i] - cb) >= 0:
        return ""
    return (
        f"Crosses only because the bought hardware is resold at book value in month {i}; "
        "before that the first option stays cheaper."
    )


def _storage_share(
    cheapest: CostOption, usage: Usage, warnings: list[str]
) -> tuple[float | None, Explanation | None]:
    """Seed 003 T13: storage + network should be ≥ 15 % of the budget (the cheapest option)."""
    part = cheapest.breakdown.get("storage_network", 0.0)
    if part <= 0 or cheapest.total <= 0:
        if usage.storage_network_monthly <= 0:
            # Named: a purchase prices them (network + storage capex), so "not budgeted"
            # read as wrong beside a buy option that includes 15 % for them (QA).
            warnings.append(
                Notice(
                    "The cheapest option (%(option)s) prices no storage or network: seed 003 "
                    "T13 says they should be at least 15 %% of the budget (NVMe, NAS, "
                    "10GbE/InfiniBand, uplink).",
                    option=cheapest.label,
                )
            )
        return None, None
    share = part / cheapest.total
    ccy = cheapest.currency
    if share < STORAGE_NETWORK_MIN_SHARE:
        warnings.append(
            Notice(
                "Storage + network is %(share)s of the budget of the cheapest option "
                "(%(option)s); seed 003 T13 says at least 15 %%: a GPU starved by slow "
                "storage sits idle while the rent runs.",
                share=percent(share),
                option=cheapest.label,
            )
        )
    return share, Explanation(
        "Storage + network share of the budget",
        share,
        "fraction",
        f"{money(part, ccy)} / {money(cheapest.total, ccy)} = {percent(share)} "
        f"({'≥' if share >= STORAGE_NETWORK_MIN_SHARE else '<'} 15 %)",
        f"seed 003 T13 (storage + network ≥ 15 % of the budget); option {cheapest.key}",
        operands(storage_network=(part, ccy), total=(cheapest.total, ccy)),
        "storage_network / total",
    )


def _explain_comparison(
    ctx: Context,
    sel: OfferSelection | None,
    options: list[CostOption],
    utilization: float | None,
) -> list[Explanation]:
    ccy = ctx.currency
    out = [
        Explanation(
            "Busy GPU hours per month",
            ctx.hours,
            "h/month",
            f"730 h × {number(utilization)} = {number(ctx.hours)} h/month"
            if utilization is not None
            else f"{number(ctx.hours)} h/month as entered ({percent(ctx.hours / HOURS_PER_MONTH)} "
            "of 730 h)",
            "730 h = 8,760 h / 12; metered options (hourly rent, cloud on demand) scale with it",
            *(
                (operands(utilization=(utilization, "of 730 h")), "730 * utilization")
                if utilization is not None
                else (operands(hours=(ctx.hours, "h/month as entered")), "hours")
            ),
        )
    ]
    out.append(
        Explanation(
            "Rental period",
            ctx.period,
            "months",
            (
                f"{fmt_months(ctx.period)} as asked (rent for); the work itself takes "
                f"{fmt_months(ctx.need_months)}"
                if abs(ctx.period - ctx.need_months) > 1e-9
                else f"{fmt_months(ctx.period)}: the need, as no rental period was given"
            )
            + (
                "; capacity mode: an ongoing service, every option priced per month"
                if ctx.pricing_mode == "capacity"
                else "; job mode: hourly options bill the job's hours, monthly ones whole months"
            ),
            "monthly, term and reserved options pay whole months of it; a purchase is held for it",
            operands(
                asked=(float(abs(ctx.period - ctx.need_months) > 1e-9), "1 = rent_months given"),
                rent_months=(ctx.period, "months"),
                need_months=(ctx.need_months, "months"),
            ),
            "rent_months if asked else need_months",
        )
    )
    if sel is not None:
        hourly, monthly = sel.hourly(ctx.conv), sel.monthly(ctx.conv)
        if hourly:
            hours = monthly / hourly
            out.append(
                Explanation(
                    "Hourly vs monthly rent crossover",
                    hours,
                    "h/month",
                    f"{money(monthly, ccy)}/month / {money(hourly, ccy)}/h = {number(hours, 1)} "
                    f"h/month ({percent(hours / HOURS_PER_MONTH)} of 730 h)",
                    f"seed 003 T8 (hourly beats monthly below ≈400 h/month); offers "
                    f"{', '.join(sel.ids)}",
                    operands(monthly=(monthly, f"{ccy}/month"), hourly=(hourly, f"{ccy}/h")),
                    "monthly / hourly",
                )
            )
    out += _exchange_rates(ctx)
    out += _like_for_like(ctx, sel, options)
    out += [x for a, b, _ in utilization_break_evens(options) if (x := _pair_x(a, b))]
    return out


def _exchange_rates(ctx: Context) -> list[Explanation]:
    """The price list's rate for each currency its entries are priced in other than the one
    shown (cloud prices in USD shown in NT$, or a TWD list shown in US$): a converted
    amount is defended by the rate and its date, which the list itself carries."""
    book, ccy = ctx.book, ctx.currency
    priced = {book.currency}
    priced |= {c.currency for c in book.cloud} | {o.currency for o in book.offers}
    priced |= {s.currency for s in book.servers} | {e.currency for e in book.energy}
    out: list[Explanation] = []
    for other in sorted(priced - {ccy}):
        for r in book.fx:
            if {r.base, r.quote} != {other, ccy}:
                continue
            direct = r.base == other  # 1 other = rate ccy
            value = r.rate if direct else 1 / r.rate
            out.append(
                Explanation(
                    "Exchange rate",
                    value,
                    f"{ccy}/{other}",
                    f"1 {other} = {value:.6g} {ccy}, the price list's rate of "
                    f"{r.as_of.isoformat()}"
                    + ("" if direct else f" (1 {r.base} = {r.rate:.6g} {r.quote})")
                    + f": every {other} price here is shown in {ccy} at it",
                    f"price list {book.name!r}" + (f"; {r.source}" if r.source else ""),
                    operands(rate=(r.rate, f"{r.quote} per {r.base}")),
                    "rate" if direct else "1 / rate",
                )
            )
            break
    return out


def _pair_x(a: CostOption, b: CostOption) -> Explanation | None:
    return break_even_utilization_explained(a, b)


def _like_for_like(
    ctx: Context, sel: OfferSelection | None, options: list[CostOption]
) -> list[Explanation]:
    """Cloud vs rent and buy vs rent for the same GPUs over the same full month (730 h).

    A job's totals cover different lengths (a day of cloud against a month of rent), so the
    ratios compare rates: per GPU-month at 730 h, times the GPUs rented. Seed 003 T10: a
    month of p5.48xlarge ≈ NT$2.22M vs NT$350,000 rented (PRODUCT.md §4: ≈3.7× at the June
    2025 price); T9: buying, 3-year amortised, > NT$400,000/month vs NT$350,000.
    """
    if sel is None or sel.gpus <= 0:
        return []
    rent = sel.monthly(ctx.conv)
    if rent <= 0:
        return []
    ccy, gpus = ctx.currency, sel.gpus
    what = f"the same {fmt_gpus(gpus)} for a full month (730 h)"
    out: list[Explanation] = []
    for o in options:
        if o.billed is None or o.billed.gpus <= 0:
            continue
        if o.kind == "cloud" and o.hourly_rate:
            per_gpu_h = o.hourly_rate / o.billed.gpus
            month = per_gpu_h * gpus * HOURS_PER_MONTH
            out.append(
                Explanation(
                    f"{o.label} vs monthly rent (like for like)",
                    month / rent,
                    "×",
                    f"like for like — {what}: {money(per_gpu_h, ccy, 2)}/GPU-h × "
                    f"{fmt_gpus(gpus)} × 730 h = {money(month, ccy)} vs "
                    f"{money(rent, ccy)} rent = {number(month / rent)}×",
                    "seed 003 T10 (p5.48xlarge a full month ≈NT$2.22M vs NT$350,000 "
                    "rented; ≈3.7× at the June 2025 price)",
                    operands(
                        hourly_rate=(o.hourly_rate, f"{ccy}/h"),
                        billed_gpus=(o.billed.gpus, "GPUs"),
                        gpus=(gpus, "GPUs"),
                        rent=(rent, f"{ccy}/month"),
                    ),
                    "hourly_rate / billed_gpus * gpus * 730 / rent",
                )
            )
        elif o.kind == "buy":
            run = (o.fixed_monthly + o.metered_monthly_full) / o.billed.gpus * gpus
            out.append(
                Explanation(
                    f"{o.label} vs monthly rent (like for like)",
                    run / rent,
                    "×",
                    f"like for like — {what}: amortised "
                    f"{money(o.fixed_monthly + o.metered_monthly_full, ccy)}/month / "
                    f"{fmt_gpus(o.billed.gpus)} × {number(gpus)} = {money(run, ccy)} vs "
                    f"{money(rent, ccy)} rent = {number(run / rent)}×",
                    "seed 003 T9 (3-year amortised > NT$400,000/month, above the NT$350,000 rent)",
                    operands(
                        fixed_monthly=(o.fixed_monthly, f"{ccy}/month"),
                        metered_monthly_full=(o.metered_monthly_full, f"{ccy}/month"),
                        billed_gpus=(o.billed.gpus, "GPUs"),
                        gpus=(gpus, "GPUs"),
                        rent=(rent, f"{ccy}/month"),
                    ),
                    "(fixed_monthly + metered_monthly_full) / billed_gpus * gpus / rent",
                )
            )
    return out


def compare_costs(
    usage: Usage,
    book: PriceBook,
    *,
    horizon_months: int,
    currency: str = "TWD",
    term_months: int | None = None,
    utilization: float | None = None,
    energy_id: str | None = None,
    rent_months: float | None = None,
    pricing_mode: str = "job",
) -> CostComparison:
    """Cost every way of meeting `usage` over `horizon_months` (1–120), in `currency`.

    utilization (0–1] overrides usage.hours_per_month with 730 × utilization. term_months
    is the rental contract length (default: the whole need, rounded down). energy_id picks
    the site for buying (default: the list's first energy price). rent_months is the rental
    period (default: the need, `usage.months`); pricing_mode "job" bills hourly options for
    the job's hours, "capacity" prices an ongoing service per month. Raises CostInputError
    (a ValueError) naming the field and its allowed range.

    Rent is offered by every provider that lists the GPU (`offer_selections`: one selection
    each, with its own hourly, monthly and term options), so "cheapest" sees them all.
    Rental machines, cloud instances and servers to buy that cannot hold
    `usage.gpus_per_machine_min` GPUs (the plan's machine group) are listed with `feasible`
    False and a note, and left out of "cheapest", the break-evens and the like-for-like
    ratios. The single rent that
    buying is measured against (cost of delay, like for like, the hourly/monthly crossover)
    is the cheapest runnable selection by monthly list rent (`select_offers`).
    """
    ctx = resolve(
        usage,
        book,
        horizon_months=horizon_months,
        currency=currency,
        term_months=term_months,
        utilization=utilization,
        energy_id=energy_id,
        rent_months=rent_months,
        pricing_mode=pricing_mode,
    )
    warnings: list[str] = []
    options: list[CostOption] = []
    # Every provider's own rental options (one selection each), not only the one with the
    # fewest GPUs: a provider that rents more GPUs for less money is a real choice.
    selections = offer_selections(
        book,
        usage.gpu_id,
        usage.gpu_count,
        usage.gpus_per_machine_min,
        usage.gpus_per_node,
        usage.independent_machines,
    )
    # The one rent buying is measured against (cost of delay, like for like): the cheapest
    # runnable selection (`select_offers`; `offer_selections` puts it first).
    sel = selections[0] if selections and selections[0].runnable else None
    tier_warnings: list[str] = []
    rentals: list[CostOption] = []
    for s in selections:
        rentals += rental_options(ctx, usage, s, tier_warnings if s.runnable else [])
    if not any(o.kind == "rent_term" and o.feasible for o in rentals):
        warnings += tier_warnings  # no runnable provider has the asked contract: say so
    options += rentals
    rent_monthly = sel.monthly(ctx.conv) if sel is not None else None
    bought = buy_option(ctx, usage, warnings, rent_monthly)
    if bought is not None:
        options.append(bought)
    clouds = cloud_options(ctx, usage, warnings)
    options += clouds
    # Rental machines, cloud instances and servers too small for the plan's machine group are
    # shown (with their note) but are no option: no break-even or like-for-like ratio with them.
    too_small = {o.key for o in (*rentals, *clouds) if not o.feasible}
    if bought is not None and not group_fits(ctx.book, usage):
        too_small.add(bought.key)  # no listed server holds the group (`buy_option`)
    runnable = [o for o in options if o.key not in too_small]

    # The cheapest is one that can run the plan: a feasible option worth taking, else any
    # feasible one. When none can run it, none is the cheapest (None): a price for what
    # cannot run the job is no price to choose, and naming one "cheapest" put 「時租 最便宜」
    # on 4 single-RTX 4090 pods for a 70B QLoRA every option said could not run it (QA).
    sensible = [o for o in options if o.feasible and o.economical]
    feasible = [o for o in options if o.feasible]
    candidates = sensible or feasible
    if not feasible:
        warnings.append(
            Notice(
                "No priced option can run this plan as it is laid out (each option's note says "
                "why), so none is named the cheapest. Choose a GPU whose servers hold the "
                "plan's machine group, or fewer GPUs per group."
            )
        )
    share, share_x = None, None
    explain = _explain_comparison(ctx, sel, runnable, utilization)
    if candidates:
        cheapest: CostOption | None = min(candidates, key=lambda o: o.total)
        assert cheapest is not None
        cheapest_rule = (
            "lowest total among the options that can run the plan and are worth taking (a "
            "purchase held too briefly to pay for itself is left out)"
            if sensible
            else "lowest total among the options that can run the plan"
        )
        share, share_x = _storage_share(cheapest, usage, warnings)
        if share_x is not None:
            explain.append(share_x)
        explain.append(
            Explanation(
                "Cheapest option",
                cheapest.total,
                ctx.currency,
                f"{cheapest.label}: {money(cheapest.total, ctx.currency)} for the quoted period",
                cheapest_rule,
                [
                    Operand(f"option_{i}", o.total, f"{ctx.currency} ({o.label})")
                    for i, o in enumerate(candidates, 1)
                ],
                "min(" + ", ".join(f"option_{i}" for i in range(1, len(candidates) + 1)) + ")",
            )
        )
    else:
        cheapest = None
    return CostComparison(
        options=options,
        break_even=break_evens(runnable, until=_need_end(ctx)),
        cheapest=cheapest.key if cheapest is not None else None,
        storage_network_share=share,
        warnings=warnings,
        explain=explain,
        currency=ctx.currency,
        horizon_months=horizon_months,
        hours_per_month=ctx.hours,
        utilization=ctx.hours / HOURS_PER_MONTH,
        pricing_mode=ctx.pricing_mode,
        period_months=ctx.period,
    )
