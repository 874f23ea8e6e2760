"""The shipped catalog (`app/data/catalog.yaml` + `app/data/gpus.yaml`), read without a database.

The CLI's `estimate` prices with it, the web layer falls back to it, and the catalog service
loads it into an empty database. Rows in the files carry exactly the engine dataclass fields
(plus `notes` on GPUs), so they build the dataclasses directly.
"""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any, Final

import yaml

from app.engine.gpus import gpu_from_record
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

DATA_DIR: Final = Path(__file__).resolve().parent.parent / "data"
CATALOG_PATH: Final = DATA_DIR / "catalog.yaml"
GPUS_PATH: Final = DATA_DIR / "gpus.yaml"


@cache
def _read(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    return data


def shipped_document() -> dict[str, Any]:
    """Both files as one document: `price_list`, `gpus`, `offers`, `cloud`, `servers`,
    `energy`, `buy`, `fx` (a deep copy: callers may change it)."""
    doc = copy.deepcopy(_read(CATALOG_PATH))
    doc["gpus"] = copy.deepcopy(_read(GPUS_PATH)["gpus"])
    return doc


def shipped_gpus() -> list[GpuSpec]:
    """The shipped GPU specifications (dense throughput, street price in USD)."""
    return [gpu_from_record(r) for r in _read(GPUS_PATH)["gpus"]]


@cache
def shipped_price_book() -> PriceBook:
    """The shipped price list as the cost engine consumes it."""
    doc = _read(CATALOG_PATH)
    head = doc["price_list"]
    return PriceBook(
        name=head["name"],
        effective_date=head["effective_date"],
        currency=head["currency"],
        offers=tuple(
            RentalOffer(
                **{
                    **r,
                    "term_discounts": {int(k): float(v) for k, v in r["term_discounts"].items()},
                }
            )
            for r in doc.get("offers", [])
        ),
        cloud=tuple(CloudInstance(**r) for r in doc.get("cloud", [])),
        servers=tuple(ServerSku(**r) for r in doc.get("servers", [])),
        energy=tuple(EnergyPrice(**r) for r in doc.get("energy", [])),
        buy=BuyParameters(**doc["buy"]) if doc.get("buy") else BuyParameters(),
        fx=tuple(FxRate(**r) for r in doc.get("fx", [])),
        gpus=tuple(sorted(shipped_gpus(), key=lambda g: g.id)),
    )
