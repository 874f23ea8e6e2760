"""Reading two price lists side by side (`compare.PriceListComparison`); changes nothing."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Final

from sqlmodel import Session

from app.catalog import compare, io
from app.catalog.kinds import KINDS
from app.catalog.models import PriceList
from app.catalog.service.books import database_key
from app.catalog.service.errors import Conflict, InvalidRow, NotFound
from app.catalog.service.rows import list_rows
from app.catalog.service.versions import current_price_list, get_price_list, list_price_lists
from app.i18n import N_
from app.i18n import gettext as _


def default_against(*, session: Session, pl: PriceList) -> PriceList:
    """The list `pl` is compared with when none is named: the current list; for the current
    list itself (or when none is current), the newest other published or archived list,
    one that took effect before it first. Never a draft: a default must mean the same for
    every reader, and a draft is not everyone's to see (QA: the current list was compared
    with a draft, and an anonymous caller was told its id). Conflict when there is none."""
    current = current_price_list(session=session)
    found = pick_default(pl, list_price_lists(session=session), current.id if current else None)
    if found is None:
        raise Conflict(
            N_(
                "price list %(id)s has no published or archived list to compare it with: "
                "name one in against"
            ),
            field="against",
            id=pl.id,
        )
    return found


def pick_default(pl: Any, lists: Sequence[Any], current_id: int | None) -> Any | None:
    """`default_against`'s rule over lists already read (newest effective date first; any
    objects with `id`, `status` and `effective_date`: the price lists page passes its own)."""
    if current_id is not None and current_id != pl.id:
        return next(o for o in lists if o.id == current_id)
    others = [o for o in lists if o.id != pl.id and o.status != "draft"]
    earlier = [o for o in others if o.effective_date <= pl.effective_date]
    return next(iter(earlier or others), None)


def _rows(session: Session, price_list_id: int) -> dict[str, dict[str, dict[str, Any]]]:
    """{kind: {key: comparable row}} of a list, read as plain rows of its columns: no ORM
    object per row (a draft of 12,000 imported offers took 0.8 s as objects)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for name in compare.COMPARED_KINDS:
        k = KINDS[name]
        columns = k.columns
        rows = list_rows(
            session=session, kind_name=name, price_list_id=price_list_id, columns=columns
        )
        keyed: dict[str, dict[str, Any]] = {}
        (one,) = k.key_fields if len(k.key_fields) == 1 else (None,)
        for row in rows:
            values = io.comparable(k, dict(zip(columns, row, strict=True)))
            # `Kind.key_of`, its one-field case read directly (12,000 calls for a big draft)
            keyed[str(values[one]) if one is not None else k.key_of(values)] = values
        out[name] = keyed
    return out


_CACHE_SIZE: Final = 16
_found: OrderedDict[tuple[Any, ...], compare.PriceListComparison] = OrderedDict()
_found_lock = threading.Lock()


def _stamp(pl: PriceList) -> tuple[Any, ...]:
    """What a comparison of `pl` depends on: every change to a list or its rows bumps its
    revision and its updated_at (`versions.touch`), as the price-book cache relies on."""
    return (pl.id, pl.revision, str(pl.updated_at))


def clear_cache() -> None:
    with _found_lock:
        _found.clear()


def compare_price_lists(
    *, session: Session, price_list_id: int, against_id: int | None = None
) -> compare.PriceListComparison:
    """What list `price_list_id` adds, changes and removes against `against_id` (by default
    `default_against`). NotFound names `price_list` or `against`."""
    pl = get_price_list(session=session, price_list_id=price_list_id)
    if against_id is None:
        other = default_against(session=session, pl=pl)
    elif against_id == price_list_id:
        raise InvalidRow({"against": _("must be another list than %(id)s") % {"id": against_id}})
    else:
        try:
            other = get_price_list(session=session, price_list_id=against_id)
        except NotFound as e:  # it names `price_list`: here it is `against` that is unknown
            raise NotFound(e.message_id, field="against", **e.params) from None
    assert pl.id is not None and other.id is not None
    # The price lists page compares every draft at each visit; a draft of 12,000 imported
    # rows takes 0.35 s to read and compare, so a comparison is kept until either list changes.
    key = (database_key(session), _stamp(pl), _stamp(other))
    with _found_lock:
        cached = _found.get(key)
        if cached is not None:
            _found.move_to_end(key)
            return cached
    found = _compared(session, pl, other)
    with _found_lock:
        _found[key] = found
        while len(_found) > _CACHE_SIZE:
            _found.popitem(last=False)
    return found


def _compared(session: Session, pl: PriceList, other: PriceList) -> compare.PriceListComparison:
    assert pl.id is not None and other.id is not None
    added, changed, removed, unchanged = compare.compare(
        _rows(session, pl.id), _rows(session, other.id)
    )
    return compare.PriceListComparison(
        price_list=compare.ListRef(id=pl.id, name=pl.name, status=pl.status),
        against=compare.ListRef(id=other.id, name=other.name, status=other.status),
        added=added,
        changed=changed,
        removed=removed,
        unchanged=unchanged,
        to_check=sum(f.check for c in changed for f in c.fields),
    )
