"""The shipped catalog (`app/data/catalog.yaml` + `app/data/gpus.yaml`), read without a database.

The CLI's `estimate` prices with it, the web pages use it when the database has no current
list (`current`), and the catalog service loads it into an empty database. Rows in the files
carry exactly the engine dataclass fields (plus `notes` on GPUs), so they go to
`price_book.build_price_book` as they are.
"""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any, Final

import yaml

from app.catalog.price_book import BOOK_KINDS, build_price_book
from app.engine.gpus import gpu_from_record
from app.engine.hardware import GpuSpec
from app.engine.price_book import PriceBook

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
    rows = {name: doc.get(name, []) for name in BOOK_KINDS if name != "buy"}
    rows["buy"] = [doc["buy"]] if doc.get("buy") else []
    return build_price_book(
        name=head["name"],
        effective_date=head["effective_date"],
        currency=head["currency"],
        rows=rows,
        gpus=shipped_gpus(),
    )
