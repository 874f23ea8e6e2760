"""The /plans page with 10,000 plans: median server time of the full page and the HTMX table.

.venv/bin/python benchmarks/bench_plan_pages.py [--plans 10000] [--runs 50]

Target: < 100 ms a page (median), signed in as a sales user.
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
from app.accounts import web
from app.bootstrap import prepare_database
from app.main import create_app
from app.plans.bulk import insert_plans
from app.settings import Settings


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--plans", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=50)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        settings = Settings(DATABASE_URL=url, STRATAGEM_LOAD_CATALOG=False)
        prepare_database(settings, echo=lambda _: None)
        with TestClient(create_app(settings)) as c:
            with Session(c.app.state.engine) as s:  # type: ignore[attr-defined]
                user = accounts.create_user(
                    session=s, email="bench@example.com", password="bench-password", role="sales"
                )
                assert user.id is not None
                insert_plans(session=s, owner_id=user.id, count=args.plans)
                cookie = web.session_cookie(settings.resolved_secret_key(), user)
            c.cookies.set(web.COOKIE, cookie)
            for label, params, headers in [
                ("page 1 (full page)", {}, {}),
                ("page 50", {"page": "50"}, {}),
                ("search fragment (HTMX)", {"q": "plan 99"}, {"HX-Request": "true"}),
                (
                    "filters status+tier+owner",
                    {"status": "sent", "tier": "multi_gpu", "owner": "me"},
                    {},
                ),
                ("sort by customer", {"sort": "customer"}, {}),
            ]:
                times = []
                for _ in range(args.runs):
                    t0 = time.perf_counter()
                    r = c.get("/plans", params=params, headers=headers)
                    times.append((time.perf_counter() - t0) * 1000)
                    assert r.status_code == 200, r.status_code
                print(
                    f"{label:<28} median {statistics.median(times):6.1f} ms  "
                    f"p95 {sorted(times)[int(0.95 * len(times)) - 1]:6.1f} ms"
                )


if __name__ == "__main__":
    main()
