"""Plan list with 10,000 plans: median time of GET /api/v1/plans (page 1) and a search.

.venv/bin/python benchmarks/bench_plans.py [--plans 10000] [--runs 50]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.accounts import service as accounts
from app.bootstrap import prepare_database
from app.main import create_app
from app.plans.bulk import insert_plans
from app.settings import Settings


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--plans", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--database-url", default=None, help="Default: a temporary SQLite file.")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'bench.db'}"
        settings = Settings(DATABASE_URL=url, STRATAGEM_LOAD_CATALOG=False)
        prepare_database(settings, echo=lambda _: None)
        with TestClient(create_app(settings)) as c:
            with Session(c.app.state.engine) as s:  # type: ignore[attr-defined]
                user = accounts.create_user(
                    session=s, email="bench@example.com", password="bench-password", role="sales"
                )
                _, token = accounts.create_token(session=s, user=user, name="bench")
                assert user.id is not None
                t0 = time.perf_counter()
                insert_plans(session=s, owner_id=user.id, count=args.plans)
                print(f"inserted {args.plans:,} plans in {time.perf_counter() - t0:.2f} s")
            headers = {"Authorization": f"Bearer {token}"}
            for label, params in [
                ("page 1 (default sort)", {}),
                ("page 50", {"page": 50}),
                ("search 'plan 99' + status", {"search": "plan 99", "status": "sent"}),
                ("customer + tier filter", {"customer": "Customer 7", "tier": "multi_gpu"}),
            ]:
                times = []
                for _ in range(args.runs):
                    t0 = time.perf_counter()
                    r = c.get("/api/v1/plans", params=params, headers=headers)
                    times.append((time.perf_counter() - t0) * 1000)
                    assert r.status_code == 200
                print(
                    f"{label:<28} median {statistics.median(times):6.1f} ms  "
                    f"p95 {sorted(times)[int(0.95 * len(times)) - 1]:6.1f} ms  "
                    f"(total {r.json()['total']:,})"
                )


if __name__ == "__main__":
    main()
