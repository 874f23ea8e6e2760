"""Serving replicas rent as the cheapest mix of machines at any size; training keeps its fabric.

QA: Llama 3.1 70B (4-bit weights) for 1,000 users is 26 single-GPU H100 replicas. Stratagem
Taipei rents H100 as 1, 2, 4 and 8-GPU machines and a 16-GPU InfiniBand pair (seed 003 T8:
NT$50,000, 100,000, 200,000, 350,000 and 700,000 a month; 12 months −20 %). The need was
larger than the largest offer, so it was rented as 2 × 16 = 32 GPUs (NT$1,400,000) though
3 × 8 + 2 machines hold the same replicas for 3 × 350,000 + 100,000 = NT$1,150,000.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from app.catalog.shipped import shipped_price_book
from app.engine.costs.rental import select_offers
from app.engine.estimate import estimate
from app.engine.plan_costs import machines_independent
from app.engine.schemas import EstimateRequest, EstimateResponse

H100 = "h100-sxm-80gb"
TAIPEI = "Stratagem Taipei"


def _taipei(r: EstimateResponse) -> dict[str, dict[str, Any]]:
    cost = r.cost
    assert cost is not None
    return {o["kind"]: o for o in cost["options"] if o.get("provider") == TAIPEI}


def test_26_replicas_of_70b_rent_as_three_8_gpu_machines_and_a_2_gpu_one() -> None:
    r = estimate(
        EstimateRequest(model={"preset": "llama-3.1-70b"}, task="inference",
                        precision="int4", concurrency=1000),
        prices=shipped_price_book(), search_all=False,
    )  # fmt: skip
    assert r.gpu.count == 26 and r.parallelism.tp == 1
    taipei = _taipei(r)
    monthly, term = taipei["rent_monthly"], taipei["rent_term"]
    # 3 × 350,000 + 100,000 = 1,150,000 a month; × 0.8 = 920,000 on the 12-month contract.
    assert monthly["monthly_rate"] == pytest.approx(1_150_000)
    assert term["monthly_rate"] == pytest.approx(920_000)
    assert monthly["billed"]["gpus"] == 26 and monthly["billed"]["nodes"] == 4
    assert "as 3 × 8 + 2 GPUs" in monthly["label"]
    assert "Rented as 4 machines (8 + 8 + 8 + 2 GPUs)" in monthly["note"]


@pytest.mark.parametrize(
    ("gpus", "group", "split", "rent"),
    [
        # seed 003 T8: 3 × 350,000 + 100,000
        (26, 1, (8, 8, 8, 2), 1_150_000),
        # TP-2 replicas: a 2-GPU machine holds one whole group
        (26, 2, (8, 8, 8, 2), 1_150_000),
        # equal rent (2 × 350,000 = 700,000): standalone machines, not an IB cluster unused
        (16, 1, (8, 8), 700_000),
        # TP-8 replicas, 5 of them: 5 × 350,000, each an 8-GPU machine
        (40, 8, (8, 8, 8, 8, 8), 1_750_000),
        # TP-4 replicas: 350,000 + 200,000
        (12, 4, (8, 4), 550_000),
    ],
)
def test_independent_machines_take_the_cheapest_mix_at_any_size(
    gpus: int, group: int, split: tuple[int, ...], rent: float
) -> None:
    sel = select_offers(shipped_price_book(), H100, gpus, group, independent=True)
    assert sel is not None
    rented = tuple(sorted((int(o.gpu_count) for o, k in sel.parts for _ in range(k)), reverse=True))
    assert rented == split
    assert sel.monthly(lambda amount, _ccy: amount) == pytest.approx(rent)


def test_a_large_fleet_is_searched_in_a_window_and_stays_cheapest() -> None:
    # 2,050 single-GPU replicas: 256 × 350,000 + 100,000 (8-GPU machines are the cheapest per
    # GPU, 43,750, with the IB pair; 2 more GPUs on a 2-GPU machine) = 89,700,000.
    sel = select_offers(shipped_price_book(), H100, 2050, 1, independent=True)
    assert sel is not None and sel.gpus == 2050
    assert sel.monthly(lambda amount, _ccy: amount) == pytest.approx(89_700_000)
    assert not any(o.interconnect == "infiniband" for o, _ in sel.parts)


def test_the_mix_is_the_cheapest_of_every_combination() -> None:
    """Brute force over every count of each Taipei H100 offer (seed 003 T8 prices): the
    selection's rent is the least of any combination holding the need."""
    book = shipped_price_book()
    offers = [o for o in book.offers if o.provider == TAIPEI and o.gpu_id == H100]
    whole = [o for o in offers if o.gpu_count >= 1]
    combos = [
        (
            sum(k * o.gpu_count for o, k in zip(whole, ks, strict=True)),
            sum(k * o.monthly_price for o, k in zip(whole, ks, strict=True)),
        )
        for ks in itertools.product(range(6), repeat=len(whole))
    ]
    for need in range(1, 41):
        least = min(rent for held, rent in combos if held >= need)
        sel = select_offers(book, H100, need, 1, independent=True)
        assert sel is not None
        assert sel.monthly(lambda amount, _ccy: amount) == pytest.approx(least), need


def test_training_is_not_spread_over_separate_machines() -> None:
    # A 24-GPU 13B full fine-tune is timed on InfiniBand between its nodes: it keeps the
    # 16-GPU InfiniBand pair + one 8-GPU node (700,000 + 350,000), as before the serving fix.
    assert machines_independent("full_finetune") is False
    assert machines_independent("inference") is True and machines_independent("image") is True
    t = estimate(
        EstimateRequest(model={"preset": "llama-2-13b"}, task="full_finetune", tokens=2e9,
                        gpu=H100, gpu_count=24),
        prices=shipped_price_book(), search_all=False,
    )  # fmt: skip
    monthly = _taipei(t)["rent_monthly"]
    assert "as 16 + 8 GPUs" in monthly["label"]
    assert monthly["monthly_rate"] == pytest.approx(1_050_000)
    sel = select_offers(shipped_price_book(), H100, 16, 8)
    assert sel is not None and [o.interconnect for o, _ in sel.parts] == ["infiniband"]
