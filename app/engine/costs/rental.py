"""Bare-metal rental: which offers cover a need, and what hourly, monthly and term rent cost.

Rules (seed 003 T8): MIG 1/4 NT$15,000, 1×H100 NT$50,000, 2× NT$100,000, 4× NT$200,000,
8× NT$350,000 per month; hourly ≈NT$120 per GPU; 3-month contracts at list price, 6 months
−10 %, 12 months −20 %. Rent includes power and bandwidth (T8). Deployment takes 2 hours
(T13). More than one node is "quoted per project, roughly nodes × single-node price" (T1,
FAQ); the engine prices it as that product, before any volume discount.

Every provider whose offers can run the need gets its own selection (`offer_selections`), so
a comparison sees each provider's hourly, monthly and term rent. A machine runs the need
only when it holds whole groups of `Usage.gpus_per_machine_min` GPUs (the plan's machine
group: a service's tensor-parallel group, a training job's NVLink node); a provider whose
machines are all smaller is still shown, priced on its offers, but not runnable.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from app.engine.costs.context import (
    Context,
    add_storage_network,
    convert,
    finish_option,
    period_notice,
)
from app.engine.costs.formulas import term_discount
from app.engine.costs.ledger import Ledger
from app.engine.costs.model import (
    GPUS_PER_NODE,
    HOURS_PER_MONTH,
    Billed,
    CostOption,
    Usage,
    money_places,
    round_money,
)
from app.engine.explain import Explanation, Operand, money, number, operands, percent
from app.engine.formatting import exact_money, plural
from app.engine.formatting import gpus as fmt_gpus
from app.engine.formatting import months as fmt_months
from app.engine.notices import Notice, Sentences, one_or_many
from app.engine.price_book import PriceBook, RentalOffer

_EPS = 1e-9
_INTERCONNECT = {"pcie": "PCIe", "nvlink": "NVLink", "infiniband": "InfiniBand"}

Converter = Callable[[float, str], float]

#: Monthly rent of a period that is not a whole number of months (`period_notice`: a
#: period under a month in days or hours, not "1 for a 0-month rental period").
WHOLE_MONTHS = {
    "months": "Monthly rent is billed by whole months: %(billed)s for a %(period)s-month "
    "rental period.",
    "days": "Monthly rent is billed by whole months: one month for a rental period of "
    "%(period)s days.",
    "hours": "Monthly rent is billed by whole months: one month for a rental period of "
    "%(period)s hours.",
    "day": "Monthly rent is billed by whole months: one month for a rental period of 1 day.",
    "hour": "Monthly rent is billed by whole months: one month for a rental period of 1 hour.",
}
#: A contract longer than the rental period.
#: A contract whose rental period runs past its term into part of a month: it bills that
#: month whole, as monthly rent does (the period is then at least the term, so months).
CONTRACT_WHOLE_MONTHS = {
    "months": "The contract is billed by whole months: %(billed)s for a %(period)s-month "
    "rental period.",
}
CONTRACT_OUTLASTS = {
    "months": "The %(term)s-month contract outlasts the %(period)s-month rental period: the "
    "unused months are paid too.",
    "days": "The %(term)s-month contract outlasts the rental period of %(period)s days: the "
    "unused months are paid too.",
    "hours": "The %(term)s-month contract outlasts the rental period of %(period)s hours: the "
    "unused months are paid too.",
    "day": (
        "The %(term)s-month contract outlasts the rental period of 1 day: the unused months "
        "are paid too."
    ),
    "hour": (
        "The %(term)s-month contract outlasts the rental period of 1 hour: the unused months "
        "are paid too."
    ),
}


def offer_servers(offer: RentalOffer, gpus_per_node: int) -> int:
    """Machines (nodes) one rental of `offer` is: a 16-GPU InfiniBand offer is 2 of 8."""
    return max(1, math.ceil(offer.gpu_count / max(1, gpus_per_node) - _EPS))


def machine_gpus(offer: RentalOffer, gpus_per_node: int) -> float:
    """GPUs inside one machine of `offer`: its GPUs over its nodes (16-GPU IB offer: 8)."""
    return offer.gpu_count / offer_servers(offer, gpus_per_node)


def group_capacity(offer: RentalOffer, group: int, gpus_per_node: int) -> float:
    """GPUs of one rental of `offer` that whole groups of `group` GPUs can use, each group
    inside one machine: nodes × floor(GPUs per machine / group) × group.

    An 8-GPU node holds two TP-4 groups (8); a 2-GPU machine holds no TP-4 group (0); a
    group of 1 (single-GPU replicas, a MIG slice) uses every GPU of the offer.
    """
    if group <= 1:
        return offer.gpu_count
    per_machine = machine_gpus(offer, gpus_per_node)
    return offer_servers(offer, gpus_per_node) * math.floor(per_machine / group + _EPS) * group


@dataclass(frozen=True)
class OfferSelection:
    """The offers of one provider that together cover a GPU need: ((offer, how many), …).

    group: the GPUs that must share one machine (`Usage.gpus_per_machine_min`); runnable:
    False when none of the provider's machines holds such a group — the selection is then
    priced on all its offers, only to show why it cannot run the need.
    """

    provider: str
    parts: tuple[tuple[RentalOffer, int], ...]
    group: int = 1
    runnable: bool = True

    @property
    def gpus(self) -> float:
        return sum(o.gpu_count * k for o, k in self.parts)

    @property
    def ids(self) -> list[str]:
        return [o.id for o, _ in self.parts]

    @property
    def main(self) -> RentalOffer:
        return self.parts[0][0]

    @property
    def nodes(self) -> int:
        """Offers rented (a multi-node offer counts once; see `servers`)."""
        return sum(k for _, k in self.parts)

    def servers(self, gpus_per_node: int) -> int:
        """Physical nodes billed: a 16-GPU InfiniBand offer is 2 nodes of 8 (seed 003 T6)."""
        return sum(k * offer_servers(o, gpus_per_node) for o, k in self.parts)

    def largest_machine(self, gpus_per_node: int) -> float:
        """GPUs in the largest machine rented (what a group must fit into)."""
        return max(machine_gpus(o, gpus_per_node) for o, _ in self.parts)

    @property
    def is_slice(self) -> bool:
        """A MIG slice (less than one whole GPU)."""
        return self.gpus < 1 - _EPS

    @property
    def includes_power(self) -> bool:
        return all(o.includes_power for o, _ in self.parts)

    @property
    def lead_time_hours(self) -> float:
        return max(o.lead_time_hours for o, _ in self.parts)

    def monthly(self, conv: Converter) -> float:
        return sum(k * conv(o.monthly_price, o.currency) for o, k in self.parts)

    def hourly(self, conv: Converter) -> float | None:
        """Hourly price of the whole selection; None if any offer is not rented hourly."""
        if any(o.hourly_price is None for o, _ in self.parts):
            return None
        return sum(k * conv(o.hourly_price or 0.0, o.currency) for o, k in self.parts)

    def term_monthly(self, conv: Converter, term_months: float) -> float:
        """Monthly rent under a `term_months` contract, each offer with its own tier."""
        return sum(
            k * conv(o.monthly_price, o.currency) * (1 - term_discount(o, term_months)[1])
            for o, k in self.parts
        )

    def formula(
        self,
        conv: Converter,
        currency: str,
        price: Callable[[RentalOffer], float],
        unit: str = "",
        group: bool = False,
    ) -> str:
        """Per-offer prices summed: "2 × NT$350,000 (h100-8x) + NT$200,000 (h100-4x)".

        `unit` follows each price ("/h" gives "NT$960/h (h100-8x)"); `group` puts a sum of
        several offers in parentheses, for a formula that multiplies it.
        """
        terms = []
        for o, k in self.parts:
            each = f"{exact_money(conv(price(o), o.currency), currency)}{unit} ({o.id})"
            terms.append(f"{k} × {each}" if k > 1 else each)
        joined = " + ".join(terms)
        return f"({joined})" if group and len(terms) > 1 else joined

    def operands(
        self, conv: Converter, currency: str, price: Callable[[RentalOffer], float], unit: str
    ) -> tuple[list[Operand], str]:
        """The per-offer prices as operands and their sum: "count_1 * price_1 + …"."""
        ops: list[Operand] = []
        terms = []
        for i, (o, k) in enumerate(self.parts, 1):
            ops.append(Operand(f"count_{i}", k, f"× {o.id}"))
            ops.append(Operand(f"price_{i}", conv(price(o), o.currency), f"{currency}{unit}"))
            terms.append(f"count_{i} * price_{i}")
        return ops, " + ".join(terms)

    def describe(self, gpu_id: str) -> str:
        """ "4× h100-sxm-80gb NVLink" or "12× h100-sxm-80gb as 8 + 4 GPUs"."""
        if self.nodes == 1:
            link = _INTERCONNECT.get(self.main.interconnect, self.main.interconnect)
            if self.is_slice:
                return f"MIG {number(self.gpus)} × {gpu_id}"
            if self.gpus == 1:
                # One GPU talks to nothing: "1× h100-sxm-80gb PCIe" read as a PCIe card.
                return f"1× {gpu_id}"
            return f"{number(self.gpus)}× {gpu_id} {link}"
        # "as 8 + 4 GPUs"; many of one offer as "1,024 × 16" (it listed 1,024 terms).
        split = " + ".join(
            f"{number(k)} × {number(o.gpu_count)}"
            if k > 2
            else " + ".join([number(o.gpu_count)] * k)
            for o, k in self.parts
        )
        return f"{number(self.gpus)}× {gpu_id} as {split} GPUs"


def _cover(
    provider: str,
    offers: list[RentalOffer],
    need: float,
    price: Converter,
    capacity: Callable[[RentalOffer], float],
    independent: bool = False,
) -> OfferSelection:
    """Fewest GPUs covering `need` from one provider's offers, then the lowest monthly price.

    `capacity(offer)` is the GPUs of one rental the need can use (its whole groups, see
    `group_capacity`); every offer passed has some. One offer when one is big enough, or
    the cheapest mix of offers when it costs less (`_cheapest_mix`).

    `independent` (`Usage.independent_machines`): the need is copies that exchange no data
    (serving replicas), so the cheapest mix of machines is taken at any size — 26 single-GPU
    replicas rent as 8 + 8 + 8 + 2 (NT$1,150,000 a month at seed 003 T8's list), not as two
    16-GPU InfiniBand offers (NT$1,400,000). Otherwise (a training job, timed on InfiniBand
    between its nodes, `plan_costs.machine_group`) a need larger than every offer is as many
    of the largest offer as fit plus the smallest offer that covers the rest (16 = 2 × 8;
    24 = 16 + 8), never spread over more separate machines than that.
    """

    def cost(o: RentalOffer) -> tuple[float, float]:
        return (o.gpu_count, price(o.monthly_price, o.currency))

    covering = [o for o in offers if capacity(o) >= need - _EPS]
    if covering or independent:
        single = ((min(covering, key=cost), 1),) if covering else None
        combined = _cheapest_mix(offers, need, price, capacity, independent)
        if combined is not None and (
            single is None
            or _mix_key(combined, price, independent) < _mix_key(single, price, independent)
        ):
            return OfferSelection(provider, combined)
        if single is not None:
            return OfferSelection(provider, single)
    largest = min(offers, key=lambda o: (-capacity(o), price(o.monthly_price, o.currency)))
    k = math.floor((need + _EPS) / capacity(largest))
    rest_need = need - k * capacity(largest)
    if rest_need <= _EPS:
        return OfferSelection(provider, ((largest, k),))
    rest = min((o for o in offers if capacity(o) >= rest_need - _EPS), key=cost)
    if capacity(rest) >= capacity(largest) - _EPS:
        return OfferSelection(provider, ((largest, k + 1),))
    return OfferSelection(provider, ((largest, k), (rest, 1)))


def _fabric(o: RentalOffer) -> bool:
    """An offer sold as a cluster joined by a fabric (the 16-GPU InfiniBand offer)."""
    return o.interconnect == "infiniband"


def _mix_key(
    parts: tuple[tuple[RentalOffer, int], ...], price: Converter, independent: bool = False
) -> tuple[float, float, int, int]:
    """(monthly list rent, GPUs, fabric rentals, rentals) of a mix, in the list's currency:
    what a mix is chosen by (a cent's difference counts; equal rents keep fewer GPUs, then —
    for independent machines, which use no fabric — fewer cluster offers, then fewer
    rentals). Replicas at equal rent are rented as standalone machines, not as an
    InfiniBand cluster they would not use (16 as 8 + 8, not the 16-GPU IB offer)."""
    rent = sum(price(o.monthly_price, o.currency) * k for o, k in parts)
    fabric = sum(k for o, k in parts if _fabric(o)) if independent else 0
    return (
        round(rent, 2),
        sum(o.gpu_count * k for o, k in parts),
        fabric,
        sum(k for _, k in parts),
    )


def _cheapest_mix(
    offers: list[RentalOffer],
    need: float,
    price: Converter,
    capacity: Callable[[RentalOffer], float],
    independent: bool = False,
) -> tuple[tuple[RentalOffer, int], ...] | None:
    """The cheapest mix of whole-GPU offers whose capacities add up to at least `need`
    (unbounded knapsack over GPU counts, ordered by `_mix_key`), or None when no offer mixes
    (a MIG slice, a need of at most one offer's size with nothing smaller).

    Serving replicas are independent: 13 GPUs of single-GPU replicas rent as 8 + 4 + 1
    (NT$600,000 a month at seed 003 T8's list) rather than the 16-GPU InfiniBand offer
    (NT$700,000) — QA found that 17 % over. A training group is whole in each machine by
    `capacity` (`group_capacity`), so a mix never splits one.

    Only a window of the need is searched; the rest is the offer with the lowest rent per
    GPU of capacity (`bulk`) repeated. That loses nothing: among any `cap(bulk)` other
    offers of a mix, some have capacities adding up to a multiple of `cap(bulk)` (prefix
    sums modulo it), and as many `bulk` offers hold as much for no more rent; so a cheapest
    mix has fewer than `cap(bulk)` others, under `cap(bulk)` × the largest capacity. The
    search is then at most a few hundred GPU counts × the provider's offers, whatever the
    need (2,048 GPUs included)."""
    usable = [o for o in offers if capacity(o) >= 1 - _EPS and o.gpu_count >= 1 - _EPS]
    if len(usable) < 2:
        return None
    caps = {o.id: round(capacity(o)) for o in usable}
    rents = {o.id: price(o.monthly_price, o.currency) for o in usable}
    fabric = {o.id: int(independent and _fabric(o)) for o in usable}
    bulk_offer = min(usable, key=lambda o: (rents[o.id] / caps[o.id], fabric[o.id], -caps[o.id]))
    per_bulk = caps[bulk_offer.id]
    largest_cap = max(caps.values())
    units = math.ceil(need - _EPS)
    bulk = max(0, (units - per_bulk * largest_cap) // per_bulk)
    rest = units - bulk * per_bulk
    top = rest + largest_cap
    # best[c]: the cheapest `_mix_key` of exactly c GPUs of capacity, and its last offer, to
    # rebuild the mix.
    inf = (math.inf, math.inf, 0, 0)
    best: list[tuple[float, float, int, int]] = [inf] * (top + 1)
    last: list[RentalOffer | None] = [None] * (top + 1)
    best[0] = (0.0, 0.0, 0, 0)
    for c in range(1, top + 1):
        for o in usable:
            cap = caps[o.id]
            if cap > c or best[c - cap][0] == math.inf:
                continue
            prev = best[c - cap]
            cand = (
                round(prev[0] + rents[o.id], 2),
                prev[1] + o.gpu_count,
                prev[2] + fabric[o.id],
                prev[3] + 1,
            )
            if cand < best[c]:
                best[c], last[c] = cand, o
    end = min(
        (c for c in range(rest, top + 1) if best[c][0] < math.inf),
        key=lambda c: best[c],
        default=None,
    )
    if end is None:
        return None
    counts: dict[str, int] = {}
    by_id = {o.id: o for o in usable}
    c = end
    while c > 0:
        chosen = last[c]
        assert chosen is not None
        counts[chosen.id] = counts.get(chosen.id, 0) + 1
        c -= caps[chosen.id]
    if bulk:
        counts[bulk_offer.id] = counts.get(bulk_offer.id, 0) + bulk
    parts = sorted(((by_id[i], k) for i, k in counts.items()), key=lambda p: -p[0].gpu_count)
    return tuple(parts)


def offer_selections(
    book: PriceBook,
    gpu_id: str,
    gpu_count: float,
    group: int = 1,
    gpus_per_node: int = GPUS_PER_NODE,
    independent: bool = False,
) -> list[OfferSelection]:
    """One selection per provider that lists `gpu_id`, runnable ones first, cheapest first.

    Offers are combined within one provider only (one contract). A provider's selection uses
    only the offers whose machines hold whole groups of `group` GPUs (`group_capacity`: the
    plan's machine group stays inside one NVLink machine); a provider with no such
    offer gets a selection priced on all its offers, marked `runnable=False`, so that a
    comparison can say why it cannot run the need. Order: runnable before not, then the
    lowest monthly list rent in the list's currency, the fewest GPUs, the provider's name (a
    fixed order for equal prices). A need of ≤ 0.25 GPU picks a MIG 1/4 slice when the list
    has one (seed 003 T8). `independent` (`Usage.independent_machines`): the machines need
    no fabric between them, so any mix of machine sizes may hold the need (`_cover`).
    """
    by_provider: dict[str, list[RentalOffer]] = {}
    for o in book.offers:
        if o.gpu_id == gpu_id and o.gpu_count > 0:
            by_provider.setdefault(o.provider, []).append(o)
    group = max(1, int(group))

    def in_book_ccy(amount: float, ccy: str) -> float:
        return convert(book, amount, ccy, book.currency)

    def grouped(o: RentalOffer) -> float:
        return group_capacity(o, group, gpus_per_node)

    def plain(o: RentalOffer) -> float:
        return o.gpu_count

    out: list[OfferSelection] = []
    for provider, offers in by_provider.items():
        fit = [o for o in offers if grouped(o) > _EPS]
        if fit:
            sel = _cover(provider, fit, gpu_count, in_book_ccy, grouped, independent)
            out.append(replace(sel, group=group))
        else:
            sel = _cover(provider, offers, gpu_count, in_book_ccy, plain, independent)
            out.append(replace(sel, group=group, runnable=False))

    def rank(s: OfferSelection) -> tuple[bool, float, float, str]:
        return (not s.runnable, s.monthly(in_book_ccy), round(s.gpus, 9), s.provider)

    return sorted(out, key=rank)


def select_offers(
    book: PriceBook,
    gpu_id: str,
    gpu_count: float,
    group: int = 1,
    gpus_per_node: int = GPUS_PER_NODE,
    independent: bool = False,
) -> OfferSelection | None:
    """The cheapest runnable selection for `gpu_count` GPUs of `gpu_id` (groups of `group`
    GPUs inside one machine), or None if no provider's offers can run it.

    "Cheapest" is the lowest monthly list rent (then fewest GPUs, then provider name): the
    one rent a single figure stands for — what buying is measured against (cost of delay,
    like for like) and what a phase of a schedule is billed on — because it is the rent a
    customer who rents for a month actually pays. `offer_selections` gives every provider.
    """
    sels = offer_selections(book, gpu_id, gpu_count, group, gpus_per_node, independent)
    return sels[0] if sels and sels[0].runnable else None


def _extras(
    ctx: Context, usage: Usage, sel: OfferSelection, ledger: Ledger, src: str
) -> tuple[list[Explanation], float, float, str]:
    """Storage/network and, for offers without power, electricity.

    Returns (explanations, fixed per month, metered per month at 730 h, note).
    """
    explain: list[Explanation] = []
    fixed = metered = 0.0
    note = ""
    ccy = ctx.currency
    explain += add_storage_network(ctx, ledger)
    fixed += ctx.storage_network
    if not sel.includes_power:
        if ctx.energy is None:
            note = Notice(
                "Rent excludes power and the price list has no energy price: total too low."
            )
        else:
            e = ctx.energy
            tariff = ctx.conv(e.tariff_per_kwh, e.currency)
            per_hour = usage.power_kw * e.pue * tariff
            # Rounded once per month, as buying's electricity is (ownership module
            # docstring): the period's part is this printed figure × the months.
            per_month = round_money(per_hour * ctx.hours, ccy)
            ledger.recurring("power", per_month, ctx.metered_months)
            metered += per_hour * HOURS_PER_MONTH
            explain.append(
                Explanation(
                    "Electricity (not included in rent)",
                    per_month,
                    f"{ccy}/month",
                    f"{number(usage.power_kw)} kW × {number(ctx.hours)} h × PUE {number(e.pue)} "
                    f"× {exact_money(tariff, ccy, 7)}/kWh = {money(per_month, ccy)}/month",
                    f"seed 003 T7; energy {e.id}; {src}",
                    operands(
                        power_kw=(usage.power_kw, "kW"),
                        hours=(ctx.hours, "h/month"),
                        pue=(e.pue, ""),
                        tariff=(tariff, f"{ccy}/kWh"),
                    ),
                    f"round_half_up(power_kw * hours * pue * tariff, {money_places(ccy)})",
                )
            )
    return explain, fixed, metered, note


def rental_options(
    ctx: Context, usage: Usage, sel: OfferSelection, warnings: list[str]
) -> list[CostOption]:
    """Hourly, monthly (or MIG) and term rent for one offer selection (seed 003 T8).

    A selection that is not `runnable` (its machines are smaller than the usage's
    `gpus_per_machine_min`) gives options with `feasible` False and a note saying why.
    """
    conv, ccy, hours = ctx.conv, ctx.currency, ctx.hours
    who = f"{sel.describe(usage.gpu_id)} ({sel.provider})"
    src = f"seed 003 T8; {ctx.book_ref}; offers {', '.join(sel.ids)}"
    lead_days = sel.lead_time_hours / 24
    notes = []
    if not sel.runnable:
        notes.append(
            Notice(
                "Not runnable: this plan needs %(need)s GPUs on NVLink in one machine; "
                "%(provider)s rents at most %(have)s per machine."
                if usage.nvlink
                else "Not runnable: this plan needs %(need)s GPUs in one machine; "
                "%(provider)s rents at most %(have)s per machine.",
                need=number(sel.group),
                provider=sel.provider,
                have=number(sel.largest_machine(usage.gpus_per_node)),
            )
        )
    if sel.nodes > 1 and sel.largest_machine(usage.gpus_per_node) <= 1 + _EPS:
        # Separate single-GPU pods (a marketplace's per-GPU rate) are billed pod by pod:
        # seed 003 T1's "quoted per project" is about multi-node clusters, not them.
        notes.append(
            Notice(
                "%(machines)s separate single-GPU machines, each billed at its own rate; they "
                "share no NVLink."
                if usage.nvlink
                else "%(machines)s separate single-GPU machines, each billed at its own rate; "
                "only the network joins them.",
                machines=number(sel.nodes),
            )
        )
    elif len(sel.parts) > 1 and sel.servers(usage.gpus_per_node) == sel.nodes:
        # A mix of one-machine offers (8 + 4 + 1 for 13 single-GPU replicas, `_cheapest_mix`):
        # each machine holds whole groups of the plan's GPUs; nothing joins them but Ethernet.
        group = number(max(1, sel.group))
        notes.append(
            Notice(
                one_or_many(
                    group,
                    "Rented as %(machines)s machines (%(split)s GPUs), each holding whole "
                    "groups of %(group)s GPU of the plan; the machines share no NVLink.",
                    "Rented as %(machines)s machines (%(split)s GPUs), each holding whole "
                    "groups of %(group)s GPUs of the plan; the machines share no NVLink.",
                ),
                machines=number(sel.nodes),
                split=" + ".join(" + ".join([number(o.gpu_count)] * k) for o, k in sel.parts),
                group=group,
            )
        )
    elif sel.nodes > 1:
        # `nodes` is the servers billed, not the offers rented: 1,024 rentals of a 16-GPU
        # (2-node) offer said "1024 nodes" for a 2,048-node plan.
        notes.append(
            Notice(
                "%(nodes)s nodes, rented as %(offers)s offers: seed 003 T1 quotes multi-node "
                "clusters per project; priced here as the sum of the offers' rent, before any "
                "volume discount.",
                nodes=number(sel.servers(usage.gpus_per_node)),
                offers=number(sel.nodes),
            )
        )
    if sel.gpus > usage.gpu_count + _EPS:
        rented = number(sel.gpus)  # 1 for a MIG slice (0.25): "Rents 1 GPU to cover 0.25."
        notes.append(
            Notice(
                one_or_many(
                    rented,
                    "Rents %(rented)s GPU to cover %(used)s.",
                    "Rents %(rented)s GPUs to cover %(used)s.",
                ),
                rented=rented, used=number(usage.gpu_count),
            )
        )  # fmt: skip
    base_note = Sentences(*notes)
    options: list[CostOption] = []

    servers = sel.servers(usage.gpus_per_node)

    def build(
        kind: str,
        label: str,
        rate: float,
        months: float,
        rent_x: Explanation,
        fixed: float,
        metered: float,
        note: str = "",
        hourly_rate: float | None = None,
        hours: float | None = None,
        contract_months: int | None = None,
    ) -> None:
        ledger = Ledger(ctx.horizon)
        ledger.recurring("rent", rate, months)
        rent_total = ledger.breakdown()["rent"]
        # 36.000000001 months (8 × US$2,182.70 × 32 back from the ledger) read "36.0 months"
        paid = round(rent_total / rate, 9) if rate else 0.0
        extra_x, ex_fixed, ex_metered, ex_note = _extras(ctx, usage, sel, ledger, src)
        if hourly_rate is not None and hours is not None:
            billed = Billed("hour", hours, sel.gpus, servers)
            how = f"{exact_money(hourly_rate, ccy)}/h × {number(hours, 0)} h billed"
        else:
            billed = Billed("month", paid, sel.gpus, servers)
            how = f"{exact_money(rate, ccy)}/month × {fmt_months(paid)}"
        # Printed as the total is billed: rounded once to NT$1 / US$0.01 (finish_option's
        # ledger rounds the part the same way), each rate in full so the product reproduces
        # (QA: "16 × US$2,183 = US$34,923/month" for 16 × US$2,182.70).
        rent_rounded = round_money(rent_total, ccy)
        rent_total_x = Explanation(
            f"{label}: rent",
            rent_rounded,
            ccy,
            f"{how} = {exact_money(rent_rounded, ccy)} ({fmt_gpus(sel.gpus)}, "
            f"{plural(str(servers), 'node')})",
            src,
            operands(
                rate=(rate, f"{ccy}/month"),
                months=(months, "months"),
                horizon=(ctx.horizon, "months"),
            ),
            f"round_half_up(rate * min(months, horizon), {money_places(ccy)})",
        )
        options.append(
            finish_option(
                ctx,
                ledger,
                kind=kind,
                key=f"{kind}:{sel.main.id}",
                label=label,
                lead_time_days=lead_days,
                source_ids=sel.ids,
                explain=[rent_x, rent_total_x, *extra_x],
                fixed_monthly=fixed + ex_fixed,
                metered_monthly_full=metered + ex_metered,
                billed=billed,
                hourly_rate=hourly_rate,
                feasible=sel.runnable,
                note=Sentences(base_note, note, ex_note),
                provider=sel.provider,
                contract_months=contract_months,
            )
        )

    hourly = sel.hourly(conv)
    if hourly is not None and hours > 0:
        hourly_ops, hourly_expr = sel.operands(conv, ccy, lambda o: o.hourly_price or 0.0, "/h")
        rate = hourly * hours
        # Billed by whole hours of use: the job's busy hours (or, for a service, every busy
        # hour of the rental period), rounded up to the hour.
        billed_hours = ctx.billed_hours()
        build(
            "rent_hourly",
            f"Hourly rent — {who}",
            rate,
            billed_hours / hours,
            Explanation(
                "Hourly rent per month",
                rate,
                f"{ccy}/month",
                f"{sel.formula(conv, ccy, lambda o: o.hourly_price or 0.0, '/h', group=True)} × "
                f"{number(hours)} h/month = {exact_money(rate, ccy)}/month",
                src,
                [*hourly_ops, Operand("hours", hours, "h/month")],
                f"({hourly_expr}) * hours",
            ),
            0.0,
            hourly * HOURS_PER_MONTH,
            hourly_rate=hourly,
            hours=billed_hours,
        )

    monthly = sel.monthly(conv)
    kind = "mig" if sel.is_slice else "rent_monthly"
    # A monthly rental is billed by the whole month of the rental period: a 3-day job still
    # pays one month.
    period = ctx.period_covered
    billed = min(float(ctx.horizon), max(1.0, float(math.ceil(period - _EPS))))
    whole_note = (
        period_notice(WHOLE_MONTHS, period, billed=number(billed)) if billed > period + _EPS else ""
    )
    build(
        kind,
        f"{'MIG slice monthly rent' if sel.is_slice else 'Monthly rent'} — {who}",
        monthly,
        billed,
        Explanation(
            "Monthly rent",
            monthly,
            f"{ccy}/month",
            f"{sel.formula(conv, ccy, lambda o: o.monthly_price)} = "
            f"{exact_money(monthly, ccy)}/month",
            src,
            *sel.operands(conv, ccy, lambda o: o.monthly_price, "/month"),
        ),
        monthly,
        0.0,
        whole_note,
    )

    explicit = ctx.term_months is not None
    term = ctx.term_months if ctx.term_months is not None else math.floor(ctx.period + _EPS)
    tier, discount = term_discount(sel.main, term) if term >= 1 else (None, 0.0)
    if tier is None:
        if explicit:
            tiers = sorted({m for o, _ in sel.parts for m in o.term_discounts})
            warnings.append(
                Notice(
                    "No contract tier of %(term)s months or less for %(offers)s (tiers: "
                    "%(tiers)s); no term rent shown.",
                    term=term,
                    offers=", ".join(sel.ids),
                    tiers=", ".join(map(str, tiers)) or "none",
                )
            )
        return options
    if discount == 0 and not explicit:
        return options  # same as monthly rent: nothing to compare
    term_rate = sel.term_monthly(conv, term)
    # Billed by the whole month, as monthly rent is (`billed` above), and for the contract at
    # least: QA read "Monthly rent: 3 months" beside "1-month contract: 2.5 months" for one
    # 2.5-month need at the same NT$50,000.
    paid_months = max(float(term), billed)
    note = ""
    if term > ctx.period + _EPS:
        note = period_notice(CONTRACT_OUTLASTS, ctx.period, term=term)
    elif paid_months > ctx.period + _EPS:
        note = period_notice(CONTRACT_WHOLE_MONTHS, ctx.period, billed=number(paid_months))
    build(
        "rent_term",
        f"{term}-month contract — {who}",
        term_rate,
        paid_months,
        Explanation(
            f"{term}-month contract rent",
            term_rate,
            f"{ccy}/month",
            _term_formula(sel, conv, ccy, term)
            + f" = {exact_money(term_rate, ccy)}/month ({tier}-month tier, "
            f"{percent(discount)} off)",
            src,
            *sel.operands(
                conv, ccy, lambda o: o.monthly_price * (1 - term_discount(o, term)[1]), "/month"
            ),
        ),
        term_rate,
        0.0,
        note,
        contract_months=term,
    )
    return options


def _term_formula(sel: OfferSelection, conv: Converter, ccy: str, term: int) -> str:
    """ "NT$350,000 (h100-8x) × (1 − 0.2)", or per offer when their tiers differ."""
    discounts = {term_discount(o, term)[1] for o, _ in sel.parts}
    if len(discounts) == 1:
        (d,) = discounts
        list_price = sel.formula(conv, ccy, lambda o: o.monthly_price, group=True)
        return f"{list_price} × (1 − {number(d)})"
    return sel.formula(conv, ccy, lambda o: o.monthly_price * (1 - term_discount(o, term)[1]))
