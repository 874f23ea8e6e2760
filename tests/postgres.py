"""The live PostgreSQL server the PostgreSQL variants of the tests run against.

`make test` always sets TEST_POSTGRES_URL (scripts/ensure-postgres.sh uses the server on
127.0.0.1:5432 or starts a private one). A run that selects a PostgreSQL test without it
fails instead of skipping, so a green run always means PostgreSQL was tested too (as the
browser tests fail when Chromium is missing). Deselect them with `-m "not postgres"`.
"""

from __future__ import annotations

import os

import pytest

PG_ENV = "TEST_POSTGRES_URL"


def postgres_url() -> str:
    """TEST_POSTGRES_URL, or a failure that says how to get one."""
    url = os.environ.get(PG_ENV)
    if not url:
        pytest.fail(
            f"{PG_ENV} is not set: run `make test` (it sets it with scripts/ensure-postgres.sh), "
            f'set it to a PostgreSQL URL, or deselect these tests with -m "not postgres"'
        )
    return url
