"""PDF quote generation time (median of N quotes; target < 2 s on the dev machine).

Run: .venv/bin/python benchmarks/bench_pdf.py [N]. Each round renders a quote for a plan
version not seen before (charts via the already-started kaleido, then WeasyPrint), in zh-TW;
it also reports a render with the charts cached (what a second language costs).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import uuid

from sqlmodel import Session

from app.accounts import service as accounts
from app.bootstrap import prepare_database
from app.db import make_engine
from app.plans import service as plans
from app.quotes import pdf
from app.settings import Settings

WORKLOAD = {"model": {"preset": "llama-2-13b"}, "task": "full_finetune", "tokens": 2e9}


def main(n: int = 5) -> None:
    db = tempfile.mkdtemp() + "/bench.db"
    settings = Settings(DATABASE_URL=f"sqlite:///{db}", STRATAGEM_SECRET_KEY="bench")
    prepare_database(settings, echo=lambda _: None)
    engine = make_engine(settings.database_url)
    with Session(engine) as s:
        user = accounts.create_user(
            session=s,
            email=f"{uuid.uuid4().hex}@x.tw",
            password="bench pass 1234",
            name="B",
            role="sales",
        )
        warm = plans.create_plan(session=s, owner=user, name="warm", workload=WORKLOAD)
        pdf.render_quote_pdf(warm, lang="zh-TW", session=s)  # starts kaleido once
        cold, charts_cached = [], []
        for i in range(n):
            p = plans.create_plan(session=s, owner=user, name=f"q{i}", workload=WORKLOAD)
            t = time.perf_counter()
            pdf.render_quote_pdf(p, lang="zh-TW", session=s)
            cold.append(time.perf_counter() - t)
            pdf._pdfs.clear()
            t = time.perf_counter()
            pdf.render_quote_pdf(p, lang="zh-TW", session=s)
            charts_cached.append(time.perf_counter() - t)
    print(f"new plan version (charts + PDF): median {statistics.median(cold):.2f} s")
    print(f"charts cached (PDF only):        median {statistics.median(charts_cached):.2f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
