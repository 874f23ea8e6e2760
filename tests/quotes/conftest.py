"""Fixtures shared with the other quote tests (tests/plan_quotes.py)."""

from tests.plan_quotes import account  # noqa: F401  (a pytest fixture)
