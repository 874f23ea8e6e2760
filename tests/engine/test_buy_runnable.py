"""Buying servers that hold the plan's machine group (review: the buy option ignored it).

A plan keeps `Usage.gpus_per_machine_min` GPUs on NVLink inside one machine
(`plan_costs.machine_group`: a training job's node, a service's tensor-parallel group).
Rental machines and cloud instances smaller than that are listed but not runnable
(tests/engine/test_costs_runnable.py); a purchase must follow the same rule: only server
SKUs with at least that many GPUs per server are bought, and where the list has none, the
purchase is priced as before but is not runnable and never the cheapest.

Shipped H100 servers (app/data/catalog.yaml, `servers`; 32 TWD/USD): three 8-GPU SKUs —
hgx-h100-8gpu-tw-t9 NT$12,000,000 (seed 003 T9), hgx-h100-8gpu-oem US$282,624 (Epoch-derived),
dgx-h100 US$375,000 — and h100-4gpu-nvlink-server, 4 GPUs at US$141,312. H100 PCIe has only
h100-pcie-1gpu-server, 1 GPU at US$35,328.
"""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import date
from typing import Any

import pytest

from app.catalog.shipped import shipped_price_book
from app.engine.costs import Usage, compare_costs
from app.engine.costs.ownership import servers_needed
from app.engine.estimate import estimate
from app.engine.expression import evaluate
from app.engine.plan_costs import latest_cloud_prices
from app.engine.price_book import EnergyPrice, PriceBook, ServerSku
from app.engine.schemas import EstimateRequest
from tests.engine.test_explanations_reproduce import _check, explanations

H100 = "h100-sxm-80gb"
H100_PCIE = "h100-pcie-80gb"
FX = 32.0  # TWD per USD in the shipped list
X16 = "stratagem-tpe-h100-x16-ib"

#: 13B fully fine-tuned on 12 H100 over ≈167 days (5.49 months, the planner's own time for
#: 6.5e11 tokens): a training job's machine group is a whole node, min(12, 8) = 8 GPUs.
FINETUNE_12 = {
    "model": {"preset": "llama-2-13b"},
    "task": "full_finetune",
    "gpu": H100,
    "gpu_count": 12,
    "tokens": 6.5e11,
}
#: 13B fully fine-tuned on 4 H100 PCIe (TP 2 × PP 2): a 4-GPU node no listed server holds.
FINETUNE_PCIE_4 = {
    "model": {"preset": "llama-2-13b"},
    "task": "full_finetune",
    "gpu": H100_PCIE,
    "gpu_count": 4,
    "tokens": 2e9,
}


@pytest.fixture(scope="module")
def book() -> PriceBook:
    return shipped_price_book()


def _options(cost: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {o["key"]: o for o in cost["options"]}


def _reproduce(resp: Any, body: dict[str, Any]) -> None:
    for e in explanations(resp):
        _check(e, body)


def _figure(explain: list[dict[str, Any]], figure: str) -> float:
    return float(next(e["value"] for e in explain if e["figure"] == figure))


def test_a_12_gpu_finetune_buys_8_gpu_servers_and_rents_as_the_cheapest(book: PriceBook) -> None:
    resp = estimate(EstimateRequest(**FINETUNE_12), prices=book)
    assert resp.cost is not None and resp.gpu.count == 12
    opts = _options(resp.cost)
    buy = next(o for o in resp.cost["options"] if o["kind"] == "buy")

    # Servers for 12 GPUs: 4-GPU 3 × US$141,312 × 32 = NT$13,565,952 (cheapest, but it holds
    # 4 < 8 GPUs on NVLink); 8-GPU OEM 2 × 282,624 × 32 = NT$18,087,936; T9 2 × 12,000,000
    # and DGX 2 × 375,000 × 32 = NT$24,000,000 each. The cheapest that holds 8: the OEM.
    # Before the fix: buy:h100-4gpu-nvlink-server, 3 servers, feasible.
    assert buy["key"] == "buy:hgx-h100-8gpu-oem"
    assert buy["feasible"] is True
    assert buy["billed"]["nodes"] == 2 and buy["billed"]["gpus"] == 16
    assert _figure(buy["explain"], "Servers") == pytest.approx(2 * 282_624 * FX)
    assert "Buys 16 GPUs to cover 12." in buy["note"]
    assert "Not runnable" not in buy["note"]
    for o in resp.cost["options"]:
        if o["feasible"]:
            assert o["billed"]["gpus"] / o["billed"]["nodes"] >= 8, o["key"]

    # Cheapest: before, the 3 × 4-GPU purchase (NT$4,081,041 < NT$4,200,000 rent) won. Now
    # 2 × 8-GPU servers cost more than Stratagem's 16-GPU InfiniBand offer (2 nodes of 8) at
    # NT$700,000 a month, billed by whole months: ceil(5.49) = 6 → NT$4,200,000.
    rent = opts[f"rent_monthly:{X16}"]
    assert resp.cost["cheapest"] == f"rent_monthly:{X16}"
    assert rent["billed"]["quantity"] == math.ceil(resp.cost["rent_months"])
    assert rent["total"] == pytest.approx(700_000 * rent["billed"]["quantity"])
    assert buy["total"] > rent["total"]
    _reproduce(resp, FINETUNE_12)


def test_no_server_holds_the_group_so_buying_is_shown_but_not_runnable(book: PriceBook) -> None:
    resp = estimate(EstimateRequest(**FINETUNE_PCIE_4), prices=book)
    assert resp.cost is not None and resp.gpu.count == 4
    buy = next(o for o in resp.cost["options"] if o["kind"] == "buy")

    # Priced as before, on the only H100 PCIe server: ceil(4 / 1) = 4 × US$35,328 × 32 =
    # NT$4,521,984 — but a 4-GPU training node cannot be four 1-GPU boxes.
    assert buy["key"] == "buy:h100-pcie-1gpu-server"
    assert _figure(buy["explain"], "Servers") == pytest.approx(4 * 35_328 * FX)
    assert buy["feasible"] is False
    # An H100 PCIe has no NVLink: the group must share one machine (its PCIe), no more.
    assert buy["note"].startswith(
        "Not runnable: this plan needs 4 GPUs in one machine; the largest server "
        "listed, 1-GPU H100 PCIe server (seed 003 entry template), has 1."
    )
    notice = buy["note_notices"][0]
    assert notice["params"] == {
        "need": "4",
        "name": "1-GPU H100 PCIe server (seed 003 entry template)",
        "have": "1",
    }

    # Nothing listed can run it (RunPod's PCIe pods hold 1 GPU each): before the fix the
    # purchase was the only runnable option, so it was "cheapest" with no warning.
    assert not any(o["feasible"] for o in resp.cost["options"])
    assert resp.cost["cheapest"] != buy["key"]
    assert any(w.startswith("No priced option can run this plan") for w in resp.warnings)
    for pair in resp.cost["break_even"]:
        assert buy["key"] not in (pair["a"], pair["b"])
    _reproduce(resp, FINETUNE_PCIE_4)


def test_only_a_group_the_4_gpu_server_cannot_hold_moves_the_purchase(book: PriceBook) -> None:
    # 12 H100: 3 × US$141,312 = 423,936 < 2 × 282,624 = 565,248, so groups of 1 and 4 buy the
    # 4-GPU server; a group of 8 only fits the 8-GPU SKUs, the OEM the cheapest of them.
    expected = {
        1: ("buy:h100-4gpu-nvlink-server", 3),
        4: ("buy:h100-4gpu-nvlink-server", 3),
        8: ("buy:hgx-h100-8gpu-oem", 2),
    }
    got = {}
    for group in expected:
        usage = Usage(H100, 12, 730.0, 36, power_kw=10.0, gpus_per_machine_min=group)
        buy = compare_costs(usage, latest_cloud_prices(book), horizon_months=36).option("buy")
        assert buy.feasible and buy.billed is not None, group
        got[group] = (buy.key, buy.billed.nodes)
    assert got == expected


def test_a_tp2_service_on_h100_pcie_cannot_run_on_the_1_gpu_server(book: PriceBook) -> None:
    # TP 2 on H100 PCIe: the only server holds 1 GPU → priced as ceil(2 / 1) = 2 servers,
    # not runnable, neither the cheapest nor in a break-even pair (RunPod's PCIe pods hold 1
    # GPU each and no cloud lists this GPU: nothing runs it, and before the fix the purchase
    # was the cheapest).
    usage = Usage(H100_PCIE, 2, 730.0, 36, power_kw=1.3, gpus_per_machine_min=2)
    cmp = compare_costs(usage, latest_cloud_prices(book), horizon_months=36)
    buy = cmp.option("buy")
    assert buy.key == "buy:h100-pcie-1gpu-server"
    assert buy.billed is not None and buy.billed.nodes == 2
    assert buy.feasible is False
    assert "this plan needs 2 GPUs on NVLink in one machine" in buy.note
    assert cmp.cheapest != buy.key
    assert all(buy.key not in (p.a, p.b) for p in cmp.break_even)


def test_a_group_that_does_not_divide_the_server_is_counted_in_whole_groups() -> None:
    # A 10-GPU server holds two TP-4 groups (2 GPUs idle). 40 GPUs are 10 groups → 5 servers,
    # not ceil(40 / 10) = 4 (which would split two groups over machines), as
    # `cloud.instances_needed` counts instances. TP 2 divides 10: ceil(40 / 10) = 4.
    ten = ServerSku("ten", "10-GPU box", H100, 10, 64, 512, 4.0, "", 12.0, 3_000_000.0, "TWD")
    assert servers_needed(40, ten, 4) == 5
    assert servers_needed(40, ten, 2) == 4
    assert servers_needed(40, ten, 1) == 4
    # An 8-GPU server and TP 4 or 8: ceil(ceil(12 / g) / (8 / g)) = ceil(12 / 8) = 2.
    eight = replace(ten, id="eight", gpu_count=8)
    assert servers_needed(12, eight, 4) == servers_needed(12, eight, 8) == 2

    site = EnergyPrice("site", "TW", 4.0, 1.3, 3_000.0, "TWD")
    only = PriceBook("t", date(2026, 1, 1), "TWD", servers=(ten,), energy=(site,))
    usage = Usage(H100, 40, 730.0, 36, power_kw=60.0, gpus_per_machine_min=4)
    cmp = compare_costs(usage, only, horizon_months=36)
    buy = cmp.option("buy")
    assert buy.feasible and buy.billed is not None and buy.billed.nodes == 5
    x = next(e for e in buy.explain if e.figure == "Servers")
    # 5 × NT$3,000,000, reproduced from the explanation's own expression and operands.
    assert x.value == pytest.approx(15_000_000)
    got = evaluate(x.expression, {o.name: o.value for o in x.operands})
    assert got == pytest.approx(15_000_000)
