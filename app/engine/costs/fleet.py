"""The servers a serving fleet rents: copies of a model that each fit in one server, packed
onto the provider's servers at the least monthly price.

Independent copies exchange no data, so they may sit on servers of different sizes and need
no InfiniBand between them: 26 single-GPU copies rent as 3 × 8 + 1 × 2 GPUs (NT$1,150,000 a
month at seed 003 T8's list prices), not as 32 GPUs of 16-GPU InfiniBand cluster offers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.engine.price_book import PriceBook, RentalOffer


@dataclass(frozen=True, slots=True)
class FleetRental:
    """The servers that hold a fleet, largest first, and their monthly prices in the asked
    currency: at list, and on the longest contract's discount (T8: 12 months −20 %)."""

    servers: tuple[int, ...]  # GPUs of each server
    list_price: float
    best_price: float


def fleet_rental(
    book: PriceBook, offers: Sequence[RentalOffer], gpus: int, span: int, currency: str
) -> FleetRental | None:
    """The cheapest set of `offers`' servers holding `gpus` GPUs in whole copies of `span`
    GPUs (a copy never straddles two servers); fewer servers on a tie. InfiniBand cluster
    offers are left out (serving needs no fabric between servers). None when no offer fits
    or a price cannot be converted to `currency`.

    An unbounded knapsack over GPU counts: cover[need] = the least list price (then fewest
    servers) holding at least `need` GPUs."""
    usable = [
        o
        for o in offers
        if o.interconnect != "infiniband"
        and o.gpu_count >= span
        and float(o.gpu_count).is_integer()
        and int(o.gpu_count) % span == 0
    ]
    if not usable or gpus < 1:
        return None
    sizes: dict[int, tuple[float, float]] = {}
    for o in usable:
        try:
            top = book.convert(o.monthly_price, o.currency, currency)
        except KeyError:
            return None
        term = top * (1 - max(o.term_discounts.values(), default=0.0))
        n = int(o.gpu_count)
        if n not in sizes or top < sizes[n][0]:
            sizes[n] = (top, term)
    cover: list[tuple[float, int, tuple[int, ...]]] = [(0.0, 0, ())]
    for need in range(1, gpus + 1):
        options = []
        for n, (top, _term) in sizes.items():
            price, count, held = cover[max(0, need - n)]
            options.append((price + top, count + 1, (*held, n)))
        cover.append(min(options, key=lambda t: (round(t[0], 6), t[1])))
    chosen = tuple(sorted(cover[gpus][2], reverse=True))
    return FleetRental(
        servers=chosen,
        list_price=sum(sizes[n][0] for n in chosen),
        best_price=sum(sizes[n][1] for n in chosen),
    )
