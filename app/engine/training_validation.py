"""The training engine against published runs: one `ValidationRow` per run it can predict.

The table is `app/data/validation/training_runs.yaml` (every figure copied from its source,
with the quote). Each run is predicted with what the source states pinned — GPU type and
count, precision, sequence length, global batch, TP, PP, recomputation and ZeRO stage where
published — and everything
else at the engine's defaults. Nothing is fitted per run; the shared factors of
`app.engine.compute` were chosen on the rows marked `split: fit` only.

Compared: GPU-hours when the source gives them (or `derived_gpu_hours`), else wall-clock
days; fine-tunes that publish throughput compare tokens/s. Rows that give neither tokens nor
throughput cannot be predicted and are listed by `unpredictable()`.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from app.engine.estimate import InputError, estimate
from app.engine.schemas import EstimateRequest, EstimateResponse
from app.engine.validation import ValidationRow

TABLE = Path(__file__).resolve().parent.parent / "data" / "validation" / "training_runs.yaml"
H100_CLASS = ("h100", "h800", "h200")


@lru_cache(maxsize=1)
def runs() -> tuple[dict[str, Any], ...]:
    """The published runs as read from the table (parsed once)."""
    return tuple(yaml.safe_load(TABLE.read_text(encoding="utf-8"))["runs"])


def category(run: dict[str, Any]) -> str:
    """The band a run belongs to: fine-tuning, MoE, or dense pre-training by GPU class."""
    if run.get("task", "pretrain") != "pretrain":
        return "fine-tuning"
    if _is_moe(run):
        return "MoE pre-training"
    if run["gpu"].startswith(H100_CLASS):
        return "H100-class pre-training"
    return "A100-class pre-training"


def training_category(*, task: str, gpu: str, moe: bool) -> str:
    """The validation category an estimate of this kind falls in (for its uncertainty band)."""
    return category({"task": task, "gpu": gpu, "params_b": 2.0 if moe else 1.0,
                     "active_params_b": 1.0})  # fmt: skip


def _is_moe(run: dict[str, Any]) -> bool:
    return bool(run.get("active_params_b") and run["active_params_b"] != run["params_b"])


def _request(run: dict[str, Any], *, layout_pins: bool) -> EstimateRequest:
    model: dict[str, Any] = {"params_b": run["params_b"]}
    for key in ("layers", "hidden", "heads", "kv_heads"):
        if run.get(key):
            model[key] = run[key]
    if _is_moe(run):
        model.update(
            active_params_b=run["active_params_b"],
            experts=run.get("experts", 8),
            experts_per_token=run.get("experts_per_token") or run.get("top_k") or 2,
        )
    seq_len = run.get("seq_len", 2048)
    body: dict[str, Any] = {
        "model": model,
        "task": run.get("task", "pretrain"),
        "tokens": float(run.get("tokens") or 1e8),
        "seq_len": seq_len,
        "gpu": run["gpu"],
        "gpu_count": run.get("gpu_count") or 2048,
        "precision": run["precision"]
        if run.get("precision") in ("bf16", "fp16", "fp8")
        else "bf16",
    }
    if run.get("global_batch_tokens"):
        body["global_batch"] = max(1, round(run["global_batch_tokens"] / seq_len))
    if layout_pins:
        for key in ("tp", "pp", "recompute", "zero_stage"):
            if run.get(key):
                body[key] = run[key]
    return EstimateRequest(**body)


def _estimate(run: dict[str, Any]) -> EstimateResponse:
    try:
        return estimate(_request(run, layout_pins=True), search_all=False)
    except (InputError, ValueError):
        # A published TP/PP the request model cannot take (e.g. heads not given): unpinned.
        return estimate(_request(run, layout_pins=False), search_all=False)


def _metric(run: dict[str, Any], resp: EstimateResponse) -> tuple[str, str, float, float] | None:
    """(metric, unit, predicted, reported), or None when the run gives nothing comparable."""
    tr = resp.training
    assert tr is not None
    hours = run.get("gpu_hours") or run.get("derived_gpu_hours")
    if run.get("tokens") and run.get("task", "pretrain") == "pretrain" and hours:
        return "GPU-hours", "GPU-h", tr.gpu_hours, float(hours)
    if run.get("tokens") and run.get("days"):
        return "days", "days", tr.days, float(run["days"])
    tp = run.get("throughput")
    if tp and str(tp["unit"]).startswith("tokens/s"):
        per_gpu = "per GPU" in tp["unit"]
        predicted = tr.tokens_per_s / resp.gpu.count if per_gpu else tr.tokens_per_s
        unit = "tokens/s per GPU" if per_gpu else "tokens/s"
        return "throughput", unit, predicted, float(tp["value"])
    return None


@lru_cache(maxsize=1)
def rows() -> tuple[ValidationRow, ...]:
    """Every predictable run as a ValidationRow (computed once: pure in the shipped data)."""
    out: list[ValidationRow] = []
    for run in runs():
        if not (run.get("tokens") or run.get("throughput")):
            continue
        if not (run.get("gpu_count") or run.get("gpu_hours") or run.get("derived_gpu_hours")):
            continue
        resp = _estimate(run)
        got = _metric(run, resp)
        if got is None:
            continue
        metric, unit, predicted, reported = got
        out.append(
            ValidationRow(
                id=run["id"],
                kind="training",
                category=category(run),
                model=run["model"],
                gpu=run["gpu"],
                gpu_count=float(resp.gpu.count),
                task=run.get("task", "pretrain"),
                metric=metric,
                unit=unit,
                predicted=predicted,
                reported=reported,
                source=str(run.get("source", "")),
                quote=str(run.get("quote", "")),
                split=run.get("split", "holdout"),
                notes=_notes(run),
                fits=resp.training is None or resp.training.fits,
            )
        )
    return tuple(out)


def _notes(run: dict[str, Any]) -> str:
    """The row's notes, then which layout choices were pinned from the source and its words."""
    notes = str(run.get("notes", ""))
    pinned = [f"{k} {run[k]}" for k in ("tp", "pp", "recompute", "zero_stage") if k in run]
    if run.get("layout_quote"):
        notes += f" Pinned from the source: {', '.join(pinned)}. {run['layout_quote']}"
    return notes.strip()


def unpredictable() -> list[str]:
    """Ids of runs that state neither tokens nor throughput (nothing to predict from)."""
    predicted = {r.id for r in rows()}
    return [r["id"] for r in runs() if r["id"] not in predicted]


class SourcePair(NamedTuple):
    """Two published runs the engine cannot tell apart — the same GPU type, the same size
    (±5%) and the same stated global batch — and how far their reported costs differ.

    ratio: reported GPU-hours per model FLOP (the engine's `training.flops`, which counts
    each run's own sequence length), the larger over the smaller (≥ 1). floor_pct:
    exp(ln(ratio) / 2) − 1, the smallest error one prediction can have on the worse of the
    two: whatever makes one exact leaves the other off by the whole ratio, and splitting it
    evenly leaves each off by its square root.
    """

    first: str
    second: str
    first_model: str
    second_model: str
    gpu: str
    ratio: float
    floor_pct: float


SAME_SIZE = 0.05  # parameters within 5%: the engine's FLOPs absorb the rest


@lru_cache(maxsize=1)
def source_pairs() -> tuple[SourcePair, ...]:
    """Every pair of dense pre-training runs compared on GPU-hours that share GPU type, size
    and a global batch both sources state, most discordant first."""
    predicted = {r.id: r for r in rows() if r.metric == "GPU-hours"}
    dense = [r for r in runs() if r["id"] in predicted and not _is_moe(r)]
    cost = {
        r["id"]: predicted[r["id"]].reported / _flops(r)
        for r in dense
        if r.get("global_batch_tokens")
    }
    out: list[SourcePair] = []
    for i, a in enumerate(dense):
        for b in dense[i + 1 :]:
            if a["id"] not in cost or b["id"] not in cost or a["gpu"] != b["gpu"]:
                continue
            if a["global_batch_tokens"] != b["global_batch_tokens"]:
                continue
            if abs(b["params_b"] / a["params_b"] - 1.0) > SAME_SIZE:
                continue
            ratio = max(cost[a["id"]], cost[b["id"]]) / min(cost[a["id"]], cost[b["id"]])
            out.append(
                SourcePair(
                    first=a["id"],
                    second=b["id"],
                    first_model=a["model"],
                    second_model=b["model"],
                    gpu=a["gpu"],
                    ratio=ratio,
                    floor_pct=math.exp(math.log(ratio) / 2.0) - 1.0,
                )
            )
    return tuple(sorted(out, key=lambda p: -p.ratio))


def _flops(run: dict[str, Any]) -> float:
    """The engine's model FLOPs of the run (its `training.flops`)."""
    training = _estimate(run).training
    assert training is not None
    return training.flops
