"""The serving model checked against published serving measurements.

Each row of `app/data/validation/serving_runs.yaml` names a model, precision, GPU type and
count, TP degree, prompt and answer length, concurrency (or "max" load) and the figure the
source reports. The engine predicts that figure with the GPU, count and TP pinned and
everything else at its defaults (`inference` with the shares of `serving_stack`); nothing is
fitted per row. Where the source leaves TP unstated (MLPerf) the engine takes the TP its
own planner would: the one with the most output tokens/s per GPU.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

from app.engine import inference
from app.engine.architectures import get_preset
from app.engine.gpus import find_gpu
from app.engine.hardware import GpuSpec
from app.engine.inference import ServingConfig
from app.engine.validation import ValidationRow

RUNS_PATH = Path(__file__).resolve().parent.parent / "data" / "validation" / "serving_runs.yaml"
TP_CHOICES = (1, 2, 4, 8)

METRIC_UNITS = {
    "output_tokens_per_s": ("output tokens/s", "tokens/s"),
    "output_tokens_per_s_per_gpu": ("output tokens/s per GPU", "tokens/s"),
    "prompt_tokens_per_s": ("prompt tokens/s", "tokens/s"),
    "tokens_per_s_per_user": ("tokens/s per user", "tokens/s"),
    "ttft_ms": ("TTFT", "ms"),
    "itl_ms": ("ITL", "ms"),
    "e2e_latency_ms": ("request latency", "ms"),
}


@cache
def runs() -> tuple[dict[str, Any], ...]:
    """The published rows, as stored."""
    with RUNS_PATH.open(encoding="utf-8") as fh:
        return tuple(yaml.safe_load(fh)["runs"])


def config_for(run: dict[str, Any], gpu: GpuSpec, tp: int) -> ServingConfig:
    return ServingConfig(
        model=get_preset(run["preset"]),
        gpu=gpu,
        precision=run["precision"],
        kv_dtype=run["kv_dtype"],
        tp=tp,
        input_tokens=int(run["input_tokens"]),
        output_tokens=int(run["output_tokens"]),
    )


def _best_tp(run: dict[str, Any], gpu: GpuSpec) -> int:
    """TP unstated: the engine's own choice, the most output tokens/s per GPU at max load."""
    best, best_rate = 1, -1.0
    for tp in TP_CHOICES:
        if run["gpu_count"] % tp:
            continue
        cfg = config_for(run, gpu, tp)
        if inference.kv_capacity(cfg) == 0:
            continue
        rate = inference.max_load(cfg).tokens_per_s / tp
        if rate > best_rate:
            best, best_rate = tp, rate
    return best


def predict(run: dict[str, Any], gpus: list[GpuSpec] | None = None) -> float:
    """The engine's figure for one published row, in the row's metric and unit."""
    gpu = find_gpu(run["gpu"], gpus)
    tp = run["tp"] or _best_tp(run, gpu)
    cfg = config_for(run, gpu, tp)
    replicas = max(1, run["gpu_count"] // tp)
    cap = inference.kv_capacity(cfg)
    conc = run["concurrency"]
    metric = run["metric"]
    if metric == "prompt_tokens_per_s":
        return cfg.input_tokens / inference.prefill_seconds(cfg, cfg.input_tokens)
    if metric == "ttft_ms" and conc == 1:
        return inference.prefill_seconds(cfg, cfg.input_tokens) * 1e3
    if conc == "max":
        point = inference.max_load(cfg)
    else:
        per_replica = max(1, int(conc) // replicas)
        if run.get("static_batch"):
            # One static batch: every request present from the start, no queue.
            cap = max(min(per_replica, max(cap, 1)), 1)
            point = inference.operating_point(cfg, cap, cap)
        else:
            point = inference.operating_point(cfg, per_replica, cap)
    if metric == "output_tokens_per_s":
        return point.tokens_per_s * replicas
    if metric == "output_tokens_per_s_per_gpu":
        return point.tokens_per_s / tp
    if metric == "tokens_per_s_per_user":
        return point.tokens_per_s_per_user
    if metric == "itl_ms":
        return point.itl_s * 1e3
    if metric == "ttft_ms":
        return point.ttft_s * 1e3
    if metric == "e2e_latency_ms":
        return (point.ttft_s + (cfg.output_tokens - 1) * point.itl_s) * 1e3
    raise ValueError(f"{run['id']}: unknown metric {metric!r}")


def rows(gpus: list[GpuSpec] | None = None) -> list[ValidationRow]:
    """Every published serving row with the engine's prediction beside it."""
    out = []
    for run in runs():
        label, unit = METRIC_UNITS[run["metric"]]
        out.append(
            ValidationRow(
                id=run["id"],
                kind="serving",
                category=run["category"],
                model=run["model"],
                gpu=run["gpu"],
                gpu_count=float(run["gpu_count"]),
                task="inference",
                metric=label,
                unit=unit,
                predicted=predict(run, gpus),
                reported=float(run["reported"]),
                source=run["source"],
                quote=run["quote"],
                split=run["split"],
                notes=run.get("notes", ""),
            )
        )
    return out
