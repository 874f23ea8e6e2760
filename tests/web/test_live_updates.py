"""Every page that HTMX updates in place answers its fragment request (QA: each live update
of /tco was a 500, "'kpi_total' is undefined": the block rendered alone could not see a
macro defined outside it, and the page kept showing the last figures without a word)."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.web.conftest import htmx


@pytest.mark.parametrize(
    ("path", "root", "said"),
    [
        # 4 × H100 rented by the month: seed 003 T8, NT$200,000 a month.
        ("/tco?gpu=h100-sxm-80gb&gpu_count=4&months=12&utilization=100&term_months=12",
         "#results", "NT$200,000"),
        ("/plan?preset=llama-3.1-8b&task=lora&dataset_gb=1&deadline_days=7", "#results", "GPU"),
        ("/validation?gpu=h100-sxm-80gb", "table.validation-runs", "H100"),
        ("/assess?task=lora&size=7&data=10&deadline=30", "#result", "H100"),
    ],
)  # fmt: skip
def test_a_live_update_gets_its_fragment(web: TestClient, path: str, root: str, said: str) -> None:
    r = web.get(path, headers={**htmx(), "Accept-Language": "en"})
    assert r.status_code == 200, r.text[:500]
    soup = BeautifulSoup(r.text, "html.parser")
    assert soup.select_one(root) is not None and said in soup.get_text()
    assert "<html" not in r.text.lower()  # the fragment alone
