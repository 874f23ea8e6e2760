"""Estimate latency alone and while 8 PDF quotes render at once (issue 14, item 3).

Run: .venv/bin/python benchmarks/pdf_burst.py [--seconds 20] [--pdf-workers 1]

One `stratagem serve` process on a fresh PostgreSQL database. `wrk` keeps 4 connections
busy with `POST /api/v1/estimate` for `--seconds`: once alone, then while 8 client threads
each fetch PDF quotes of plans not rendered before (so every one is a full render: charts
and WeasyPrint) without pause. Done twice: with the PDF worker pool
(STRATAGEM_PDF_WORKERS, default 1) and with rendering in the request threads
(STRATAGEM_PDF_WORKERS=0, as before). Prints estimate p50/p95/p99, the p95 ratio to the
run alone (target ≤ 1.5×) and PDFs per minute. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import itertools
import os
import threading
import time

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


def run(url: str, token: str, pdf_workers: int, seconds: int) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    label = f"pool of {pdf_workers}" if pdf_workers else "inline (request threads)"
    with serve(url, STRATAGEM_PDF_WORKERS=str(pdf_workers)) as server:
        plan_ids = _plans(server.base, headers, 60)
        est = f"{server.base}/api/v1/estimate"
        # Warm-up: estimates, and one PDF (starts the pool and its Chromium).
        wrk(est, LUA, seconds=3, connections=4)
        with httpx.Client(timeout=300) as c:
            c.get(f"{server.base}/api/v1/plans/{plan_ids.pop()}/pdf", headers=headers)
        alone = wrk(est, LUA, seconds=seconds, connections=4)
        stop = threading.Event()
        pdf_times: list[float] = []
        burst = threading.Thread(
            target=lambda: pdf_times.extend(_burst(server.base, headers, plan_ids, stop))
        )
        start = time.perf_counter()
        burst.start()
        time.sleep(1.0)  # let all 8 quotes get going before measuring
        loaded = wrk(est, LUA, seconds=seconds, connections=4)
        stop.set()
        burst.join()
        elapsed = time.perf_counter() - start
    print(f"PDFs {label}; load average {os.getloadavg()[0]:.1f}")
    print(f"  estimate alone         {alone.line()}")
    print(f"  estimate + 8 PDFs      {loaded.line()}")
    print(f"  p95 ratio              {loaded.p95_ms / alone.p95_ms:.2f}x (target <= 1.5x)")
    pdf_times.sort()
    median = pdf_times[len(pdf_times) // 2] if pdf_times else float("nan")
    print(
        f"  PDFs                   {len(pdf_times)} in {elapsed:.0f} s = "
        f"{60 * len(pdf_times) / elapsed:.1f} per minute (median wait {median:.1f} s)",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--pdf-workers", type=int, default=1)
    ap.add_argument("--skip-inline", action="store_true")
    args = ap.parse_args()
    print(f"CPUs {os.cpu_count()}; estimate load: wrk -c4 -d{args.seconds}s, loopback")
    with fresh_database() as url:
        token = _token(url)
        run(url, token, args.pdf_workers, args.seconds)
        if not args.skip_inline:
            run(url, token, 0, args.seconds)


if __name__ == "__main__":
    main()
