"""Write app/data/validation/bands.json: the error band of each training validation category
and of image generation.

    .venv/bin/python scripts/write_validation_bands.py

Run it after any change to the engine or to app/data/validation/training_runs.yaml,
memory_runs.yaml or image_runs.yaml;
tests/validation/test_bands_file.py fails until the file matches the rows again. Why a file
and not a cache: app/engine/bands.py's docstring.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.engine import image_validation, memory_validation, training_validation
from app.engine.bands import BANDS_PATH, compute_bands


def main() -> None:
    data = compute_bands(
        [*training_validation.rows(), *memory_validation.rows()], image_validation.rows()
    )
    BANDS_PATH.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(BANDS_PATH)


if __name__ == "__main__":
    main()
