"""/healthz, /readyz and /metrics: for the load balancer and Prometheus, not for people."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from app.ops import health, metrics

router = APIRouter(tags=["operations"])

#: A check that has not answered by then counts as failed (an unreachable database server
#: can hold a TCP connect for a minute; the load balancer asks again soon anyway).
CHECK_TIMEOUT_S: Final = 5.0


@router.get("/healthz")
async def healthz() -> dict[str, Any]:
    """Liveness: 200 while the process serves requests (no dependency is checked)."""
    return {"status": "ok"}


async def _run(name: str, check: health.Check) -> tuple[str, dict[str, Any]]:
    start = time.perf_counter()
    try:
        problem = await asyncio.wait_for(asyncio.to_thread(check), CHECK_TIMEOUT_S)
    except TimeoutError:
        problem = f"no answer within {CHECK_TIMEOUT_S:g} s"
    except Exception as e:
        problem = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}".strip()
    out: dict[str, Any] = {
        "ok": problem is None,
        "ms": round((time.perf_counter() - start) * 1e3, 1),
    }
    if problem is not None:
        out["error"] = problem
    return name, out


@router.get("/readyz", responses={503: {"description": "A check failed; see `checks`"}})
async def readyz(request: Request) -> JSONResponse:
    """Readiness: database reachable, migrations at head, CJK fonts and Chromium present."""
    results = dict(
        await asyncio.gather(
            *(_run(n, c) for n, c in health.checks(request.app.state.engine).items())
        )
    )
    failing = sorted(n for n, r in results.items() if not r["ok"])
    body: dict[str, Any] = {
        "status": "ready" if not failing else "not ready",
        "failing": failing,
        "checks": results,
    }
    store = request.app.state.rate_limits
    if store is not None:
        # Optional: without Redis the rate limits count in the database, so a Redis that
        # does not answer is reported here but never makes the process unready.
        body["optional"] = dict([await _run("redis", store.problem)])
    return JSONResponse(body, status_code=503 if failing else 200)


@router.get(
    "/metrics",
    response_class=Response,
    responses={
        200: {"description": "Prometheus text format", "content": {"text/plain": {}}},
        403: {"description": "Not from STRATAGEM_METRICS_ALLOW and no metrics token"},
    },
)
def metrics_endpoint(request: Request) -> Response:
    """Prometheus metrics: from STRATAGEM_METRICS_ALLOW addresses or with the metrics token."""
    allowed = metrics.may_read(
        host=request.client.host if request.client else None,
        authorization=request.headers.get("authorization"),
        settings=request.app.state.settings,
    )
    if not allowed:
        return JSONResponse({"detail": "Forbidden"}, status_code=403)
    return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE)
