"""The engine against published training runs (app/data/validation/training_runs.yaml).

Each row cites the paper or model card that states its GPU-hours, days or throughput, with
the quote. The engine runs with what the source states pinned (GPU type and count,
precision, sequence length, global batch, TP/PP) and everything else at its defaults; the
shared factors were chosen on the `fit` half (scripts/fit_training_factors.py), so the
`holdout` half is an honest test. Every row's error is printed for the record.

Issue 11's targets (median |log error| ≤ 15%, nobody off by more than 2×) are NOT yet met;
the gates below hold what is reached so that a change cannot silently make it worse.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

from app.engine import compute, training_validation
from app.engine.validation import by_category, summarise

ROWS = training_validation.rows()


def test_table_covers_the_issue_categories() -> None:
    # Issue 11 item 4: ≥30 runs, ≥10 on H100/H800/H200, ≥5 MoE, ≥5 under 10B, ≥5 fine-tunes.
    runs = training_validation.runs()
    assert len(runs) >= 30
    assert sum(r["gpu"].startswith(("h100", "h800", "h200")) for r in runs) >= 10
    assert sum(training_validation.category(r) == "MoE pre-training" for r in runs) >= 5
    assert sum(r["params_b"] < 10 for r in runs) >= 5
    assert sum(r.get("task", "pretrain") != "pretrain" for r in runs) >= 5
    assert all(r.get("source") and r.get("quote") and r.get("split") in ("fit", "holdout")
               for r in runs)  # fmt: skip


def test_every_run_with_tokens_or_throughput_is_predicted() -> None:
    # Only the three fine-tunes that publish a wall time but no token count are left out.
    assert len(ROWS) >= 40
    assert set(training_validation.unpredictable()) == {
        "alpaca-7b-full-finetune", "mpt-7b-instruct-full-finetune",
        "mpt-7b-storywriter-full-finetune",
    }  # fmt: skip


def test_error_on_all_rows_and_on_the_holdout_half() -> None:
    for r in sorted(ROWS, key=lambda r: r.log_error):
        print(f"{r.id:44s} {r.split:8s} {r.metric:10s} {math.exp(r.log_error) - 1:+.0%}")
    everything = summarise(ROWS)
    holdout = summarise(r for r in ROWS if r.split == "holdout")
    assert everything is not None and holdout is not None
    for name, s in {**by_category(ROWS), "all": everything, "holdout": holdout}.items():
        print(f"{name:26s} n={s.runs} median {s.median_pct:.1%} worst {s.worst_pct:.0%}")
    # Reached (issue 11 report, session 5): all 21.1%, holdout 22.0%, fit 12.0%, with each
    # GPU's measured MAMF as its GEMM share and the factors refitted (0.85, κ 8). Gates a
    # little above them; the at-most-linear scaling floor still moves several rows (its
    # formula names it), see the closing notes.
    assert everything.median_pct <= 0.25
    assert holdout.median_pct <= 0.29
    within_2x = sum(abs(r.log_error) <= math.log(2) for r in ROWS)
    # Outside 2×: Llama 3.2 1B and 3B (their GPU-hours include pruning and distillation) and
    # Llama 4 Maverick (×2.004: the scaling floor from 96 GPUs, where only ZeRO-3 with full
    # recomputation fits once its gathered units are counted).
    assert within_2x >= len(ROWS) - 3


def test_the_shipped_factors_are_the_ones_the_fit_script_chooses() -> None:
    # compute.py says SOFTWARE_EFFICIENCY and MEMORY_BOUND_KAPPA were chosen on the fit half by
    # scripts/fit_training_factors.py: an engine change that moves the fit rows must refit
    # them (and rewrite bands.json), not leave constants chosen for another engine.
    path = Path(__file__).resolve().parents[2] / "scripts" / "fit_training_factors.py"
    spec = importlib.util.spec_from_file_location("fit_training_factors", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.choose() == (compute.SOFTWARE_EFFICIENCY, compute.MEMORY_BOUND_KAPPA)
    assert training_validation.rows() == ROWS  # the search left the engine as it was
