"""Every chart of Stratagem, built in Python as Plotly figures (STYLE.md: the browser only draws).

Pages embed `to_json(fig)` in a data island and draw it with the vendored plotly.js basic
bundle (bar and scatter traces only — nothing here needs more); the PDF embeds
`to_svg(fig, width, height)`, rendered by kaleido ≥ 1 through Chromium.

Inputs are plain dicts and lists (the JSON of `EstimateResponse`, PRODUCT.md §5), so the web
layer and the PDF call the same functions with the same data:

- memory: `EstimateResponse.memory_per_gpu_gb` → {"weights", "gradients", "optimizer",
  "activations", "kv_cache", "overhead": GB, optional "total"}.
- cost options: `cost["options"]` → [{"key", "kind", "label", "monthly_rate", "total", "upfront",
  "currency", "breakdown": {part: money}, "cumulative": [money at the end of month 0..H],
  "fixed_monthly", "metered_monthly_full", optional "feasible"}]; money in the currency
  passed as `currency`.
- utilisation break-evens: `cost["break_even_utilization"]` → [{"a": key, "b": key,
  "utilization": 0–1}] (the engine's `utilization_break_evens`).
- break-evens: `cost["break_even"]` → [{"a": key, "b": key, "month": float | None}]; `a` is
  cheaper first and stops being cheaper at `month`.
- TCO: `cost["tco"]` → [{"label", optional "key"/"kind", "years": [{"year": 1, "capex",
  "storage_network", "power", "facility", "operations", "rent", "cloud", "residual", ...}]}]:
  cumulative money at the end of each year, split into stacked parts (any numeric key other
  than "year" and "total" is a part).
- serving: `EstimateResponse.inference.curve` → [{"concurrency", "tokens_per_s_per_user",
  "ttft_s"}] with the request's `slo` targets.
- reference architectures: [{"label", "monthly", "gpu_memory_gb", "power_kw", optional
  "monthly_min" and "monthly_max" for a price range}].

Text: every label goes through `t`, a gettext-style callable (English msgid in, translated
text out; identity by default). The web layer passes its `Translations.gettext` so the zh-TW
text lives in the gettext catalog; `MSGIDS` lists every msgid used here. Placeholders are
%-style named fields (`"Month %(month)s"`), filled after translation.
"""

from __future__ import annotations

from app.charts.architectures import architectures_compare
from app.charts.costs import MAX_CALLOUTS, cumulative_costs, tco_bars, utilization_sensitivity
from app.charts.memory import memory_bar
from app.charts.messages import MSGIDS
from app.charts.render import ChartRenderError, to_json, to_png, to_svg, to_svgs, warm
from app.charts.scaling import gpus_vs_days
from app.charts.serving import serving_curve
from app.charts.theme import (
    ALERT,
    CONFIG,
    FONT_FAMILY,
    KIND_COLOURS,
    MEMORY_PARTS,
    PALETTE,
    TCO_PARTS,
    currency_prefix,
)
from app.charts.timeline import plan_timeline
from app.charts.validation import predicted_vs_reported

__all__ = [
    "ALERT",
    "CONFIG",
    "FONT_FAMILY",
    "KIND_COLOURS",
    "MAX_CALLOUTS",
    "MEMORY_PARTS",
    "MSGIDS",
    "PALETTE",
    "TCO_PARTS",
    "ChartRenderError",
    "architectures_compare",
    "cumulative_costs",
    "currency_prefix",
    "gpus_vs_days",
    "memory_bar",
    "plan_timeline",
    "predicted_vs_reported",
    "serving_curve",
    "tco_bars",
    "to_json",
    "to_png",
    "to_svg",
    "to_svgs",
    "utilization_sensitivity",
    "warm",
]
