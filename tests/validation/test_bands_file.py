"""app/data/validation/bands.json is what the training and image validation rows give today."""

from __future__ import annotations

import json

from app.engine import bands, image_validation, memory_validation, training_validation


def test_bands_file_matches_the_rows() -> None:
    stored = json.loads(bands.BANDS_PATH.read_text(encoding="utf-8"))
    rows = [*training_validation.rows(), *memory_validation.rows()]
    fresh = json.loads(json.dumps(bands.compute_bands(rows, image_validation.rows())))
    assert stored == fresh, (
        "the engine's validation errors moved: run "
        "`.venv/bin/python scripts/write_validation_bands.py` and commit bands.json"
    )


def test_estimate_category_is_the_validation_category() -> None:
    """bands.category_for (what an estimate maps to) agrees with every run's own category."""
    for run in training_validation.runs():
        moe = bool(run.get("active_params_b") and run["active_params_b"] != run["params_b"])
        got = bands.category_for(task=run.get("task", "pretrain"), moe=moe, gpu=run["gpu"])
        assert got == training_validation.category(run), run["id"]
