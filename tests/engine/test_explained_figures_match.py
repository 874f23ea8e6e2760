"""Each explained figure is the figure the response reports (QA: "every number explains itself
and adds up").

Three findings, each checked against a hand calculation:
1. Buying was charged electricity and colocation for the plan's nodes (two 8-GPU nodes,
   11.6 kW typical draw) instead of the servers it buys (three 4-GPU servers rated 5.1 kW).
2. `memory_gb.activations`, `.overhead` and `.allocated` are one replica's figures, but their
   explanations gave the most-loaded GPU's (15.18 GB explained beside 30.36 GB reported).
3. `inference.max_concurrency` is the whole deployment's, but its explanation gave one
   replica's (465 explained beside 6 × 465 = 2,790 reported).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.catalog.shipped import shipped_price_book
from app.engine.costs import Usage, compare_costs
from app.engine.costs.model import CostOption
from app.engine.estimate import estimate
from app.engine.plan_costs import latest_cloud_prices
from app.engine.price_book import PriceBook
from app.engine.schemas import EstimateRequest, EstimateResponse
from tests.engine.helpers import est
from tests.engine.test_costs import HGX_KW, seed003_book, use
from tests.engine.test_explanations_reproduce import _check

H100 = "h100-sxm-80gb"
GB = 1e9
CUDA_CONTEXT_B = 1343 * 2**20  # HF Transformers "Model training anatomy": 1,343 MiB


@pytest.fixture(scope="module")
def book() -> PriceBook:
    return shipped_price_book()


def _figure(resp: EstimateResponse, figure: str) -> Any:
    return next(e for e in resp.explain if e.figure == figure)


# ------------------------------------------------------------------ 1. buying prices its servers

#: 12 H100 serving replicas of one GPU each: the planner lays them out on two 8-GPU nodes, the
#: cheapest servers to buy are three 4-GPU ones (shipped list: 3 × US$141,312 = US$423,936
#: against 2 × US$282,624 = US$565,248 for two 8-GPU HGX).
SERVICE_12 = {"model": {"preset": "qwen2.5-7b"}, "task": "inference", "precision": "bf16",
              "gpu": H100, "gpu_count": 12, "tp": 1, "concurrency": 64}  # fmt: skip


def _option(cost: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(o for o in cost["options"] if o["kind"] == kind)


def test_buying_pays_power_and_colocation_for_the_servers_it_buys(book: PriceBook) -> None:
    r = estimate(EstimateRequest(**SERVICE_12), prices=book, search_all=False)
    assert r.cost is not None and r.gpu.nodes == 2
    # The plan's own nodes: 2 × 8 H100 drawing 11.6 kW typical (infra.power_typical_kw)...
    assert r.infra.power_typical_kw == pytest.approx(11.6)
    buy = _option(r.cost, "buy")
    assert buy["billed"]["nodes"] == 3 and buy["billed"]["gpus"] == 12
    assert buy["label"].startswith("Buy — 3 × 4-GPU H100")
    figures = {e["figure"]: e for e in buy["explain"]}
    # ...but buying runs 3 servers rated 5.1 kW (shipped h100-4gpu-nvlink-server: 4 × 700 W
    # × 10.2/5.6, the DGX H100 system-to-GPU ratio) = 15.3 kW.
    # Taiwan industrial energy (shipped tw-industrial-pue158): NT$4.27/kWh, PUE 1.58,
    # colocation NT$6,238.40/kW-month; capacity pricing at 100 % = 730 h a month.
    # electricity: 15.3 kW × 730 h = 11,169 kWh × 1.58 × 4.27 = NT$75,352.78 → NT$75,353/month
    #              (before: 11.6 kW × 730 × 1.58 × 4.27 = NT$57,130.21)
    # colocation:  15.3 kW × 6,238.40 = NT$95,447.52 → NT$95,448/month (rounded once, half up)
    power = figures["Electricity per month"]
    colo = figures["Colocation (rack, cooling) per month"]
    assert power["value"] == 75_353
    assert colo["value"] == 95_448
    assert power["formula"].startswith("3 × 5.1 kW rated = 15.3 kW × 730 h = 11,169 kWh")
    assert colo["formula"].startswith("3 × 5.1 kW rated = 15.3 kW × ")
    # Held 12 months (a service is priced for a year): 12 × the monthly figures as printed.
    assert buy["breakdown"]["power"] == 12 * 75_353 == 904_236
    assert buy["breakdown"]["facility"] == 12 * 95_448 == 1_145_376


def _buy(cmp_options: list[CostOption]) -> CostOption:
    return next(o for o in cmp_options if o.kind == "buy")


def test_the_buy_explanations_reproduce_from_their_operands(book: PriceBook) -> None:
    # The same usage as the plan above (12 GPUs at the plan's 11.6 kW): each of the buy
    # option's explanations evaluates to its value, and electricity and colocation are the
    # 15.3 kW of the three servers bought (hand figures in the test above).
    usage = Usage(H100, 12, 730.0, 12, power_kw=11.6, gpus_per_node=8)
    cmp = compare_costs(usage, latest_cloud_prices(book), horizon_months=12,
                        pricing_mode="capacity")  # fmt: skip
    buy = _buy(cmp.options)
    for e in buy.explain:
        _check(e, {"usage": usage})
    power = next(e for e in buy.explain if e.figure == "Electricity per month")
    assert {o.name: o.value for o in power.operands}["servers"] == 3
    assert power.value == 75_353


def test_a_small_usage_still_pays_the_whole_server_it_buys() -> None:
    # Seed 003 T9's server: an 8-GPU HGX H100 rated 10.2 kW (DGX H100 datasheet). A usage
    # that declares 5 kW buys that whole server and runs it: 10.2 kW × 730 h × PUE 1.58 ×
    # NT$4.27 = NT$50,235.18 a month (T9's own power figure), not 5 × 730 × 1.58 × 4.27 =
    # NT$24,625.09; rounded once: NT$50,235. Colocation: 10.2 kW × NT$5,900 = NT$60,180.
    c = compare_costs(use(gpus=8, power_kw=5, months=36), seed003_book(), horizon_months=36)
    buy = c.option("buy")
    assert buy.breakdown["power"] == 36 * 50_235
    assert buy.breakdown["facility"] == pytest.approx(36 * 60_180)
    power = next(e for e in buy.explain if e.figure == "Electricity per month")
    assert power.recomputed() == power.value == 50_235
    assert f"1 × {HGX_KW:g} kW rated" in power.formula


# ------------------------------------------------------------------- 2. memory of one replica

ACTIVATIONS = [
    # Korthikanti et al. 2022 §4: selective recomputation keeps s·b·h·34 B per layer, full
    # recomputation 2·s·b·h plus one layer re-materialised (s·b·h·34); the loss holds
    # logit_bytes·s·b·V (14 B fine-tuning, 4 B pre-training). s = 4096, b = 1.
    pytest.param(
        "llama-2-13b",
        {"task": "full_finetune", "tokens": 2e8, "gpu_count": 4, "tp": 2, "pp": 2,
         "recompute": "selective"},
        # Llama 2 13B: L = 40, h = 5,120, V = 32,000.
        # 40 × 4096 × 5120 × 34 = 28,521,267,200 + 14 × 4096 × 32,000 = 1,835,008,000
        # = 30,356,275,200 B = 30.356 GB per replica; / t = 2 → 15.178 GB per GPU.
        30_356_275_200 / GB,
        2,
        id="13B full fine-tune TP2 PP2: 30.36 GB, 15.18 per GPU",
    ),
    pytest.param(
        "llama-2-70b",
        {"task": "pretrain", "tokens": 2e12, "gpu_count": 16, "tp": 8, "pp": 2,
         "recompute": "full"},
        # Llama 2 70B: L = 80, h = 8,192, V = 32,000.
        # 80 × 2 × 4096 × 8192 = 5,368,709,120 + 4 × 4096 × 32,000 = 524,288,000
        # + 4096 × 8192 × 34 = 1,140,850,688 → 7,033,847,808 B; / t = 8 → 0.879 GB per GPU.
        7_033_847_808 / GB,
        8,
        id="70B pretrain TP8 PP2 full recompute: 7.03 GB, 0.879 per GPU",
    ),
    pytest.param(
        "qwen2.5-7b",
        {"task": "lora", "tokens": 2e8, "gpu_count": 1, "recompute": "selective"},
        # Qwen2.5 7B: L = 28, h = 3,584, V = 152,064.
        # 28 × 4096 × 3584 × 34 = 13,975,420,928 + 14 × 4096 × 152,064 = 8,719,958,016
        # = 22,695,378,944 B; one GPU holds all of it (t = 1).
        22_695_378_944 / GB,
        1,
        id="7B LoRA on one GPU: 22.7 GB (replica = GPU)",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("preset", "body", "replica_gb", "tp"), ACTIVATIONS)
def test_activations_explain_the_replica_figure_reported(
    preset: str, body: dict[str, Any], replica_gb: float, tp: int
) -> None:
    r = est(preset, gpu=H100, seq_len=4096, micro_batch=1, **body)
    assert (r.parallelism.tp, r.parallelism.micro_batch) == (tp, 1)
    e = _figure(r, "memory_gb.activations")
    assert r.memory_gb.activations == pytest.approx(replica_gb, rel=1e-9)
    assert e.value == pytest.approx(replica_gb, rel=1e-9)
    assert e.recomputed() == pytest.approx(replica_gb, rel=1e-9)
    # The per-GPU share is stated too, and is the per-GPU field.
    assert r.memory_per_gpu_gb.activations == pytest.approx(replica_gb / tp, rel=1e-9)
    assert f"{replica_gb / tp:.3g} GB" in e.formula


def test_overhead_and_allocated_explain_the_replica_figures_reported() -> None:
    r = est("llama-2-13b", gpu=H100, seq_len=4096, micro_batch=1, task="full_finetune",
            tokens=2e8, gpu_count=4, tp=2, pp=2, recompute="selective")  # fmt: skip
    params = r.model["params_b"] * 1e9  # 13,015,864,320 (the preset's architecture)
    # One replica's tensors: weights 2 B + gradients 2 B + Adam 12 B per parameter (ZeRO §3.1)
    # + activations 30,356,275,200 B (above): 13,015,864,320 × 16 = 208,253,829,120
    # + 30,356,275,200 = 238,610,104,320 B = 238.61 GB.
    allocated = params * 16 + 30_356_275_200
    assert allocated == pytest.approx(238_610_104_320)
    # Counted as on one device: one CUDA context (1,343 MiB = 1,408,237,568 B), no NCCL, and
    # the allocator's 5 % reserve: 1,408,237,568 + 0.05 × 238,610,104,320 = 13,338,742,784 B.
    overhead = CUDA_CONTEXT_B + 0.05 * allocated
    for figure, value in (("memory_gb.allocated", allocated), ("memory_gb.overhead", overhead)):
        e = _figure(r, figure)
        assert getattr(r.memory_gb, figure.split(".")[1]) == pytest.approx(value / GB)
        assert e.value == pytest.approx(value / GB)
        assert e.recomputed() == pytest.approx(value / GB)
    # The most-loaded GPU's figures (before: what these explanations gave) are in the text:
    # 1.408 + NCCL 0.5 + 5 % of 67.24 GB = 5.27 GB.
    assert r.memory_per_gpu_gb.overhead == pytest.approx(5.27, abs=0.005)
    assert "5.27 GB" in _figure(r, "memory_gb.overhead").formula
    assert "67.2 GB" in _figure(r, "memory_gb.allocated").formula


# ------------------------------------------------------- 3. the whole deployment's concurrency


def test_max_concurrency_explains_every_replica() -> None:
    # Six single-GPU replicas (gpu_count 6, tp 1) of Qwen2.5 7B in bf16 on H100. One replica's
    # KV cache: (80 GB × 0.9 − weights 7.62e9 × 2 B = 15.2 GB − activations − overhead) /
    # (2 × 28 layers × 4 KV heads × 128 × 2 B = 57,344 B × 2,048 tokens) = 465 sequences; the
    # deployment holds 465 × 6 = 2,790, the figure `max_concurrency` reports.
    r = est("qwen2.5-7b", task="inference", precision="bf16", gpu=H100, gpu_count=6, tp=1,
            concurrency=600)  # fmt: skip
    inf = r.inference
    assert inf is not None and inf.replicas == 6
    assert inf.max_concurrency == inf.max_concurrency_per_replica * 6
    e = _figure(r, "inference.max_concurrency")
    ops = {o.name: o.value for o in e.operands}
    assert ops["kv_per_token"] == 57_344 and ops["tokens"] == 2_048 and ops["replicas"] == 6
    assert e.value == inf.max_concurrency
    assert e.recomputed() == pytest.approx(inf.max_concurrency)
    free = 80e9 * 0.9 - r.model["params_b"] * 1e9 * 2 - ops["activations"] - ops["overhead"]
    per = inf.max_concurrency_per_replica
    assert per == 465 == int(free / (57_344 * 2_048))
    assert f"= {per} per replica" in e.formula
    assert e.formula.endswith(f"× 6 replicas = {per * 6}")


@pytest.mark.parametrize(
    ("workload", "says"),
    [
        ({"task": "lora", "tokens": 1e8}, "1 GPU on 1 node → tier 1, single GPU"),
        ({"task": "full_finetune", "tokens": 2e9, "gpu_count": 4}, "4 GPUs on 1 node → tier 2"),
        (
            {"task": "pretrain", "tokens": 2e12, "gpu_count": 16},
            "16 GPUs on 2 nodes → tier 3, multi-node, InfiniBand",
        ),
    ],
)
def test_the_tier_formula_says_the_tier_in_words(workload: dict[str, Any], says: str) -> None:
    # Seed T1's three tiers. QA (stop 29): the formula read "→ multi_gpu (1 = single_gpu, …)",
    # enum values a sales engineer cannot read out to procurement.
    model = {"preset": "llama-3.1-8b"} if workload["task"] == "lora" else {"preset": "llama-2-13b"}
    r = est(model=model, gpu=H100, **workload)
    (tier,) = [e for e in r.explain if e.figure == "tier"]
    assert says in tier.formula
    assert "_" not in tier.formula
