"""Reading two price lists side by side (`compare.PriceListComparison`); changes nothing."""

from __future__ import annotations

from sqlmodel import Session

from app.catalog import compare
from app.catalog.models import PriceList
from app.catalog.service.errors import Conflict, InvalidRow, NotFound
from app.catalog.service.imports import existing_rows
from app.catalog.service.versions import current_price_list, get_price_list, list_price_lists
from app.i18n import N_
from app.i18n import gettext as _


def default_against(*, session: Session, pl: PriceList) -> PriceList:
    """The list `pl` is compared with when none is named: the current list; for the current
    list itself (or when none is current), the newest other published or archived list that
    took effect before it, else the newest other list; Conflict when `pl` is the only one."""
    current = current_price_list(session=session)
    if current is not None and current.id != pl.id:
        return current
    others = [o for o in list_price_lists(session=session) if o.id != pl.id]
    earlier = [o for o in others if o.status != "draft" and o.effective_date <= pl.effective_date]
    found = next(iter(earlier or others), None)
    if found is None:
        raise Conflict(
            N_("price list %(id)s is the only one: there is no other list to compare it with"),
            field="against",
            id=pl.id,
        )
    return found


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
    kinds = compare.COMPARED_KINDS
    added, changed, removed, unchanged = compare.compare(
        existing_rows(session=session, price_list_id=pl.id, kinds=kinds),
        existing_rows(session=session, price_list_id=other.id, kinds=kinds),
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
