"""Estimate service: the routes' one door into the engine, and the summaries of what it knows."""

from __future__ import annotations

import dataclasses
from typing import Any

from app.engine.architectures import ModelSpec
from app.engine.estimate import estimate
from app.engine.hardware import GpuSpec
from app.engine.price_book import PriceBook
from app.engine.schemas import EstimateRequest, EstimateResponse


def run(req: EstimateRequest, *, prices: PriceBook | None) -> EstimateResponse:
    return estimate(req, prices=prices)


def model_summary(m: ModelSpec) -> dict[str, Any]:
    return {
        "id": m.id,
        "name": m.name,
        "family": m.family,
        "kind": m.kind,
        "params_b": round(m.params / 1e9, 3),
        "active_params_b": round(m.active_params / 1e9, 3),
        "published_params_b": m.published_params_b,
        "layers": m.layers,
        "hidden": m.hidden,
        "heads": m.heads,
        "kv_heads": m.kv_heads,
        "head_dim": m.head_dim,
        "ffn_hidden": m.ffn_hidden,
        "ffn_type": m.ffn_type,
        "vocab": m.vocab,
        "tied_embeddings": m.tied_embeddings,
        "experts": m.experts,
        "experts_per_token": m.experts_per_token,
        "max_context": m.max_context,
        "attention": m.attention,
        "source": m.source,
    }


def gpu_summary(g: GpuSpec) -> dict[str, Any]:
    return dataclasses.asdict(g)
