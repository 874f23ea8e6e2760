"""A quote that buys a server smaller than the plan's own infrastructure says so to the sales
engineer (QA: the PDF's infrastructure table read RAM 768 GB beside a purchase of the
catalog's 4-GPU server, 512 GB: procurement asks which they get)."""

from __future__ import annotations

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in

# 4 × H100 80 GB: seed 003 T6/U5's RAM ≥ 2 × VRAM = 2 × 320 GB = 640 GB, built as 768 GB of
# DIMMs (app.engine.infra.DIMM_CONFIGS); the catalog's 4-GPU server (seed 003 T6's growth
# template) has 512 GB, 48 cores and 8 TB NVMe (app/data/catalog.yaml).
WORKLOAD = {"model": {"preset": "llama-3.1-70b"}, "task": "qlora", "gpu": "h100-sxm-80gb",
            "gpu_count": 4, "utilization": 0.6, "term_months": 36, "pricing_mode": "capacity"}  # fmt: skip


def _builder_notes(client: TestClient, lines: list[dict], lang: str) -> list[str]:
    a = make_account(client, "sales")
    r = client.post("/api/v1/plans", json={"name": "buy", "workload": WORKLOAD}, headers=a.headers)
    assert r.status_code == 201, r.text
    p = r.json()
    assert p["result"]["infra"]["ram_gb"] == 768
    buy = next(o["key"] for o in p["result"]["cost"]["options"] if o["kind"] == "buy")
    quoted = [{"option_key": buy} if ln == "buy" else ln for ln in lines]
    r = client.put(f"/api/v1/plans/{p['id']}", headers=a.headers,
                   json={"version": p["version"], "quote": {"lines": quoted}})  # fmt: skip
    assert r.status_code == 200, r.text
    pages = TestClient(client.app)
    sign_in(pages, a.user)
    page = BeautifulSoup(pages.get(f"/plans/{p['id']}", params={"lang": lang}).text, "html.parser")
    return [" ".join(n.get_text().split()) for n in page.select(".server-short")]


def test_a_purchase_of_a_smaller_server_is_named_with_what_the_plan_needs(
    client: TestClient,
) -> None:
    (note,) = _builder_notes(client, ["buy"], "en")
    assert note == (
        "1 × 4-GPU H100 NVLink server has 512 GB of RAM; this plan is sized for 768 GB. "
        "Quote the upgrade as a line of its own, or tell the customer why less will do."
    )
    (zh,) = _builder_notes(client, ["buy"], "zh-TW")
    assert "4 卡 H100 NVLink 伺服器" in zh and "512 GB" in zh and "768 GB" in zh


def test_a_quote_that_rents_says_nothing_of_servers(client: TestClient) -> None:
    own = {"description": "導入服務", "unit_price": "30000"}
    assert _builder_notes(client, [own], "en") == []
