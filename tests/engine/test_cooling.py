"""The cooling figure: the API's `cooling_btu_h` and the cooling sentence say the same heat.

1 kW = 3,412.14 BTU/h (1 W = 3.41214 BTU/h). The sentence had used 3,412 and the figure
3,412.14, so a page showed 88,712 BTU/h beside an API's 88,716 for the same servers.
"""

from __future__ import annotations

import re

import pytest

from app.engine.estimate import estimate
from app.engine.schemas import EstimateRequest


def test_air_cooled_sentence_and_figure_agree() -> None:
    # 32 × L40S, 4 nodes of 8: (8 × 350 W + 2 × 0.35 kW CPU + 8 × 0.15 kW + 0.3 kW board)
    # × 1.3 = 5.0 × 1.3 = 6.5 kW a node (air-cooled: ≤ 10 kW) × 4 = 26 kW
    # -> 26 × 3,412.14 = 88,715.64 BTU/h (3,412 would give 88,712).
    r = estimate(
        EstimateRequest(
            model={"preset": "llama-3.1-8b"}, task="lora", tokens=1e8,
            gpu="l40s-48gb", gpu_count=32,
        ),
        search_all=False,
    )  # fmt: skip
    assert r.infra.power_kw == pytest.approx(26.0)
    assert r.infra.cooling_btu_h == pytest.approx(88_715.64, abs=0.01)
    said = re.search(r"\(([\d,]+) BTU/h\)", r.infra.cooling)
    assert said is not None, r.infra.cooling
    assert said.group(1) == f"{r.infra.cooling_btu_h:,.0f}" == "88,716"
