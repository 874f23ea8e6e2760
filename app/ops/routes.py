"""/healthz, /readyz and /metrics: for the load balancer and Prometheus, not for people.

/readyz is anonymous, so its public answer says only whether the process is ready and which
checks fail, by name. Why a check fails (a database's host and port, a driver's message, a
path on the machine) is logged when it changes (logger `stratagem.readiness`), and shown in
the answer only to those who may read /metrics (`metrics.may_read`: an allowed address or the
metrics token), the operators who would otherwise go and read that log.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from app.ops import health, metrics

router = APIRouter(tags=["operations"])

#: A check that has not answered by then counts as failed (an unreachable database server
#: can hold a TCP connect for a minute; the load balancer asks again soon anyway).
CHECK_TIMEOUT_S: Final = 5.0

log = logging.getLogger("stratagem.readiness")


@router.get("/healthz")
async def healthz() -> dict[str, Any]:
    """Liveness: 200 while the process serves requests (no dependency is checked)."""
    return {"status": "ok"}


@dataclass(frozen=True)
class Outcome:
    name: str
    problem: str | None
    ms: float

    def public(self, *, detailed: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.problem is None, "ms": self.ms}
        if detailed and self.problem is not None:
            out["error"] = self.problem
        return out


async def _run(name: str, check: health.Check) -> Outcome:
    start = time.perf_counter()
    problem: str | None
    try:
        problem = await asyncio.wait_for(asyncio.to_thread(check), CHECK_TIMEOUT_S)
    except TimeoutError:
        problem = f"no answer within {CHECK_TIMEOUT_S:g} s"
    except Exception as e:
        problem = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}".strip()
    return Outcome(name, problem, round((time.perf_counter() - start) * 1e3, 1))


def _log_changes(request: Request, outcomes: list[Outcome]) -> None:
    """Log a check's problem when it appears or changes and when it clears: the probe asks
    every few seconds, and the same reason each time would bury the log."""
    state = request.app.state
    last: dict[str, str | None] = getattr(state, "readiness_problems", None) or {}
    for o in outcomes:
        before = last.get(o.name)
        if o.problem is not None and o.problem != before:
            extra = {"check": o.name, "problem": o.problem}
            log.warning("readiness check %s fails: %s", o.name, o.problem, extra=extra)
        elif o.problem is None and before is not None:
            log.info("readiness check %s passes again", o.name, extra={"check": o.name})
        last[o.name] = o.problem
    state.readiness_problems = last


@router.get(
    "/readyz",
    responses={503: {"description": "A check failed; `failing` names it (the log says why)"}},
)
async def readyz(request: Request) -> JSONResponse:
    """Readiness: database reachable (SQLite: writable), migrations at head, fonts, Chromium."""
    engine = request.app.state.engine
    outcomes = list(await asyncio.gather(*(_run(n, c) for n, c in health.checks(engine).items())))
    store = request.app.state.rate_limits
    # Optional: without Redis the rate limits count in the database, so a Redis that does
    # not answer is reported here but never makes the process unready.
    optional = [await _run("redis", store.problem)] if store is not None else []
    _log_changes(request, outcomes + optional)
    detailed = _operator(request)
    failing = sorted(o.name for o in outcomes if o.problem is not None)
    body: dict[str, Any] = {
        "status": "ready" if not failing else "not ready",
        "failing": failing,
        "checks": {o.name: o.public(detailed=detailed) for o in outcomes},
    }
    if optional:
        body["optional"] = {o.name: o.public(detailed=detailed) for o in optional}
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
    if not _operator(request):
        return JSONResponse({"detail": "Forbidden"}, status_code=403)
    return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE)


def _operator(request: Request) -> bool:
    """From a STRATAGEM_METRICS_ALLOW address, or with the metrics token."""
    return metrics.may_read(
        host=request.client.host if request.client else None,
        authorization=request.headers.get("authorization"),
        settings=request.app.state.settings,
    )
