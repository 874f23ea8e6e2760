"""The image-generation model checked against published measurements (issue 12, item 5).

Each row of `app/data/validation/image_runs.yaml` names a pipeline (SDXL, FLUX), a GPU, the
resolution and step count, and the images per hour per GPU the source reports (a system's
throughput divided by its GPUs, or 3,600 s over one GPU's seconds per image). The engine's
figure is `image.images_per_hour_per_gpu` for the same GPU, resolution and steps; nothing is
fitted per row, and the one shared constant (`image.IMAGE_SHARE`) was chosen on the rows
marked `fit` only.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

from app.engine import image
from app.engine.architectures import get_preset
from app.engine.gpus import find_gpu
from app.engine.hardware import GpuSpec
from app.engine.validation import ValidationRow

RUNS_PATH = Path(__file__).resolve().parent.parent / "data" / "validation" / "image_runs.yaml"
CATEGORY = {"sdxl": "SDXL images", "flux-1-dev": "FLUX images"}


@cache
def runs() -> tuple[dict[str, Any], ...]:
    """The published rows, as stored."""
    with RUNS_PATH.open(encoding="utf-8") as fh:
        return tuple(yaml.safe_load(fh)["runs"])


def predict(run: dict[str, Any], gpus: list[GpuSpec] | None = None) -> float:
    """The engine's images per hour per GPU for one published row."""
    return image.images_per_hour_per_gpu(
        get_preset(run["preset"]),
        find_gpu(run["gpu"], gpus),
        resolution=int(run["resolution"]),
        steps=int(run["steps"]),
    )


def rows(gpus: list[GpuSpec] | None = None) -> list[ValidationRow]:
    """Every published image row with the engine's prediction beside it."""
    return [
        ValidationRow(
            id=run["id"],
            kind="image",
            category=CATEGORY[run["preset"]],
            model=run["model"],
            gpu=run["gpu"],
            gpu_count=float(run["gpu_count"]),
            task="image",
            metric="images/h per GPU",
            unit="images/h",
            predicted=predict(run, gpus),
            reported=float(run["reported"]),
            source=run["source"],
            quote=run["quote"],
            split=run["split"],
            notes=(
                f"{run['resolution']}², {run['steps']} steps, {run['precision']}, "
                f"{run['engine']}; {run['derivation']}. {run.get('notes', '')}"
            ).strip(),
        )
        for run in runs()
    ]
