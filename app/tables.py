"""Imports every SQLModel table module so that Alembic and `create_all` see them all."""

from __future__ import annotations

import app.ratelimit.models  # noqa: F401  (rate_hit)
