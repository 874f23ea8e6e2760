"""`DbId`: the one type of every database id a request carries (path, query, body).

Ids are `INTEGER` primary keys: 32-bit signed on PostgreSQL (`SERIAL`), 64-bit on SQLite.
An id beyond 2^31 − 1 cannot name a row on either, and on SQLite one beyond 2^63 − 1 made
the driver raise `OverflowError` (a 500, issue 13); bounding it here turns both into a 422
naming the parameter before any query runs.
"""

from __future__ import annotations

from typing import Annotated

from annotated_types import Ge, Le

#: The largest id PostgreSQL's INTEGER (int4) holds; SQLite's range is wider.
DB_ID_MAX = 2**31 - 1

DbId = Annotated[int, Ge(1), Le(DB_ID_MAX)]
"""A row id: 1 … 2^31 − 1."""

#: Most rows an offset may skip (the same bound as an id: there are never more rows).
DB_OFFSET_MAX = DB_ID_MAX
