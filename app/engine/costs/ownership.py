"""Buying servers: capex, power, colocation, maintenance, staff and resale.

Rules and their sources
- Server SKU: the cheapest set of one listed SKU of the plan's GPU that holds the plan's
  machine group (`Usage.gpus_per_machine_min`: a service's tensor-parallel group, a
  training job's NVLink node) inside each server, as rented machines and cloud instances
  must (`rental.group_capacity`, `cloud.instances_needed`): 3 × 4-GPU servers are not a
  12-GPU job timed on 8-GPU NVLink nodes. When no listed server holds the group, the
  cheapest SKU set is still priced, so the comparison shows it, but is not runnable.
- Capex = servers needed × price (servers = ceil(GPUs / GPUs per server); with a machine
  group that does not divide the server, whole groups: ceil(groups / groups per server)), plus
  installation (`install_pct`) and network + storage (`network_storage_pct`, seed 003 T13)
  as shares of the server capex. Seed 003 T9: an 8-GPU HGX H100 costs ≥ NT$12M.
- Electricity = kW of the servers bought (servers × rated kW, the catalog's planned maximum
  draw) × busy hours × PUE × tariff (seed 003 T7: an 8-GPU machine draws > 10 kW, and its
  7,200 kWh/month is 10 kW × 720 h; T9 prices a bought server's power so). Hours the
  servers stand idle are not counted. The servers are the ones this option buys, not the
  plan's node layout: the cheapest SKU set can be other machines (3 × 4-GPU servers for a
  plan sized on 2 × 8-GPU nodes), so `Usage.power_kw` (the plan's draw) is not used here.
- Facility (colocation) = the servers' rated kW × price per kW-month: rack capacity is paid
  for whether it is used or not (T9: "10 kW rack").
- Maintenance = maintenance_pct_per_year × hardware capex / 12 per month; staff per month.
- Resale: hardware (servers + network/storage, not installation labour) loses value in a
  straight line from its price to `residual_pct` of it over the amortisation period; it is
  sold at that book value at the end of the need (or of the horizon), a negative
  "residual" part.
- Amortised run-rate = (capex − residual) / (amortisation_years × 12) + monthly costs
  (seed 003 T9: 3-year amortised > NT$400,000/month, above the NT$350,000 rent).
- Rounding: each money figure is rounded once, half up, to the currency's unit (NT$1,
  US$0.01: `model.round_money`, as a quote rounds its lines) where it is computed — the
  server price, installation, network + storage, each cost per month, the resale, the
  residual and the amortised capex — and every sum and product is taken from the rounded
  figures, so the parts printed add up to the totals printed and a cost per month × whole
  months is its period total (QA: "NT$13,565,952 + NT$678,298 + NT$2,034,893 =
  NT$16,279,142"; power NT$75,353 × 36 printed as NT$2,712,700). Each Explanation's
  expression rounds as its figure does (`round_half_up`), so it still reproduces it.
- Holding period: the rental period quoted (`rent_months`, else the need); the hardware is
  resold at book value at its end. A holding period shorter than the delivery lead time
  plus `PAYBACK_FLOOR_MONTHS` (3, the shortest contract tier of seed 003 T8) is "not
  economical": renting covers the whole need before bought hardware has run one contract's
  length, and a resale after a few months at straight-line book value flatters buying (a
  real second-hand sale loses more), so that total is no fair comparison.
- Lead time: the server's `lead_time_weeks` (T9/T13: 8–12 weeks). The rent paid while
  waiting (`cost_of_delay`) is shown in the note and the explanations but is *not* added to
  the buy total: every option is costed from the day the capacity is usable, and adding a
  rental bridge would mix two options into one.
"""

from __future__ import annotations

import math

from app.engine.costs.context import Context, finish_option, period_notice
from app.engine.costs.formulas import cost_of_delay
from app.engine.costs.ledger import Ledger
from app.engine.costs.model import (
    DAYS_PER_MONTH,
    HOURS_PER_MONTH,
    Billed,
    CostInputError,
    CostOption,
    Usage,
    money_places,
    round_money,
)
from app.engine.explain import Explanation, number, operands, percent
from app.engine.formatting import exact_money as money
from app.engine.formatting import gpus as fmt_gpus
from app.engine.formatting import months as fmt_months
from app.engine.notices import Notice, Sentences, one_or_many
from app.engine.price_book import PriceBook, ServerSku

_EPS = 1e-9
#: Months after delivery below which buying is "not economical for this period" (seed 003
#: T8's shortest contract tier is 3 months: a need that ends sooner is a rental's job).
PAYBACK_FLOOR_MONTHS = 3.0

#: The sentence that makes "up front" and "total" readable side by side, by the period held
#: (`period_notice`: under a month in days or hours, never "Held 0.038 months").
HELD = {
    "month": (
        "Held 1 month, then resold at book value %(resale)s (straight line to "
        "%(residual)s over %(years)s years): the total is %(upfront)s up front − "
        "%(resale)s back + running costs."
    ),
    "months": (
        "Held %(period)s months, then resold at book value %(resale)s (straight line to "
        "%(residual)s over %(years)s years): the total is %(upfront)s up front − "
        "%(resale)s back + running costs."
    ),
    "days": (
        "Held %(period)s days, then resold at book value %(resale)s (straight line to "
        "%(residual)s over %(years)s years): the total is %(upfront)s up front − "
        "%(resale)s back + running costs."
    ),
    "hours": (
        "Held %(period)s hours, then resold at book value %(resale)s (straight line to "
        "%(residual)s over %(years)s years): the total is %(upfront)s up front − "
        "%(resale)s back + running costs."
    ),
    "day": (
        "Held 1 day, then resold at book value %(resale)s (straight line to %(residual)s over"
        " %(years)s years): the total is %(upfront)s up front − %(resale)s back + running "
        "costs."
    ),
    "hour": (
        "Held 1 hour, then resold at book value %(resale)s (straight line to %(residual)s "
        "over %(years)s years): the total is %(upfront)s up front − %(resale)s back + running"
        " costs."
    ),
}
#: Buying for a period too short to pay back, by the period held.
TOO_SHORT_TO_BUY = {
    "month": (
        "Not economical for this period: 1 month is shorter than the %(delivery)s-month "
        "delivery plus %(floor)s months (seed 003 T8's shortest contract)."
    ),
    "months": (
        "Not economical for this period: %(period)s months is shorter than the "
        "%(delivery)s-month delivery plus %(floor)s months (seed 003 T8's shortest "
        "contract)."
    ),
    "days": (
        "Not economical for this period: %(period)s days is shorter than the "
        "%(delivery)s-month delivery plus %(floor)s months (seed 003 T8's shortest "
        "contract)."
    ),
    "hours": (
        "Not economical for this period: %(period)s hours is shorter than the "
        "%(delivery)s-month delivery plus %(floor)s months (seed 003 T8's shortest "
        "contract)."
    ),
    "day": (
        "Not economical for this period: 1 day is shorter than the %(delivery)s-month "
        "delivery plus %(floor)s months (seed 003 T8's shortest contract)."
    ),
    "hour": (
        "Not economical for this period: 1 hour is shorter than the %(delivery)s-month "
        "delivery plus %(floor)s months (seed 003 T8's shortest contract)."
    ),
}

#: The resale's Explanation; its expression takes the months held as `held_months`, which
#: `tco.resale_if_sold` sets to each year of the TCO view.
RESALE_FIGURE = "Resale at the end (residual)"


def economical_holding_months(lead_time_days: float) -> float:
    """Shortest holding period for which buying is compared at all: lead time + 3 months.

    Seed 003 T9/T13: delivery takes 8–12 weeks (≈2–3 months), so with a 10-week lead time
    buying needs a holding period of ≥ 5.3 months.
    """
    return lead_time_days / DAYS_PER_MONTH + PAYBACK_FLOOR_MONTHS


def holds_group(server: ServerSku, group: int) -> bool:
    """Whether one `server` holds a machine group of `group` GPUs on its own NVLink."""
    return server.gpu_count >= max(1, group)


def group_fits(book: PriceBook, usage: Usage) -> bool:
    """Whether any listed server of the usage's GPU holds its machine group
    (`Usage.gpus_per_machine_min`): else buying cannot run the plan as it is laid out."""
    return any(
        s.gpu_id == usage.gpu_id and s.gpu_count > 0 and holds_group(s, usage.gpus_per_machine_min)
        for s in book.servers
    )


def _splits_groups(server: ServerSku, group: int) -> bool:
    """A group > 1 that one server holds but that does not divide its GPUs (TP 4 on 6)."""
    return group > 1 and holds_group(server, group) and server.gpu_count % group != 0


def servers_needed(gpu_count: float, server: ServerSku, group: int = 1) -> int:
    """Whole servers to hold `gpu_count` GPUs as whole groups of `group` GPUs, each group
    inside one server: ceil(ceil(gpu_count / group) / floor(GPUs per server / group)).

    That is ceil(gpu_count / GPUs per server) whenever the group divides the server (a group
    of 1, TP 4 or an 8-GPU node on 8-GPU servers: ceil(ceil(x) / k) = ceil(x / k)); it differs
    only for a group that leaves GPUs over (TP 4 on 10-GPU servers: 40 GPUs are 10 groups,
    2 a server → 5 servers, not 4), as `cloud.instances_needed` counts instances. A server
    too small for one group is counted as if the group were 1 (priced, not runnable).
    """
    if not _splits_groups(server, group):
        return max(1, math.ceil(gpu_count / server.gpu_count - _EPS))
    per = server.gpu_count // group
    return max(1, math.ceil(math.ceil(gpu_count / group - _EPS) / per - _EPS))


def _servers_explained(
    gpus: float, server: ServerSku, group: int, n: int, price: float, ccy: str, src: str
) -> Explanation:
    """The servers' capex: `n` servers (`servers_needed`) × the price of one, in `ccy`."""
    source = src + (f"; {server.source}" if server.source else "")
    if not _splits_groups(server, group):
        return Explanation(
            "Servers",
            n * price,
            ccy,
            f"ceil({fmt_gpus(gpus)} / {server.gpu_count} per server) = {n} × "
            f"{money(price, ccy)} = {money(n * price, ccy)}",
            source,
            operands(
                gpus=(gpus, "GPUs"),
                gpus_per_server=(server.gpu_count, "GPUs"),
                server_price=(price, ccy),
            ),
            "max(1, ceil(gpus / gpus_per_server - 1e-9)) * server_price",
        )
    per = server.gpu_count // group
    return Explanation(
        "Servers",
        n * price,
        ccy,
        f"ceil({fmt_gpus(gpus)} / {group} per NVLink group) groups, {per} per "
        f"{server.gpu_count}-GPU server = {n} × {money(price, ccy)} = {money(n * price, ccy)}",
        source,
        operands(
            gpus=(gpus, "GPUs"),
            group=(group, "GPUs on NVLink in one machine"),
            gpus_per_server=(server.gpu_count, "GPUs"),
            server_price=(price, ccy),
        ),
        "max(1, ceil(ceil(gpus / group - 1e-9) / floor(gpus_per_server / group) - 1e-9)) "
        "* server_price",
    )


def book_value(
    hardware: float, residual_pct: float, amortisation_months: float, age: float
) -> float:
    """Straight-line value of hardware after `age` months, floored at the residual share."""
    used = min(age, amortisation_months) / amortisation_months
    return hardware * (1 - (1 - residual_pct) * used)


def buy_option(
    ctx: Context,
    usage: Usage,
    warnings: list[str],
    rent_monthly: float | None = None,
) -> CostOption | None:
    """Buying the cheapest server SKU set that holds the GPUs; None if none is listed.

    Only SKUs whose servers hold the usage's machine group (`gpus_per_machine_min`) are
    considered; when none does, the cheapest set of any SKU is priced with `feasible` False
    and a note naming the group and the largest server listed.
    """
    book, ccy, conv = ctx.book, ctx.currency, ctx.conv
    skus = [s for s in book.servers if s.gpu_id == usage.gpu_id and s.gpu_count > 0]
    if not skus:
        # Said, not left out unseen: the shipped list prices no RTX 4090, L40S or RTX 6000
        # Ada server, and a comparison without a purchase read as if buying had been weighed.
        warnings.append(
            Notice(
                "No purchase price in the price list for a server with this GPU: buying is "
                "not compared."
            )
        )
        return None
    group = max(1, usage.gpus_per_machine_min)
    fit = [s for s in skus if holds_group(s, group)]
    runnable = bool(fit)
    count_group = group if runnable else 1

    def unit_price(s: ServerSku) -> float:
        return round_money(conv(s.price, s.currency), ccy)

    def capex(s: ServerSku) -> float:
        return servers_needed(usage.gpu_count, s, count_group) * unit_price(s)

    server = min(fit or skus, key=capex)
    p = book.buy
    if p.amortisation_years <= 0:
        raise CostInputError("buy.amortisation_years", "> 0", p.amortisation_years)
    n = servers_needed(usage.gpu_count, server, count_group)
    price = unit_price(server)
    places = money_places(ccy)  # each figure rounded once to it (module docstring)
    server_capex = n * price
    install = round_money(p.install_pct * server_capex, ccy)
    netstore = round_money(p.network_storage_pct * server_capex, ccy)
    hardware = server_capex + netstore
    upfront = server_capex + install + netstore
    staff = round_money(conv(p.staff_per_month, p.currency), ccy)
    maintenance = round_money(p.maintenance_pct_per_year * hardware / 12, ccy)
    amort_months = p.amortisation_years * 12
    src_buy = f"{ctx.book_ref} buy parameters{'; ' + p.source if p.source else ''}"
    src_srv = f"seed 003 T9 (8-GPU HGX H100 ≥ NT$12M); server {server.id}"
    held = ctx.period_covered  # months the hardware is held, then resold
    ledger = Ledger(ctx.horizon)
    ledger.upfront("capex", server_capex + install)
    ledger.upfront("storage_network", netstore)
    explain = [
        _servers_explained(usage.gpu_count, server, count_group, n, price, ccy, src_srv),
        Explanation(
            "Installation and integration",
            install,
            ccy,
            f"{percent(p.install_pct)} × {money(server_capex, ccy)} = {money(install, ccy)}",
            src_buy,
            operands(install_share=(p.install_pct, ""), server_capex=(server_capex, ccy)),
            f"round_half_up(install_share * server_capex, {places})",
        ),
        Explanation(
            "Network + storage capex",
            netstore,
            ccy,
            f"{percent(p.network_storage_pct)} × {money(server_capex, ccy)} = "
            f"{money(netstore, ccy)}",
            f"seed 003 T13 (storage + network ≥ 15 % of budget); {src_buy}",
            operands(
                network_storage_share=(p.network_storage_pct, ""),
                server_capex=(server_capex, ccy),
            ),
            f"round_half_up(network_storage_share * server_capex, {places})",
        ),
        Explanation(
            "Upfront capex",
            upfront,
            ccy,
            f"{money(server_capex, ccy)} + {money(install, ccy)} + {money(netstore, ccy)} = "
            f"{money(upfront, ccy)}",
            "servers + installation + network/storage",
            operands(
                server_capex=(server_capex, ccy),
                installation=(install, ccy),
                network_storage=(netstore, ccy),
            ),
            "server_capex + installation + network_storage",
        ),
    ]

    feasible, notes = runnable, []
    power = facility = 0.0
    # The servers this option buys, whatever nodes the plan was sized on (QA: 3 × 4-GPU
    # servers of 3 kW were charged the 11.6 kW of the plan's two 8-GPU nodes).
    server_kw = n * server.power_kw
    if ctx.energy is None:
        feasible = False
        notes.append(
            Notice(
                "The price list has no energy price: electricity and colocation are missing, "
                "so this total is too low."
            )
        )
        warnings.append(
            Notice("Buying is shown without electricity or colocation: no energy price.")
        )
    else:
        e = ctx.energy
        tariff = conv(e.tariff_per_kwh, e.currency)
        colo = conv(e.colo_per_kw_month, e.currency)
        kwh = server_kw * ctx.hours
        power = round_money(kwh * e.pue * tariff, ccy)
        facility = round_money(server_kw * colo, ccy)
        ledger.recurring("power", power, ctx.metered_months)
        ledger.recurring("facility", facility, held)
        src_e = f"energy {e.id} ({e.region}){'; ' + e.source if e.source else ''}"
        rated = f"{n} × {number(server.power_kw)} kW rated = {number(server_kw)} kW"
        explain += [
            Explanation(
                "Electricity per month",
                power,
                f"{ccy}/month",
                f"{rated} × {number(ctx.hours)} h = {number(kwh)} kWh × PUE {number(e.pue)} "
                f"× {money(tariff, ccy, 7)}/kWh = {money(power, ccy)}/month",
                "seed 003 T7 (8-GPU > 10 kW; 7,200 kWh/month ≈ NT$25,000–30,000); the "
                f"servers bought at their rated draw (server {server.id}); {src_e}",
                operands(
                    servers=(n, "servers"),
                    server_kw=(server.power_kw, "kW rated"),
                    hours=(ctx.hours, "h/month"),
                    pue=(e.pue, ""),
                    tariff=(tariff, f"{ccy}/kWh"),
                ),
                f"round_half_up(servers * server_kw * hours * pue * tariff, {places})",
            ),
            Explanation(
                "Colocation (rack, cooling) per month",
                facility,
                f"{ccy}/month",
                f"{rated} × {money(colo, ccy)}/kW-month = {money(facility, ccy)}/month",
                f"seed 003 T9 (10 kW rack); capacity is paid whether used or not; {src_e}",
                operands(
                    servers=(n, "servers"),
                    server_kw=(server.power_kw, "kW rated"),
                    colocation=(colo, f"{ccy}/kW-month"),
                ),
                f"round_half_up(servers * server_kw * colocation, {places})",
            ),
        ]
    ledger.recurring("maintenance", maintenance, held)
    explain.append(
        Explanation(
            "Maintenance per month",
            maintenance,
            f"{ccy}/month",
            f"{percent(p.maintenance_pct_per_year)}/year × {money(hardware, ccy)} / 12 = "
            f"{money(maintenance, ccy)}/month",
            src_buy,
            operands(
                maintenance_share=(p.maintenance_pct_per_year, "per year"),
                hardware=(hardware, ccy),
            ),
            f"round_half_up(maintenance_share * hardware / 12, {places})",
        )
    )
    if staff:
        ledger.recurring("staff", staff, held)
        explain.append(
            Explanation(
                "Operations staff per month",
                staff,
                f"{ccy}/month",
                # The figure is the monthly cost; what it comes to over the holding period
                # follows it, so the formula ends on the figure it explains (QA).
                f"{money(staff, ccy)}/month (over {fmt_months(held)}: "
                f"{money(round_money(staff * held, ccy), ccy)})",
                src_buy,
                operands(staff_per_month=(staff, f"{ccy}/month")),
                "staff_per_month",
            )
        )

    resale = round_money(book_value(hardware, p.residual_pct, amort_months, held), ccy)
    ledger.at_end_of("residual", held, -resale)
    explain.append(
        Explanation(
            RESALE_FIGURE,
            -resale,
            ccy,
            f"{money(hardware, ccy)} × (1 − {number(1 - p.residual_pct)} × "
            f"min({number(held)}, {number(amort_months)}) / {number(amort_months)} months) "
            f"= {money(resale, ccy)} back",
            f"straight-line to {percent(p.residual_pct)} over {number(p.amortisation_years)} "
            f"years; {src_buy}",
            operands(
                hardware=(hardware, ccy),
                residual_share=(p.residual_pct, ""),
                held_months=(held, "months"),
                amortisation_months=(amort_months, "months"),
            ),
            "-round_half_up(hardware * (1 - (1 - residual_share) * min(held_months, "
            f"amortisation_months) / amortisation_months), {places})",
        )
    )

    residual_full = round_money(p.residual_pct * hardware, ccy)
    amortised = round_money((upfront - residual_full) / amort_months, ccy)
    run_rate = round_money(amortised + power + facility + maintenance + staff, ccy)
    explain += [
        Explanation(
            "Amortised capex per month",
            amortised,
            f"{ccy}/month",
            f"({money(upfront, ccy)} − {money(residual_full, ccy)} residual) / "
            f"({number(p.amortisation_years)} years × 12) = {money(amortised, ccy)}/month",
            "seed 003 T9 (3-year amortisation)",
            operands(
                upfront=(upfront, ccy),
                residual_share=(p.residual_pct, ""),
                hardware=(hardware, ccy),
                amortisation_years=(p.amortisation_years, "years"),
            ),
            f"round_half_up((upfront - round_half_up(residual_share * hardware, {places})) / "
            f"(amortisation_years * 12), {places})",
        ),
        Explanation(
            "Amortised cost per month",
            run_rate,
            f"{ccy}/month",
            f"{money(amortised, ccy)} + power {money(power, ccy)} + colocation "
            f"{money(facility, ccy)} + maintenance {money(maintenance, ccy)} + staff "
            f"{money(staff, ccy)} = {money(run_rate, ccy)}/month",
            "seed 003 T9 (> NT$400,000/month, above the NT$350,000 rent)",
            operands(
                amortised=(amortised, f"{ccy}/month"),
                power=(power, f"{ccy}/month"),
                colocation=(facility, f"{ccy}/month"),
                maintenance=(maintenance, f"{ccy}/month"),
                staff=(staff, f"{ccy}/month"),
            ),
            "amortised + power + colocation + maintenance + staff",
        ),
    ]

    lead_days = server.lead_time_weeks * 7
    if rent_monthly:
        delay = round_money(cost_of_delay(lead_days, rent_monthly), ccy)
        explain.append(
            Explanation(
                "Cost of delay (rent while waiting for delivery)",
                delay,
                ccy,
                # As it multiplies out (QA: "2.3 months × NT$700,000 = NT$1,610,959" did not:
                # the months were 2.3014, printed to a tenth).
                f"{number(lead_days, 0)} days × {money(rent_monthly, ccy)}/month × 12 / 365 "
                f"days = {money(delay, ccy)}",
                "seed 003 T9/T13 (purchase 8–12 weeks, rental 2 hours)",
                operands(
                    lead_days=(lead_days, "days"),
                    days_per_month=(DAYS_PER_MONTH, "days"),
                    rent_monthly=(rent_monthly, f"{ccy}/month"),
                ),
                f"round_half_up(lead_days / days_per_month * rent_monthly, {places})",
            )
        )
        notes.append(
            Notice(
                "Delivery takes ≈%(weeks)s weeks (seed 003 T9: 8–12): renting meanwhile costs "
                "≈%(delay)s (%(days)s days at %(rent)s a month), not included in this total.",
                weeks=number(server.lead_time_weeks), delay=money(delay, ccy),
                days=number(lead_days, 0), rent=money(rent_monthly, ccy),
            )
        )  # fmt: skip
    if n * server.gpu_count > usage.gpu_count + _EPS:
        bought = n * server.gpu_count  # 1: a one-GPU server for a MIG slice
        notes.append(
            Notice(
                one_or_many(
                    bought,
                    "Buys %(bought)s GPU to cover %(used)s.",
                    "Buys %(bought)s GPUs to cover %(used)s.",
                ),
                bought=bought, used=number(usage.gpu_count),
            )
        )  # fmt: skip
    # One sentence that makes "up front" and "total" readable side by side.
    notes.insert(
        0,
        period_notice(
            HELD,
            held,
            resale=money(resale, ccy),
            residual=percent(p.residual_pct),
            years=number(p.amortisation_years),
            upfront=money(upfront, ccy),
        ),
    )
    floor = economical_holding_months(lead_days)
    economical = held >= floor - _EPS
    if not economical:
        notes.insert(
            0,
            period_notice(
                TOO_SHORT_TO_BUY,
                held,
                delivery=number(lead_days / DAYS_PER_MONTH, 1),
                floor=number(PAYBACK_FLOOR_MONTHS, 0),
            ),
        )
        explain.append(
            Explanation(
                "Shortest holding period for buying",
                floor,
                "months",
                f"{number(lead_days, 0)} days / {number(DAYS_PER_MONTH)} + "
                f"{number(PAYBACK_FLOOR_MONTHS, 0)} = {number(floor, 1)} months > "
                f"{number(held, 1)} held",
                "seed 003 T9/T13 (purchase 8–12 weeks); T8 (shortest contract 3 months)",
                operands(
                    lead_days=(lead_days, "days"),
                    days_per_month=(DAYS_PER_MONTH, "days"),
                    payback_floor=(PAYBACK_FLOOR_MONTHS, "months"),
                ),
                "lead_days / days_per_month + payback_floor",
            )
        )
    if not runnable:
        # First, as rental and cloud notes say it: why this purchase cannot run the plan.
        largest = max(skus, key=lambda s: s.gpu_count)
        notes.insert(
            0,
            Notice(
                "Not runnable: this plan needs %(need)s GPUs on NVLink in one machine; the "
                "largest server listed, %(name)s, has %(have)s."
                if usage.nvlink
                else "Not runnable: this plan needs %(need)s GPUs in one machine; the "
                "largest server listed, %(name)s, has %(have)s.",
                need=group,
                name=largest.name,
                have=largest.gpu_count,
            ),
        )

    return finish_option(
        ctx,
        ledger,
        kind="buy",
        key=f"buy:{server.id}",
        label=f"Buy — {n} × {server.name} ({fmt_gpus(str(n * server.gpu_count))})",
        lead_time_days=lead_days,
        source_ids=[server.id, *([ctx.energy.id] if ctx.energy else [])],
        explain=explain,
        fixed_monthly=amortised + facility + maintenance + staff,
        metered_monthly_full=(power / ctx.hours * HOURS_PER_MONTH) if ctx.hours else 0.0,
        billed=Billed(
            "month", float(max(1, math.ceil(held - _EPS))), float(n * server.gpu_count), n
        ),
        feasible=feasible,
        economical=economical,
        note=Sentences(*notes),
        held_months=held,
        amortisation_months=amort_months,
    )
