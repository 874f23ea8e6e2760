"""Charts for the pages: calls app.charts (the one chart module) in the request's language.

Each function returns the figure's JSON for a data island, or None when there is nothing to
draw or the chart module could not draw it (the page then shows the figures as a table).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from app.engine.schemas import EstimateRequest, EstimateResponse
from app.engine.serving import targets_for
from app.i18n import current_language, gettext

log = logging.getLogger("stratagem.web")


_CACHE: OrderedDict[str, str | None] = OrderedDict()
_CACHE_SIZE = 512
_LOCK = threading.Lock()


def _draw(name: str, *args: Any, **kwargs: Any) -> str | None:
    """`app.charts.<name>(*args, t=gettext, **kwargs)` as JSON, memoised on its inputs.

    Building a Plotly figure costs milliseconds; while a user edits the planner most edits
    leave a chart's inputs unchanged, so the same JSON is served again.
    """
    try:
        key_src = json.dumps([name, current_language(), args, kwargs], default=str, sort_keys=True)
    except (TypeError, ValueError):
        key_src = ""
    key = hashlib.blake2b(key_src.encode(), digest_size=16).hexdigest() if key_src else ""
    if key:
        with _LOCK:
            if key in _CACHE:
                _CACHE.move_to_end(key)
                return _CACHE[key]
    try:
        from app import charts

        fn: Callable[..., Any] = getattr(charts, name)
        fig = fn(*args, t=gettext, **kwargs)
        out: str | None = str(charts.to_json(fig))
    except Exception:
        log.exception("chart %s could not be drawn", name)
        out = None
    if key:
        with _LOCK:
            _CACHE[key] = out
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    return out


def memory(resp: EstimateResponse) -> str | None:
    """Memory of the most-loaded GPU by part, against the GPU's capacity."""
    capacity = resp.gpu.memory_gb * (resp.gpu.fraction or 1.0)
    return _draw("memory_bar", asdict(resp.memory_per_gpu_gb), capacity)


def scaling(
    points: Sequence[tuple[int, float]], deadline_days: float | None, chosen: int
) -> str | None:
    """Days to finish against GPU count, the deadline marked."""
    if not points:
        return None
    return _draw("gpus_vs_days", list(points), deadline_days=deadline_days, chosen=chosen)


def serving(resp: EstimateResponse, req: EstimateRequest) -> str | None:
    """Tokens/s per user against users per replica, with the request's targets drawn."""
    inf = resp.inference
    if inf is None or not inf.curve:
        return None
    targets = targets_for(req)
    return _draw(
        "serving_curve",
        [asdict(p) for p in inf.curve],
        tokens_per_s_target=targets.tokens_per_s_per_user,
        ttft_target_s=targets.ttft_s,
        chosen=inf.concurrency_per_replica or None,
    )


def cumulative(
    options: Sequence[Mapping[str, Any]],
    break_even: Sequence[Mapping[str, Any]],
    currency: str,
    months: int | None = None,
) -> str | None:
    if not options:
        return None
    return _draw("cumulative_costs", options, break_even, currency=currency, months=months)


def tco(curves: Sequence[Mapping[str, Any]], currency: str) -> str | None:
    if not curves:
        return None
    return _draw("tco_bars", curves, currency=currency)


def utilization(
    options: Sequence[Mapping[str, Any]],
    currency: str,
    value: float | None,
    break_even: Sequence[Mapping[str, Any]] = (),
) -> str | None:
    usable = [
        o
        for o in options
        if o.get("fixed_monthly") is not None and o.get("metered_monthly_full") is not None
    ]
    if not usable:
        return None
    return _draw(
        "utilization_sensitivity",
        usable,
        currency=currency,
        utilization=value,
        break_even=list(break_even),
    )


def architectures(templates: Sequence[Mapping[str, Any]], currency: str) -> str | None:
    if not templates:
        return None
    return _draw("architectures_compare", templates, currency=currency)


def timeline(rows: Sequence[tuple[str, Sequence[Mapping[str, Any]]]]) -> str | None:
    """A phased plan (or several, one row each) as a timeline of its phases."""
    return _draw("plan_timeline", [(name, list(phases)) for name, phases in rows])


def validation(points: Sequence[Mapping[str, Any]]) -> str | None:
    """Predicted against reported for published runs (log-log, y = x drawn)."""
    if not points:
        return None
    return _draw("predicted_vs_reported", list(points))
