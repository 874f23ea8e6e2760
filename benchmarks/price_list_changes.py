"""A big draft against the current list: the changes page, its API, and the price lists page
that counts every draft's numbers to check.

Run: .venv/bin/python benchmarks/price_list_changes.py [--rows 12000] [--repeats 5]

Imports a draft of `--rows` rental offers (the shipped first offer under new ids, one in 100
priced ×1,000, so there are numbers to check) on a fresh SQLite database with the shipped
catalog, then times, through the ASGI app in-process, the first request of each page (the
comparison read and computed) and the median of the next `--repeats` (the comparison kept
until either list changes: `service.comparisons`). Reports wall times and response sizes;
nothing is asserted (a benchmark, not a test).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from admin_app import admin_client


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=12_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    with admin_client() as (c, admin):
        c.headers.update(admin.headers)
        first = c.get("/api/v1/catalog/export").json()["offers"][0]
        offers = [
            {
                **first,
                "id": f"bench-{i:06d}",
                "monthly_price": first["monthly_price"] * (1_000 if i % 100 == 0 else 1),
            }
            for i in range(args.rows)
        ]
        r = c.post(
            "/api/v1/catalog/import",
            params={"dry_run": "false", "name": "Bench draft", "mode": "upsert"},
            json={"offers": offers},
        )
        assert r.status_code == 201, r.text[:300]
        draft = r.json()["price_list_id"]
        print(f"draft {draft}: {args.rows:,} offers added to a copy of the current list")
        for path in (
            f"/catalog/price-lists/{draft}/changes",
            f"/api/v1/price-lists/{draft}/changes",
            "/catalog/price-lists",
        ):
            times = []
            for _ in range(args.repeats + 1):
                start = time.perf_counter()
                resp = c.get(path)
                times.append(time.perf_counter() - start)
                assert resp.status_code == 200, (path, resp.status_code)
            print(
                f"{path}: first {times[0] * 1000:.0f} ms, then median "
                f"{statistics.median(times[1:]) * 1000:.0f} ms over {args.repeats}; "
                f"{len(resp.content):,} bytes"
            )


if __name__ == "__main__":
    main()
