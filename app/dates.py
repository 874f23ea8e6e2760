"""Dates people and clients send: ISO 8601 calendar dates (YYYY-MM-DD) and nothing else.

Pydantic's lax `date` also reads a number, or a string of digits, as a Unix timestamp: QA
created a price list effective "0" and got 1970-01-01, and "20270101" would have been
1970-08-23 without a word. `IsoDate` takes a `date` (or the date of a `datetime`) or a
"YYYY-MM-DD" string; anything else is pydantic's `date_parsing` error, a 422 naming the field
(the catalog's forms and files say "must be a date YYYY-MM-DD (got '0')").
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Annotated, Any, Final
from zoneinfo import ZoneInfo

from pydantic import AfterValidator, BeforeValidator
from pydantic_core import PydanticCustomError

from app.i18n import gettext as _

_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")

#: The calendar quotes and price lists are dated in: Taiwan's (PRODUCT.md §6, UTC+8, no
#: daylight saving). The server's clock is UTC: a quote made at 07:30 in Taipei was dated
#: the day before, and one valid until the 5th could still be accepted at 07:59 on the 6th
#: (QA).
BUSINESS_TZ: Final = ZoneInfo("Asia/Taipei")


def in_business_tz(value: datetime) -> datetime:
    """A stored instant (naive values are UTC, as the tables store them) on Taipei's clock."""
    aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return aware.astimezone(BUSINESS_TZ)


def business_today(now: datetime | None = None) -> date:
    """Today's date in Taipei (`now`, an aware datetime, for a given instant)."""
    return (now or datetime.now(UTC)).astimezone(BUSINESS_TZ).date()


def iso_date(value: Any) -> date:
    """`value` as a date: a date, a datetime's date, or an ISO 'YYYY-MM-DD' string."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str) and _ISO.fullmatch(value.strip()):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            pass  # 2027-02-30: the shape of a date, not a day of the calendar
    # pydantic's own error type, so every door words it as it does any bad date
    raise PydanticCustomError(
        "date_parsing", "Input should be a valid date in the format YYYY-MM-DD"
    )


IsoDate = Annotated[date, BeforeValidator(iso_date)]


#: The days a price list can take effect, a provider's price be dated, or an exchange rate
#: be read: none of them is older than GPU computing (CUDA shipped in 2007) or further out
#: than anyone prices hardware. QA (C14) published a list effective 1900-01-01 without a
#: word.
CATALOG_FIRST: Final = date(2000, 1, 1)
CATALOG_LAST: Final = date(2099, 12, 31)


def catalog_day(value: date) -> date:
    """`value` if it lies between CATALOG_FIRST and CATALOG_LAST, else a ValueError."""
    if not CATALOG_FIRST <= value <= CATALOG_LAST:
        raise ValueError(
            _("must be a day from %(first)s to %(last)s (got %(got)s)")
            % {"first": CATALOG_FIRST, "last": CATALOG_LAST, "got": value}
        )
    return value


CatalogDate = Annotated[date, BeforeValidator(iso_date), AfterValidator(catalog_day)]
