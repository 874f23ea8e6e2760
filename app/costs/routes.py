"""JSON API v1: cost comparison for a configuration."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException

from app.costs import service as costs
from app.costs.presenters import named_options
from app.deps import PriceBookDep
from app.engine.cost_schema import CostsAnswerDoc, inline_schema

router = APIRouter(prefix="/api/v1", tags=["costs"])


@router.post(
    "/costs",
    name="compare_costs",
    # A dict to the code; its shape, with units, published for integrators.
    response_model=None,
    responses={
        200: {
            "description": "Every option for the configuration, the cheapest named.",
            "content": {"application/json": {"schema": inline_schema(CostsAnswerDoc)}},
        }
    },
)
def post_costs(req: costs.CostRequest, prices: PriceBookDep) -> dict[str, Any]:
    """Compare renting (hourly, monthly, term), buying and public cloud for a configuration."""
    if prices is None:
        raise HTTPException(503, "No price list is loaded; run `stratagem catalog load`.")
    return named_options(costs.compare(req, prices=prices), prices)
