"""The one constructor of the cost engine's `PriceBook` from catalog rows.

Both sources of a price list come here: a stored list (`service.books`, rows read from the
database) and the shipped files (`shipped`, rows read from YAML). A row is a {column: value}
mapping whose keys are the engine dataclass's fields. No database, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Any, Final

from app.engine.hardware import GpuSpec
from app.engine.price_book import (
    BuyParameters,
    CloudInstance,
    EnergyPrice,
    FxRate,
    PriceBook,
    RentalOffer,
    ServerSku,
)

#: The kinds of row a price book holds (GPU specs come separately, as `GpuSpec`s).
BOOK_KINDS: Final = ("offers", "cloud", "servers", "energy", "buy", "fx")


def build_price_book(
    *,
    name: str,
    effective_date: date,
    currency: str,
    rows: Mapping[str, Sequence[Mapping[str, Any]]],
    gpus: Iterable[GpuSpec],
) -> PriceBook:
    """A `PriceBook` from `rows` by kind (`BOOK_KINDS`; a missing kind has no rows; `buy` has at
    most one, default parameters when none) and `gpus` (sorted by id). Term discounts become
    {months: fraction} with int keys and float values, whatever the source wrote."""

    def of(kind: str) -> Sequence[Mapping[str, Any]]:
        return rows.get(kind) or ()

    buy = of("buy")
    return PriceBook(
        name=name,
        effective_date=effective_date,
        currency=currency,
        offers=tuple(
            RentalOffer(
                **{
                    **r,
                    "term_discounts": {int(k): float(v) for k, v in r["term_discounts"].items()},
                }
            )
            for r in of("offers")
        ),
        cloud=tuple(CloudInstance(**r) for r in of("cloud")),
        servers=tuple(ServerSku(**r) for r in of("servers")),
        energy=tuple(EnergyPrice(**r) for r in of("energy")),
        buy=BuyParameters(**buy[0]) if buy else BuyParameters(),
        fx=tuple(FxRate(**r) for r in of("fx")),
        gpus=tuple(sorted(gpus, key=lambda g: g.id)),
    )
