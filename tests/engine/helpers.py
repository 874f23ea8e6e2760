"""Small helpers shared by the engine tests."""

from __future__ import annotations

from typing import Any

from app.engine.estimate import estimate
from app.engine.schemas import EstimateRequest, EstimateResponse


def est(preset: str | None = None, *, search_all: bool = False, **body: Any) -> EstimateResponse:
    """Run the engine on a request written as keyword arguments (model by preset id)."""
    if preset is not None:
        body["model"] = {"preset": preset}
    return estimate(EstimateRequest(**body), search_all=search_all)


def rel(actual: float, expected: float) -> float:
    """Relative error of `actual` against `expected`."""
    return abs(actual - expected) / expected
