"""JSON API v1: the sizing engine (estimate, models, GPUs)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.costs.presenters import named_options
from app.deps import PriceBookDep
from app.engine.architectures import list_presets
from app.engine.estimate import gpu_pool
from app.engine.schemas import EstimateRequest, EstimateResponse
from app.planner import service as estimates

router = APIRouter(prefix="/api/v1", tags=["engine"])


@router.post("/estimate", response_model=EstimateResponse, name="estimate")
def post_estimate(req: EstimateRequest, prices: PriceBookDep) -> EstimateResponse:
    """Size a workload: memory, GPUs, parallelism, time, tier, infrastructure and costs."""
    resp = estimates.run(req, prices=prices)
    if not resp.cost:
        return resp
    return resp.model_copy(update={"cost": named_options(resp.cost, prices)})


@router.get("/models")
def get_models() -> list[dict[str, Any]]:
    """The model presets with their architecture and parameter counts."""
    return [estimates.model_summary(m) for m in list_presets()]


@router.get("/gpus")
def get_gpus(prices: PriceBookDep) -> list[dict[str, Any]]:
    """The GPUs the planner searches, with dense throughput (never sparsity figures)."""
    return [estimates.gpu_summary(g) for g in gpu_pool(None, prices)]
