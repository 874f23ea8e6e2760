"""Two price lists side by side: what one adds, changes and removes against another.

A draft is usually a copy of the current list with some prices moved. Before it is published
an admin reads what moved, and the numbers that moved ×3 or more (`io.CHECK_FACTOR`: a monthly
price typed as hourly, NT$ for US$, a thousands slip) are listed first, to check. GPU
specifications are not compared: they are shared by every list, not versioned.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pydantic import BaseModel
from pydantic import Field as PydField

from app.catalog import io
from app.catalog.kinds import KINDS, ORDER

#: The kinds a price list holds (GPU specifications are global).
COMPARED_KINDS: Final = tuple(name for name in ORDER if KINDS[name].scoped)

Rows = Mapping[str, Mapping[str, Mapping[str, Any]]]


class ListRef(BaseModel):
    id: int
    name: str
    status: str = PydField(description="draft | published | archived")


class RowRef(BaseModel):
    """A row by its kind and its key within a list."""

    kind: str
    key: str


class ChangedRow(RowRef):
    fields: list[io.CatalogFieldChange] = PydField(
        description="The fields that differ, in the kind's column order"
    )
    currency: str | None = PydField(
        default=None, description="The row's currency (its amounts are in it), if it has one"
    )
    old_currency: str | None = PydField(
        default=None, description="The currency the old amounts were in, where it changed"
    )


class PriceListComparison(BaseModel):
    """What `price_list` adds, changes and removes against `against` (rows matched by key:
    a row's id, 'USD/TWD' for an FX rate, 'buy' for the buying parameters)."""

    price_list: ListRef
    against: ListRef
    added: list[RowRef] = PydField(default_factory=list, description="Rows only in price_list")
    changed: list[ChangedRow] = PydField(default_factory=list)
    removed: list[RowRef] = PydField(default_factory=list, description="Rows only in against")
    unchanged: int = 0
    to_check: int = PydField(
        default=0, description="Changed fields that moved ×3 or more, or to or from 0"
    )


def compare(new: Rows, old: Rows) -> tuple[list[RowRef], list[ChangedRow], list[RowRef], int]:
    """(added, changed, removed, unchanged) of rows `new` against `old`, kind by kind in the
    catalog's order and by key within a kind; a changed row's fields in the kind's columns'
    order, each with its factor and whether it is to check (`io.field_change`)."""
    added: list[RowRef] = []
    changed: list[ChangedRow] = []
    removed: list[RowRef] = []
    unchanged = 0
    for name in COMPARED_KINDS:
        k = KINDS[name]
        have, had = new.get(name, {}), old.get(name, {})
        for key in sorted(have.keys() | had.keys()):
            now, before = have.get(key), had.get(key)
            if before is None:
                added.append(RowRef.model_construct(kind=name, key=key))  # trusted: no validation
            elif now is None:
                removed.append(RowRef.model_construct(kind=name, key=key))
            else:
                fields, currency, old_currency = io.row_changes(name, k.columns, before, now)
                if fields:
                    changed.append(
                        ChangedRow(
                            kind=name,
                            key=key,
                            fields=fields,
                            currency=currency,
                            old_currency=old_currency,
                        )
                    )
                else:
                    unchanged += 1
    return added, changed, removed, unchanged
