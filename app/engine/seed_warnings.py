"""Warnings for risky plans and for the PRODUCT.md §4 seed statements a plan touches.

The seed documents (000, 003) make claims the engine's arithmetic contradicts or qualifies:
super-linear speed-ups, "a month" for a 7B pre-training run on 8 A100s, RAM templates under
the 2× VRAM rule. When a plan is in the range of such a claim, the answer says so. Sources
are named in each notice (seed rule ids T5, T6, U5, U6; PRODUCT.md §4).
"""

from __future__ import annotations

import math
from typing import Final

from app.engine.architectures import ModelSpec
from app.engine.notices import Notice, one_or_many, term
from app.engine.plan import Plan
from app.engine.schemas import TRAINING_TASKS, EstimateRequest
from app.engine.units import GB, fmt


def seed_warnings(req: EstimateRequest, model: ModelSpec, plan: Plan) -> list[str]:
    """The notices for `plan`, in the order the answer lists them."""
    nodes = math.ceil(plan.count / plan.gpu.gpus_per_node)
    per_node = min(plan.count, plan.gpu.gpus_per_node)
    out = _network_warnings(req, model, plan, nodes)
    out.extend(_scaling_warnings(req, model, plan, nodes))
    if per_node > 1 and plan.gpu.memory_gb >= 80:
        out.append(
            Notice(
                "RAM follows the 2× VRAM rule (T6/U5); seed 003's own 4-GPU (512 GB for "
                "320 GB) and 16-GPU (1 TB per 640 GB node) templates are only ≈1.6×."
            )
        )
    out.extend(_t2_lora_memory(req, model, plan))
    if req.mfu and req.mfu > 0.6:
        out.append(
            Notice(
                "Pinned MFU %(mfu)s is above what published large runs reach (≈40–55%%); peak "
                "TFLOPS quoted with sparsity are not dense training throughput.",
                mfu=f"{req.mfu:.0%}",
            )
        )
    return out


#: Seed 003 T2's "7B LoRA ≈20 GB": the models it speaks of (7B, within ±1.5B), and the most a
#: plan may need before the answer says why it needs more (20 GB + 25 %, as "約" allows:
#: tests/engine/test_seed_rules.py).
T2_MODEL_PARAMS: Final = (5.5e9, 8.5e9)
T2_LORA_GB: Final = 20.0 * 1.25


def _t2_lora_memory(req: EstimateRequest, model: ModelSpec, plan: Plan) -> list[str]:
    """T2 says a 7B LoRA takes ≈20 GB; that holds with gradient checkpointing (full
    recomputation) at 2,048 tokens a sequence, as PEFT recipes run it. A plan that needs
    more says why (QA: /assess said "about 38 GB" for a 7B LoRA at 4,096 tokens, 20 GB of it
    activations, and nothing of T2)."""
    total = plan.per_gpu.total / GB
    lo, hi = T2_MODEL_PARAMS
    if req.task != "lora" or not lo <= model.params <= hi or total <= T2_LORA_GB:
        return []
    return [
        Notice(
            "Seed 003 T2's '7B LoRA ≈20 GB' holds with full activation recomputation at 2,048 "
            "tokens a sequence; this plan, at %(seq)s tokens with %(recompute_term)s, needs "
            "%(total)s GB a GPU, %(act)s GB of it activations.",
            seq=f"{req.seq_len:,}",
            recompute_term=term(plan.layout.recompute),
            total=fmt(total),
            act=fmt(plan.per_gpu.activations / GB),
        )
    ]


def _network_warnings(req: EstimateRequest, model: ModelSpec, plan: Plan, nodes: int) -> list[str]:
    """Interconnects too slow for the job: PCIe for 13B+, no RDMA across nodes (T5, U6)."""
    out: list[str] = []
    if (
        req.task in ("pretrain", "full_finetune")
        and model.params >= 13e9
        and plan.count > 1
        and plan.interconnect == "pcie"
    ):
        out.append(
            Notice(
                "No NVLink for a 13B+ full-parameter job: gradient sync over PCIe 5.0 "
                "(≈128 GB/s vs NVLink 900 GB/s) makes it ≈30%% slower (seed 003 T5); choose an "
                "NVLink/NVSwitch server."
            )
        )
    fabrics = {"infiniband": "InfiniBand", "roce": "RoCE", "ethernet": "Ethernet"}
    if req.interconnect in fabrics and nodes == 1:
        # A fabric joins servers: pinned on a plan that fits one, it changes no figure (QA: a
        # pinned InfiniBand on one 8-GPU node was ignored without a word).
        out.append(
            Notice(
                "%(fabric)s joins servers: this plan runs on one GPU, so the pinned "
                "interconnect changes no figure.",
                fabric=fabrics[req.interconnect],
            )
            if plan.count <= 1
            else Notice(
                "%(fabric)s joins servers: this plan fits in one server, whose GPUs talk over "
                "%(inside)s, so the pinned interconnect changes no figure.",
                fabric=fabrics[req.interconnect],
                inside="NVLink" if plan.gpu.has_nvlink else "PCIe",
            )
        )
    # Training only: serving replicas on several servers sync nothing but requests, and
    # Ethernet to the load balancer is their network (QA: an L40S service on 2 nodes was
    # told its "cross-node gradient sync needs RDMA").
    training = req.task in TRAINING_TASKS
    if training and nodes > 1 and plan.interconnect == "ethernet":
        out.append(
            Notice(
                "Multi-node training over plain Ethernet: cross-node gradient sync needs "
                "RDMA — InfiniBand NDR 400 Gb/s or RoCE (85–95%% of InfiniBand, seed 000 U6)."
            )
        )
    if training and nodes > 1 and plan.interconnect in ("pcie", "nvlink"):
        # PCIe and NVLink stay inside a server (QA: a pinned `pcie` on 4 servers was told it
        # ran "over plain Ethernet/PCIe" while the plan costed InfiniBand between them).
        out.append(
            Notice(
                "%(link)s links the GPUs inside each server; between the %(nodes)s servers the "
                "plan assumes InfiniBand NDR 400 Gb/s (pin roce or ethernet to plan another "
                "fabric).",
                link="PCIe" if plan.interconnect == "pcie" else "NVLink",
                nodes=nodes,
            )
        )
    if training and nodes > 1 and plan.interconnect == "roce" and plan.count >= 2048:
        out.append(
            Notice("RoCE at 2,048+ GPUs: seed 000 U6 says InfiniBand pays off from that scale.")
        )
    return out


#: The range of seed 000's "8 × A100 train a 7B model on 1T tokens in about a month": a
#: model of 5–10B parameters, 0.5–2T tokens, at most 16 GPUs. Outside it the claim says
#: nothing about the plan (QA: it was set beside a 100B-token L40S job).
SEED_7B_PARAMS = (5e9, 10e9)
SEED_7B_TOKENS = (0.5e12, 2e12)


def _in_seed_7b_claim(req: EstimateRequest, model: ModelSpec, plan: Plan) -> bool:
    """True when the plan is the kind of run the seed's 7B/1T-token claim is about, and
    takes more than the month it promises."""
    tokens = req.tokens or 0.0
    return (
        plan.training is not None
        and plan.training.days > 30
        and plan.count <= 16
        and SEED_7B_PARAMS[0] <= model.params <= SEED_7B_PARAMS[1]
        and SEED_7B_TOKENS[0] <= tokens <= SEED_7B_TOKENS[1]
    )


def _scaling_warnings(req: EstimateRequest, model: ModelSpec, plan: Plan, nodes: int) -> list[str]:
    """Seed 000's training times and speed-ups set against 6·N·D and sub-linear scaling."""
    out: list[str] = []
    if plan.training and req.task == "pretrain" and _in_seed_7b_claim(req, model, plan):
        out.append(
            Notice(
                "Seed 000 says 8×A100 train a 7B model on 1T tokens in about a month; 6·N·D "
                "says otherwise: this run needs %(days)s days (%(months)s months) on "
                "%(count)s × %(gpu)s (≈16 months at 40%% MFU).",
                days=fmt(plan.training.days),
                months=fmt(plan.training.days / 30.4),
                count=plan.count,
                gpu=plan.gpu.name,
            )
        )
    curve = plan.training.curve if plan.training else []
    if plan.training and nodes > 1 and req.task in TRAINING_TASKS and curve:
        # Compared with the smallest GPU count that holds the job (the first point of the
        # planner's own curve), not with one GPU: a model that needs 96 GPUs has no one-GPU
        # speed, and a one-GPU MFU is not what the smaller plan would reach.
        base = curve[0]
        if base.gpus < plan.count and plan.training.days > 0:
            speedup = base.days / plan.training.days
            linear = plan.count / base.gpus
            smallest = fmt(base.gpus)
            out.append(
                Notice(
                    one_or_many(
                        smallest,
                        "%(count)s GPUs finish %(speedup)s× sooner than %(base)s GPU, the "
                        "smallest count that holds this job, where linear scaling would give "
                        "%(linear)s×: a scaling efficiency of %(efficiency)s. More GPUs are "
                        "never more than linearly faster (seed 000's '2 nodes, 8 GPUs ≈13× one "
                        "GPU' is super-linear).",
                        "%(count)s GPUs finish %(speedup)s× sooner than %(base)s GPUs, the "
                        "smallest count that holds this job, where linear scaling would give "
                        "%(linear)s×: a scaling efficiency of %(efficiency)s. More GPUs are "
                        "never more than linearly faster (seed 000's '2 nodes, 8 GPUs ≈13× one "
                        "GPU' is super-linear).",
                    ),
                    count=fmt(plan.count),
                    speedup=f"{speedup:,.1f}",
                    base=smallest,
                    linear=f"{linear:,.1f}",
                    efficiency=f"{speedup / linear:.0%}",
                )
            )
    return out
