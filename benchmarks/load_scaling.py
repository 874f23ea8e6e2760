"""Throughput with 1 and 2 app processes on PostgreSQL (issue 14, item 5).

Run: .venv/bin/python benchmarks/load_scaling.py [--seconds 15] [--connections 20]

For each process count, `stratagem serve --workers N` runs on a fresh PostgreSQL database
(TEST_POSTGRES_URL's server, else postgres@127.0.0.1:5432) and `wrk` (apt-get install wrk)
drives it from the same machine over loopback: `POST /api/v1/estimate` (8 workloads in turn)
and the planner's HTMX fragment (`GET /plan?...`, 15 single-field edits in turn), each for
`--seconds` with `--connections` open connections, after a short warm-up. Prints req/s,
p50/p95/p99 and the 2-process/1-process ratio. The load generator shares the CPUs with the
servers, as in the issue's own measurement; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os

from serve_helpers import (
    ESTIMATE_BODIES,
    FRAGMENT_HEADERS,
    FRAGMENT_PATHS,
    LoadResult,
    fresh_database,
    lua_get_paths,
    lua_post_json,
    serve,
    wrk,
)

SCENARIOS = {
    "estimate": ("/api/v1/estimate", lua_post_json("/api/v1/estimate", ESTIMATE_BODIES)),
    "fragment": ("/plan", lua_get_paths(FRAGMENT_PATHS, FRAGMENT_HEADERS)),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=15)
    ap.add_argument("--connections", type=int, default=20)
    ap.add_argument("--workers", default="1,2")
    args = ap.parse_args()
    counts = [int(x) for x in args.workers.split(",")]
    results: dict[tuple[str, int], LoadResult] = {}
    print(
        f"CPUs {os.cpu_count()}; load average {os.getloadavg()[0]:.1f}; wrk -c{args.connections} -d{args.seconds}s, loopback"
    )
    with fresh_database() as url:
        for n in counts:
            # Access logs go to a file, as in production (one JSON line per request).
            with serve(url, workers=n) as server:
                for name, (path, lua) in SCENARIOS.items():
                    wrk(f"{server.base}{path}", lua, seconds=3, connections=args.connections)
                    r = wrk(
                        f"{server.base}{path}", lua, seconds=args.seconds,
                        connections=args.connections,
                    )  # fmt: skip
                    results[(name, n)] = r
                    print(f"{n} process(es)  {name:8s} {r.line()}", flush=True)
    if 1 in counts and 2 in counts:
        for name in SCENARIOS:
            ratio = results[(name, 2)].rps / results[(name, 1)].rps
            print(f"{name}: 2 processes / 1 = {ratio:.2f}x (target >= 1.6x)")


if __name__ == "__main__":
    main()
