"""The validation tables: every published run the engine is checked against, and their errors.

Four producers build the rows (`app.engine.training_validation`, `memory_validation`,
`serving_validation`, `image_validation`); all are pure in the shipped data and cached, so a page or API call only filters and
summarises. Summaries are per (kind, category) and per split: `fit` (the rows the engine's
shared factors were chosen on), `holdout` (never used to choose anything) and all rows —
the `all` figure is the band an estimate of that category carries (`app.engine.bands`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.engine import image_validation, memory_validation, serving_validation, training_validation
from app.engine.bands import is_memory_metric
from app.engine.validation import ErrorSummary, ValidationRow, summarise
from app.errors import Invalid
from app.i18n import N_

KINDS = ("training", "serving", "image")
SPLITS = ("all", "fit", "holdout")
#: Task filters: each one the set of `ValidationRow.task` values it keeps.
TASK_GROUPS: dict[str, tuple[str, ...]] = {
    "pretrain": ("pretrain",),
    "finetune": ("full_finetune", "lora", "qlora"),
    "inference": ("inference",),
    "image": ("image",),
    # a row's own task selects its rows too: a client that read `task: "lora"` in a row
    # asked for ?task=lora and was refused (QA)
    "full_finetune": ("full_finetune",),
    "lora": ("lora",),
    "qlora": ("qlora",),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class CategorySummary:
    """Median and worst |error| of one category, on all rows and on each split."""

    kind: str
    category: str
    splits: dict[str, ErrorSummary | None]


def all_rows() -> list[ValidationRow]:
    """Every published run of the tables: training (times, then memory measurements), serving,
    image, in table order."""
    return [
        *training_validation.rows(),
        *memory_validation.rows(),
        *serving_validation.rows(),
        *image_validation.rows(),
    ]


def source_pairs() -> tuple[training_validation.SourcePair, ...]:
    """Pairs of published training runs that disagree with each other although the engine
    cannot tell them apart (`app.engine.training_validation.source_pairs`), most first."""
    return training_validation.source_pairs()


def gpus(rows: Iterable[ValidationRow]) -> list[str]:
    """The GPU ids that occur in `rows`, sorted."""
    return sorted({r.gpu for r in rows})


def filter_rows(
    rows: Sequence[ValidationRow],
    *,
    gpu: str | None = None,
    kind: str | None = None,
    task: str | None = None,
) -> list[ValidationRow]:
    """The rows on `gpu`, of `kind` and of the `task` group (None or "" keeps everything).

    Raises Invalid naming the field for a GPU no row uses, an unknown kind or task group.
    """
    if gpu and gpu not in gpus(rows):
        raise Invalid(N_("No published run on this GPU."), field="gpu", where="query")
    if kind and kind not in KINDS:
        raise Invalid(
            N_("Choose training, serving or image generation."), field="kind", where="query"
        )
    if task and task not in TASK_GROUPS:
        raise Invalid(
            N_("Choose pre-training, fine-tuning, inference or image generation."),
            field="task",
            where="query",
        )
    keep = TASK_GROUPS.get(task or "")
    return [
        r
        for r in rows
        if (not gpu or r.gpu == gpu)
        and (not kind or r.kind == kind)
        and (keep is None or r.task in keep)
    ]


def summary_category(row: ValidationRow) -> str:
    """The summary a row counts in: its category, with memory measurements apart from times
    ("fine-tuning memory per GPU"), because an estimate's days carry the band of the times
    and its memory the band of the memory rows (`app.engine.bands`) — one median over both
    (9% of 14 runs) matched neither band the planner shows (14% of 8; 8% of 6)."""
    return f"{row.category} memory per GPU" if is_memory_metric(row) else row.category


def category_summaries(rows: Sequence[ValidationRow]) -> list[CategorySummary]:
    """One summary per (kind, `summary_category`) in the order they first occur."""
    keys: list[tuple[str, str]] = []
    for r in rows:
        if (r.kind, summary_category(r)) not in keys:
            keys.append((r.kind, summary_category(r)))
    out = []
    for kind, cat in keys:
        same = [r for r in rows if r.kind == kind and summary_category(r) == cat]
        out.append(
            CategorySummary(
                kind=kind,
                category=cat,
                splits={
                    "all": summarise(same),
                    "fit": summarise(r for r in same if r.split == "fit"),
                    "holdout": summarise(r for r in same if r.split == "holdout"),
                },
            )
        )
    return out


def kind_summaries(rows: Sequence[ValidationRow]) -> list[CategorySummary]:
    """The same per kind over all its categories ("all training runs", "all serving rows")."""
    out = []
    for kind in KINDS:
        same = [r for r in rows if r.kind == kind]
        if same:
            out.append(
                CategorySummary(
                    kind=kind,
                    category="",
                    splits={
                        "all": summarise(same),
                        "fit": summarise(r for r in same if r.split == "fit"),
                        "holdout": summarise(r for r in same if r.split == "holdout"),
                    },
                )
            )
    return out
