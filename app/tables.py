"""Imports every SQLModel table module so that Alembic and `create_all` see them all.

`migrations/env.py` and the migration tests import this module: a table whose module is not
imported here is missing from `SQLModel.metadata`, and autogenerate (or the test that compares
the models with the migrated schema, tests/catalog/test_migrations.py) would not see it — nor
a column length that drifted from its migration. tests/test_architecture.py checks that every
module defining a `table=True` model is listed.
"""

from __future__ import annotations

import app.accounts.models
import app.catalog.models
import app.customers.models
import app.leads.models
import app.plans.models
import app.ratelimit.models
import app.sharing.models  # noqa: F401  (share_link)
