"""The default GPU list the planner searches, read from the shipped `app/data/gpus.yaml`."""

from __future__ import annotations

import dataclasses
import difflib
from functools import cache
from pathlib import Path
from typing import Any, Final

import yaml

from app.engine.hardware import GpuSpec
from app.engine.notices import Notice

GPUS_PATH = Path(__file__).resolve().parent.parent / "data" / "gpus.yaml"
DEFAULT_GPU = "h100-sxm-80gb"  # the provider's fleet (seed 003 T1: every tier is H100)
_FIELDS = {f.name for f in dataclasses.fields(GpuSpec)}
# An id that is none of the list's (`find_gpu`). The API answers with the ids it takes; a page
# offers the GPUs by name in a select, so only a hand-edited form sends another value, and it
# is told to choose one of the listed options instead (app.web.notices.CHOICE_TEMPLATES).
UNKNOWN_GPU: Final = "unknown GPU '%(gpu)s'. Allowed: %(ids)s"
UNKNOWN_GPU_CLOSE: Final = "unknown GPU '%(gpu)s'. Did you mean %(close)s? Allowed: %(ids)s"


def gpu_from_record(record: dict[str, Any]) -> GpuSpec:
    """A GpuSpec from a data row; keys that are not GpuSpec fields (notes…) are ignored."""
    return GpuSpec(**{k: v for k, v in record.items() if k in _FIELDS})


@cache
def _default() -> tuple[GpuSpec, ...]:
    with GPUS_PATH.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    return tuple(gpu_from_record(r) for r in data["gpus"])


def default_gpus() -> list[GpuSpec]:
    return list(_default())


def find_gpu(gpu_id: str, gpus: list[GpuSpec] | None = None) -> GpuSpec:
    """The GPU with `gpu_id`; KeyError names the closest ids."""
    pool = gpus if gpus is not None else default_gpus()
    for g in pool:
        if g.id == gpu_id:
            return g
    ids = ", ".join(g.id for g in pool)
    close = difflib.get_close_matches(gpu_id, [g.id for g in pool], n=3, cutoff=0.4)
    # A Notice, so that a page shows it in its own language (app.web.notices).
    if close:
        raise KeyError(Notice(UNKNOWN_GPU_CLOSE, gpu=gpu_id, close=", ".join(close), ids=ids))
    raise KeyError(Notice(UNKNOWN_GPU, gpu=gpu_id, ids=ids))
