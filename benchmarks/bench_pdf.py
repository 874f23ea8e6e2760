"""PDF quote time: a zh-TW quote of a plan version never rendered before (issue 10: < 1.5 s).

Run: .venv/bin/python benchmarks/bench_pdf.py [--rounds 9]

What is timed, and what is not:

* **uncached**: every round creates a new plan (a new id and version), so neither its chart
  images nor its PDF are in any cache; the round is `pdf.render_quote_pdf` as a request
  calls it (rendered in this process: no pool, so the figure is the render itself).
* **warm process**: one untimed quote first starts kaleido's Chromium and loads WeasyPrint
  and the fonts, as a PDF worker does once (`STRATAGEM_PDF_WARM`, app.quotes.worker.warm).
* **CPU**: besides wall time, the CPU seconds of this process plus its Chromium processes
  per quote, read from /proc: on a shared, loaded machine wall time is the CPU the kernel
  gave us, CPU seconds are the work.
* the split: on further new plans, the charts alone (`pdf.chart_images`: figures built,
  drawn by Chromium, compacted) and then WeasyPrint alone with those charts (`write_pdf`).

Prints medians, the page count and the load average. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlmodel import Session

from app.accounts import service as accounts
from app.bootstrap import prepare_database
from app.db import make_engine
from app.plans import service as plans
from app.quotes import pdf
from app.settings import Settings

WORKLOAD = {"model": {"preset": "llama-2-13b"}, "task": "full_finetune", "tokens": 2e9}
TICKS = os.sysconf("SC_CLK_TCK")


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and every live descendant (Chromium)."""
    total = 0.0
    for pid in [os.getpid(), *_descendants(os.getpid())]:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime
    return total


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    c, t = cpu_seconds(), time.perf_counter()
    value = fn()
    return time.perf_counter() - t, cpu_seconds() - c, value


def pages(data: bytes) -> int:
    with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
        f.write(data)
        f.flush()
        info = subprocess.run(["pdfinfo", f.name], capture_output=True, text=True, check=True)
    return int(next(ln for ln in info.stdout.splitlines() if ln.startswith("Pages:")).split()[1])


def main(rounds: int) -> None:
    db = tempfile.mkdtemp() + "/bench.db"
    settings = Settings(DATABASE_URL=f"sqlite:///{db}", STRATAGEM_SECRET_KEY="bench")
    prepare_database(settings, echo=lambda _: None)
    engine = make_engine(settings.database_url)
    load = [os.getloadavg()[0]]
    with Session(engine) as s:
        user = accounts.create_user(
            session=s,
            email=f"{uuid.uuid4().hex}@x.tw",
            password="bench pass 1234",
            name="B",
            role="sales",
        )

        def new_plan(name: str) -> Any:
            return plans.create_plan(session=s, owner=user, name=name, workload=WORKLOAD)

        first = new_plan("warm")
        start_s, _, data = timed(lambda: pdf.render_quote_pdf(first, lang="zh-TW", session=s))
        wall: list[float] = []
        cpu: list[float] = []
        split_charts: list[tuple[float, float]] = []
        split_pdf: list[tuple[float, float]] = []
        for i in range(rounds):
            p = new_plan(f"q{i}")
            w, c, _ = timed(lambda p=p: pdf.render_quote_pdf(p, lang="zh-TW", session=s))
            wall.append(w)
            cpu.append(c)
            q = new_plan(f"split{i}")
            split_charts.append(timed(lambda q=q: pdf.chart_images(q, "zh-TW"))[:2])
            split_pdf.append(timed(lambda q=q: pdf.write_pdf(q, lang="zh-TW", session=s))[:2])
            load.append(os.getloadavg()[0])
    med = statistics.median
    print(f"zh-TW quote, {pages(data)} pages; {rounds} rounds, each on a new plan (uncached)")
    print(f"  first quote of the process (starts Chromium, loads fonts): {start_s:.2f} s")
    print(
        f"  uncached quote, warm process: median {med(wall):.2f} s wall "
        f"(min {min(wall):.2f}, max {max(wall):.2f}); {med(cpu):.2f} s CPU incl. Chromium"
    )
    charts_w, charts_c = (med(x) for x in zip(*split_charts, strict=True))
    pdf_w, pdf_c = (med(x) for x in zip(*split_pdf, strict=True))
    print(
        f"  split: charts {charts_w:.2f} s wall / {charts_c:.2f} s CPU (3 figures, one "
        f"Chromium call) + WeasyPrint {pdf_w:.2f} s wall / {pdf_c:.2f} s CPU"
    )
    print(f"  load average (1 min) during the run: {min(load):.1f}–{max(load):.1f}", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9)
    main(ap.parse_args().rounds)
