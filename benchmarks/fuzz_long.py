"""The long schemathesis run (issue 13): every operation, anonymous and as an admin, with
`EXAMPLES` cases each (29 operations × 2 × 870 ≈ 50,000). Not part of `make test`.

Run: `.venv/bin/python benchmarks/fuzz_long.py [EXAMPLES]`; prints cases, failing
operations and the first failure of each, and exits 1 when any failed.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from tests.fuzz.conftest import fuzz_target
from tests.fuzz.test_openapi_fuzz import fuzz


def main() -> None:
    examples = int(sys.argv[1]) if len(sys.argv) > 1 else 870
    target = fuzz_target(Path(tempfile.mkdtemp()) / "fuzz.db")
    failed = False
    for admin in (False, True):
        start = time.perf_counter()
        cases, failures = fuzz(target, admin=admin, examples=examples)
        who = "admin" if admin else "anonymous"
        took = time.perf_counter() - start
        print(f"{who}: {cases} cases, {len(failures)} failing operations, {took:.0f} s", flush=True)
        for op, text in failures.items():
            print(f"--- {op}\n{text}\n", flush=True)
        failed = failed or bool(failures)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
