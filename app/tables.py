"""Imports every SQLModel table module so that Alembic and `create_all` see them all."""

from __future__ import annotations
