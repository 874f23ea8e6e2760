"""Uncertainty bands of training figures: the error of their validation category.

An estimate's days and GPU-hours carry the median |error| of the published runs of the same
category (`app.engine.training_validation.category`: fine-tuning, MoE pre-training, dense
pre-training by GPU class), e.g. "±14%, median of 19 published runs". Days and GPU-hours
share one band: at a pinned GPU count GPU-hours = days × 24 × GPUs, so their errors are the
same number. Memory per GPU carries the band of the category's memory measurements — none
are in the table yet, so it is None, and the answer says so rather than inventing one.
Image-generation figures (images/hour, seconds per image) carry one band, the median
|error| of every image row (`image_band`, written under "image").

Why a generated file (`app/data/validation/bands.json`, written by
`python scripts/write_validation_bands.py`) and not a lazy cache: the validation rows are
produced by calling `estimate()`, and `estimate()` is what needs the bands — computing them
on demand would make the estimator import its own validator (an import cycle, which
tests/test_architecture.py forbids) and recurse into itself on the first estimate. The file
breaks the loop: the estimator only reads numbers, the script runs the validator, and
tests/validation/test_bands_file.py recomputes the file and fails, naming the script, as
soon as a change to the engine moves a band.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from app.engine.schemas import Uncertainty, UncertaintyOut
from app.engine.validation import ValidationRow, summarise

BANDS_PATH = Path(__file__).resolve().parent.parent / "data" / "validation" / "bands.json"
H100_CLASS = ("h100", "h800", "h200")


def gpu_class(gpu: str) -> str:
    """The GPU family a published run stands for: A100 and H100-class (H100/H800/H200)
    runs share a chip generation; any other GPU only stands for itself."""
    if gpu.startswith("a100"):
        return "a100"
    if gpu.startswith(H100_CLASS):
        return "h100"
    return gpu


def is_memory_metric(row: ValidationRow) -> bool:
    """A row that compares memory per GPU (GB) rather than time or throughput."""
    return "memory" in row.metric.lower()


def _summary(rows: Sequence[ValidationRow]) -> dict[str, Any] | None:
    s = summarise(rows)
    if s is None:
        return None
    return {
        "median_pct": round(s.median_pct, 4),
        "worst_pct": round(s.worst_pct, 4),
        "runs": s.runs,
    }


def compute_bands(
    rows: Sequence[ValidationRow], image_rows: Sequence[ValidationRow] = ()
) -> dict[str, Any]:
    """The bands file's content from the training validation rows (see the module docstring)
    and, under "image", the band of every image-generation figure (all image rows)."""
    out: dict[str, Any] = {}
    for cat in sorted({r.category for r in rows}):
        same = [r for r in rows if r.category == cat]
        time_rows = [r for r in same if not is_memory_metric(r)]
        memory_rows = [r for r in same if is_memory_metric(r)]
        out[cat] = {
            "gpu_classes": sorted({gpu_class(r.gpu) for r in time_rows}),
            "memory_gpu_classes": sorted({gpu_class(r.gpu) for r in memory_rows}),
            "time": _summary(time_rows),
            "memory": _summary(memory_rows),
        }
    return {"training": out, "image": _summary(image_rows)}


@cache
def _bands() -> dict[str, Any]:
    if not BANDS_PATH.exists():
        return {"training": {}}
    data: dict[str, Any] = json.loads(BANDS_PATH.read_text(encoding="utf-8"))
    return data


def _band(entry: dict[str, Any] | None, category: str) -> Uncertainty | None:
    if not entry:
        return None
    return Uncertainty(median_pct=entry["median_pct"], runs=entry["runs"], category=category)


def image_band() -> UncertaintyOut | None:
    """The band of images/hour and seconds per image: median |error| of all image rows."""
    entry = _bands().get("image")
    if not entry:
        return None
    return UncertaintyOut(median_pct=entry["median_pct"], runs=entry["runs"])


def category_for(*, task: str, moe: bool, gpu: str) -> str:
    """The validation category of a training estimate (as training_validation.category)."""
    if task != "pretrain":
        return "fine-tuning"
    if moe:
        return "MoE pre-training"
    return "H100-class pre-training" if gpu.startswith(H100_CLASS) else "A100-class pre-training"


def training_bands(
    *, task: str, gpu: str, moe: bool
) -> tuple[Uncertainty | None, Uncertainty | None]:
    """(band of days and GPU-hours, band of memory per GPU) for a training estimate.

    task: pretrain | full_finetune | lora | qlora; gpu: the chosen GPU id; moe: routed
    experts. A band is given only when the table has a run of the category on the same GPU
    class (time rows for the time band; memory or time rows for the memory band) — a
    pre-training estimate on a GPU with no published run carries None.
    """
    cat = category_for(task=task, moe=moe, gpu=gpu)
    entry = _bands()["training"].get(cat)
    if entry is None:
        return None, None
    cls = gpu_class(gpu)
    time_band = _band(entry["time"], cat) if cls in entry["gpu_classes"] else None
    # Memory per GPU is the same arithmetic on every GPU (only the capacity it is compared
    # with differs), so the memory band holds on any GPU class the category has a published
    # run on, memory or time.
    memory_classes = {*entry.get("memory_gpu_classes", []), *entry["gpu_classes"]}
    # named as its summary in GET /api/v1/validation (`summary_category`): a client joining
    # on the name found the time summary instead (QA)
    memory_band = _band(entry["memory"], f"{cat} memory per GPU") if cls in memory_classes else None
    return time_band, memory_band
