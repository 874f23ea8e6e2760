"""A deadline met with no room for the estimate's own error band says so, and names the
count that leaves that room.

The band is the median |error| of the estimate's validation category (app/data/validation/
bands.json, shown as `training.uncertainty`): an estimate that finishes 13 of 14 days is as
likely as not to be more than that band slower than the engine says, so "meets the deadline"
alone would promise more than the published runs support.
"""

from __future__ import annotations

from app.engine.estimate import estimate
from app.engine.schemas import EstimateRequest

EIGHT_B = {"model": {"preset": "llama-3.1-8b"}, "task": "pretrain", "tokens": 2e11}


def _run(**kw: object):  # type: ignore[no-untyped-def]
    return estimate(EstimateRequest(**{**EIGHT_B, "gpu": "h100-sxm-80gb", **kw}))


def test_a_deadline_met_inside_the_band_warns_and_names_the_count_with_margin() -> None:
    r = _run(deadline_days=14)
    t = r.training
    assert t is not None and t.uncertainty is not None
    band = t.uncertainty.median_pct
    assert t.meets_deadline is True
    assert t.days <= 14 < t.days * (1 + band)  # met, but not at the slow end of the band
    assert t.deadline_margin is False
    (note,) = [w for w in r.warnings if "little room" in w]
    assert f"{t.days * (1 + band):.1f} days" in note
    # The count it names is the planner's answer for deadline / (1 + band): it finishes
    # within the deadline even that much slower, and is more GPUs than the plan.
    safe = _run(deadline_days=14 / (1 + band))
    assert safe.training is not None
    assert f"{safe.gpu.count:,} × NVIDIA H100" in note
    assert safe.gpu.count > r.gpu.count
    assert safe.training.days * (1 + band) <= 14
    # ... and the smallest such count: one node fewer misses the deadline at the slow end.
    fewer = _run(gpu_count=safe.gpu.count - 8)
    assert fewer.training is not None and fewer.training.days * (1 + band) > 14


def test_a_deadline_with_room_for_the_band_is_met_without_a_warning() -> None:
    r = _run(deadline_days=40)
    t = r.training
    assert t is not None and t.uncertainty is not None
    assert t.days * (1 + t.uncertainty.median_pct) <= 40
    assert t.meets_deadline is True and t.deadline_margin is True
    assert not [w for w in r.warnings if "little room" in w]


def test_a_pinned_count_is_not_second_guessed_with_another_count() -> None:
    free = _run(deadline_days=14)
    r = _run(deadline_days=14, gpu_count=free.gpu.count)
    assert r.training is not None and r.training.deadline_margin is False
    (note,) = [w for w in r.warnings if "little room" in w]
    assert "would take" not in note  # no other count offered: the user chose this one


def test_no_deadline_or_no_band_gives_no_margin_verdict() -> None:
    no_deadline = _run()
    assert no_deadline.training is not None and no_deadline.training.deadline_margin is None
    # No published run on an L40S to take a band from (training.uncertainty is null).
    l40s = estimate(EstimateRequest(**{**EIGHT_B, "gpu": "l40s-48gb", "deadline_days": 60}))
    assert l40s.training is not None and l40s.training.uncertainty is None
    assert l40s.training.deadline_margin is None
