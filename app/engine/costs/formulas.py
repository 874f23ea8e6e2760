"""Single formulas of the cost engine, each with a variant that explains itself.

Every function returns a plain float; its `*_explained` sibling returns an `Explanation`
whose `value` is that float and whose `formula` shows the arithmetic with the caller's
numbers. Units: money in the caller's currency, energy in kWh, time in hours or 730-hour
months (`HOURS_PER_MONTH`).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.engine.costs.model import DAYS_PER_MONTH, HOURS_PER_MONTH, CostInputError, CostOption
from app.engine.costs.validate import fraction, non_negative, positive
from app.engine.explain import Explanation, money, number, operands, percent
from app.engine.price_book import RentalOffer

# --------------------------------------------------------------------------- energy (T7)


def monthly_kwh(power_kw: float, hours_per_month: float = HOURS_PER_MONTH) -> float:
    """IT energy per month, kWh = kW × busy hours per month."""
    return non_negative("power_kw", power_kw) * non_negative("hours_per_month", hours_per_month)


def energy_cost(kwh: float, tariff_per_kwh: float, pue: float = 1.0) -> float:
    """Electricity bill for `kwh` of IT energy: kWh × PUE × tariff (currency per kWh).

    PUE (facility power / IT power) ≥ 1 adds cooling and distribution losses; 1.0 prices
    the IT load alone. Seed 003 T7: 7,200 kWh/month ≈ NT$25,000–30,000 (which implies
    NT$3.5–4.2/kWh at PUE 1; the 2025 industrial tariff of NT$4.27/kWh gives NT$30,744).
    """
    non_negative("kwh", kwh)
    non_negative("tariff_per_kwh", tariff_per_kwh)
    if pue < 1:
        raise CostInputError("pue", "≥ 1", pue)
    return kwh * pue * tariff_per_kwh


def energy_cost_explained(
    kwh: float,
    tariff_per_kwh: float,
    currency: str,
    pue: float = 1.0,
    source: str = "seed 003 T7; Taiwan industrial tariff",
) -> Explanation:
    """`energy_cost` with its arithmetic."""
    value = energy_cost(kwh, tariff_per_kwh, pue)
    pue_txt = f" × PUE {number(pue)}" if pue != 1.0 else ""
    return Explanation(
        "Electricity",
        value,
        currency,
        f"{number(kwh)} kWh{pue_txt} × {money(tariff_per_kwh, currency)}/kWh "
        f"= {money(value, currency)}",
        source,
        operands(kwh=(kwh, "kWh"), pue=(pue, ""), tariff=(tariff_per_kwh, f"{currency}/kWh")),
        "kwh * pue * tariff",
    )


# ----------------------------------------------------------------------- rental (T8)


def term_discount(offer: RentalOffer, term_months: float) -> tuple[int | None, float]:
    """The contract tier that applies to a `term_months` contract and its discount.

    Seed 003 T8: 3 months list price, 6 months −10 %, 12 months −20 %. The largest tier
    ≤ term_months applies; (None, 0.0) when the contract is shorter than every tier.
    """
    tiers = [m for m in offer.term_discounts if m <= term_months + 1e-9]
    if not tiers:
        return None, 0.0
    tier = max(tiers)
    return tier, offer.term_discounts[tier]


def hourly_vs_monthly_crossover_hours(offer: RentalOffer) -> float:
    """Busy hours per month above which monthly rent beats hourly rent.

    = monthly_price / hourly_price (both per offer, same currency). Seed 003 T8:
    NT$50,000 / NT$120 ≈ 417 h ("hourly wins below ≈400 h/month").
    """
    if offer.hourly_price is None or offer.hourly_price <= 0:
        raise CostInputError(f"offers[{offer.id}].hourly_price", "> 0", offer.hourly_price)
    return offer.monthly_price / offer.hourly_price


def crossover_explained(offer: RentalOffer) -> Explanation:
    """`hourly_vs_monthly_crossover_hours` with its arithmetic."""
    hours = hourly_vs_monthly_crossover_hours(offer)
    assert offer.hourly_price is not None  # checked above
    ccy = offer.currency
    return Explanation(
        f"Hourly vs monthly crossover ({offer.id})",
        hours,
        "h/month",
        f"{money(offer.monthly_price, ccy)} / {money(offer.hourly_price, ccy)}/h "
        f"= {number(hours, 1)} h/month ({percent(hours / HOURS_PER_MONTH)} of 730 h)",
        f"seed 003 T8 (hourly beats monthly below ≈400 h/month); offer {offer.id}",
        operands(
            monthly_price=(offer.monthly_price, f"{ccy}/month"),
            hourly_price=(offer.hourly_price, f"{ccy}/h"),
        ),
        "monthly_price / hourly_price",
    )


# ------------------------------------------------------------------- inference (U8)


def cost_per_million_tokens(monthly_cost: float, tokens_per_s: float, utilization: float) -> float:
    """Cost of 1M generated tokens: monthly cost / tokens served per month × 10^6.

    tokens per month = tokens_per_s × 3,600 s × 730 h × utilization (share of the month the
    server is busy at that rate). Seed 000 U8: measure cost per 1M tokens.
    """
    non_negative("monthly_cost", monthly_cost)
    positive("tokens_per_s", tokens_per_s)
    fraction("utilization", utilization)
    millions = tokens_per_s * 3600 * HOURS_PER_MONTH * utilization / 1e6
    return monthly_cost / millions


def cost_per_million_tokens_explained(
    monthly_cost: float, tokens_per_s: float, utilization: float, currency: str
) -> Explanation:
    """`cost_per_million_tokens` with its arithmetic."""
    value = cost_per_million_tokens(monthly_cost, tokens_per_s, utilization)
    millions = tokens_per_s * 3600 * HOURS_PER_MONTH * utilization / 1e6
    return Explanation(
        "Cost per 1M tokens",
        value,
        f"{currency}/1M tokens",
        f"{money(monthly_cost, currency)}/month / ({number(tokens_per_s)} tokens/s × 3,600 s × "
        "730 h "
        f"× {number(utilization)} / 10^6 = {number(millions, 1)}M tokens) "
        f"= {money(value, currency, 2)}",
        "seed 000 U8 (cost per 1M tokens); 730 h = 8,760 h / 12",
        operands(
            monthly_cost=(monthly_cost, f"{currency}/month"),
            tokens_per_s=(tokens_per_s, "tokens/s"),
            utilization=(utilization, ""),
        ),
        "monthly_cost / (tokens_per_s * 3600 * 730 * utilization / 1e6)",
    )


# ------------------------------------------------------------------ rent vs buy (U4)


def simple_break_even_hours(
    purchase_price: float, hourly_rent: float, hourly_running_cost: float = 0.0
) -> float:
    """Hours of use after which buying a GPU beats renting it, ignoring resale and facility.

    = purchase_price / (hourly_rent − hourly_running_cost). Seed 000 U4: an A100 at
    ≈US$17,000 vs ≈US$1.50/h rent → 11,333 h ≈ 15.5 months at 100 % use.
    """
    non_negative("purchase_price", purchase_price)
    positive("hourly_rent", hourly_rent)
    non_negative("hourly_running_cost", hourly_running_cost)
    saving = hourly_rent - hourly_running_cost
    if saving <= 0:
        return float("inf")
    return purchase_price / saving


def simple_break_even_explained(
    purchase_price: float, hourly_rent: float, currency: str, hourly_running_cost: float = 0.0
) -> Explanation:
    """`simple_break_even_hours` with its arithmetic (and the same in months at 730 h)."""
    hours = simple_break_even_hours(purchase_price, hourly_rent, hourly_running_cost)
    running = f" − {money(hourly_running_cost, currency)}/h" if hourly_running_cost else ""
    return Explanation(
        "Rent vs buy break-even",
        hours,
        "h",
        f"{money(purchase_price, currency)} / ({money(hourly_rent, currency)}/h{running}) "
        f"= {number(hours, 0)} h = {number(hours / HOURS_PER_MONTH, 1)} months at 730 h/month",
        "seed 000 U4 (A100 ≈US$17,000; rent ≈US$1.50/h)",
        operands(
            purchase_price=(purchase_price, currency),
            hourly_rent=(hourly_rent, f"{currency}/h"),
            hourly_running=(hourly_running_cost, f"{currency}/h"),
        ),
        "purchase_price / (hourly_rent - hourly_running)",
    )


def cost_of_delay(lead_time_days: float, monthly_rent: float) -> float:
    """Rent paid while bought hardware is on its way: lead time (months) × monthly rent.

    Seed 003 T9/T13: purchase lead time 8–12 weeks, rental 2 hours.
    """
    non_negative("lead_time_days", lead_time_days)
    non_negative("monthly_rent", monthly_rent)
    return lead_time_days / DAYS_PER_MONTH * monthly_rent


# ------------------------------------------------------------------------- break-even


def crossing(cum_a: Sequence[float], cum_b: Sequence[float]) -> tuple[int | None, float | None]:
    """(which curve is cheaper first: 0 = a, 1 = b, None = identical; crossing month or None).

    See `break_even_month`.
    """
    n = min(len(cum_a), len(cum_b))
    diff = [cum_a[i] - cum_b[i] for i in range(n)]
    scale = max((abs(x) for x in (*cum_a[:n], *cum_b[:n])), default=1.0)
    tol = 1e-9 * max(scale, 1.0)
    # Twice the tolerance to differ, once to meet again: curves that differ by about the
    # tolerance (parallel lines 1e-9 apart) flipped between "differ" and "meet" on rounding
    # alone and gave a crossing at month 2.4e15.
    start = next((i for i, d in enumerate(diff) if abs(d) > 2 * tol), None)
    if start is None:
        return None, None
    # sign > 0: b is cheaper first (a − b > 0)
    sign = 1.0 if diff[start] > 0 else -1.0
    first = 1 if sign > 0 else 0
    for i in range(start + 1, n):
        if diff[i] * sign <= tol:
            before, after = diff[i - 1] * sign, diff[i] * sign
            # `after` may be a hair above zero (met within the tolerance): never past month i
            month = (i - 1) + min(1.0, before / (before - after))
            return first, month
    return first, None


def break_even_month(cum_a: Sequence[float], cum_b: Sequence[float]) -> float | None:
    """First (fractional) month at which the curve that starts cheaper stops being cheaper.

    Both sequences are cumulative costs at the end of months 0..n. "Starts cheaper" is
    decided at the first month where the curves differ (two rentals both start at 0). The
    crossing is interpolated linearly between the two month-ends around it. None when the
    curves never cross within the horizon (or never differ).
    """
    return crossing(cum_a, cum_b)[1]


def monthly_cost_at_utilization(option: CostOption, utilization: float) -> float:
    """Run-rate cost per month of `option` if the GPUs were busy `utilization` of the time.

    = fixed_monthly + metered_monthly_full × utilization. Hourly rent and on-demand cloud
    are all metered; monthly/term rent and reserved cloud are fixed; buying is fixed except
    electricity (PRODUCT.md journey 3, sensitivity to utilisation).
    """
    fraction("utilization", utilization)
    return option.fixed_monthly + option.metered_monthly_full * utilization


def break_even_utilization(a: CostOption, b: CostOption) -> float | None:
    """Utilisation (0–1] at which `a` and `b` cost the same per month; None if never.

    Solves fixed_a + metered_a × u = fixed_b + metered_b × u. Hourly vs monthly rent of one
    H100: NT$50,000 / (NT$120 × 730) = 0.571 (seed 003 T8, ≈417 of 730 h).
    """
    slope = a.metered_monthly_full - b.metered_monthly_full
    if abs(slope) < 1e-12:
        return None
    u = (b.fixed_monthly - a.fixed_monthly) / slope
    return u if 0 < u <= 1 + 1e-12 else None


def break_even_utilization_explained(a: CostOption, b: CostOption) -> Explanation | None:
    """`break_even_utilization` with its arithmetic; None when they never cost the same."""
    u = break_even_utilization(a, b)
    if u is None:
        return None
    ccy = a.currency
    return Explanation(
        f"Break-even utilisation: {a.label} vs {b.label}",
        u,
        "fraction of 730 h",
        f"({money(b.fixed_monthly, ccy)} − {money(a.fixed_monthly, ccy)}) / "
        f"({money(a.metered_monthly_full, ccy)} − {money(b.metered_monthly_full, ccy)}) "
        f"= {number(u, 3)} = {number(u * HOURS_PER_MONTH, 0)} h/month",
        "fixed + metered × utilisation per option (seed 003 T8 crossover)",
        operands(
            fixed_a=(a.fixed_monthly, f"{ccy}/month"),
            fixed_b=(b.fixed_monthly, f"{ccy}/month"),
            metered_a=(a.metered_monthly_full, f"{ccy}/month at 730 h"),
            metered_b=(b.metered_monthly_full, f"{ccy}/month at 730 h"),
        ),
        "(fixed_b - fixed_a) / (metered_a - metered_b)",
    )


def utilization_break_evens(
    options: Sequence[CostOption],
) -> list[tuple[CostOption, CostOption, float]]:
    """Every pair of comparable options that cost the same per month at some utilisation.

    (a, b, u) with 0 < u ≤ 1 from `break_even_utilization`, for feasible and economical
    options only. The one source of the break-even utilisation: the /tco hint, the
    utilisation chart and the explanations all read this list, so a pair shows one figure.
    """
    usable = [o for o in options if o.feasible and o.economical]
    out = []
    for i, a in enumerate(usable):
        for b in usable[i + 1 :]:
            u = break_even_utilization(a, b)
            if u is not None:
                out.append((a, b, u))
    return out
