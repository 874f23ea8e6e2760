"""Cost options the plan can actually run on, and none that are cheaper but hidden (QA H1, M5).

H1: every provider whose offers can run the need gets its own rental options. The shipped
list rents H100 from Stratagem Taipei (1/2/4/8 GPUs, and 16 GPUs as two InfiniBand-linked
8-GPU nodes at NT$700,000/month; 12-month contracts −20 %, seed 003 T8) and from RunPod
(single-GPU pods, US$2.99/h, US$2,182.70/month = 2.99 × 730, no contract; 32 TWD/USD).

M5: a rental machine or cloud instance must hold the GPUs the plan keeps on NVLink in one
machine (`Usage.gpus_per_machine_min`, `plan_costs.machine_group`): a service's
tensor-parallel group (Narayanan et al. 2021 §3), a training job's node (the planner times
each node's GPUs on NVLink, `compute.layout_factors`). Options that cannot are listed with
`feasible` False and a note that names the machine and the group, and never become
"cheapest".
"""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import date
from typing import Any

import pytest

from app.catalog.shipped import shipped_price_book
from app.engine.costs import CostInputError, Phase, Usage, compare_costs, schedule_cost
from app.engine.costs.cloud import instances_needed
from app.engine.costs.rental import group_capacity, offer_selections, select_offers
from app.engine.estimate import estimate
from app.engine.plan_costs import latest_cloud_prices
from app.engine.price_book import CloudInstance, PriceBook, RentalOffer
from app.engine.schemas import EstimateRequest
from tests.engine.test_explanations_reproduce import _check, explanations

H100 = "h100-sxm-80gb"
H200 = "h200-sxm-141gb"
FX = 32.0  # TWD per USD in the shipped list
RUNPOD_H100_MONTH = 2_182.7 * FX  # NT$69,846.40 per pod-month
X16 = "stratagem-tpe-h100-x16-ib"
X8 = "stratagem-tpe-h100-x8"
RUNPOD_H100 = "runpod-secure-h100-sxm-x1"
P5_1GPU = "aws-p5-4xlarge-use1"
P5_8GPU = "aws-p5-48xlarge-use1"

#: QA H1: a 70B int4 service for 1,000 users pinned to 26 single-GPU replicas.
SERVICE_26 = {
    "model": {"preset": "llama-3.1-70b"},
    "task": "inference",
    "concurrency": 1000,
    "precision": "int4",
    "tp": 1,
    "gpu_count": 26,
}
#: QA M5: a 70B pre-train on 48 H100 laid out TP 4 × PP 2 (× DP 6).
PRETRAIN_48 = {
    "model": {"preset": "llama-3.1-70b"},
    "task": "pretrain",
    "gpu": H100,
    "gpu_count": 48,
    "tp": 4,
    "pp": 2,
    "tokens": 1e11,
}


@pytest.fixture(scope="module")
def book() -> PriceBook:
    return shipped_price_book()


def _options(cost: dict[str, Any]) -> dict[str, dict[str, Any]]:
    keys = [o["key"] for o in cost["options"]]
    assert len(keys) == len(set(keys)), keys  # every option keeps a key of its own
    return {o["key"]: o for o in cost["options"]}


def _reproduce(resp: Any, body: dict[str, Any]) -> None:
    for e in explanations(resp):
        _check(e, body)


# ------------------------------------------------------------- H1: every provider rents


def test_26_gpu_int4_service_is_cheapest_on_3_x_8_plus_2_machines_on_a_12_month_term(
    book: PriceBook,
) -> None:
    resp = estimate(EstimateRequest(**SERVICE_26), prices=book)
    assert resp.cost is not None and resp.inference is not None
    opts = _options(resp.cost)

    # Stratagem: the replicas are independent copies (`Usage.independent_machines`), so the
    # cheapest mix of machines holds them at any size: 3 × 8 + 2 = 26 GPUs in 4 machines.
    # (It was 2 × 16-GPU InfiniBand offers = 32 GPUs, NT$1,400,000: QA.)
    # Monthly: 3 × 350,000 + 100,000 = NT$1,150,000. 12-month term: × (1 − 0.2) = 920,000.
    monthly, term = opts[f"rent_monthly:{X8}"], opts[f"rent_term:{X8}"]
    assert monthly["monthly_rate"] == pytest.approx(1_150_000)
    assert term["monthly_rate"] == pytest.approx(920_000)
    assert term["billed"] == {"unit": "month", "quantity": 12.0, "gpus": 26, "nodes": 4}
    assert "Rents" not in term["note"]
    assert term["feasible"] and monthly["feasible"]

    # RunPod keeps its own options: 26 pods × US$2,182.70 × 32 = NT$1,816,006.40 a month.
    assert opts[f"rent_monthly:{RUNPOD_H100}"]["monthly_rate"] == pytest.approx(
        26 * RUNPOD_H100_MONTH
    )
    assert opts[f"rent_hourly:{RUNPOD_H100}"]["feasible"]

    # The cheapest is the contract: 12 × 920,000 = NT$11,040,000 for the year, below
    # buying (7 × 4-GPU servers, ≈NT$1.48M/month amortised, NT$18.8M for the year).
    assert resp.cost["cheapest"] == f"rent_term:{X8}"
    assert term["total"] == pytest.approx(12 * 920_000)
    buy = next(o for o in resp.cost["options"] if o["kind"] == "buy")
    assert buy["total"] > term["total"] and buy["monthly_rate"] > 920_000

    # Cost per 1M output tokens at the cheapest option: 920,000 / (tokens/s × 3,600 s ×
    # 730 h / 10^6) — ≈NT$33.9 (41.26 × 920,000 / 1,120,000 at the former 32 GPUs).
    tps = resp.inference.tokens_per_s
    million_tokens = tps * 3600 * 730 / 1e6
    assert resp.cost["cost_per_million_tokens"] == pytest.approx(920_000 / million_tokens)
    assert resp.inference.cost_per_million_tokens == pytest.approx(33.89, abs=0.01)
    _reproduce(resp, SERVICE_26)


@pytest.mark.parametrize("count", [24, 26, 32])
def test_stratagem_options_appear_whatever_runpod_covers_it_with(
    book: PriceBook, count: int
) -> None:
    # Before, one provider per GPU was offered: the fewest GPUs won, so RunPod's 26 pods hid
    # Stratagem's 32 GPUs at 26 (and only at 26). Each provider now has its own selection.
    resp = estimate(EstimateRequest(**{**SERVICE_26, "gpu_count": count}), prices=book)
    assert resp.cost is not None
    opts = _options(resp.cost)
    # Stratagem's independent machines: 24 = 3 × 8, 26 = 3 × 8 + 2, 32 = 4 × 8 (8-GPU
    # machines, NT$43,750 a GPU, rather than the 16-GPU InfiniBand pair at the same rate).
    assert f"rent_term:{X8}" in opts and f"rent_monthly:{RUNPOD_H100}" in opts
    assert resp.cost["cheapest"] == f"rent_term:{X8}"


def test_selections_are_one_per_provider_cheapest_first(book: PriceBook) -> None:
    sels = offer_selections(book, H100, 26)
    # Monthly list rent: Stratagem 2 × 700,000 = 1,400,000 < RunPod 26 × 69,846.40 =
    # 1,816,006.40; the cheaper runnable one is the single rent buying is measured against.
    assert [s.provider for s in sels] == ["Stratagem Taipei", "RunPod"]
    assert [(o.id, k) for o, k in sels[0].parts] == [(X16, 2)]
    assert [(o.id, k) for o, k in sels[1].parts] == [(RUNPOD_H100, 26)]
    assert select_offers(book, H100, 26) == sels[0]


# --------------------------------------------------- M5: the TP group stays in one machine


def test_48_gpu_tp4_pretrain_offers_no_single_gpu_cloud_or_rental_as_runnable(
    book: PriceBook,
) -> None:
    resp = estimate(EstimateRequest(**PRETRAIN_48), prices=book)
    assert resp.cost is not None
    assert (resp.parallelism.tp, resp.parallelism.pp, resp.parallelism.dp) == (4, 2, 6)
    opts = _options(resp.cost)

    # A training plan's node is timed on NVLink (compute.layout_factors): 48 GPUs are 6
    # nodes of 8, so each machine must hold 8 (the TP-4 group inside it too). p5.4xlarge has 1
    # GPU per instance: it cannot.
    p5_small = opts[f"cloud:{P5_1GPU}"]
    assert p5_small["feasible"] is False
    assert (
        "Not runnable: this plan needs 8 GPUs on NVLink in one machine; AWS p5.4xlarge has 1 "
        "per instance."
    ) in p5_small["note"]
    # RunPod's pods are single GPUs too: hourly and monthly rent both not runnable.
    for kind in ("rent_hourly", "rent_monthly"):
        pod = opts[f"{kind}:{RUNPOD_H100}"]
        assert pod["feasible"] is False
        assert "RunPod rents at most 1 per machine." in pod["note"]
    # No runnable option uses a machine of fewer than 8 GPUs.
    for o in resp.cost["options"]:
        if o["feasible"]:
            assert o["billed"]["gpus"] / o["billed"]["nodes"] >= 8, o["key"]

    # p5.48xlarge: 8 GPUs = one node an instance; 48 / 8 → 6 instances.
    assert opts[f"cloud:{P5_8GPU}"]["feasible"] and opts[f"cloud:{P5_8GPU}"]["billed"]["nodes"] == 6
    # Stratagem: 48 = 3 × 16 (each 2 nodes of 8) = 6 nodes, NT$2,100,000/month.
    stratagem = opts[f"rent_monthly:{X16}"]
    assert stratagem["feasible"] and stratagem["billed"]["nodes"] == 6
    assert stratagem["monthly_rate"] == pytest.approx(3 * 700_000)

    # What cannot run is neither the cheapest nor in a break-even pair.
    not_runnable = {k for k, o in opts.items() if not o["feasible"]}
    assert not_runnable == {f"cloud:{P5_1GPU}", f"rent_hourly:{RUNPOD_H100}",
                            f"rent_monthly:{RUNPOD_H100}"}  # fmt: skip
    assert resp.cost["cheapest"] not in not_runnable
    for pair in resp.cost["break_even"]:
        assert pair["a"] not in not_runnable and pair["b"] not in not_runnable
    _reproduce(resp, PRETRAIN_48)


def test_a_service_uses_the_planners_own_tp(book: PriceBook) -> None:
    # Nothing pinned: 70B in FP8 for 1,000 users; the planner splits each replica over 2
    # GPUs (TP 2) and estimate hands its layout to the cost engine (`price_plan(tp=…)`), so
    # the 1-GPU instance and RunPod's pods cannot run a replica.
    body = {
        "model": {"preset": "llama-3.1-70b"},
        "task": "inference",
        "precision": "fp8",
        "concurrency": 1000,
        "users": 1000,
    }
    resp = estimate(EstimateRequest(**body), prices=book)
    assert resp.cost is not None and resp.parallelism.tp == 2
    opts = _options(resp.cost)
    assert opts[f"cloud:{P5_1GPU}"]["feasible"] is False
    assert "this plan needs 2 GPUs on NVLink in one machine" in opts[f"cloud:{P5_1GPU}"]["note"]
    assert opts[f"rent_monthly:{RUNPOD_H100}"]["feasible"] is False


def test_a_one_node_training_job_stays_on_one_machine(book: PriceBook) -> None:
    # 13B fully fine-tuned on 4 H100 (TP 1, ZeRO over the 4): the planner times it inside
    # one NVLink node, so 4 separate RunPod pods are not that job, however cheap their hour
    # (4 × US$2.99 × 32 = NT$382.72). The cheapest is Stratagem's 4-GPU NVLink machine by
    # the hour: 4 × NT$120 = NT$480/h × the job's whole hours.
    from tests.plan_quotes import WORKLOAD

    resp = estimate(EstimateRequest(**WORKLOAD), prices=book)
    assert resp.cost is not None and resp.parallelism.tp == 1 and resp.gpu.count == 4
    opts = _options(resp.cost)
    assert opts[f"rent_hourly:{RUNPOD_H100}"]["feasible"] is False
    assert (
        "this plan needs 4 GPUs on NVLink in one machine"
        in opts[f"rent_hourly:{RUNPOD_H100}"]["note"]
    )
    cheapest = opts[resp.cost["cheapest"]]
    assert cheapest["key"] == "rent_hourly:stratagem-tpe-h100-x4"
    assert cheapest["hourly_rate"] == pytest.approx(4 * 120)
    assert cheapest["total"] == pytest.approx(480 * cheapest["billed"]["quantity"])


def test_tp1_plan_still_gets_single_gpu_options(book: PriceBook) -> None:
    # TP 1: each replica is one GPU, so single-GPU pods and p5.4xlarge can run it.
    resp = estimate(EstimateRequest(**SERVICE_26), prices=book)
    assert resp.cost is not None
    opts = _options(resp.cost)
    for key in (f"cloud:{P5_1GPU}", f"rent_hourly:{RUNPOD_H100}", f"rent_monthly:{RUNPOD_H100}"):
        assert opts[key]["feasible"] is True, key
        assert "Not runnable" not in opts[key]["note"]
    # 26 p5.4xlarge instances of 1 GPU each.
    assert opts[f"cloud:{P5_1GPU}"]["billed"]["nodes"] == 26


def _usage(gpus: float, group: int = 1) -> Usage:
    return Usage(H100, gpus, 730.0, 12, power_kw=10.0, gpus_per_machine_min=group)


@pytest.mark.parametrize(
    ("gpus", "group", "expected"),
    [
        # TP 1: RunPod's 4 pods are NT$279,385.60 a month, above Stratagem's 4-GPU machine
        # at NT$200,000 — both runnable.
        (4, 1, {"Stratagem Taipei": True, "RunPod": True}),
        # TP 4 needs 4 GPUs in one machine: RunPod's pods hold 1.
        (4, 4, {"Stratagem Taipei": True, "RunPod": False}),
        # TP 8 on 16 GPUs: two 8-GPU groups; the 16-GPU InfiniBand offer is 2 nodes of 8.
        (16, 8, {"Stratagem Taipei": True, "RunPod": False}),
    ],
)
def test_rental_selection_is_runnable_only_with_machines_that_hold_the_group(
    book: PriceBook, gpus: float, group: int, expected: dict[str, bool]
) -> None:
    sels = offer_selections(book, H100, gpus, group)
    assert {s.provider: s.runnable for s in sels} == expected
    cmp = compare_costs(_usage(gpus, group), latest_cloud_prices(book), horizon_months=12)
    for o in cmp.options:
        if o.kind.startswith("rent_"):
            provider = "RunPod" if RUNPOD_H100 in o.source_ids else "Stratagem Taipei"
            assert o.feasible is expected[provider], o.key
    assert cmp.option(cmp.cheapest).feasible


def test_a_machine_holds_whole_groups(book: PriceBook) -> None:
    offer = {o.id: o for o in book.offers}
    # TP 4: an 8-GPU node holds two groups (8 GPUs usable); a 2-GPU machine none (0); the
    # 16-GPU InfiniBand offer is 2 nodes × 2 groups × 4 = 16.
    assert group_capacity(offer["stratagem-tpe-h100-x8"], 4, 8) == 8
    assert group_capacity(offer["stratagem-tpe-h100-x2"], 4, 8) == 0
    assert group_capacity(offer[X16], 4, 8) == 16
    # TP 8 never rides the 16-GPU offer across its InfiniBand link: 2 nodes × 1 group × 8.
    assert group_capacity(offer[X16], 16, 8) == 0
    # A 6-GPU machine holds one TP-4 group: 4 of its 6 GPUs are usable.
    six = replace(offer["stratagem-tpe-h100-x8"], id="x6", gpu_count=6)
    assert group_capacity(six, 4, 8) == 4
    # TP 4 on 8 GPUs from Stratagem: one 4-GPU machine cannot, 2 × 4 or 1 × 8 can; the
    # fewest GPUs then the lower rent: 8 GPUs either way, 1 × 350,000 < 2 × 200,000.
    sel = select_offers(book, H100, 8, 4)
    assert sel is not None and [(o.id, k) for o, k in sel.parts] == [("stratagem-tpe-h100-x8", 1)]


def test_cloud_instances_are_counted_in_whole_groups() -> None:
    six = CloudInstance("six", "X", "x6", "r", H100, 6, 10.0, None, "USD", date(2026, 1, 1))
    # TP 4 on 48 GPUs: 12 groups; a 6-GPU instance holds one group → 12 instances (not
    # ceil(48 / 6) = 8, which would split groups across instances).
    assert instances_needed(48, six, 4) == 12
    assert instances_needed(48, six, 1) == math.ceil(48 / 6)
    # An 8-GPU instance holds two TP-4 groups: 48 / 4 / 2 = 6.
    eight = replace(six, gpu_count=8)
    assert instances_needed(48, eight, 4) == 6


def test_a_runpod_only_gpu_has_no_runnable_rental_for_a_tp2_plan(book: PriceBook) -> None:
    # H200 is rented only as RunPod single pods: a TP-2 service cannot run on them, so the
    # rental is shown but not runnable, and the 8-GPU cloud instances are the runnable ones.
    cmp = compare_costs(
        Usage(H200, 2, 730.0, 12, power_kw=2.0, gpus_per_machine_min=2),
        latest_cloud_prices(book),
        horizon_months=12,
        pricing_mode="capacity",
    )
    rentals = [o for o in cmp.options if o.kind.startswith("rent_")]
    assert rentals and not any(o.feasible for o in rentals)
    assert all("this plan needs 2 GPUs on NVLink in one machine" in o.note for o in rentals)
    assert cmp.option(cmp.cheapest).kind in ("buy", "cloud")
    assert select_offers(book, H200, 2, 2) is None


def test_phases_rent_machines_that_hold_their_group(book: PriceBook) -> None:
    # A capacity line (group 1) of 4 H100: the cheapest monthly rent, Stratagem's 4-GPU
    # machine at NT$200,000 (RunPod: 4 × 69,846.40 = 279,385.60).
    one = schedule_cost([Phase(H100, 4, 1, option="monthly")], book)
    assert one.phases[0].source_ids == ["stratagem-tpe-h100-x4"]
    assert one.total == pytest.approx(200_000)
    # A TP-2 workload on H200 has no machine to rent: RunPod's pods hold one GPU.
    with pytest.raises(CostInputError, match=r"phases\[0\]\.gpu_id"):
        schedule_cost([Phase(H200, 2, 1, gpus_per_machine_min=2)], book)


def test_machine_group_must_be_a_whole_number_of_gpus(book: PriceBook) -> None:
    with pytest.raises(CostInputError) as err:
        compare_costs(_usage(4, 0), book, horizon_months=12)
    assert err.value.field == "gpus_per_machine_min"


def test_an_offer_list_without_cloud_still_marks_pods_not_runnable() -> None:
    pod = RentalOffer("pod", "Pods", H100, 1, 60_000.0, 100.0, "TWD")
    node = RentalOffer("node", "Nodes", H100, 8, 400_000.0, None, "TWD", interconnect="nvlink")
    only = PriceBook("t", date(2026, 1, 1), "TWD", offers=(pod, node))
    cmp = compare_costs(_usage(8, 8), only, horizon_months=12)
    by_key = {o.key: o for o in cmp.options}
    # 8 pods at 60,000 = 480,000 would look dearer anyway; one 8-GPU node at 400,000 runs it.
    assert by_key["rent_monthly:node"].feasible and not by_key["rent_monthly:pod"].feasible
    assert cmp.cheapest == "rent_monthly:node"


def test_a_pcie_group_no_listed_machine_holds_is_not_priced_per_token(book: PriceBook) -> None:
    """QA: Llama 3.1 8B for 64 users on L4s is laid out as TP 2 × 2 replicas; the shipped list
    rents L4s one per machine (RunPod) and AWS g6.xlarge has one per instance, so no option
    can run it. The notes said "needs 2 GPUs on NVLink" of a GPU with no NVLink, and the plan
    still showed a cost per 1M tokens (NT$19.24) from an option that cannot run it."""
    req = EstimateRequest(model={"preset": "llama-3.1-8b"}, task="inference", gpu="l4-24gb",
                          concurrency=64)  # fmt: skip
    r = estimate(req, prices=book)
    assert (r.parallelism.tp, r.gpu.count) == (2, 4)
    assert r.cost is not None
    opts = _options(r.cost)
    assert opts and not any(o["feasible"] for o in opts.values())
    for o in opts.values():
        assert "this plan needs 2 GPUs in one machine" in o["note"], o["note"]
        assert "NVLink" not in o["note"]
    assert r.cost["cost_per_million_tokens"] is None
    assert r.inference is not None and r.inference.cost_per_million_tokens is None
    assert not [e for e in r.explain if e.figure == "Cost per 1M tokens"]
    # An NVLink GPU's note keeps saying NVLink (H100 SXM, TP 2 pinned on RunPod's 1-GPU pods).
    h100 = estimate(req.model_copy(update={"gpu": H100, "tp": 2}), prices=book)
    runpod = _options(h100.cost)[f"rent_monthly:{RUNPOD_H100}"]
    assert "needs 2 GPUs on NVLink in one machine" in runpod["note"]
    assert h100.cost["cost_per_million_tokens"] is not None  # Stratagem's 2-GPU box runs it


@pytest.mark.parametrize("tokens", [1e17, 6e12])
def test_a_job_longer_than_ten_years_is_not_priced_for_part_of_it(
    book: PriceBook, tokens: float
) -> None:
    # QA: 7B pre-training on 1e17 tokens takes ≈70 million days; every option was billed for
    # 120 months of it. 6e12 tokens on the same 2 H100s take ≈4,200 days > 3,650 (10 years).
    req = EstimateRequest(model={"params_b": 7}, task="pretrain", tokens=tokens, gpu=H100)
    r = estimate(req, prices=book)
    assert r.training is not None and r.training.days > 120 * 365 / 12
    assert r.cost is None
    (said,) = [w for w in r.warnings if w.startswith("Not priced: the job takes")]
    assert f"{r.training.days:,.0f} days" in said
    assert f"about {r.training.days / 365:,.0f} years" in said
    assert "longer than the 120 months (10 years)" in said


def test_a_job_within_ten_years_is_priced_for_all_of_it(book: PriceBook) -> None:
    # 5e12 tokens: ≈3,500 days < 3,650, priced over its whole length.
    req = EstimateRequest(model={"params_b": 7}, task="pretrain", tokens=5e12, gpu=H100)
    r = estimate(req, prices=book)
    assert r.training is not None and r.training.days < 120 * 365 / 12
    assert r.cost is not None
    assert r.cost["horizon_months"] == math.ceil(r.training.days / (365 / 12))
