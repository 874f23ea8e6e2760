"""The API writes floats without binary noise (app/web/json_response.py).

QA: cost options read "monthly_rate": 69846.40000000001 and "utilization":
0.37000000000000005 for a utilisation given as 0.37. Twelve significant digits drop the
noise and keep every figure far inside the engine's own tolerances.
"""

from __future__ import annotations

import json
import re

from fastapi.testclient import TestClient

from app.web.json_response import tidy

NOISE = re.compile(r"\d\.\d*(?:0{6,}[1-9]|9{6,}\d)")  # …40000000001, …39999999998


def test_tidy_rounds_floats_to_twelve_significant_digits() -> None:
    assert tidy(0.1 * 3) == 0.3  # 0.30000000000000004
    assert tidy({"a": [69846.40000000001, 1 / 12]}) == {"a": [69846.4, 0.0833333333333]}
    assert tidy(16_384.0) == 16_384.0 and tidy(3_584_000_000.0) == 3_584_000_000.0
    assert tidy(5) == 5 and tidy("0.30000000000000004") == "0.30000000000000004"  # not floats
    assert tidy(True) is True


def test_an_estimate_and_a_cost_comparison_carry_no_float_noise(client: TestClient) -> None:
    bodies = [
        ("/api/v1/estimate", {"model": {"preset": "llama-3.1-8b"}, "task": "inference",
                              "concurrency": 8}),
        ("/api/v1/estimate", {"model": {"preset": "llama-3.1-8b"}, "task": "full_finetune",
                              "tokens": 2e9, "utilization": 0.37}),
        ("/api/v1/costs", {"gpu": "h100-sxm-80gb", "gpu_count": 3, "months": 7,
                           "utilization": 0.33}),
    ]  # fmt: skip
    for path, body in bodies:
        r = client.post(path, json=body)
        assert r.status_code == 200, r.text
        assert not NOISE.findall(r.text), NOISE.findall(r.text)[:5]
    cost = client.post("/api/v1/estimate", json=bodies[1][1]).json()["cost"]
    assert cost["utilization"] == 0.37
    assert json.loads(r.text)["options"]  # still a whole answer
