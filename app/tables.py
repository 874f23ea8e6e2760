"""Imports every SQLModel table module so that Alembic and `create_all` see them all."""

from __future__ import annotations

import app.catalog.models
import app.plans.models  # (also imports app.accounts.models)
import app.sharing.models
import app.web.leads  # noqa: F401
