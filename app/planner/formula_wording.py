"""The sizing engine's formulas in the reader's language.

The engine writes each figure's formula in English with the user's numbers substituted
("1.61e+23 FLOP / (16 × 989 TFLOPS dense × MFU 0.35 × goodput 0.9999) / 86,400 s = 336
days"), and the JSON API keeps it so. A sales engineer reads the Explain panel of a 中文 page
out to a procurement committee: there the formula is said in Chinese, with the very numbers
the engine wrote, so that it still evaluates to the figure.

The formulas are composed (an MFU is a product of one to a dozen named factors, a memory
figure a sum of optional terms), so no table of whole formulas could keep up. Instead each
phrase the engine writes is one msgid below, `%(name)s` standing for a number as the engine
formatted it ("1,280", "0.9999", "1.61e+23", "5%", "NT$18,945"). The phrases are applied
longest first, each to the parts of the formula no longer phrase has said; numbers and
arithmetic between them stay the engine's. A sentence-like clause has a msgid of its own, so
that Chinese can order its words ("每節點 128 核心（供 8 張 GPU）"), never its numbers.

A formula is said in Chinese only when no English word is left but units, symbols and proper
names (`KEEP`); otherwise the page shows the engine's English, marked lang="en", never half
translated (tests/planner/test_formula_wording.py walks the engine's request grid).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from app import i18n
from app.i18n import N_
from app.i18n import gettext as _

#: A number as app.engine.formatting writes one: grouped thousands, decimals, an exponent, a
#: percent sign, an amount's currency ("NT$18,945").
_NUMBER: Final = r"(?:(?:NT|US)\$)?\d+(?:,\d{3})*(?:\.\d+)?(?:e[+-]\d+)?%?"
#: Placeholders that hold something else than a number, by name.
_KINDS: Final = {"precision": r"(?:BF16|FP8|FP16|TF32|FP32)"}

#: Every phrase of the sizing engine's formulas (app/engine: training, compute, memory, infra,
#: inference, serving, image, estimate, plan_costs), written as it writes them. A counted noun
#: is written in the plural and also reads the engine's singular ("1 GPU on 1 node", "1
#: replica", "1 pass": `_PLURALS`, app.engine.formatting.plural): Chinese has one form.
PHRASES: Final = (
    # --- training.days, training.gpu_hours, training.goodput, training.mfu pinned
    N_(
        "%(flops)s FLOP / (%(gpus)s × %(peak)s TFLOPS dense × MFU %(mfu)s × goodput "
        "%(goodput)s) / 86,400 s = %(days)s days"
    ),
    N_("%(days)s days × 24 h × %(gpus)s GPUs = %(hours)s GPU-h"),
    N_(
        "1 / (1 + %(rate)s interruptions per GPU-day × %(gpus)s GPUs × %(lost)s h lost each "
        "/ 24 h) = %(goodput)s"
    ),
    N_("pinned by the request: %(value)s"),
    # --- gpu.count (training and image)
    N_("pinned by the request: %(gpus)s GPUs"),
    N_("smallest count whose most-loaded GPU fits: %(need)s GB ≤ %(memory)s GB × %(headroom)s"),
    N_(
        "minimum that fits: %(fit)s GPUs (%(fit_days)s days); the smallest count meeting the "
        "deadline of %(deadline)s days is %(count)s GPUs (%(days)s days; %(fewer)s GPUs would "
        "miss it)"
    ),
    # As plans saved before the engine wrote "1 GPU would miss it" read.
    N_(
        "minimum that fits: %(fit)s GPUs (%(fit_days)s days); the smallest count meeting the "
        "deadline of %(deadline)s days is %(count)s GPUs (%(days)s days; %(fewer)s GPUs miss it)"
    ),
    N_("%(gpus)s GPUs, as pinned"),
    # --- training.mfu: its factors (app.engine.compute.FACTOR_LABELS)
    N_("largest GEMM share of dense peak"),
    N_("(measured MAMF %(mamf)s of %(peak)s %(precision)s TFLOPS)"),
    N_("(not measured on this GPU: H100 SXM's %(precision)s share)"),
    N_("software efficiency"),
    N_("GEMM share of a layer, h=%(h)s on %(ratio)s FLOP/B"),
    N_("FP8 GEMM share"),
    N_("NF4 dequantisation, 4.5 B/param per pass over %(tokens)s tokens"),
    N_("full recomputation (one extra forward)"),
    N_("TP %(tp)s over PCIe (%(gbs)s GB/s, %(step)s a doubling)"),
    N_("bubble 1/(1 + (p−1)/(v·m))"),
    N_("uneven pipeline stages (%(layers)s layers in %(chunks)s chunks)"),
    N_("ZeRO-3 parameter gathers"),
    N_("MoE all-to-all"),
    N_("MoE expert imbalance"),
    N_("intra-node link"),
    N_("inter-node fabric"),
    N_("scale (%(gpus)s GPUs)"),
    N_("scaling floor: at most linear from %(gpus)s GPUs"),
    # --- memory_gb.weights, .gradients, .optimizer, infra.checkpoint_gb
    N_("%(params)s params (denoiser, text encoders, VAE)"),
    N_("%(params)s expert params"),
    N_("%(params)s frozen"),
    N_("%(params)s linear"),
    N_("%(params)s other"),
    N_("%(params)s LoRA"),
    N_("= %(gb)s GB resumable (weights only would be × %(bytes)s B = %(weights)s GB)"),
    # --- lora.trainable_params
    N_("over all_linear matrices"),
    N_("over attention matrices"),
    # --- memory_gb.allocated, .overhead, .per_gpu (training, serving, image)
    N_("weights %(gb)s"),
    N_("gradients %(gb)s"),
    N_("optimizer %(gb)s"),
    N_("activations %(gb)s"),
    N_("KV cache %(gb)s"),
    N_("overhead %(gb)s"),
    N_(
        "= %(total)s GB of tensors in one replica; the most-loaded GPU holds %(gpu)s GB "
        "(torch.cuda.max_memory_allocated)"
    ),
    N_(
        "allocator reserve %(share)s of %(live)s GB allocated = %(total)s GB for one replica "
        "as on one device"
    ),
    N_("(per GPU: %(context)s GB + NCCL %(nccl)s GB + %(share)s of %(live)s GB = %(total)s GB)"),
    N_("(per GPU: %(context)s GB + %(share)s of %(live)s GB = %(total)s GB)"),
    N_("states / (t=%(t)s · p=%(p)s)"),
    N_("/ ZeRO-%(stage)s over dp=%(dp)s"),
    N_(", routed experts / ep=%(ep)s"),
    N_(
        "+ ZeRO-3's whole units: %(units)s gathered (running + prefetched) %(weights)s GB in "
        "the weights and %(grad_units)s unit's unsharded gradients %(grads)s GB"
    ),
    N_(
        "+ activations + overhead = %(total)s GB (allocated tensors plus the CUDA context and "
        "allocator reserve nvidia-smi shows)"
    ),
    N_("= %(total)s GB (one pipeline per GPU)"),
    # --- memory_gb.activations (training) and of an image pipeline
    N_("with s=%(s)s, b=%(b)s, h=%(h)s, a=%(a)s"),
    N_("+ one layer recomputed in backward"),
    N_("= %(gb)s GB for one replica, one micro-batch unsharded"),
    N_("(per GPU / t=%(t)s, tensor + sequence parallel: %(gb)s GB)"),
    N_(
        "(per GPU / t=%(t)s, tensor + sequence parallel: %(gb)s GB; the first of p=%(p)s "
        "pipeline stages holds p micro-batches of L/p layers, L layers' worth)"
    ),
    N_("%(gb)s GB at %(resolution)s²"),
    # --- infra.*
    N_("%(cores)s cores per node for %(gpus)s GPUs × %(nodes)s nodes = %(total)s"),
    N_("%(vram)s GB VRAM"),
    N_("→ %(ram)s GB DIMM configuration per node × %(nodes)s"),
    N_("T6 minimum %(tb)s TB"),
    N_("%(gb)s GB dataset"),
    N_("%(gb)s GB weights-only checkpoint"),
    N_("%(gb)s GB resumable checkpoint"),
    N_("%(gb)s GB adapter checkpoint"),
    N_("→ %(tb)s TB per node"),
    N_("warm tier:"),
    N_("%(copies)s × dataset + one week of %(every)s-hourly weights-only checkpoints"),
    N_("single GPU, dataset < %(tb)s TB: the hot NVMe tier suffices (entry template)"),
    N_("%(gb)s GB weights"),
    N_("%(gb)s GB data"),
    N_("%(gbps)s Gbps = %(hours)s h (target ≤ %(target)s h)"),
    N_("%(gpus)s × %(watts)s W GPUs"),
    N_("%(sockets)s × %(kw)s kW CPU"),
    N_("%(gpus)s × %(kw)s kW NIC/NVMe/DIMM"),
    N_("%(kw)s kW board"),
    N_(
        "× %(factor)s fans/PSU = %(node)s kW per node × %(nodes)s = %(total)s kW provisioned; "
        "typical draw"
    ),
    N_("%(kw)s kW GPUs × %(share)s"),
    N_("%(kw)s kW CPU/NIC/NVMe/board × %(share)s"),
    N_(
        "%(tokens)s tokens × %(bytes)s B/token / %(epochs)s epochs = %(gb)s GB (no dataset "
        "size given)"
    ),
    # --- tier
    N_("%(gpus)s GPUs on %(nodes)s nodes"),
    N_(", copies of %(copy)s GPUs each within a node: %(gpus)s GPUs in 1 node"),
    N_("→ tier %(tier)s, single GPU"),
    N_("→ tier %(tier)s, multi-GPU, NVLink"),
    N_("→ tier %(tier)s, multi-GPU, PCIe"),
    N_("→ tier %(tier)s, multi-node, InfiniBand"),
    N_("(1 single GPU · 2 several GPUs in one node · 3 several nodes)"),
    # --- serving: inference.*, memory_gb.kv_cache, gpu.fraction
    N_("%(layers)s layers"),
    N_("%(heads)s KV heads"),
    N_("MLA latent"),
    N_("%(tokens)s tokens of prompt + answer"),
    N_("= %(per)s per replica (at most %(most)s) × %(replicas)s replicas = %(total)s"),
    N_(
        "memory-bound kernels %(memory)s ms + compute-bound kernels %(compute)s ms + "
        "all-reduce %(allreduce)s ms + step overhead %(overhead)s ms at batch %(batch)s with "
        "%(prompt)s prompt tokens chunked in = %(total)s ms"
    ),
    # One GPU (TP 1): no all-reduce term.
    N_(
        "memory-bound kernels %(memory)s ms + compute-bound kernels %(compute)s ms + "
        "step overhead %(overhead)s ms at batch %(batch)s with %(prompt)s prompt tokens "
        "chunked in = %(total)s ms"
    ),
    N_(
        "(NVIDIA data-centre GPU, NVLink (TensorRT-LLM / vLLM / SGLang): %(hbm)s of HBM, "
        "%(peak)s of peak)"
    ),
    N_(
        "(NVIDIA data-centre GPU, PCIe only (L40S, L4, A100/H100 PCIe): %(hbm)s of HBM, "
        "%(peak)s of peak)"
    ),
    N_(
        "(NVIDIA GeForce / workstation GPU, single card (llama.cpp / vLLM): %(hbm)s of HBM, "
        "%(peak)s of peak)"
    ),
    N_("(AMD Instinct, Infinity Fabric (vLLM on ROCm): %(hbm)s of HBM, %(peak)s of peak)"),
    N_("= %(rate)s tokens/s per replica"),
    N_("prefill %(tokens)s tokens %(ms)s ms"),  # plans saved before the prefill's arithmetic
    N_(
        "prefill %(tokens)s tokens: max(%(flops)s FLOP / (%(tp)s × %(peak)s TFLOPS × "
        "%(share)s) = %(compute)s ms, weights read %(memory)s ms)"
    ),
    N_("+ all-reduce %(ms)s ms"),
    N_("+ step overhead %(ms)s ms = %(own)s ms"),
    N_("+ one step of the running batch %(ms)s ms"),
    N_("+ waiting for a slot %(s)s s"),
    N_("most users one replica of TP %(tp)s holds with each at ≥ %(rate)s tokens/s: %(users)s;"),
    N_(
        "most users one replica of TP %(tp)s holds with each at ≥ %(rate)s tokens/s, first "
        "token ≤ %(ttft)s s: %(users)s;"
    ),
    N_(
        "one %(gb)s GB slice (a quarter of the memory and bandwidth, 2/7 of the compute) "
        "holds %(users)s users at %(rate)s tokens/s each ≥ %(need)s users"
    ),
    # --- image: inference.*, cost.per_image
    N_("= %(flops)s FLOP per denoiser pass at %(resolution)s²"),
    N_("= %(images)s images/h per GPU"),
    N_("= %(images)s images/h on one MIG 1/4 slice"),
    N_(
        "one %(gb)s GB slice (a quarter of the memory, 2/7 of the compute) holds the %(need)s GB "
        "pipeline and makes %(rate)s images/h ≥ %(target)s images/h"
    ),
    N_("one MIG 1/4 slice"),
    N_("%(images)s images/h"),
    N_("%(total)s for the batch"),
    N_("%(monthly)s per month"),
    # --- units after a number, wherever a longer phrase has not said them
    N_("%(n)s GPUs"),
    N_("%(n)s GPU-h"),
    N_("%(n)s nodes"),
    N_("%(n)s replicas"),
    N_("%(n)s params"),
    N_("%(n)s tokens"),
    N_("%(n)s sequences"),
    N_("%(n)s users"),
    N_("%(n)s images"),
    N_("%(n)s steps"),
    N_("%(n)s passes"),
    N_("%(n)s days"),
    N_("%(n)s h"),
)

#: Words a formula keeps in every language, digits written as '#': units, symbols, proper
#: names, and the terms the Chinese pages keep too (token, CUDA context, logits, adapter).
KEEP: Final = frozenset(
    {
        # units
        "GB", "TB", "MB", "B", "W", "kW", "FLOP", "TFLOPS", "Gbps", "ms", "s", "h",
        "tokens", "token",
        # symbols of the formulas
        "max", "min", "d_attn", "d_in", "d_out", "dp", "ep", "logits",
        # proper names and terms
        "GPU", "CPU", "MFU", "TP", "ZeRO-#", "NCCL", "CUDA", "context", "nvidia-smi",
        "torch.cuda.max_memory_allocated", "NVLink", "InfiniBand", "PCIe", "NVMe", "DIMM",
        "HBM", "MAMF", "GEMM", "MoE", "all-to-all", "all-reduce", "LoRA", "MLA", "KV", "VAE",
        "MIG", "T#", "H#", "SXM", "BF#", "FP#", "NF#", "TF#", "bf#", "fp#", "int#", "mxfp#",
        "adapter", "NVIDIA", "AMD",
    }
)  # fmt: skip

#: Sources of sizing figures that are plain prose (the rest are citations, shown as written).
SOURCES: Final = {
    s: s
    for s in (
        N_("definition"),
        N_("input"),
        N_("request"),
        N_("planner: smallest feasible configuration"),
        N_("planner: smallest feasible count, then the smallest that meets the deadline"),
        N_("each decoding sequence gets one token per engine step"),
        N_(
            "one replica's output tokens at its share of the requested concurrency: each "
            "decoding sequence gets one token per engine step"
        ),
        N_(
            "aggregate output tokens of all replicas at the requested concurrency; one "
            "replica: batch / step time (continuous batching, one token per sequence per step)"
        ),
        N_("one pipeline per GPU, images independent"),
        N_("images are independent: GPUs add throughput linearly"),
        N_("the batch's duration, which a job is priced by"),
        N_("target images/hour and deadline over one GPU's rate"),
        N_("the cheapest option's total for the batch's duration"),
        N_("the cheapest option's monthly rate; 730 h = 8,760 h / 12"),
        N_(
            "the cheapest option's monthly rate over a month of images at the target "
            "images/hour (at most what the GPUs make); 730 h = 8,760 h / 12"
        ),
    )
}

#: Sources of sizing figures that say in prose what a paper, a datasheet or a seed rule gives
#: (translated in sources.po; SOURCES' are in formulas.po). Each is the engine's whole source,
#: byte for byte, in every variant a request can make of it (recomputation, FlashAttention,
#: optimizer, the LoRA base's precision, expert parallelism, ZeRO-3 units, the serving stack's
#: row). Citations, names, numbers and units stay as written in the Chinese. Sources that name
#: the GPU ("… dense BF16 peak (datasheet without sparsity)") or a request's number ("scaling
#: floor: fewer GPU-hours on 64 GPUs") are not here: they stay English, marked lang="en"
#: (tests/planner/test_source_translations.py lists them).
CITED_SOURCES: Final = {
    s: s
    for s in (
        # --- serving: memory_gb.kv_cache, inference.*, memory_gb.weights
        N_("2 × layers × kv_heads × head_dim × bytes per token (vLLM, Kwon et al. 2023)"),
        N_(
            "vLLM paged KV cache, gpu_memory_utilization (vLLM docs); TensorRT-LLM "
            "max_batch_size; T3: one H100 serving a quantised 7B holds ≈200 chats"
        ),
        N_("bisection over the step model's operating points (app.engine.inference)"),
        N_(
            "compute-bound prefill (Pope et al. 2022 §3); queueing by Little's law for a closed "
            "loop of users over the KV slots"
        ),
        N_(
            "bytes per parameter by precision; int4/int8 weight-only with an fp16 scale per "
            "group of 128 (AWQ, Lin et al. 2023)"
        ),
        N_(
            "expert weights as published (mxfp4, 4.25 bits); bytes per parameter by precision; "
            "int4/int8 weight-only with an fp16 scale per group of 128 (AWQ, Lin et al. 2023)"
        ),
        N_(
            "continuous batching with chunked prefill (Sarathi-Serve, Agrawal et al. 2024); "
            "roofline (Pope et al. 2022 §2); shares of peak: compute bounded by the maximum "
            "achievable matmul on H100 SXM, 794.5 of 989 BF16 and 1,402.6 of 1,979 FP8 TFLOPS "
            "(stas00 ml-engineering MAMF table, app/data/gpus.yaml); HBM share, all-reduce "
            "latency and step overhead: fit half of serving_runs.yaml (TensorRT-LLM 0.9–1.0 "
            "performance tables, NIM 1.8)"
        ),
        N_(
            "continuous batching with chunked prefill (Sarathi-Serve, Agrawal et al. 2024); "
            "roofline (Pope et al. 2022 §2); shares of peak: all-reduce between PCIe-only boards "
            "crosses the host root complex, so the link share is below NVLink's; every value: "
            "fit half of serving_runs.yaml (TensorRT-LLM 0.14 L40S TP 4) — few rows, so the "
            "least certain NVIDIA row"
        ),
        N_(
            "continuous batching with chunked prefill (Sarathi-Serve, Agrawal et al. 2024); "
            "roofline (Pope et al. 2022 §2); shares of peak: llama.cpp llama-bench on RTX 4090 "
            "(llama.cpp PR #4766, comment of 2024-01-10, in serving_runs.yaml): pp512 11,048 t/s "
            "on a 6.74B F16 model is 2 × 6.74e9 × 11,048 = 149 TFLOPS of the 165 dense FP16 peak "
            "(90%); the decode row of the same source fixes the HBM share after the per-token "
            "overhead"
        ),
        N_(
            "continuous batching with chunked prefill (Sarathi-Serve, Agrawal et al. 2024); "
            "roofline (Pope et al. 2022 §2); shares of peak: every value: fit half of "
            "serving_runs.yaml (ROCm vLLM 0.9.1 results page, MLPerf Inference v4.1/v5.0 AMD "
            "submissions) — three fit rows, so the least certain row; Intel Gaudi has no serving "
            "measurement and is taken at these shares"
        ),
        # --- image: inference.flops_per_pass, memory_gb.weights, .activations
        N_(
            "FLUX.1 [dev] config: 19 double + 38 single blocks, width 3072, 2×2 patches, 512 T5 "
            "tokens; guidance-distilled (one pass a step)"
        ),
        N_(
            "SDXL UNet config (Podell et al. 2023): weights per level counted by hand; "
            "classifier-free guidance (two passes a step)"
        ),
        N_(
            "parameter counts of the published checkpoints (model source); bytes per weight at "
            "the requested precision (memory.WEIGHT_BYTES)"
        ),
        N_(
            "≈3 GB for one 1024² image measured for SDXL and FLUX in diffusers; grows with the "
            "pixel count"
        ),
        # --- training.flops, .goodput, .mfu
        N_(
            "Kaplan et al. 2020 Table 1 (C_forward = 2N + 2·L·n_ctx·d_attn); training = forward "
            "+ backward (×3); LoRA skips weight gradients (×2); recomputation is not model FLOPs "
            "(it enters the MFU)"
        ),
        N_(
            "Kaplan et al. 2020 Table 1 (C_forward = 2N + 2·L·n_ctx·d_attn); training = forward "
            "+ backward (×3); LoRA skips weight gradients (×2); recomputation is not model FLOPs "
            "(it enters the MFU); MoE counts active parameters only"
        ),
        N_(
            "Llama 3 (Dubey et al. 2024) §3.3.4: 419 unexpected interruptions in 54 days on "
            "16,384 GPUs, higher than 90% effective training time"
        ),
        N_(
            "the GPU's measured MAMF over its dense peak (stas00/ml-engineering table, e.g. H100 "
            "SXM BF16 794.5 of 989 TFLOPS = 0.80, FP8 1,402.6 of 1,979 = 0.71); roofline "
            "memory-bound share κ·(peak/bandwidth)/h (Williams et al. 2009; Korthikanti et al. "
            "2022 34·h activation bytes per token and layer); software efficiency chosen on the "
            "fit half of the validation table; Narayanan et al. 2021 (TP §3.2, pipeline bubble "
            "§2.2, recomputation eq. 3); ZeRO §7.2.2; DeepSeek-V3 §3.2.1 and Switch Transformer "
            "§2.2 (MoE); T4 (4 GPUs ≈30% of one-GPU time), T5 (no NVLink ≈30% slower), U6 (RoCE "
            "85–95% of InfiniBand)"
        ),
        N_(
            "the GPU's measured MAMF over its dense peak (stas00/ml-engineering table, e.g. H100 "
            "SXM BF16 794.5 of 989 TFLOPS = 0.80, FP8 1,402.6 of 1,979 = 0.71); roofline "
            "memory-bound share κ·(peak/bandwidth)/h (Williams et al. 2009; Korthikanti et al. "
            "2022 34·h activation bytes per token and layer); software efficiency chosen on the "
            "fit half of the validation table; Narayanan et al. 2021 (TP §3.2, pipeline bubble "
            "§2.2, recomputation eq. 3); ZeRO §7.2.2; DeepSeek-V3 §3.2.1 and Switch Transformer "
            "§2.2 (MoE); T4 (4 GPUs ≈30% of one-GPU time), T5 (no NVLink ≈30% slower), U6 (RoCE "
            "85–95% of InfiniBand); TP over PCIe: the DGX A100 TP cost (NVLink 600 GB/s, 312 "
            "TFLOPS) scaled by link bandwidth and GPU speed"
        ),
        # --- memory_gb.activations, .overhead, .allocated, .weights, .gradients, .optimizer, .per_gpu
        N_(
            "Korthikanti et al. 2022 §4 (Table 2); recomputation 'none', FlashAttention on; "
            "logits s·b·V: Megatron-LM vocab-parallel cross-entropy on fp32 logits 4 B "
            "(pre-training); Hugging Face Transformers causal-LM loss 14 B (bf16 logits 2 + fp32 "
            "upcast 4 + shifted copy 4 + log-softmax 4; loss_utils.py) for fine-tuning"
        ),
        N_(
            "Korthikanti et al. 2022 §4 (Table 2); recomputation 'none', FlashAttention off; "
            "logits s·b·V: Megatron-LM vocab-parallel cross-entropy on fp32 logits 4 B "
            "(pre-training); Hugging Face Transformers causal-LM loss 14 B (bf16 logits 2 + fp32 "
            "upcast 4 + shifted copy 4 + log-softmax 4; loss_utils.py) for fine-tuning"
        ),
        N_(
            "Korthikanti et al. 2022 §4 (Table 2); recomputation 'selective', FlashAttention on; "
            "logits s·b·V: Megatron-LM vocab-parallel cross-entropy on fp32 logits 4 B "
            "(pre-training); Hugging Face Transformers causal-LM loss 14 B (bf16 logits 2 + fp32 "
            "upcast 4 + shifted copy 4 + log-softmax 4; loss_utils.py) for fine-tuning"
        ),
        N_(
            "Korthikanti et al. 2022 §4 (Table 2); recomputation 'selective', FlashAttention "
            "off; logits s·b·V: Megatron-LM vocab-parallel cross-entropy on fp32 logits 4 B "
            "(pre-training); Hugging Face Transformers causal-LM loss 14 B (bf16 logits 2 + fp32 "
            "upcast 4 + shifted copy 4 + log-softmax 4; loss_utils.py) for fine-tuning"
        ),
        N_(
            "Korthikanti et al. 2022 §4 (Table 2); recomputation 'full', FlashAttention on; "
            "logits s·b·V: Megatron-LM vocab-parallel cross-entropy on fp32 logits 4 B "
            "(pre-training); Hugging Face Transformers causal-LM loss 14 B (bf16 logits 2 + fp32 "
            "upcast 4 + shifted copy 4 + log-softmax 4; loss_utils.py) for fine-tuning"
        ),
        N_(
            "Korthikanti et al. 2022 §4 (Table 2); recomputation 'full', FlashAttention off; "
            "logits s·b·V: Megatron-LM vocab-parallel cross-entropy on fp32 logits 4 B "
            "(pre-training); Hugging Face Transformers causal-LM loss 14 B (bf16 logits 2 + fp32 "
            "upcast 4 + shifted copy 4 + log-softmax 4; loss_utils.py) for fine-tuning"
        ),
        N_(
            "CUDA context 1,343 MiB measured with PyTorch's kernels loaded (Hugging Face "
            "Transformers docs, 'Model training anatomy'); NCCL environment docs (NCCL_BUFFSIZE "
            "4 MiB per channel and peer); PyTorch CUDA semantics: the caching allocator's "
            "reserve shows in nvidia-smi (5% of allocated assumed)"
        ),
        N_(
            "PyTorch CUDA semantics, memory management: "
            "memory_allocated()/max_memory_allocated() count the memory occupied by tensors; "
            "memory_reserved() what the caching allocator holds"
        ),
        N_(
            "QLoRA (Dettmers et al. 2023) §3: NF4 + double quantisation on the decoder blocks' "
            "linear layers; embeddings, LM head and norms in 16-bit"
        ),
        N_("LoRA (Hu et al. 2021): frozen base in fp32"),
        N_("LoRA (Hu et al. 2021): frozen base in bf16"),
        N_("LoRA (Hu et al. 2021): frozen base in fp16"),
        N_("LoRA (Hu et al. 2021): frozen base in fp8"),
        N_("LoRA (Hu et al. 2021): frozen base in int8"),
        N_("ZeRO (Rajbhandari et al. 2019) §3.1: 16-bit weights 2Ψ (fp32: 4Ψ)"),
        N_("ZeRO §3.1: 16-bit gradients 2Ψ"),
        N_("ZeRO §3.1 K = 12 applied to the adapters only"),
        N_(
            "ZeRO §3.1: Adam K = 12 (fp32 master, momentum, variance); 8-bit Adam (Dettmers et "
            "al. 2022) 6 B; SGD+momentum 8 B; Adafactor ≈4 B (adamw)"
        ),
        N_(
            "ZeRO §3.1: Adam K = 12 (fp32 master, momentum, variance); 8-bit Adam (Dettmers et "
            "al. 2022) 6 B; SGD+momentum 8 B; Adafactor ≈4 B (adamw_8bit)"
        ),
        N_(
            "ZeRO §3.1: Adam K = 12 (fp32 master, momentum, variance); 8-bit Adam (Dettmers et "
            "al. 2022) 6 B; SGD+momentum 8 B; Adafactor ≈4 B (sgd)"
        ),
        N_(
            "ZeRO §3.1: Adam K = 12 (fp32 master, momentum, variance); 8-bit Adam (Dettmers et "
            "al. 2022) 6 B; SGD+momentum 8 B; Adafactor ≈4 B (adafactor)"
        ),
        N_("ZeRO §5 (stage 1: optimizer, 2: + gradients, 3: + parameters); Megatron TP/PP"),
        N_(
            "ZeRO §5 (stage 1: optimizer, 2: + gradients, 3: + parameters); Megatron TP/PP; "
            "ZeRO-3 units: PyTorch FSDP (Zhao et al. 2023) limit_all_gathers, one decoder layer "
            "or embedding a unit"
        ),
        N_(
            "ZeRO §5 (stage 1: optimizer, 2: + gradients, 3: + parameters); Megatron TP/PP; "
            "expert parallelism inside the data-parallel group (DeepSpeed-MoE)"
        ),
        N_(
            "ZeRO §5 (stage 1: optimizer, 2: + gradients, 3: + parameters); Megatron TP/PP; "
            "expert parallelism inside the data-parallel group (DeepSpeed-MoE); ZeRO-3 units: "
            "PyTorch FSDP (Zhao et al. 2023) limit_all_gathers, one decoder layer or embedding a "
            "unit"
        ),
        # --- infra.*, tier: the seed rules
        N_(
            "Seed 003's '70B checkpoint ≈140 GB' is weights only; a resumable checkpoint with "
            "Adam state is ≈14–16 B/param ≈1 TB"
        ),
        N_("T11 storage tiers (warm NAS/object ≥20 TB on 10GbE); T6 entry template has NVMe only"),
        N_(
            "T11: hot tier capacity ≥3× (dataset + checkpoints); T6 NVMe minimums. A resumable "
            "checkpoint is 14 B/param (bf16 weights + fp32 master + Adam m, v)"
        ),
        N_(
            "T12: 140 GB over 100 Mbps >3 h, over 1 Gbps ≈20 min; T6: ≥100 Mbps single GPU, 1 "
            "Gbps + 10GbE for the 4-GPU template"
        ),
        N_(
            "T1: single GPU (7B–13B fine-tune, inference, image) · multi-GPU NVLink (13B full, "
            "70B LoRA; 2–8 GPUs) · multi-node InfiniBand (70B full, pre-training; 16+)"
        ),
        N_(
            "T6 templates (1 GPU: ≥16 cores; 4 GPUs: 48+; 16-GPU: dual 64-core per node); U5 ≥16 "
            "physical cores"
        ),
        N_(
            "T6/U5: RAM ≥ 2× VRAM (seed 003: 192 GB for one 80 GB GPU; seed 000: 8×80 GB → ≥1.28 "
            "TB). But seed 003's own 4-GPU (512 GB / 320 GB) and 16-GPU (1 TB / 640 GB per node) "
            "templates are only ≈1.6×; the 2× rule is applied"
        ),
        N_(
            "T7: 4-GPU ≈3 kW (typical), 8-GPU >10 kW; DGX H100 datasheet 10.2 kW max (fans/PSU "
            "factor 1.3 = 10.2 / 7.8 kW of components)"
        ),
        N_("T8: H100 MIG 1/4 slice NT$15,000/month; NVIDIA MIG user guide (H100 2g.20gb)"),
        N_(
            "≈4 characters of English text per BPE token (OpenAI tokenizer guide); the same rate "
            "turns a dataset size into tokens"
        ),
    )
}

_PLACEHOLDER: Final = re.compile(r"%\((\w+)\)s")
#: The counted nouns of the phrases, plural → the singular the engine writes for a count of
#: one (app.engine.formatting.plural): a phrase's "GPUs" also reads "1 GPU", "passes" "1 pass",
#: and the "GPU(s)", "pass(es)" of formulas in plans saved before the engine counted them.
_PLURALS: Final = {
    "GPUs": "GPU",
    "nodes": "node",
    "replicas": "replica",
    "epochs": "epoch",
    "passes": "pass",
    "sequences": "sequence",
    "users": "user",
    "days": "day",
}
_PLURAL: Final = re.compile(r"\b(" + "|".join(_PLURALS) + r")\b")
#: Where an English word of a phrase may not continue: "tokens" is not the start of
#: "tokens/s", "GPU" not that of "GPU-h".
_WORD_AFTER: Final = r"(?![\w(/\-])"
_WORD_BEFORE: Final = r"(?<![\w/\-.])"
_NUMBER_BEFORE: Final = r"(?<![\w.,$/])"
#: A word of a formula (a digit may be inside it: "ZeRO-3", "H100", "bf16"), not one that
#: starts inside a number ("2e+12", "6N").
_WORD: Final = re.compile(r"(?<![\w.])[A-Za-z][\w]*(?:[-.][A-Za-z0-9_]+)*")
#: Full-width punctuation closes up with what is beside it, as Chinese text is set.
_AROUND_FULL_WIDTH: Final = re.compile(r" *([，：；（）、]) *")


@dataclass(frozen=True, slots=True)
class _Phrase:
    msgid: str
    regex: re.Pattern[str]
    #: A word every formula the phrase can match contains: a quick test before the regex.
    key: str
    length: int


def _singular_too(m: re.Match[str]) -> str:
    """ "GPUs" → "GPU(?:s|\\(s\\))?", "passes" → "pass(?:es|\\(es\\))?": the plural, the
    singular alone, or a saved plan's "GPU(s)"."""
    singular = _PLURALS[m.group(1)]
    ending = m.group(1)[len(singular) :]
    return f"{singular}(?:{ending}|\\({ending}\\))?"


def _literal(text: str) -> str:
    """A phrase's words as a regex; a counted noun also reads the engine's singular."""
    return _PLURAL.sub(_singular_too, re.escape(text.replace("%%", "%")))


def _compile(msgid: str) -> _Phrase:
    parts = _PLACEHOLDER.split(msgid)
    rx, seen = [], set()
    for i, part in enumerate(parts):
        if i % 2:
            rx.append(
                f"(?P={part})" if part in seen else f"(?P<{part}>{_KINDS.get(part, _NUMBER)})"
            )
            seen.add(part)
        else:
            rx.append(_literal(part))
    literals = "".join(parts[0::2])
    head = _NUMBER_BEFORE if not parts[0] else _WORD_BEFORE if parts[0][0].isalnum() else ""
    tail = _WORD_AFTER if parts[-1] and parts[-1][-1].isalnum() else ""
    # A counted noun's singular is in the formula whichever form the engine wrote.
    words = [_PLURALS.get(w, w) for w in re.findall(r"[A-Za-z][\w-]*", literals)]
    return _Phrase(
        msgid,
        re.compile(head + "".join(rx) + tail),
        max(words, key=len) if words else "",
        len(literals.strip()),
    )


@lru_cache(maxsize=1)
def _phrases() -> tuple[_Phrase, ...]:
    """The phrases, longest first (a phrase inside a longer one waits for it)."""
    compiled = [_compile(m) for m in PHRASES]
    return tuple(sorted(compiled, key=lambda p: -p.length))


def _said(phrase: _Phrase, m: re.Match[str]) -> str:
    groups = m.groupdict()
    return _(phrase.msgid) % groups if groups else _(phrase.msgid)


def english_left(text: str) -> list[str]:
    """The words of `text` that are English and not kept in every language (`KEEP`)."""
    return [
        w
        for w in _WORD.findall(re.sub(r"(?:NT|US)\$", "", text))
        if len(w) > 1 and re.sub(r"\d+", "#", w) not in KEEP and w not in KEEP
    ]


def translate(formula: str) -> str | None:
    """`formula` with every phrase in the active language, or None where a word is left
    that no phrase says (the caller shows the engine's English then)."""
    parts: list[tuple[str, bool]] = [(formula, False)]  # (text, said)
    for phrase in _phrases():
        if phrase.key and phrase.key not in formula:
            continue
        out: list[tuple[str, bool]] = []
        for text, done in parts:
            if done or not text:
                out.append((text, done))
                continue
            at = 0
            for m in phrase.regex.finditer(text):
                out += [(text[at : m.start()], False), (_said(phrase, m), True)]
                at = m.end()
            out.append((text[at:], False))
        parts = out
    if english_left("".join(text for text, done in parts if not done)):
        return None
    return _AROUND_FULL_WIDTH.sub(r"\1", "".join(text for text, _done in parts)).strip()


def formula_text(formula: str) -> tuple[str, bool]:
    """(the formula in the page's language, whether it is in it): the engine's own words on
    an English page, else said in Chinese or, where a word is left unsaid, the engine's
    English (to be marked so)."""
    if i18n.current_language() == "en":
        return formula, True
    said = translate(formula)
    return (formula, False) if said is None else (said, True)


#: Sources the engine writes with the request's GPU or one of its numbers in them: the
#: engine's shape (matched whole) and its wording with placeholders (translated in
#: sources.po). QA read 「出處： NVIDIA H100 SXM5 80GB dense BF16 peak (datasheet without
#: sparsity)」 on every 中文 plan. More specific shapes first; `said` is itself a source.
VARYING_SOURCES: Final = (
    (
        re.compile(
            r"(?P<gpu>.+) dense TF32 tensor-core peak \(datasheet without sparsity\): fp32 "
            r"training with TF32 matmuls enabled \(PyTorch: torch\.backends\.cuda\.matmul\."
            r"allow_tf32 = True; off by default since 1\.12\)"
        ),
        N_(
            "%(gpu)s dense TF32 tensor-core peak (datasheet without sparsity): fp32 training "
            "with TF32 matmuls enabled (PyTorch: torch.backends.cuda.matmul.allow_tf32 = True; "
            "off by default since 1.12)"
        ),
    ),
    (
        re.compile(
            r"(?P<gpu>.+) dense (?P<format>\w+) peak \(datasheet without sparsity\) "
            r"\((?P<precision>\w+) weights compute in (?P=format)\)"
        ),
        N_(
            "%(gpu)s dense %(format)s peak (datasheet without sparsity) (%(precision)s weights "
            "compute in %(format)s)"
        ),
    ),
    (
        re.compile(r"(?P<gpu>.+) dense (?P<format>\w+) peak \(datasheet without sparsity\)"),
        N_("%(gpu)s dense %(format)s peak (datasheet without sparsity)"),
    ),
    (
        re.compile(
            r"share of peak (?P<share>[\d.]+): median of the published runs it was chosen on "
            r"\(GET /api/v1/validation, kind image\); (?P<gpu>.+) dense BF16 peak \(datasheet\)"
        ),
        N_(
            "share of peak %(share)s: median of the published runs it was chosen on (GET "
            "/api/v1/validation, kind image); %(gpu)s dense BF16 peak (datasheet)"
        ),
    ),
    (
        re.compile(
            r"(?P<said>.+); scaling floor: fewer GPU-hours on (?P<count>[\d,]+) GPUs?, and the "
            r"engine never predicts more than linear scaling"
        ),
        N_(
            "%(said)s; scaling floor: fewer GPU-hours on %(count)s GPUs, and the engine never "
            "predicts more than linear scaling"
        ),
    ),
)


def source_text(source: str) -> tuple[str, bool]:
    """(a sizing figure's source in the page's language, whether it is in it): plain prose is
    translated; a citation (a paper, a datasheet, a seed rule) stays as written; a source
    with the request's GPU or numbers in it is said with them (`VARYING_SOURCES`)."""
    if i18n.current_language() == "en":
        return source, True
    msgid = SOURCES.get(source) or CITED_SOURCES.get(source)
    if msgid:
        return _(msgid), True
    for shape, wording in VARYING_SOURCES:
        m = shape.fullmatch(source)
        if m is None:
            continue
        values = m.groupdict()
        if "said" in values:
            said, ok = source_text(values["said"])
            if not ok:
                return source, False
            values["said"] = said
        return _(wording) % values, True
    return source, False
