"""Estimate latency alone and while 8 PDF quotes render at once (issue 14, item 3).

Run: .venv/bin/python benchmarks/pdf_burst.py [--seconds 20] [--repeats 3]
        [--pdf-workers 1] [--priorities idle,nice] [--skip-inline]

One `stratagem serve` process on a fresh PostgreSQL database per configuration. `wrk` keeps 4
connections busy with `POST /api/v1/estimate` for `--seconds`, alternately alone and while 8
client threads each fetch PDF quotes of plans not rendered before (so every one is a full
render: charts and WeasyPrint) without pause: alone, burst, alone, burst, … `--repeats`
times, so that a machine whose other load drifts affects both sides alike. Configurations:
the PDF worker pool (STRATAGEM_PDF_WORKERS, default 1) at each STRATAGEM_PDF_PRIORITY in
`--priorities`, then rendering in the request threads (STRATAGEM_PDF_WORKERS=0). Prints each
pair, then the medians: estimate p50/p95/p99, the p95 ratio to the run alone (target ≤ 1.5×),
PDFs per minute and the load average. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import threading
import time
from typing import Any

import httpx
from serve_helpers import ESTIMATE_BODIES, fresh_database, lua_post_json, serve, wrk
from sqlmodel import Session

from app.accounts import service as accounts
from app.db import make_engine, migrate

PDF_CLIENTS = 8
WORKLOAD = {"model": {"preset": "llama-2-13b"}, "task": "full_finetune", "tokens": 2e9}
LUA = lua_post_json("/api/v1/estimate", ESTIMATE_BODIES)


def _token(url: str) -> str:
    migrate(url)
    engine = make_engine(url)
    with Session(engine) as s:
        user = accounts.create_user(
            session=s, email="bench@example.com", password="bench pass 1234", role="sales"
        )
        _, token = accounts.create_token(session=s, user=user, name="bench")
    engine.dispose()
    return token


def _plans(base: str, headers: dict[str, str], n: int) -> list[int]:
    with httpx.Client(timeout=60) as c:
        return [
            c.post(
                f"{base}/api/v1/plans",
                json={"name": f"q{i}", "workload": WORKLOAD},
                headers=headers,
            ).json()["id"]
            for i in range(n)
        ]


def _burst(
    base: str, headers: dict[str, str], plan_ids: list[int], stop: threading.Event
) -> list[float]:
    """8 threads fetching uncached quotes until `stop`; the seconds each PDF took."""
    todo = itertools.cycle([(pid, lang) for pid in plan_ids for lang in ("zh-TW", "en")])
    lock = threading.Lock()
    seen: set[tuple[int, str]] = set()
    times: list[float] = []

    def client() -> None:
        with httpx.Client(timeout=300) as c:
            while not stop.is_set():
                with lock:
                    job = next(todo)
                    if job in seen:
                        return  # out of uncached quotes: make more plans for longer runs
                    seen.add(job)
                t = time.perf_counter()
                r = c.get(f"{base}/api/v1/plans/{job[0]}/pdf?lang={job[1]}", headers=headers)
                assert r.status_code == 200 and r.content.startswith(b"%PDF-"), r.status_code
                with lock:
                    times.append(time.perf_counter() - t)

    threads = [threading.Thread(target=client) for _ in range(PDF_CLIENTS)]
    for t in threads:
        t.start()
    stop.wait()
    for t in threads:
        t.join()
    return times


def run(url: str, token: str, pdf_workers: int, seconds: int, repeats: int, priority: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    label = f"pool of {pdf_workers}, priority {priority}" if pdf_workers else "inline"
    env = {"STRATAGEM_PDF_WORKERS": str(pdf_workers), "STRATAGEM_PDF_PRIORITY": priority}
    pairs: list[tuple[Any, Any, int, float]] = []
    loads: list[float] = []
    print(f"PDFs {label}", flush=True)
    with serve(url, **env) as server:
        plan_ids = _plans(server.base, headers, 40 * repeats)
        est = f"{server.base}/api/v1/estimate"
        # Warm-up: estimates, and one PDF (starts the pool and its Chromium).
        wrk(est, LUA, seconds=3, connections=4)
        with httpx.Client(timeout=300) as c:
            c.get(f"{server.base}/api/v1/plans/{plan_ids.pop()}/pdf", headers=headers)
        for i in range(repeats):
            loads.append(os.getloadavg()[0])
            alone = wrk(est, LUA, seconds=seconds, connections=4)
            todo, plan_ids = plan_ids[:40], plan_ids[40:]
            stop = threading.Event()
            pdf_times: list[float] = []
            burst = threading.Thread(
                target=lambda t=todo, out=pdf_times, ev=stop: out.extend(
                    _burst(server.base, headers, t, ev)
                )
            )
            start = time.perf_counter()
            burst.start()
            time.sleep(1.0)  # let all 8 quotes get going before measuring
            loaded = wrk(est, LUA, seconds=seconds, connections=4)
            stop.set()
            burst.join()
            elapsed = time.perf_counter() - start
            loads.append(os.getloadavg()[0])
            pairs.append((alone, loaded, len(pdf_times), elapsed))
            print(
                f"  [{i + 1}] alone  {alone.line()}\n"
                f"      +8 PDFs {loaded.line()}\n"
                f"      p95 ratio {loaded.p95_ms / alone.p95_ms:.2f}x; {len(pdf_times)} PDFs in "
                f"{elapsed:.0f} s; load average {loads[-1]:.1f}",
                flush=True,
            )
    med = statistics.median
    ratios = [b.p95_ms / a.p95_ms for a, b, _, _ in pairs]
    per_min = [60 * n / s for _, _, n, s in pairs]
    print(
        f"  median of {repeats}: p95 alone {med(a.p95_ms for a, _, _, _ in pairs):.1f} ms, "
        f"with 8 PDFs {med(b.p95_ms for _, b, _, _ in pairs):.1f} ms; "
        f"p95 ratio {med(ratios):.2f}x (target <= 1.5x; each pair "
        f"{', '.join(f'{r:.2f}' for r in ratios)}); "
        f"estimates {med(a.rps for a, _, _, _ in pairs):.0f} -> "
        f"{med(b.rps for _, b, _, _ in pairs):.0f} req/s; "
        f"{med(per_min):.1f} PDFs/min; load average {min(loads):.1f}-{max(loads):.1f}",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--pdf-workers", type=int, default=1)
    ap.add_argument("--priorities", default="idle", help="comma-separated: idle,nice")
    ap.add_argument("--skip-inline", action="store_true")
    args = ap.parse_args()
    print(f"CPUs {os.cpu_count()}; estimate load: wrk -c4 -d{args.seconds}s, loopback")
    with fresh_database() as url:
        token = _token(url)
        for priority in args.priorities.split(","):
            run(url, token, args.pdf_workers, args.seconds, args.repeats, priority)
        if not args.skip_inline:
            run(url, token, 0, args.seconds, args.repeats, "idle")


if __name__ == "__main__":
    main()
