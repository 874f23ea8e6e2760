"""GPUs without NVLink talk over PCIe inside their box whatever joins the boxes.

QA (2026-12-03): 8 × RTX 4090 (4 a box, 2 boxes) full fine-tuning Llama 3.1 8B was credited
the NVLink "intra-node link 0.9", so its MFU (0.311) came out above 8 × H100's (0.284); only a
single PCIe box was charged seed rule T5's penalty.
"""

from __future__ import annotations

import pytest

from app.engine import compute
from app.engine.estimate import estimate
from app.engine.gpus import default_gpus
from app.engine.schemas import EstimateRequest, EstimateResponse


def _intra_node(gpu: str) -> float:
    r = estimate(
        EstimateRequest(model={"preset": "llama-3.1-8b"}, task="full_finetune", tokens=2e9,
                        gpu=gpu, gpu_count=8),
        search_all=False,
    )  # fmt: skip
    mfu = next(e for e in r.explain if e.figure == "training.mfu")
    assert "intra-node link" in mfu.formula
    return float(mfu.formula.split("intra-node link ")[1].split()[0])


def test_two_pcie_boxes_pay_the_pcie_penalty_inside_each_box() -> None:
    # An 8B model is under T5's 13B: the small-job penalty, 0.9 × 0.9 = 0.81 (NVLink's 0.9
    # all-reduce efficiency × −10% over PCIe), as one PCIe box of L40S pays.
    assert _intra_node("rtx-4090-24gb") == pytest.approx(
        compute.NVLINK_EFFICIENCY * compute.PCIE_SMALL_JOB_PENALTY, abs=0.005
    )
    assert _intra_node("l40s-48gb") == pytest.approx(0.81, abs=0.005)
    assert _intra_node("h100-sxm-80gb") == pytest.approx(compute.NVLINK_EFFICIENCY)


# Tensor parallelism over PCIe (compute.tp_step). Narayanan et al. 2021 measured TP's cost on
# DGX A100 (NVLink 600 GB/s, 312 TFLOPS): 0.97 a doubling, an exposed share of
# 1/0.97 − 1 = 0.030928 per doubling. Its all-reduces carry activations while each GPU's
# compute per layer shrinks with TP, so the share scales with link slowness and GPU speed.
EXPOSED = 1 / 0.97 - 1


def test_tp_over_pcie_is_costed_by_the_links_bandwidth_and_the_gpus_speed() -> None:
    gpus = {g.id: g for g in default_gpus()}
    # L40S: PCIe Gen4 x16, 64 GB/s; 362.05 BF16 TFLOPS dense.
    l40s = 1 / (1 + EXPOSED * (600 / 64) * (362.05 / 312))
    assert l40s == pytest.approx(0.7482, abs=1e-4)
    assert compute.tp_step(gpus["l40s-48gb"], "pcie") == pytest.approx(l40s, rel=1e-9)
    # An NVLink GPU keeps Narayanan's figure, unless the plan puts its nodes on PCIe.
    h100 = gpus["h100-sxm-80gb"]
    assert compute.tp_step(h100, "nvlink") == compute.TP_EFFICIENCY
    assert compute.tp_step(h100, "infiniband") == compute.TP_EFFICIENCY
    assert compute.tp_step(h100, "pcie") == pytest.approx(
        1 / (1 + EXPOSED * (600 / 128) * (989 / 312)), rel=1e-9
    )


def test_a_pcie_plans_mfu_names_tp_over_pcie_and_multiplies_it() -> None:
    r = estimate(
        EstimateRequest(model={"preset": "llama-3.1-8b"}, task="full_finetune", tokens=2e9,
                        gpu="l40s-48gb", gpu_count=4, tp=4),
        search_all=False,
    )  # fmt: skip
    mfu = next(e for e in r.explain if e.figure == "training.mfu")
    assert "TP 4 over PCIe (64 GB/s, 0.748 a doubling)" in mfu.formula
    (tp,) = [o for o in mfu.operands if o.name == "tensor_parallel_pcie"]
    assert tp.value == pytest.approx(0.7482**2, rel=1e-3)
    assert "TP over PCIe" in mfu.source


def test_the_planner_weighs_tp_over_pcie_against_the_other_layouts() -> None:
    """Llama 3.1 8B full fine-tuning on 4 L40S: TP 4 over PCIe (0.748² = 0.56) used to be
    chosen at NVLink's 0.97² = 0.94; now a layout that fits with less TP is faster."""
    body = {"model": {"preset": "llama-3.1-8b"}, "task": "full_finetune", "tokens": 2e9,
            "gpu": "l40s-48gb", "gpu_count": 4}  # fmt: skip
    free = estimate(EstimateRequest(**body), search_all=False)
    tp4 = estimate(EstimateRequest(**body, tp=4), search_all=False)
    assert free.parallelism.tp < 4
    assert free.training.days < tp4.training.days


def test_a_pinned_pcie_across_servers_is_pcie_inside_each_server() -> None:
    # QA 2026-12-07: 70B full fine-tuning on 32 H100 (4 servers) pinned to `pcie` came out in
    # exactly the days of `nvlink` (0.4858), while the answer warned of T5's ≈30% and of
    # "plain Ethernet/PCIe" between servers. PCIe is the link inside each server; the servers
    # are joined by the default fabric, InfiniBand, and the answer says that.
    def plan(ic: str) -> EstimateResponse:
        return estimate(
            EstimateRequest(model={"preset": "llama-3.1-70b"}, task="full_finetune",
                            tokens=1e9, gpu="h100-sxm-80gb", gpu_count=32, interconnect=ic),
            search_all=False,
        )  # fmt: skip

    pcie, nvlink = plan("pcie"), plan("nvlink")
    assert pcie.gpu.nodes == 4
    # T5 for 13B+: NVLink's 0.9 × 1/1.3 inside each server, the fabric factor unchanged.
    assert _factor(pcie, "intra_node") == pytest.approx(0.9 / 1.3, rel=1e-9)
    assert _factor(nvlink, "intra_node") == pytest.approx(0.9, rel=1e-9)
    assert (
        _factor(pcie, "fabric")
        == _factor(nvlink, "fabric")
        == compute.FABRIC_EFFICIENCY["infiniband"]
    )
    assert pcie.training.days > 1.3 * nvlink.training.days * 0.99
    assert any(w.startswith("No NVLink for a 13B+") for w in pcie.warnings)
    said = [w for w in pcie.warnings if "links the GPUs inside each server" in w]
    assert said == [
        "PCIe links the GPUs inside each server; between the 4 servers the plan assumes "
        "InfiniBand NDR 400 Gb/s (pin roce or ethernet to plan another fabric)."
    ]
    assert not any("plain Ethernet" in w for w in pcie.warnings + nvlink.warnings)


def _factor(r: EstimateResponse, name: str) -> float:
    mfu = next(e for e in r.explain if e.figure == "training.mfu")
    return next(o.value for o in mfu.operands if o.name == name)


@pytest.mark.parametrize(("fabric", "name"), [("infiniband", "InfiniBand"), ("roce", "RoCE")])
def test_a_fabric_pinned_on_one_server_says_it_changes_nothing(fabric: str, name: str) -> None:
    # QA 2026-12-07: InfiniBand pinned on one 8-GPU node was ignored without a word. A fabric
    # joins servers; inside one the GPUs keep their own link, and the answer says so.
    def plan(ic: str | None) -> EstimateResponse:
        return estimate(
            EstimateRequest(model={"preset": "llama-3.1-8b"}, task="full_finetune", tokens=1e9,
                            gpu="h100-sxm-80gb", gpu_count=8, interconnect=ic),
            search_all=False,
        )  # fmt: skip

    pinned, free = plan(fabric), plan(None)
    assert pinned.gpu.nodes == 1 and pinned.training.days == free.training.days
    assert [w for w in pinned.warnings if "joins servers" in w] == [
        f"{name} joins servers: this plan fits in one server, whose GPUs talk over NVLink, so "
        "the pinned interconnect changes no figure."
    ]
    assert not [w for w in free.warnings if "joins servers" in w]


@pytest.mark.parametrize(
    ("gpu", "link"),
    [
        ("h100-sxm-80gb", "NVLink/NVSwitch 900 GB/s per GPU"),
        # AMD joins a node's GPUs with Infinity Fabric: MI300X datasheet, 896 GB/s peer to
        # peer (QA read "NVLink/NVSwitch 896 GB/s" on an MI300X plan)
        ("mi300x-192gb", "Infinity Fabric 896 GB/s per GPU"),
        # Gaudi 3: 21 of 24 on-chip 200 GbE ports to the node's other accelerators,
        # 21 × 200 Gb/s × 2 directions / 8 = 1,050 GB/s
        ("gaudi3-128gb", "on-chip RoCE (200 GbE ports) 1,050 GB/s per accelerator"),
    ],
)
def test_a_nodes_scale_up_link_is_named_by_its_maker(gpu: str, link: str) -> None:
    resp = estimate(
        EstimateRequest(
            model={"preset": "llama-3.1-70b"},
            task="full_finetune",
            tokens=1e9,
            gpu=gpu,
            gpu_count=8,
        )
    )
    assert resp.infra is not None
    internal = str(resp.infra.network.internal)
    assert internal.startswith(link), internal
