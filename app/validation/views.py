"""The validation page's context: the filtered runs, their scatter and the category summaries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from app.charts import figures
from app.engine.formatting import number
from app.engine.gpus import default_gpus
from app.engine.validation import ValidationRow
from app.errors import Invalid
from app.i18n import N_, paren
from app.i18n import gettext as _
from app.validation import service

#: The categories of both producers (their `category` strings), for translation.
CATEGORY_LABELS: Final = {
    "A100-class pre-training": N_("A100-class pre-training"),
    "H100-class pre-training": N_("H100-class pre-training"),
    "MoE pre-training": N_("MoE pre-training"),
    "fine-tuning": N_("fine-tuning"),
    "fine-tuning memory per GPU": N_("fine-tuning memory per GPU"),
    "decode, fixed batch": N_("decode, fixed batch"),
    "decode-heavy max load": N_("decode-heavy max load"),
    "prefill-heavy": N_("prefill-heavy"),
    "single user latency": N_("single user latency"),
    "SDXL images": N_("SDXL images"),
    "FLUX images": N_("FLUX images"),
}
METRIC_LABELS: Final = {
    "GPU-hours": N_("GPU-hours"),
    "days": N_("time to finish"),
    "throughput": N_("throughput"),
    "output tokens/s": N_("output tokens/s"),
    "output tokens/s per GPU": N_("output tokens/s per GPU"),
    "prompt tokens/s": N_("prompt tokens/s"),
    "tokens/s per user": N_("tokens/s per user"),
    "TTFT": N_("time to first token"),
    "ITL": N_("inter-token latency"),
    "request latency": N_("request latency"),
    "images/h per GPU": N_("images/h per GPU"),
    "memory per GPU (nvidia-smi)": N_("memory per GPU as nvidia-smi shows it"),
    "memory per GPU (allocated)": N_("tensor memory allocated per GPU"),
}
# A row's unit beside its metric: symbols (GPU-h, GB, ms, tokens/s) as written, words in the
# page's language; none where it repeats the metric.
UNIT_LABELS: Final = {
    "days": N_("days"),
    "minutes": N_("minutes"),
    "images/h": N_("images/h"),
    "tokens/s per GPU": N_("tokens/s per GPU"),
}
TASK_LABELS: Final = {
    "pretrain": N_("Pre-training"),
    "full_finetune": N_("Full fine-tuning"),
    "lora": N_("LoRA fine-tuning"),
    "qlora": N_("QLoRA fine-tuning (4-bit base)"),
    "inference": N_("Inference (serving)"),
    "image": N_("Image generation"),
}
KIND_OPTIONS: Final = (
    # not "Training"/"Serving": those msgids name the tiers (訓練級) elsewhere (QA)
    ("training", N_("Model training")),
    ("serving", N_("Model serving")),
    ("image", N_("Image generation")),
)
TASK_OPTIONS: Final = (
    ("pretrain", N_("Pre-training")),
    ("finetune", N_("Fine-tuning")),
    ("inference", N_("Inference (serving)")),
    ("image", N_("Image generation")),
)
SPLIT_LABELS: Final = {"fit": N_("fit"), "holdout": N_("held out")}


def label(table: Mapping[str, str], key: str) -> str:
    """The translated label of `key`, the key itself when the table does not know it."""
    return _(table[key]) if key in table else key


def _heading(text: str) -> str:
    """A category as a heading or legend entry: 'Fine-tuning' beside 'A100-class
    pre-training' (only the first letter; 'MoE' keeps its case, Chinese has none)."""
    return text[:1].upper() + text[1:]


def magnitude(value: float) -> int:
    """Decimals that show three significant figures or so: 82,432 · 41.2 · 0.532."""
    v = abs(value)
    return 0 if v >= 100 else 1 if v >= 10 else 2 if v >= 0.1 else 4


@dataclass(frozen=True, slots=True)
class RowView:
    row: ValidationRow
    category: str
    metric: str
    unit: str  # "" where the metric says it already
    # the figures in the unit the page shows: the row's own, or minutes for a run of less
    # than a day (MLPerf's LoRA run: 27.15 minutes, not "0.0189 days")
    predicted: float
    reported: float
    task: str
    split: str
    gpu_name: str
    gpu_count: str


MINUTES_PER_DAY: Final = 1440.0


def _shown_unit(row: ValidationRow) -> str:
    """The unit the page shows a row in: its own, or minutes for a run of under a day (the
    API keeps days)."""
    if row.unit == "days" and max(row.predicted, row.reported) < 1:
        return "minutes"
    return row.unit


def _row_view(r: ValidationRow, names: Mapping[str, str]) -> RowView:
    unit = _shown_unit(r)
    scale = MINUTES_PER_DAY if unit == "minutes" else 1.0
    return RowView(
        row=r,
        category=label(CATEGORY_LABELS, r.category),
        metric=label(METRIC_LABELS, r.metric),
        unit=label(UNIT_LABELS, unit) if unit != r.metric else "",
        predicted=r.predicted * scale,
        reported=r.reported * scale,
        task=label(TASK_LABELS, r.task),
        split=label(SPLIT_LABELS, r.split),
        gpu_name=names.get(r.gpu, r.gpu),
        gpu_count=number(r.gpu_count, 0 if r.gpu_count >= 1 else 2),
    )


def _gpu_names() -> dict[str, str]:
    """GPU names without the vendor ("A100 SXM4 80GB"): the table is narrow on a phone."""
    return {g.id: g.name.removeprefix("NVIDIA ").removeprefix("AMD ") for g in default_gpus()}


def validation_page(params: Mapping[str, str]) -> dict[str, Any]:
    """Rows after the `gpu`, `kind` and `task` filters (a bad one: an inline error, ignored)."""
    rows = service.all_rows()
    chosen = {k: (params.get(k) or "").strip() for k in ("gpu", "kind", "task")}
    errors: dict[str, str] = {}
    for name in chosen:
        try:
            service.filter_rows(rows, **{name: chosen[name]})
        except Invalid as exc:
            errors[name] = exc.message
            chosen[name] = ""
    shown = service.filter_rows(rows, **chosen)
    names = _gpu_names()
    views = [_row_view(r, names) for r in shown]
    points = [
        {
            "label": _heading(v.category),
            # in the unit the table shows (each run's own: the axes mix units)
            "predicted": v.predicted,
            "reported": v.reported,
            "text": f"{v.row.model} · {v.gpu_name} × {v.gpu_count} · {v.metric}"
            + (paren(v.unit) if v.unit else ""),
        }
        for v in views
    ]
    return {
        "nav_active": "validation",
        "filters": chosen,
        "errors": errors,
        "filtered": any(chosen.values()),
        "gpu_options": [(g, names.get(g, g)) for g in service.gpus(rows)],
        "kind_options": KIND_OPTIONS,
        "task_options": TASK_OPTIONS,
        "rows": views,
        "total": len(rows),
        "training_runs": sum(r.kind == "training" for r in rows),
        "serving_runs": sum(r.kind == "serving" for r in rows),
        "image_runs": sum(r.kind == "image" for r in rows),
        "scatter": figures.validation(points),
        "source_pairs": [
            {
                "first": p.first_model,
                "second": p.second_model,
                "gpu_name": names.get(p.gpu, p.gpu),
                "ratio": p.ratio,
                "floor_pct": p.floor_pct,
            }
            for p in service.source_pairs()
        ],
        "categories": service.category_summaries(rows),
        "kinds": service.kind_summaries(rows),
        "category_label": lambda c: _heading(label(CATEGORY_LABELS, c)),
        "magnitude": magnitude,
    }
