"""Memory per GPU against published measurements: one `ValidationRow` per measurement.

The table is `app/data/validation/memory_runs.yaml` (every figure copied from its source,
with the quote). Each run is predicted with what the source states pinned — model, task,
LoRA rank and targets, sequence length, micro-batch, gradient checkpointing, GPU type and
count — and compared on what the source measured: the device memory nvidia-smi shows
(`memory_per_gpu_gb.total`) or the tensors torch.cuda.max_memory_allocated() counts
(`memory_per_gpu_gb.allocated`). Nothing is fitted per run. The rows are of the
"fine-tuning" category with the metric "memory per GPU", so `app.engine.bands` gives
fine-tuning estimates their memory band from them.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from app.engine.estimate import estimate
from app.engine.schemas import EstimateRequest
from app.engine.validation import ValidationRow

TABLE = Path(__file__).resolve().parent.parent / "data" / "validation" / "memory_runs.yaml"
CATEGORY = "fine-tuning"


@lru_cache(maxsize=1)
def runs() -> tuple[dict[str, Any], ...]:
    """The published measurements as read from the table (parsed once)."""
    return tuple(yaml.safe_load(TABLE.read_text(encoding="utf-8"))["runs"])


def request(run: dict[str, Any]) -> EstimateRequest:
    """The estimate request of a measurement: what the source states, pinned."""
    return EstimateRequest(
        model={"preset": run["preset"]},
        task=run["task"],
        tokens=1e7,  # memory does not depend on the token count
        seq_len=run["seq_len"],
        micro_batch=run.get("micro_batch", 1),
        lora_rank=run.get("lora_rank", 16),
        lora_targets=run.get("lora_targets", "all_linear"),
        recompute=run.get("recompute"),
        gpu=run["gpu"],
        gpu_count=run.get("gpu_count", 1),
    )


@lru_cache(maxsize=1)
def rows() -> tuple[ValidationRow, ...]:
    """Every measurement as a ValidationRow (computed once: pure in the shipped data)."""
    out: list[ValidationRow] = []
    for run in runs():
        resp = estimate(request(run), search_all=False)
        mem = resp.memory_per_gpu_gb
        allocated = run.get("measured_as") == "allocated"
        predicted = mem.allocated if allocated and mem.allocated is not None else mem.total
        out.append(
            ValidationRow(
                id=run["id"],
                kind="training",
                category=CATEGORY,
                model=run["model"],
                gpu=run["gpu"],
                gpu_count=float(resp.gpu.count),
                task=run["task"],
                metric="memory per GPU (allocated)" if allocated else "memory per GPU (nvidia-smi)",
                unit="GB",
                predicted=predicted,
                reported=float(run["reported_gb"]),
                source=str(run["source"]),
                quote=str(run["quote"]),
                split=run.get("split", "holdout"),
                notes=str(run.get("notes", "")),
            )
        )
    return tuple(out)
