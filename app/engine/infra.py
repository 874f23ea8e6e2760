"""The infrastructure around the GPUs: CPU, RAM, storage tiers, network, power, cooling.

Rules come from seed 003 (T6 node specs, T7 power, T11 storage, T12 network) and seed 000
(U5 system), with the corrections of PRODUCT.md §4 stated where they apply.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

from app.engine.architectures import ModelSpec
from app.engine.explain import Explanation, operands
from app.engine.formatting import gpus as fmt_gpus
from app.engine.formatting import plural
from app.engine.hardware import GpuSpec
from app.engine.notices import Notice
from app.engine.units import fmt

# T6 reference templates: CPU cores per node by GPUs in the node (1 → 16 cores, 4 → 48,
# 8 → dual 64-core); 2 GPUs interpolate to 32. U5: at least 16 physical cores.
CORES_BY_GPUS = {1: 16, 2: 32, 3: 48, 4: 48, 5: 128, 6: 128, 7: 128, 8: 128}
# Server memory sizes one can actually build from DDR5 RDIMMs on 1–2 sockets (GB).
DIMM_CONFIGS = (64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144)
# T6: NVMe per node — 1 GPU 2 TB, 4 GPUs 8 TB, 16-GPU cluster 16 TB per node.
NVME_MIN_BY_GPUS = {1: 2, 2: 4, 3: 8, 4: 8, 5: 16, 6: 16, 7: 16, 8: 16}
UPLINK_STEPS_GBPS = (0.1, 1.0, 10.0, 25.0, 100.0)
TRANSFER_TARGET_H = 2.0  # a model or dataset should arrive within a working morning
CPU_SOCKET_KW = 0.35  # Xeon 8480C / EPYC 9004-class TDP
COMPONENTS_KW_PER_GPU = 0.15  # NIC, NVMe, DIMMs, NVSwitch share per GPU slot
BOARD_KW = 0.3  # motherboard, BMC, boot drives
FAN_PSU_FACTOR = 1.3  # DGX H100: 10.2 kW datasheet max vs 7.8 kW of components
TYPICAL_GPU_DRAW = 0.8  # training draws ≈80% of TDP on average
# CPUs, NICs, drives and the board draw well under their nameplate while the GPUs compute; the
# split (0.8 GPUs, 0.6 the rest) puts a 4-GPU box at ≈3 kW typical, as seed 003 T7 states.
REST_TYPICAL_DRAW = 0.6
AIR_RACK_LIMIT_KW = 20.0  # practical air-cooled rack density with containment
# 1 kW of heat = 3,412.14 BTU/h (1 W = 3.41214 BTU/h, the ASHRAE conversion); the API's
# `cooling_btu_h` and the cooling sentence use this one figure
BTU_H_PER_KW = 3412.14


@dataclass(slots=True)
class Infra:
    nodes: int
    gpus_per_node: int
    cpu_cores_per_node: int
    ram_gb_per_node: int
    nvme_tb_per_node: float
    nas_tb: float
    checkpoint_gb: float
    checkpoint_kind: str
    uplink_gbps: float
    transfer_hours: float
    internal: str
    scale_out: str | None
    rails: int
    power_kw: float
    power_typical_kw: float
    cooling: str
    storage_tiers: list[dict[str, Any]]
    explain: list[Explanation] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def cpu_cores(self) -> int:
        return self.cpu_cores_per_node * self.nodes

    @property
    def ram_gb(self) -> int:
        return self.ram_gb_per_node * self.nodes

    @property
    def nvme_tb(self) -> float:
        return self.nvme_tb_per_node * self.nodes


def round_up(value: float, steps: tuple[float, ...] | tuple[int, ...]) -> float:
    """The first of the ascending `steps` that holds `value`; past the last, its multiples."""
    i = bisect_left(steps, value - 1e-9)
    return steps[i] if i < len(steps) else steps[-1] * math.ceil(value / steps[-1])


def pow2_tb(value: float) -> float:
    """NVMe capacity in TB rounded up to 2, 4, 8, 16, 32… (drive bays fill in powers of two)."""
    tb = 2.0
    while tb < value - 1e-9:
        tb *= 2
    return tb


def checkpoint_size(model: ModelSpec, task: str, trainable: int) -> tuple[float, str]:
    """(GB, kind). Training saves resumable checkpoints: bf16 weights 2 B + fp32 master 4 B +
    Adam m and v 8 B = 14 B/param (DeepSpeed/Megatron layouts). LoRA saves the adapters and
    their optimizer state. Inference only needs weights (2 B/param in bf16)."""
    if task in ("pretrain", "full_finetune"):
        return model.params * 14 / 1e9, "resumable"
    if task in ("lora", "qlora"):
        return trainable * 14 / 1e9, "adapter"
    return model.params * 2 / 1e9, "weights-only"


def size_infra(
    *,
    gpu: GpuSpec,
    gpus: int,
    gpus_per_node: int,
    model: ModelSpec,
    task: str,
    dataset_gb: float,
    trainable: int,
    interconnect: str,
) -> Infra:
    """Bill of materials around `gpus` GPUs of type `gpu`, `gpus_per_node` to a node."""
    nodes = max(1, math.ceil(gpus / gpus_per_node))
    per_node = min(gpus, gpus_per_node)
    ex: list[Explanation] = []
    warnings: list[str] = []

    cores = CORES_BY_GPUS.get(per_node, 16 * per_node)
    ex.append(
        Explanation(
            "infra.cpu_cores",
            cores * nodes,
            "cores",
            f"{cores} cores per node for {fmt_gpus(str(per_node))} × {plural(str(nodes), 'node')} "
            f"= {cores * nodes}",
            "T6 templates (1 GPU: ≥16 cores; 4 GPUs: 48+; 16-GPU: dual 64-core per node); "
            "U5 ≥16 physical cores",
            operands(
                cores_per_node=(cores, f"cores (T6 template for {fmt_gpus(str(per_node))})"),
                nodes=(nodes, "nodes"),
            ),
            "cores_per_node * nodes",
        )
    )

    vram = per_node * gpu.memory_gb
    ram = int(round_up(2 * vram, DIMM_CONFIGS))
    ex.append(
        Explanation(
            "infra.ram_gb",
            ram * nodes,
            "GB",
            f"2 × {fmt(vram)} GB VRAM = {fmt(2 * vram)} GB → {ram} GB DIMM configuration "
            f"per node × {nodes}",
            "T6/U5: RAM ≥ 2× VRAM (seed 003: 192 GB for one 80 GB GPU; seed 000: 8×80 GB → "
            "≥1.28 TB). But seed 003's own 4-GPU (512 GB / 320 GB) and 16-GPU "
            "(1 TB / 640 GB per node) templates are only ≈1.6×; the 2× rule is applied",
            operands(
                gpus_per_node=(per_node, "GPUs"),
                gpu_memory_gb=(gpu.memory_gb, "GB"),
                nodes=(nodes, "nodes"),
            ),
            "step_up(2 * gpus_per_node * gpu_memory_gb, "
            + ", ".join(str(c) for c in DIMM_CONFIGS)
            + ") * nodes",
        )
    )

    ckpt_gb, ckpt_kind = checkpoint_size(model, task, trainable)
    keep = 2 if task in ("pretrain", "full_finetune", "lora", "qlora") else 1
    need_tb = 3 * (dataset_gb + keep * ckpt_gb) / 1000
    nvme_node = max(NVME_MIN_BY_GPUS.get(per_node, 16), pow2_tb(need_tb / nodes))
    ex.append(
        Explanation(
            "infra.nvme_tb",
            nvme_node * nodes,
            "TB",
            f"max(T6 minimum {NVME_MIN_BY_GPUS.get(per_node, 16)} TB, 3 × ({fmt(dataset_gb)} GB "
            f"dataset + {keep} × {fmt(ckpt_gb)} GB {ckpt_kind} checkpoint) / "
            f"{plural(str(nodes), 'node')}) → "
            f"{fmt(nvme_node)} TB per node",
            "T11: hot tier capacity ≥3× (dataset + checkpoints); T6 NVMe minimums. "
            "A resumable checkpoint is 14 B/param (bf16 weights + fp32 master + Adam m, v)",
            operands(
                nvme_minimum_tb=(NVME_MIN_BY_GPUS.get(per_node, 16), "TB (T6 minimum)"),
                dataset_gb=(dataset_gb, "GB"),
                checkpoints=(keep, "checkpoints"),
                checkpoint_gb=(ckpt_gb, "GB"),
                nodes=(nodes, "nodes"),
            ),
            "max(nvme_minimum_tb, 2 ** ceil(log2(max(2, 3 * (dataset_gb + checkpoints * "
            "checkpoint_gb) / 1000 / nodes)))) * nodes",
        )
    )
    if ckpt_kind == "resumable":
        weights_only = model.params * 2 / 1e9
        ex.append(
            Explanation(
                "infra.checkpoint_gb",
                ckpt_gb,
                "GB",
                f"{fmt(model.params)} params × 14 B = {fmt(ckpt_gb)} GB resumable "
                f"(weights only would be × 2 B = {fmt(weights_only)} GB)",
                "Seed 003's '70B checkpoint ≈140 GB' is weights only; a "
                "resumable checkpoint with Adam state is ≈14–16 B/param ≈1 TB",
                operands(params=(model.params, "parameters"), bytes_per_param=(14, "B")),
                "params * bytes_per_param / 1e9",
            )
        )
        if model.params >= 10e9:
            warnings.append(
                Notice(
                    "Checkpoints are sized resumable (%(size)s GB each, 14 B/param with Adam "
                    "state), not weights-only (%(weights)s GB): seed 003's '70B checkpoint "
                    "≈140 GB' counts weights only.",
                    size=fmt(ckpt_gb),
                    weights=fmt(weights_only),
                )
            )

    # T11: warm tier from 20 TB; hold the corpus twice (raw + processed) and a week of
    # checkpoints saved every 3 hours, weights only (the hot tier keeps the resumable ones).
    weekly = (model.params * 2 / 1e9) * 8 * 7 / 1000 if task in ("pretrain", "full_finetune") else 0
    if nodes == 1 and per_node == 1 and dataset_gb < 500:
        nas = 0.0
    else:
        nas = max(20.0, 10 * math.ceil((2 * dataset_gb / 1000 + weekly) / 10))
    ex.append(
        Explanation(
            "infra.nas_tb",
            nas,
            "TB",
            "warm tier: max(20 TB, 2 × dataset + one week of 3-hourly weights-only checkpoints)"
            if nas
            else "single GPU, dataset < 0.5 TB: the hot NVMe tier suffices (entry template)",
            "T11 storage tiers (warm NAS/object ≥20 TB on 10GbE); T6 entry template has NVMe only",
            operands(
                warm_tier=(1 if nas else 0, "1 = needed (more than one GPU or ≥ 0.5 TB data)"),
                dataset_gb=(dataset_gb, "GB"),
                weekly_checkpoints_tb=(weekly, "TB"),
            ),
            "max(20, 10 * ceil((2 * dataset_gb / 1000 + weekly_checkpoints_tb) / 10)) "
            "if warm_tier else 0",
        )
    )

    move_gb = model.params * 2 / 1e9 + dataset_gb
    floor = 1.0 if (per_node > 1 or nodes > 1) else 0.1
    uplink = UPLINK_STEPS_GBPS[-1]
    for u in UPLINK_STEPS_GBPS:
        if u >= floor and move_gb * 8 / u / 3600 <= TRANSFER_TARGET_H:
            uplink = u
            break
    hours = move_gb * 8 / uplink / 3600
    ex.append(
        Explanation(
            "infra.network.uplink_gbps",
            uplink,
            "Gbps",
            f"({fmt(model.params * 2 / 1e9)} GB weights + {fmt(dataset_gb)} GB data) × 8 / "
            f"{fmt(uplink)} Gbps = {hours:.2f} h (target ≤ {TRANSFER_TARGET_H:.0f} h)",
            "T12: 140 GB over 100 Mbps >3 h, over 1 Gbps ≈20 min; T6: ≥100 Mbps single GPU, "
            "1 Gbps + 10GbE for the 4-GPU template",
            operands(
                move_gb=(move_gb, "GB (weights + data)"),
                floor_gbps=(floor, "Gbps"),
                target_h=(TRANSFER_TARGET_H, "h"),
            ),
            "min(step_up(max(floor_gbps, move_gb * 8 / 3600 / target_h), "
            + ", ".join(fmt(u) for u in UPLINK_STEPS_GBPS)
            + f"), {fmt(UPLINK_STEPS_GBPS[-1])})",
        )
    )
    # Notices (str with their template), so that a page shows them in its own language.
    scale_out: str | None
    if nodes > 1 and task in ("inference", "image") and interconnect in ("ethernet", "pcie"):
        # Independent replicas (an image pipeline or a serving replica per machine): no
        # collective crosses servers, so no fabric and no rails.
        scale_out = Notice(
            "Ethernet to the load balancer, 25–100 GbE per server: the replicas are "
            "independent, so the servers need no InfiniBand between them"
        )
        rails = 0
    elif nodes > 1:
        scale_out = Notice(
            "RoCEv2 400 GbE, one NIC per GPU (rail-optimised)"
            if interconnect == "roce"
            else "Ethernet (no RDMA) — not recommended for multi-node training"
            if interconnect == "ethernet"
            else "InfiniBand NDR 400 Gb/s, one NIC per GPU, rail-optimised two-level fat-tree"
        )
        rails = per_node
    else:
        scale_out, rails = None, 0
    internal: str
    if per_node > 1 and interconnect != "pcie" and gpu.has_nvlink:
        # The scale-up link by its maker's name (`nvlink_gbs` holds each one's GPU-to-GPU
        # bandwidth): QA read "NVLink/NVSwitch 896 GB/s" on an AMD MI300X plan. AMD joins the
        # GPUs of a node with Infinity Fabric (MI300X: 7 links, 896 GB/s peer to peer);
        # Intel Gaudi 3 with 21 of its 24 on-chip 200 GbE RoCE ports.
        internal = Notice(
            "NVLink/NVSwitch %(gbs)s GB/s per GPU + 10GbE to the warm tier"
            if gpu.vendor == "NVIDIA"
            else "Infinity Fabric %(gbs)s GB/s per GPU + 10GbE to the warm tier"
            if gpu.vendor == "AMD"
            else "on-chip RoCE (200 GbE ports) %(gbs)s GB/s per accelerator + 10GbE to the "
            "warm tier",
            gbs=fmt(gpu.nvlink_gbs),
        )
    elif per_node > 1:
        internal = Notice(
            "PCIe (%(gbs)s GB/s bidirectional per GPU) + 10GbE to the warm tier",
            gbs=fmt(gpu.pcie_gbs),
        )
    else:
        internal = Notice("single GPU (PCIe to host)")

    gpu_kw = per_node * gpu.tdp_w / 1000
    sockets = 2 if cores > 64 else 1
    comp = sockets * CPU_SOCKET_KW + per_node * COMPONENTS_KW_PER_GPU + BOARD_KW
    node_max = (gpu_kw + comp) * FAN_PSU_FACTOR
    node_typ = gpu_kw * TYPICAL_GPU_DRAW + comp * REST_TYPICAL_DRAW
    power = node_max * nodes
    typical = node_typ * nodes
    ex.append(
        Explanation(
            "infra.power_kw",
            power,
            "kW",
            f"({per_node} × {fmt(gpu.tdp_w)} W GPUs + {sockets} × {CPU_SOCKET_KW} kW CPU + "
            f"{per_node} × {COMPONENTS_KW_PER_GPU} kW NIC/NVMe/DIMM + {BOARD_KW} kW board) × "
            f"{FAN_PSU_FACTOR} fans/PSU = {fmt(node_max)} kW per node × {nodes} = {fmt(power)} kW "
            f"provisioned; typical draw ({fmt(gpu_kw)} kW GPUs × {TYPICAL_GPU_DRAW} + "
            f"{fmt(comp)} kW CPU/NIC/NVMe/board × {REST_TYPICAL_DRAW}) × {nodes} = "
            f"{fmt(typical)} kW",
            "T7: 4-GPU ≈3 kW (typical), 8-GPU >10 kW; DGX H100 datasheet 10.2 kW max "
            "(fans/PSU factor 1.3 = 10.2 / 7.8 kW of components)",
            operands(
                gpus_per_node=(per_node, "GPUs"),
                gpu_tdp_w=(gpu.tdp_w, "W"),
                sockets=(sockets, "CPU sockets"),
                socket_kw=(CPU_SOCKET_KW, "kW"),
                components_kw=(COMPONENTS_KW_PER_GPU, "kW per GPU"),
                board_kw=(BOARD_KW, "kW"),
                fan_psu=(FAN_PSU_FACTOR, "×"),
                nodes=(nodes, "nodes"),
            ),
            "(gpus_per_node * gpu_tdp_w / 1000 + sockets * socket_kw + gpus_per_node * "
            "components_kw + board_kw) * fan_psu * nodes",
        )
    )
    if node_max <= AIR_RACK_LIMIT_KW / 2:
        cooling = (
            f"Air cooling; {fmt(power)} kW of heat ({fmt(power * BTU_H_PER_KW)} BTU/h); "
            "hot/cold aisle containment"
        )
    elif node_max <= AIR_RACK_LIMIT_KW:
        cooling = (
            f"High-density air: one {fmt(node_max)} kW node per rack, contained aisles or "
            f"rear-door heat exchangers; {fmt(power)} kW of heat in all"
        )
    else:
        cooling = f"Direct liquid cooling: {fmt(node_max)} kW per node exceeds air-cooled racks"
    tiers: list[dict[str, Any]] = [
        {"tier": "hot", "what": "local NVMe", "tb": nvme_node * nodes, "note": "≈7 GB/s read"},
        {"tier": "warm", "what": "NAS / object, 10GbE", "tb": nas, "note": "datasets, models"},
        {
            "tier": "cold",
            "what": "off-site object storage",
            "tb": None,
            "note": "backups and archives; retention set by regulation",
        },
    ]
    return Infra(
        nodes=nodes,
        gpus_per_node=per_node,
        cpu_cores_per_node=cores,
        ram_gb_per_node=ram,
        nvme_tb_per_node=nvme_node,
        nas_tb=nas,
        checkpoint_gb=ckpt_gb,
        checkpoint_kind=ckpt_kind,
        uplink_gbps=uplink,
        transfer_hours=hours,
        internal=internal,
        scale_out=scale_out,
        rails=rails,
        power_kw=power,
        power_typical_kw=typical,
        cooling=cooling,
        storage_tiers=tiers,
        explain=ex,
        warnings=warnings,
    )
