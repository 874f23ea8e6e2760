"""Schema-driven fuzzing of every API operation (schemathesis), anonymous and as an admin.

Each operation of /openapi.json gets `EXAMPLES` generated requests per visitor; a response
fails the test when it is a 5xx, has a status code the document does not list, a content
type it does not list, or a body that does not match its schema. Bounded to finish within
three minutes on two cores (≈2,000 cases in ≈70 s); `benchmarks/fuzz_long.py` runs 50,000+.

Left out: the quote PDF (WeasyPrint takes seconds per page; tests/quotes covers it).
"""

from __future__ import annotations

import collections
import time
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from tests.fuzz.conftest import FuzzTarget

EXAMPLES = 35
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
SLOW = ("/pdf",)


def fuzz(
    target: FuzzTarget, *, admin: bool, examples: int, skip: tuple[str, ...] = SLOW
) -> tuple[int, dict[str, Any]]:
    """(cases run, {operation: first failure}) for every operation of the app's schema."""
    schema = schemathesis.openapi.from_asgi("/openapi.json", target.app)
    headers = {"Authorization": f"Bearer {target.admin_token}"} if admin else {}
    failures: dict[str, Any] = {}
    counts: collections.Counter[str] = collections.Counter()

    def runner(label: str, strategy: Any) -> Any:
        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(strategy)
        def run(case: Any) -> None:
            counts[label] += 1
            try:
                case.call_and_validate(headers=headers, checks=CHECKS)
            except BaseException as e:  # schemathesis raises a FailureGroup
                if isinstance(e, KeyboardInterrupt):
                    raise
                failures.setdefault(label, str(e)[:2_000])

        return run

    for result in schema.get_all_operations():
        op = result.ok()
        if not any(s in op.path for s in skip):
            runner(op.label, op.as_strategy())()
    return sum(counts.values()), failures


@pytest.mark.parametrize("admin", [False, True], ids=["anonymous", "admin"])
def test_no_operation_answers_5xx_or_off_schema(target: FuzzTarget, admin: bool) -> None:
    start = time.perf_counter()
    cases, failures = fuzz(target, admin=admin, examples=EXAMPLES)
    took = time.perf_counter() - start
    print(
        f"fuzz {'admin' if admin else 'anonymous'}: {cases} cases, {len(failures)} failing operations, {took:.0f} s"
    )
    assert cases >= 1_000, cases  # two visitors: ≥ 2,000 in all
    assert not failures, "\n\n".join(f"{k}:\n{v}" for k, v in failures.items())
