"""The engine against published training runs (tests/engine/data/training_runs.yaml).

Each row cites the paper or model card that states its GPU-hours or days. The engine runs
with the GPU type and count pinned and everything else at its defaults (MFU by principle,
never per run). The gate uses the rows whose figures were confirmed in the primary source
(`confidence: high`); every row's error is printed for the record.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import yaml

from app.engine.estimate import estimate
from app.engine.schemas import EstimateRequest

RUNS = yaml.safe_load((Path(__file__).parent / "data" / "training_runs.yaml").read_text())["runs"]


def predicted_error(run: dict[str, Any]) -> float:
    hours = run.get("gpu_hours") or run.get("derived_gpu_hours")
    precision = run.get("precision") if run.get("precision") in ("bf16", "fp16", "fp8") else "bf16"
    model: dict[str, Any] = {"params_b": run["params_b"]}
    if run.get("active_params_b") and run["active_params_b"] != run["params_b"]:
        model.update(
            active_params_b=run["active_params_b"],
            experts=run.get("experts", 8),
            experts_per_token=run.get("experts_per_token", 2),
        )
    req = EstimateRequest(
        model=model,
        task="pretrain",
        tokens=float(run["tokens"]),
        seq_len=run.get("seq_len", 2048),
        gpu=run["gpu"],
        gpu_count=run.get("gpu_count") or 2048,
        precision=precision,
    )
    res = estimate(req, search_all=False)
    assert res.training is not None
    if hours:
        return res.training.gpu_hours / hours - 1
    return res.training.days / run["days"] - 1


def test_table_has_at_least_eight_sourced_runs() -> None:
    usable = [r for r in RUNS if r.get("source") and (r.get("gpu_hours") or r.get("days"))]
    assert len(usable) >= 8


def test_median_error_on_confirmed_runs_is_under_20_percent() -> None:
    errors = {r["id"]: predicted_error(r) for r in RUNS if r.get("gpu_count") or r.get("gpu_hours")}
    for run_id, err in sorted(errors.items(), key=lambda kv: abs(kv[1])):
        print(f"{run_id:28s} {err:+.1%}")
    confirmed = [abs(e) for rid, e in errors.items() if _conf(rid) == "high"]
    assert len(confirmed) >= 8
    median = statistics.median(confirmed)
    print(
        f"median |error| on {len(confirmed)} confirmed runs: {median:.1%}; "
        f"all {len(errors)} rows: {statistics.median(abs(e) for e in errors.values()):.1%}"
    )
    assert median <= 0.20


def _conf(run_id: str) -> str:
    return next(r.get("confidence", "") for r in RUNS if r["id"] == run_id)
