"""The image-generation validation table (issue 12, item 5).

Bounds: the engine's images/hour per GPU against 14 published measurements (MLPerf SDXL
Offline, diffusers and xDiT timings): median |error| at most 20% on all rows and 25% on the
held-out half, no row more than 2× off. The share of peak is the median of the shares the
fit rows imply, so it was chosen on those rows only (checked here by recomputing it).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.engine import image, image_validation
from app.engine.architectures import get_preset
from app.engine.gpus import find_gpu
from app.engine.validation import summarise


def test_every_row_has_source_quote_and_its_arithmetic() -> None:
    runs = image_validation.runs()
    assert len(runs) >= 12
    assert {r["preset"] for r in runs} == {"sdxl", "flux-1-dev"}
    for r in runs:
        assert r["source"].startswith("http") and r["quote"].strip(), r["id"]
        # reported = quoted samples/s × 3,600 / GPUs (systems) or 3,600 / seconds (one GPU).
        q = float(r["quoted"])
        if "samples/s" in r["derivation"]:
            expect = q * 3600 / r["gpu_count"]
        elif r["derivation"].startswith("4 images"):
            expect = 4 * 3600 / q
        else:
            expect = 3600 / q
        assert r["reported"] == pytest.approx(expect, abs=0.06), r["id"]


def test_error_bounds_all_and_holdout() -> None:
    rows = image_validation.rows()
    everything = summarise(rows)
    held = summarise(r for r in rows if r.split == "holdout")
    assert everything is not None and held is not None
    assert everything.median_pct <= 0.20, everything
    assert held.median_pct <= 0.25, held
    assert everything.worst_pct < 1.0, everything  # no row 2× off
    print(f"image validation: all {everything}, holdout {held}")


def test_the_share_is_the_median_of_the_fit_rows() -> None:
    shares = []
    for run in image_validation.runs():
        if run["split"] != "fit":
            continue
        model, gpu = get_preset(run["preset"]), find_gpu(run["gpu"])
        per_pass, _ = image.flops_per_pass(model, run["resolution"])
        passes = image.denoiser_for(model).passes_per_step
        flops_per_image = run["steps"] * passes * per_pass
        images_per_s = run["reported"] / 3600
        shares.append(flops_per_image * images_per_s / (gpu.peak_tflops("bf16") * 1e12))
    assert len(shares) == 7
    assert image.IMAGE_SHARE == pytest.approx(statistics.median(shares), abs=0.005)


def test_api_and_filters_list_the_image_rows(web: TestClient) -> None:
    body = web.get("/api/v1/validation").json()
    imgs = [r for r in body["rows"] if r["kind"] == "image"]
    assert body["image_runs"] == len(imgs) == len(image_validation.runs())
    only = web.get("/api/v1/validation?kind=image").json()["rows"]
    assert [r["id"] for r in only] == [r["id"] for r in imgs]
    by_task = web.get("/api/v1/validation?task=image").json()["rows"]
    assert [r["id"] for r in by_task] == [r["id"] for r in imgs]
    for r in imgs:
        assert r["unit"] == "images/h"
        assert r["log_error"] == pytest.approx(math.log(r["predicted"] / r["reported"]))
    assert [k["kind"] for k in body["kinds"]][-1] == "image"


def test_page_shows_the_image_rows_in_the_page_language(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    soup = get_soup("/validation?kind=image")
    shown = soup.select("table.validation-runs tbody tr")
    assert [tr["id"] for tr in shown] == [f"run-{r['id']}" for r in image_validation.runs()]
    metric = "每 GPU 每小時圖片數" if lang == "zh-TW" else "images/h per GPU"
    assert metric in shown[0].get_text()
    total = "所有生圖實測" if lang == "zh-TW" else "All image-generation measurements"
    full = get_soup("/validation")
    assert total in full.select_one("table.validation-summary").get_text()
