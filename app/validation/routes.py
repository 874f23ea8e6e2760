"""JSON API v1: the published runs the engine is checked against (GET /api/v1/validation)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, BeforeValidator, Field

from app.engine.validation import ErrorSummary, ValidationRow
from app.validation import service

router = APIRouter(prefix="/api/v1", tags=["engine"])


class ValidationRowOut(BaseModel):
    """One published run beside the engine's prediction of it."""

    id: str
    kind: Literal["training", "serving", "image"]
    category: str
    summary: str = Field(
        description="The category summary (`categories[].category`) this run counts in: its "
        "category, with memory measurements apart ('fine-tuning memory per GPU')."
    )
    model: str
    gpu: str
    gpu_count: float
    task: str
    metric: str = Field(description="What is compared: GPU-hours, days, output tokens/s, TTFT…")
    unit: str
    predicted: float = Field(description="The engine's figure, in `unit`.")
    reported: float = Field(description="The source's figure, in `unit`.")
    log_error: float = Field(description="ln(predicted / reported): > 0 when the engine says more.")
    pct_error: float = Field(description="exp(|log_error|) − 1: 0.14 = off by 14%.")
    split: Literal["fit", "holdout"] = Field(
        description="fit: the engine's shared factors were chosen on it; holdout: never used."
    )
    source: str
    quote: str = Field(description="The words of the source the reported figure was read from.")
    notes: str = ""
    fits: bool = Field(
        default=True,
        description="False: the engine's memory model puts the run's published layout over the "
        "GPU's memory, although the run did fit (its memory estimate is pessimistic there).",
    )


class ErrorSummaryOut(BaseModel):
    """Median and worst |error| (as exp(|log|) − 1) over `runs` rows."""

    runs: int
    median_pct: float
    worst_pct: float
    worst_id: str


class CategorySummaryOut(BaseModel):
    """A category's error on all its rows and on the fit and held-out halves."""

    kind: Literal["training", "serving", "image"]
    category: str = Field(description="Empty for the summary of the whole kind.")
    all: ErrorSummaryOut | None
    fit: ErrorSummaryOut | None
    holdout: ErrorSummaryOut | None


class SourcePairOut(BaseModel):
    """Two published training runs the engine cannot tell apart (same GPU type, size within
    5%, same stated global batch) whose reported costs still differ."""

    first: str = Field(description="Run id of one (as in rows[].id).")
    second: str = Field(description="Run id of the other.")
    first_model: str
    second_model: str
    gpu: str
    ratio: float = Field(
        description="Reported GPU-hours per model FLOP, the larger over the smaller (≥ 1)."
    )
    floor_pct: float = Field(
        description="exp(ln(ratio) / 2) − 1: the smallest error one prediction can have on "
        "the worse of the two (0.15 = 15%)."
    )


class ValidationOut(BaseModel):
    """The rows (after the filters), the per-category summaries of every row, and the pairs of
    runs whose sources disagree with each other."""

    training_runs: int
    serving_runs: int
    image_runs: int
    rows: list[ValidationRowOut]
    categories: list[CategorySummaryOut]
    kinds: list[CategorySummaryOut]
    source_pairs: list[SourcePairOut]


def row_out(r: ValidationRow) -> ValidationRowOut:
    return ValidationRowOut.model_validate(
        {
            **{k: getattr(r, k) for k in ValidationRowOut.model_fields if hasattr(r, k)},
            "log_error": r.log_error,
            "pct_error": r.pct_error,
            "summary": service.summary_category(r),
        }
    )


def _summary(s: ErrorSummary | None) -> ErrorSummaryOut | None:
    if s is None:
        return None
    return ErrorSummaryOut(
        runs=s.runs, median_pct=s.median_pct, worst_pct=s.worst_pct, worst_id=s.worst_id
    )


def summary_out(c: service.CategorySummary) -> CategorySummaryOut:
    return CategorySummaryOut(
        kind=c.kind,
        category=c.category,
        **{split: _summary(c.splits[split]) for split in service.SPLITS},
    )


def _blank_is_none(value: object) -> object:
    """An empty filter is no filter, as `?gpu=` already was and the page's "All" options are
    (QA: `?task=` answered 422 where `?gpu=` answered every row)."""
    return None if value == "" else value


@router.get("/validation", response_model=ValidationOut)
def get_validation(
    gpu: str | None = Query(None, description="Only runs on this GPU id."),
    kind: Annotated[
        Literal["training", "serving", "image"] | None,
        Query(description="Only this kind of run; empty for all."),
        BeforeValidator(_blank_is_none),
    ] = None,
    task: Annotated[
        Literal["pretrain", "finetune", "full_finetune", "lora", "qlora", "inference", "image"]
        | None,
        Query(
            description="A group (finetune: full, LoRA and QLoRA) or a row's own task; empty "
            "for all."
        ),
        BeforeValidator(_blank_is_none),
    ] = None,
) -> ValidationOut:
    """Published runs with the engine's prediction, the error and source of each, by category."""
    rows = service.all_rows()
    shown = service.filter_rows(rows, gpu=gpu, kind=kind, task=task)
    return ValidationOut(
        training_runs=sum(r.kind == "training" for r in rows),
        serving_runs=sum(r.kind == "serving" for r in rows),
        image_runs=sum(r.kind == "image" for r in rows),
        rows=[row_out(r) for r in shown],
        categories=[summary_out(c) for c in service.category_summaries(rows)],
        kinds=[summary_out(c) for c in service.kind_summaries(rows)],
        source_pairs=[SourcePairOut(**p._asdict()) for p in service.source_pairs()],
    )
