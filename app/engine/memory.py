"""GPU memory: every term named, for one model replica and for the most-loaded GPU.

Sources
- Model states: Rajbhandari et al. 2019, "ZeRO" (arXiv:1910.02054) §3.1 — mixed-precision
  Adam keeps 2Ψ (fp16 weights) + 2Ψ (fp16 gradients) + KΨ optimizer state with K = 12
  (fp32 master weights, momentum, variance): 16 bytes/param. ZeRO stages 1/2/3 partition
  optimizer state / + gradients / + parameters across the Nd data-parallel ranks (§5).
- Activations: Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
  Transformer Models" (arXiv:2205.05198) §4: per layer s·b·h·(34 + 5·a·s/h) bytes without
  parallelism; s·b·h/t·(34 + 5·a·s/h) with tensor + sequence parallelism; selective
  recomputation drops the 5·a·s/h attention term (s·b·h·34/t); full recomputation keeps the
  layer input only, 2·s·b·h. FlashAttention (Dao et al. 2022) never materialises the s×s
  scores, so it removes the same 5·a·s/h term.
- QLoRA: Dettmers et al. 2023 (arXiv:2305.14314) §3: NF4 with double quantisation costs
  4 + 0.127 bits/param (block 64 absmax in 8-bit, second-level block 256).
- KV cache: 2 × layers × kv_heads × head_dim × bytes per token (vLLM, Kwon et al. 2023 §3).
- Logits: the loss holds s × b × V entries per micro-batch, in bytes per entry that depend on
  the loss implementation (`LOGIT_BYTES`): 4 for Megatron's vocab-parallel cross-entropy on
  fp32 logits (pre-training), 14 for the Hugging Face Transformers loss that fine-tuning
  stacks (Trainer, PEFT, TRL) run. At long context this is the largest term: 14 × 28,000 ×
  128,256 ≈ 50 GB for Llama 3.1 8B, which is why a QLoRA run of that model fills an 80 GB GPU
  at ≈28K tokens (Unsloth, "Llama 3.3 fine-tuning", Hugging Face + FA2 column).

What is counted (PyTorch "CUDA semantics", memory management): tensors are what
`torch.cuda.max_memory_allocated()` reports — weights, gradients, optimizer state,
activations, KV cache. The caching allocator reserves more than it hands out
(`max_memory_reserved()`), and nvidia-smi shows that plus memory outside PyTorch's allocator:
the CUDA context with its loaded kernels and NCCL's buffers. `Memory.total` is that
nvidia-smi figure; `allocated()` the tensors alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from app.engine.architectures import ModelSpec
from app.engine.explain import Explanation, Operand
from app.engine.units import GB, fmt

# Bytes per parameter of stored weights. int4 is weight-only with an fp16 scale and zero per
# group of 128 (AWQ/GPTQ default group size): 4 bits + 32/128 bits = 4.25 bits.
WEIGHT_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0 + 2.0 / 128,  # per-group fp16 scale
    "int4": 0.5 + 4.0 / 128,
    # NVFP4: 4-bit E2M1 values with one FP8 scale per 16 (NVIDIA Blackwell NVFP4 format):
    # 4.5 bits. MXFP4 (OCP MX spec, one E8M0 scale per 32) is 4.25 bits.
    "fp4": 0.5 + 1.0 / 16,
}
NF4_DQ_BYTES = (4 + 0.127) / 8  # QLoRA §3 double quantisation
# Formats a published checkpoint stores some weights in (ModelSpec.expert_weights). MXFP4
# (OCP Microscaling Formats spec v1.0): 32 E2M1 values share one E8M0 scale, 4 + 8/32 = 4.25
# bits; gpt-oss ships its routed-expert MLP weights so (OpenAI gpt-oss model card §2).
NATIVE_WEIGHT_BYTES: dict[str, float] = {"mxfp4": 0.5 + 1.0 / 32}


def weight_split(model: ModelSpec, precision: str) -> tuple[float, float, float, float]:
    """(dense params, their bytes each, routed-expert params, their bytes each) for serving.

    Every weight is stored at `precision` unless the checkpoint fixes the experts' format
    (gpt-oss: MXFP4 experts, BF16 attention/router/embeddings, HF quantization_config
    modules_to_not_convert): those stay at the narrower of the two — a BF16 request does not
    widen 4.25-bit experts, an int4 request does not narrow the 16-bit rest beyond int4.
    """
    b = WEIGHT_BYTES[precision]
    if not model.is_moe:
        return float(model.params), b, 0.0, b
    experts = model.routed_expert_params
    native = NATIVE_WEIGHT_BYTES.get(model.expert_weights)
    return model.params - experts, b, experts, b if native is None else min(b, native)


KV_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
    "fp4": 0.5 + 1.0 / 16,
}

# Optimizer state bytes per *trainable* parameter, beyond the 16-bit weights and gradients.
# AdamW mixed precision: fp32 master + m + v = 12 (ZeRO K=12). 8-bit Adam (Dettmers et al.
# 2022, arXiv:2110.02861): fp32 master + two 8-bit states = 6. SGD with momentum: master +
# momentum = 8. Adafactor (Shazeer & Stern 2018): master + factored second moment ≈ 4.
OPTIMIZER_BYTES: dict[str, float] = {"adamw": 12.0, "adamw_8bit": 6.0, "sgd": 8.0, "adafactor": 4.0}

# CUDA context with PyTorch's kernels loaded, outside the caching allocator: Hugging Face
# Transformers docs, "Model training anatomy": after torch.ones((1, 1)).to("cuda") nvidia-smi
# shows "GPU memory occupied: 1343 MB" — "the kernels alone take up 1.3GB of GPU memory"
# (nvidia-smi's MB are MiB: 1,343 × 2^20 B = 1.41 GB).
CUDA_CONTEXT_GB = 1343 * 2**20 / 1e9
NCCL_BUFFERS_GB = 0.5  # NCCL communicator buffers per GPU when it talks to peers
# Reserved by PyTorch's caching allocator beyond the live tensors (cached free blocks, block
# rounding), as a share of allocated memory: an assumption — the PyTorch docs state only that
# reserved ≥ allocated and that the difference "will still show as if used in nvidia-smi".
FRAGMENTATION = 0.05
SOURCE_OVERHEAD = (
    "CUDA context 1,343 MiB measured with PyTorch's kernels loaded (Hugging Face Transformers "
    "docs, 'Model training anatomy'); NCCL environment docs (NCCL_BUFFSIZE 4 MiB per channel "
    "and peer); PyTorch CUDA semantics: the caching allocator's reserve shows in nvidia-smi "
    "(5% of allocated assumed)"
)
SOURCE_ALLOCATED = (
    "PyTorch CUDA semantics, memory management: memory_allocated()/max_memory_allocated() "
    "count the memory occupied by tensors; memory_reserved() what the caching allocator holds"
)
# Bytes per logit entry (s × b × V) at the loss. Megatron-LM's vocab-parallel cross-entropy
# keeps the fp32 logits and computes the softmax in place: 4 B. Hugging Face Transformers'
# causal-LM loss (src/transformers/loss_utils.py: "logits = logits.float()", the shifted
# ".contiguous()" copy, then cross_entropy's log-softmax) holds the bf16 logits 2 B + the fp32
# upcast 4 B + the fp32 shifted copy 4 B + the fp32 log-softmax saved for backward 4 B = 14 B
# (backward: log-softmax 4 + its gradient 4 + the input gradient 4 + bf16 logits 2 = 14 B).
LOGIT_BYTES = {"pretrain": 4.0, "full_finetune": 14.0, "lora": 14.0, "qlora": 14.0}
SOURCE_LOGITS = (
    "logits s·b·V: Megatron-LM vocab-parallel cross-entropy on fp32 logits 4 B (pre-training); "
    "Hugging Face Transformers causal-LM loss 14 B (bf16 logits 2 + fp32 upcast 4 + shifted "
    "copy 4 + log-softmax 4; loss_utils.py) for fine-tuning"
)


def logit_bytes(task: str) -> float:
    """Bytes per logit entry the loss holds for `task` (`LOGIT_BYTES`; 4 when unknown)."""
    return LOGIT_BYTES.get(task, 4.0)


def logits_bytes(model: ModelSpec, *, seq_len: int, micro_batch: int, task: str) -> float:
    """Logit memory of one micro-batch at the loss, bytes (before a vocab-parallel split)."""
    return logit_bytes(task) * seq_len * micro_batch * model.vocab


class Layout(NamedTuple):
    """How one job is spread over GPUs.

    A NamedTuple rather than a frozen dataclass: the planner builds one per GPU count it
    walks, and a tuple is built several times faster while staying immutable.
    """

    dp: int = 1
    tp: int = 1
    pp: int = 1
    zero_stage: int = 0
    recompute: str = "selective"
    micro_batch: int = 1
    vpp: int = 1  # interleaved virtual pipeline stages per GPU (1 = plain 1F1B)

    @property
    def gpus(self) -> int:
        return self.dp * self.tp * self.pp


@dataclass(slots=True)
class Memory:
    """Bytes per term. `explain` says how each was reached."""

    weights: float = 0.0
    gradients: float = 0.0
    optimizer: float = 0.0
    activations: float = 0.0
    kv_cache: float = 0.0
    overhead: float = 0.0
    explain: list[Explanation] = field(default_factory=list)

    def allocated(self) -> float:
        """Tensors only, as torch.cuda.max_memory_allocated() reports: every term but the
        overhead (allocator reserve, CUDA context, NCCL buffers)."""
        return self.total - self.overhead

    @property
    def total(self) -> float:
        return (
            self.weights
            + self.gradients
            + self.optimizer
            + self.activations
            + self.kv_cache
            + self.overhead
        )

    def gb(self) -> dict[str, float]:
        """Every term and the total in GB (10^9 B)."""
        return {
            "weights": self.weights / GB,
            "gradients": self.gradients / GB,
            "optimizer": self.optimizer / GB,
            "activations": self.activations / GB,
            "kv_cache": self.kv_cache / GB,
            "overhead": self.overhead / GB,
            "total": self.total / GB,
            "allocated": self.allocated() / GB,
        }


# --------------------------------------------------------------------------- model states


def lora_params(model: ModelSpec, rank: int, targets: str) -> int:
    """Trainable LoRA parameters: r·(d_in + d_out) per adapted matrix (Hu et al. 2021 §4.1).

    `attention` adapts q, k, v, o; `all_linear` also the FFN matrices (QLoRA's recipe, §4:
    "LoRA on all linear transformer block layers"). MoE experts are adapted one by one.
    """
    h, hd = model.hidden, model.head_dim
    q_out, kv_out = model.heads * hd, model.kv_heads * hd
    attn = (h + q_out) + 2 * (h + kv_out) + (q_out + h)
    per_layer = attn
    if targets == "all_linear":
        ffn_mats = 3 if model.ffn_type == "gated" else 2
        if model.is_moe:
            moe_layers = model.layers - model.dense_layers
            ffn = ffn_mats * (h + model.moe_ffn_hidden) * (model.experts + model.shared_experts)
            dense = ffn_mats * (h + model.ffn_hidden)
            total_ffn = moe_layers * ffn + model.dense_layers * dense
            return rank * (model.layers * attn + total_ffn)
        per_layer += ffn_mats * (h + model.ffn_hidden)
    return rank * model.layers * per_layer


def model_states(
    model: ModelSpec,
    *,
    task: str,
    precision: str,
    optimizer: str,
    lora_rank: int,
    lora_targets: str,
) -> tuple[Memory, int]:
    """Weights, gradients and optimizer state of one replica (bytes), and trainable params."""
    n = model.params
    m = Memory()
    opt_b = OPTIMIZER_BYTES[optimizer]
    if task in ("pretrain", "full_finetune"):
        # fp8 training (Transformer Engine) still keeps bf16 weights and fp32 master copies;
        # fp32 training keeps fp32 weights and gradients and needs no separate master copy.
        w_b = 4.0 if precision == "fp32" else 2.0
        master = 0.0 if precision == "fp32" else 4.0
        state_b = opt_b - 4.0 + master
        m.weights, m.gradients, m.optimizer = n * w_b, n * w_b, n * state_b
        m.explain += [
            _states_explained(
                "memory_gb.weights", n, w_b, "ZeRO (Rajbhandari et al. 2019) §3.1: 16-bit "
                "weights 2Ψ (fp32: 4Ψ)",
            ),
            _states_explained("memory_gb.gradients", n, w_b, "ZeRO §3.1: 16-bit gradients 2Ψ"),
            _states_explained(
                "memory_gb.optimizer", n, state_b,
                "ZeRO §3.1: Adam K = 12 (fp32 master, momentum, variance); 8-bit Adam "
                f"(Dettmers et al. 2022) 6 B; SGD+momentum 8 B; Adafactor ≈4 B ({optimizer})",
            ),
        ]  # fmt: skip
        return m, n
    trainable = lora_params(model, lora_rank, lora_targets)
    # The frozen base: QLoRA stores the linear layers of the decoder blocks in NF4 and keeps
    # the embeddings, the LM head and the norms in 16-bit (Dettmers et al. 2023 §3; bitsandbytes
    # replaces nn.Linear modules only, and PEFT/HF skip the lm_head); LoRA keeps the base at
    # the training precision (fp32 = 4 B, bf16 = 2 B, int8 weight-only).
    if task == "qlora":
        unquantised = embedding_params(model) + 2 * model.layers * model.hidden
        linear = max(0.0, n - unquantised)
        base = linear * NF4_DQ_BYTES + unquantised * 2.0
        base_src = (
            "QLoRA (Dettmers et al. 2023) §3: NF4 + double quantisation on the decoder "
            "blocks' linear layers; embeddings, LM head and norms in 16-bit"
        )
        base_ops = [
            Operand("linear_params", linear, "params"),
            Operand("nf4_bytes", NF4_DQ_BYTES, "B"),
            Operand("other_params", unquantised, "params"),
            Operand("other_bytes", 2.0, "B"),
        ]
        base_expr = "linear_params * nf4_bytes + other_params * other_bytes"
        base_text = (
            f"{fmt(linear)} linear × {fmt(NF4_DQ_BYTES, 4)} B + {fmt(unquantised)} other × 2 B"
        )
    else:
        base_b = WEIGHT_BYTES["int8"] if precision == "int8" else WEIGHT_BYTES.get(precision, 2.0)
        base = n * base_b
        base_src = f"LoRA (Hu et al. 2021): frozen base in {precision}"
        base_ops = [Operand("frozen_params", n, "params"), Operand("base_bytes", base_b, "B")]
        base_expr = "frozen_params * base_bytes"
        base_text = f"{fmt(n)} frozen × {fmt(base_b)} B"
    # LoRA adapters train in bf16 with fp32 Adam states: the same 16 B/param as full training.
    m.weights = base + trainable * 2
    m.gradients = trainable * 2.0
    m.optimizer = trainable * (opt_b - 4.0 + 4.0)
    m.explain += [
        Explanation(
            "memory_gb.weights",
            m.weights / GB,
            "GB",
            f"{base_text} + {fmt(trainable)} LoRA × 2 B = {fmt(m.weights / GB)} GB",
            base_src,
            [*base_ops, Operand("trainable", trainable, "params"), Operand("gb", GB, "B/GB")],
            f"({base_expr} + trainable * 2) / gb",
        ),
        Explanation(
            "lora.trainable_params",
            trainable,
            "params",
            f"r = {lora_rank} × Σ(d_in + d_out) over {lora_targets} matrices × "
            f"{model.layers} layers = {fmt(trainable)}",
            "LoRA (Hu et al. 2021) §4.1",
            [Operand("trainable", trainable, "params")],
            "trainable",
        ),
        _states_explained(
            "memory_gb.optimizer", trainable, opt_b, "ZeRO §3.1 K = 12 applied to the adapters only"
        ),
    ]
    return m, trainable


def _states_explained(figure: str, params: float, bytes_per: float, source: str) -> Explanation:
    """params × bytes per parameter, in GB."""
    gb = params * bytes_per / GB
    return Explanation(
        figure,
        gb,
        "GB",
        f"{fmt(params)} params × {fmt(bytes_per)} B = {fmt(gb)} GB",
        source,
        [
            Operand("params", params, "params"),
            Operand("bytes_per_param", bytes_per, "B"),
            Operand("gb", GB, "B/GB"),
        ],
        "params * bytes_per_param / gb",
    )


def inference_weights(model: ModelSpec, precision: str) -> tuple[float, Explanation]:
    dense, b, experts, eb = weight_split(model, precision)
    w = dense * b + experts * eb
    src = (
        "bytes per parameter by precision; int4/int8 weight-only with an fp16 scale per "
        "group of 128 (AWQ, Lin et al. 2023)"
    )
    if eb != b:
        text = (
            f"{fmt(dense)} params × {fmt(b, 4)} B ({precision}) + {fmt(experts)} expert params "
            f"× {fmt(eb, 5)} B ({model.expert_weights}) = {fmt(w / GB)} GB"
        )
        src = f"expert weights as published ({model.expert_weights}, 4.25 bits); " + src
    else:
        text = f"{fmt(model.params)} params × {fmt(b, 4)} B ({precision}) = {fmt(w / GB)} GB"
    return w, Explanation(
        "memory_gb.weights",
        w / GB,
        "GB",
        text,
        src,
        [
            Operand("dense", dense, "params"),
            Operand("dense_bytes", b, "B"),
            Operand("experts", experts, "params"),
            Operand("expert_bytes", eb, "B"),
            Operand("gb", GB, "B/GB"),
        ],
        "(dense * dense_bytes + experts * expert_bytes) / gb",
    )


# ----------------------------------------------------------------------------- activations


def activation_bytes_per_layer(
    *, s: int, b: int, h: int, a: int, t: int, recompute: str, flash: bool
) -> float:
    """Korthikanti et al. 2022 eq. for one transformer layer, 16-bit activations, bytes.

    With t > 1 sequence parallelism is assumed alongside tensor parallelism (their Table 2,
    "tensor + sequence parallel"), which divides every term by t.
    """
    if recompute == "full":
        return 2.0 * s * b * h / t
    attn_scores = 0.0 if (flash or recompute == "selective") else 5.0 * a * s / h
    return s * b * h * (34.0 + attn_scores) / t


def activations(
    model: ModelSpec, *, seq_len: int, layout: Layout, flash: bool, task: str = "pretrain"
) -> tuple[float, float, str]:
    """(replica bytes, most-loaded-GPU bytes, formula) for one micro-batch in flight per stage.

    The replica figure is one micro-batch through all L layers, unsharded (t = 1); the
    formula derives it and then states the per-GPU share, replica / t: tensor + sequence
    parallelism splits every term, the logits too (vocab-parallel). With 1F1B pipelining the
    first stage holds p micro-batches of L/p layers: L layers' worth in all (Korthikanti
    §4.2.3), so the per-GPU figure does not shrink with p.
    Logits at the loss: `logit_bytes(task)`·s·b·V bytes (4 B pre-training, 14 B with the
    Hugging Face loss of fine-tuning stacks).
    """
    s, b, h, a, L = seq_len, layout.micro_batch, model.hidden, model.heads, model.layers
    one = activation_bytes_per_layer(
        s=s, b=b, h=h, a=a, t=1, recompute=layout.recompute, flash=flash
    )
    per_gpu_layer = activation_bytes_per_layer(
        s=s, b=b, h=h, a=a, t=layout.tp, recompute=layout.recompute, flash=flash
    )
    lb = logit_bytes(task)
    logits = logits_bytes(model, seq_len=s, micro_batch=b, task=task)
    # Full recomputation re-materialises one whole layer during its backward pass.
    working = 0.0
    if layout.recompute == "full":
        working = activation_bytes_per_layer(
            s=s, b=b, h=h, a=a, t=layout.tp, recompute="selective", flash=flash
        )
    replica = L * one + logits + (working * layout.tp if working else 0.0)
    per_gpu = L * per_gpu_layer + logits / layout.tp + working
    if layout.recompute == "full":
        term = "2·s·b·h"
    elif flash or layout.recompute == "selective":
        term = "s·b·h·34"
    else:
        term = "s·b·h·(34 + 5·a·s/h)"
    pipeline = (
        f"; the first of p={layout.pp} pipeline stages holds p micro-batches of L/p layers, "
        "L layers' worth"
        if layout.pp > 1
        else ""
    )
    formula = (
        f"L·{term} + {fmt(lb)}·s·b·V: {L} × {term} with s={s}, b={b}, h={h}, a={a} + "
        f"{fmt(lb)} B × {s} × {b} × {model.vocab} logits"
        + (" + one layer recomputed in backward" if working else "")
        + f" = {fmt(replica / GB)} GB for one replica, one micro-batch unsharded (per GPU "
        f"/ t={layout.tp}, tensor + sequence parallel: {fmt(per_gpu / GB)} GB{pipeline})"
    )
    return replica, per_gpu, formula


# ----------------------------------------------------------------------------------- KV


def kv_cache_bytes(model: ModelSpec, *, tokens: float, kv_dtype: str) -> float:
    """KV cache for `tokens` tokens in flight across all sequences, bytes."""
    return model.kv_cache_bytes_per_token(KV_BYTES[kv_dtype]) * tokens


# ----------------------------------------------------------------------------- sharding


def allocated_explained(replica: Memory, per_gpu: Memory) -> Explanation:
    """`memory_gb.allocated`: the tensors of one replica (the field it explains), GB, with the
    most-loaded GPU's share (`memory_per_gpu_gb.allocated`, as torch.cuda.max_memory_allocated()
    reports it) stated after it."""
    m = replica
    return Explanation(
        "memory_gb.allocated",
        m.allocated() / GB,
        "GB",
        f"weights {fmt(m.weights / GB)} + gradients {fmt(m.gradients / GB)} + "
        f"optimizer {fmt(m.optimizer / GB)} + activations {fmt(m.activations / GB)}"
        + (f" + KV cache {fmt(m.kv_cache / GB)}" if m.kv_cache else "")
        + f" = {fmt(m.allocated() / GB)} GB of tensors in one replica; the most-loaded GPU "
        f"holds {fmt(per_gpu.allocated() / GB)} GB (torch.cuda.max_memory_allocated)",
        SOURCE_ALLOCATED,
        [
            Operand("weights", m.weights / GB, "GB"),
            Operand("gradients", m.gradients / GB, "GB"),
            Operand("optimizer", m.optimizer / GB, "GB"),
            Operand("activations", m.activations / GB, "GB"),
            Operand("kv_cache", m.kv_cache / GB, "GB"),
        ],
        "weights + gradients + optimizer + activations + kv_cache",
    )


def overhead_bytes(live: float, gpus_in_job: int) -> float:
    """Per-GPU runtime overhead: CUDA context, NCCL buffers, allocator fragmentation."""
    fixed = CUDA_CONTEXT_GB + (NCCL_BUFFERS_GB if gpus_in_job > 1 else 0.0)
    return fixed * GB + FRAGMENTATION * live


def embedding_params(model: ModelSpec) -> int:
    """Input embedding + untied output head: the pipeline's first/last stage carry these."""
    emb = model.vocab * model.hidden
    return emb if model.tied_embeddings else 2 * emb
