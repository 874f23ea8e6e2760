"""Throughput with 1 and 2 app processes on PostgreSQL (issue 14, item 5).

Run: .venv/bin/python benchmarks/load_scaling.py [--seconds 15] [--connections 20]

For each process count, `stratagem serve --workers N` runs on a fresh PostgreSQL database
(TEST_POSTGRES_URL's server, else postgres@127.0.0.1:5432) and `wrk` (apt-get install wrk)
drives it from the same machine over loopback: `POST /api/v1/estimate` (8 workloads in turn)
and the planner's HTMX fragment (`GET /plan?...`, 15 single-field edits in turn), each for
`--seconds` with `--connections` open connections, after a short warm-up. Prints req/s,
p50/p95/p99, where the CPU went during the run (the app's processes, PostgreSQL, wrk, the
rest of the machine, idle: from /proc) and the 2-process/1-process ratio, with the ceiling
that CPU accounting puts on it: with `c` CPU-seconds per request for the app, PostgreSQL and
wrk together and `C` cores, no number of processes can exceed `C / c` req/s. `--pin` runs
wrk on CPU 0 (taskset) and the app on CPU 1, to separate the load generator from the app.
`--repeats N` alternates 1 and 2 processes N times. The load generator shares the CPUs
with the servers, as in the issue's own measurement; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics

from serve_helpers import (
    ESTIMATE_BODIES,
    FRAGMENT_HEADERS,
    FRAGMENT_PATHS,
    LoadResult,
    cpu_line,
    cpu_share,
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
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--pin", action="store_true", help="wrk on CPU 0, the app on CPU 1")
    args = ap.parse_args()
    counts = [int(x) for x in args.workers.split(",")]
    results: dict[tuple[str, int], list[LoadResult]] = {}
    ceilings: dict[tuple[str, int], list[float]] = {}
    cores = os.cpu_count() or 1
    pin_app = {"STRATAGEM_TASKSET": "1"} if args.pin else {}
    wrk_cpu = "0" if args.pin else None
    print(
        f"CPUs {cores}; load average {os.getloadavg()[0]:.1f}; wrk -c{args.connections} "
        f"-d{args.seconds}s, loopback{'; wrk pinned to CPU 0, app to CPU 1' if args.pin else ''}"
    )
    with fresh_database() as url:
        for _ in range(args.repeats):
            for n in counts:
                # Access logs go to a file, as in production (one JSON line per request).
                with serve(url, workers=n, **pin_app) as server:
                    for name, (path, lua) in SCENARIOS.items():
                        target = f"{server.base}{path}"
                        wrk(target, lua, seconds=3, connections=args.connections, cpu=wrk_cpu)
                        with cpu_share(server.pgid) as share:
                            r = wrk(
                                target, lua, seconds=args.seconds,
                                connections=args.connections, cpu=wrk_cpu,
                            )  # fmt: skip
                        results.setdefault((name, n), []).append(r)
                        used = (share["app"] + share["postgres"] + share["wrk"]) / 100
                        per_req = used / max(r.rps, 1e-9)
                        ceilings.setdefault((name, n), []).append(cores / max(per_req, 1e-9))
                        print(
                            f"{n} process(es)  {name:8s} {r.line()}\n"
                            f"                {cpu_line(share)}; load average "
                            f"{os.getloadavg()[0]:.1f}; CPU-ms per request "
                            f"{1000 * per_req:.1f} -> ceiling {cores / max(per_req, 1e-9):.0f} req/s",
                            flush=True,
                        )
    med = statistics.median
    if 1 in counts and 2 in counts:
        for name in SCENARIOS:
            one = med(r.rps for r in results[(name, 1)])
            two = med(r.rps for r in results[(name, 2)])
            if one <= 0:
                print(f"{name}: no request completed with 1 process: no ratio")
                continue
            ceiling = med(ceilings[(name, 1)])
            print(
                f"{name}: median {one:.1f} -> {two:.1f} req/s; 2 processes / 1 = "
                f"{two / one:.2f}x (target >= 1.6x); the CPU ceiling of this box at the "
                f"1-process cost per request is {ceiling:.0f} req/s = {ceiling / one:.2f}x"
            )


if __name__ == "__main__":
    main()
