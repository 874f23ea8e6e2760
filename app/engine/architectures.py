"""Model architectures and their parameter counts: presets, pasted configs, custom sizes.

A `ModelSpec` is everything the sizing engine needs to know about a model: how many
parameters it holds (memory for weights, gradients and optimizer states), how many it
uses per token (6·N·D training FLOPs use the *active* count), and the attention shape that
sets the KV cache. Every parameter count is computed from the architecture by one function,
`count_params`, whether the model is a shipped preset (`app/data/models.yaml`), a pasted
Hugging Face `config.json` (`from_hf_config`) or a custom size (`from_param_count`).

Units: parameters are plain counts (`params_b` arguments are billions, 10^9); KV cache is
bytes per token. Sources for each architecture are named on the preset (`source`).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml

from app.engine.formatting import plural
from app.engine.notices import Notice

Kind = Literal["llm", "image"]
FfnType = Literal["gated", "plain"]
AttentionType = Literal["gqa", "mla"]
ComponentRole = Literal["denoiser", "text_encoder", "vae"]

PRESETS_PATH = Path(__file__).resolve().parent.parent / "data" / "models.yaml"

# The fields `count_params` reads: the architecture, as opposed to names and provenance.
ARCH_FIELDS: tuple[str, ...] = (
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "head_dim",
    "ffn_hidden",
    "ffn_type",
    "vocab",
    "tied_embeddings",
    "experts",
    "experts_per_token",
    "shared_experts",
    "moe_ffn_hidden",
    "dense_layers",
    "attention",
    "kv_lora_rank",
    "qk_rope_head_dim",
    "q_lora_rank",
    "v_head_dim",
    "qkv_bias",
    "out_bias",
    "mlp_bias",
    "norm_bias",
    "norms_per_layer",
    "router_bias",
    "learned_positions",
)


@dataclass(frozen=True, slots=True)
class Component:
    """One separately published network of an image pipeline (UNet, text encoder, VAE)."""

    name: str  # "unet", "text_encoder_2 (OpenCLIP ViT-bigG/14)"
    params: int  # tensor elements in the published checkpoint
    role: ComponentRole


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A model as the sizing engine sees it.

    `params` is every weight that must be resident (embeddings, attention, norms, FFN or all
    experts, the LM head unless tied). `active_params` is what one token touches: equal to
    `params` for dense models; for MoE the shared part plus the router and the top-k (and
    shared) experts. For image models `params` is the whole pipeline that must be loaded
    (denoiser + text encoders + VAE, from published component counts) and `active_params`
    is the denoiser alone, which runs every sampling step and is the part a fine-tune trains.
    The transformer fields describe the denoiser where it is a transformer (FLUX) and are 0
    where it is not (SDXL's UNet).
    """

    id: str  # lowercase hyphenated preset id, e.g. "llama-3.1-70b"; "custom" for custom
    name: str  # "Llama 3.1 70B"
    family: str  # llama | mistral | mixtral | qwen2 | gemma2 | phi3 | deepseek_v3 | sdxl | flux | …
    kind: Kind
    params: int  # total parameters, computed from the architecture
    active_params: int  # parameters used per token (== params for dense)
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int  # per-head q/k width; MLA: qk_nope_head_dim + qk_rope_head_dim
    ffn_hidden: int  # dense FFN intermediate size (per-expert size is moe_ffn_hidden)
    ffn_type: FfnType  # gated = SwiGLU/GeGLU (3 matrices), plain = GELU MLP (2 matrices)
    vocab: int
    tied_embeddings: bool
    max_context: int  # tokens (config max_position_embeddings); 0 for image models
    experts: int = 1  # routed experts; 1 = dense
    experts_per_token: int = 1
    shared_experts: int = 0
    moe_ffn_hidden: int = 0
    dense_layers: int = 0  # leading dense layers of an MoE (DeepSeek-V3: 3)
    attention: AttentionType = "gqa"  # gqa covers MHA (kv_heads == heads) and MQA
    kv_lora_rank: int = 0  # MLA only
    qk_rope_head_dim: int = 0  # MLA only
    published_params_b: float | None = None  # the count the publisher states, billions
    inferred: bool = False  # True when the architecture was inferred from a parameter count
    source: str = ""
    notes: str = ""
    # Details that change the exact count but not the shape of the model.
    q_lora_rank: int = 0  # MLA query compression (0 = plain q projection)
    v_head_dim: int = 0  # MLA value head width (0 = head_dim)
    qkv_bias: bool = False  # biases on q/k/v (Qwen2)
    out_bias: bool = False  # bias on the attention output projection (GPT)
    mlp_bias: bool = False  # biases on the FFN matrices (GPT)
    norm_bias: bool = False  # LayerNorm (weight + bias) instead of RMSNorm (weight)
    norms_per_layer: int = 2  # Gemma 2 has 4 (pre/post attention and FFN)
    router_bias: bool = False  # DeepSeek-V3 e_score_correction_bias, one per routed expert
    learned_positions: int = 0  # rows of a learned absolute position table (GPT)
    published_active_params_b: float | None = None  # MoE active / image denoiser, billions
    components: tuple[Component, ...] = ()  # image pipelines only
    # Stored format of the routed expert weights where the published checkpoint fixes one
    # (gpt-oss: "mxfp4", HF config quantization_config.quant_method); "" = the request's
    # precision for every weight.
    expert_weights: str = ""

    def __post_init__(self) -> None:
        if not self.id or self.id != self.id.strip():
            raise ValueError(f"model id {self.id!r} must be a non-empty string")
        if self.params <= 0 or not 0 < self.active_params <= self.params:
            raise ValueError(
                f"{self.id}: need 0 < active_params ({self.active_params}) "
                f"<= params ({self.params})"
            )

    def kv_cache_bytes_per_token(self, kv_bytes: float) -> float:
        """Bytes of KV cache one token occupies across all layers.

        GQA/MHA/MQA: 2 (K and V) × layers × kv_heads × head_dim × kv_bytes, so grouped-query
        attention caches only the KV heads (Llama-2-70B: 8 of 64). MLA caches one compressed
        latent plus the decoupled RoPE key per layer: (kv_lora_rank + qk_rope_head_dim) ×
        layers × kv_bytes (DeepSeek-V2 paper §2.1, eq. 9–10). Image models cache nothing.
        `kv_bytes` is bytes per element (2 for fp16/bf16, 1 for fp8).
        """
        if self.kind == "image":
            return 0.0
        if self.attention == "mla":
            return float((self.kv_lora_rank + self.qk_rope_head_dim) * self.layers * kv_bytes)
        return float(2 * self.layers * self.kv_heads * self.head_dim * kv_bytes)

    @property
    def is_moe(self) -> bool:
        return self.experts > 1

    @property
    def routed_expert_params(self) -> float:
        """Weights of all routed experts: (params − active) / (E − k) per expert × E (the
        experts a token does not use are exactly the inactive weights). 0 for dense models."""
        if not self.is_moe:
            return 0.0
        per = (self.params - self.active_params) / max(self.experts - self.experts_per_token, 1)
        return per * self.experts

    @property
    def params_b(self) -> float:
        """Total parameters in billions."""
        return self.params / 1e9

    @property
    def active_params_b(self) -> float:
        """Active parameters in billions."""
        return self.active_params / 1e9

    def architecture(self) -> dict[str, Any]:
        """The fields `count_params` reads, as keyword arguments for it."""
        return {name: getattr(self, name) for name in ARCH_FIELDS}


# --------------------------------------------------------------------------- counting


def _check_arch(arch: Mapping[str, Any]) -> None:
    """Reject shapes no checkpoint can have, naming the field (custom input reaches here)."""
    for name in ("layers", "hidden", "heads", "kv_heads", "head_dim", "vocab", "experts"):
        value = arch[name]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    for name in (
        "ffn_hidden",
        "experts_per_token",
        "shared_experts",
        "moe_ffn_hidden",
        "dense_layers",
        "kv_lora_rank",
        "qk_rope_head_dim",
        "q_lora_rank",
        "v_head_dim",
        "norms_per_layer",
        "learned_positions",
    ):
        value = arch[name]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if arch["ffn_type"] not in ("gated", "plain"):
        raise ValueError(f"ffn_type must be 'gated' or 'plain', got {arch['ffn_type']!r}")
    if arch["attention"] not in ("gqa", "mla"):
        raise ValueError(f"attention must be 'gqa' or 'mla', got {arch['attention']!r}")
    if arch["attention"] == "gqa" and arch["heads"] % arch["kv_heads"]:
        raise ValueError(
            Notice(
                "kv_heads (%(kv_heads)s) must divide heads (%(heads)s)",
                kv_heads=arch["kv_heads"], heads=arch["heads"],
            )
        )  # fmt: skip
    if arch["attention"] == "mla":
        if arch["kv_lora_rank"] < 1:
            raise ValueError("kv_lora_rank must be positive for MLA attention")
        if not 0 < arch["qk_rope_head_dim"] < arch["head_dim"]:
            raise ValueError("qk_rope_head_dim must be between 0 and head_dim for MLA")
    if arch["experts"] > 1:
        if not 1 <= arch["experts_per_token"] <= arch["experts"]:
            raise ValueError(
                Notice(
                    "experts_per_token must be between 1 and experts (%(experts)s), got "
                    "%(value)s",
                    experts=arch["experts"], value=arch["experts_per_token"],
                )
            )  # fmt: skip
        if arch["dense_layers"] >= arch["layers"]:
            raise ValueError(Notice("dense_layers must be fewer than layers in an MoE"))
        if max(arch["moe_ffn_hidden"], arch["ffn_hidden"]) < 1:
            raise ValueError("an MoE needs moe_ffn_hidden (or ffn_hidden) > 0")
    elif arch["ffn_hidden"] < 1:
        raise ValueError("ffn_hidden must be a positive integer for a dense model")


def count_params(
    *,
    layers: int,
    hidden: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    ffn_hidden: int,
    vocab: int,
    tied_embeddings: bool,
    ffn_type: FfnType = "gated",
    experts: int = 1,
    experts_per_token: int = 1,
    shared_experts: int = 0,
    moe_ffn_hidden: int = 0,
    dense_layers: int = 0,
    attention: AttentionType = "gqa",
    kv_lora_rank: int = 0,
    qk_rope_head_dim: int = 0,
    q_lora_rank: int = 0,
    v_head_dim: int = 0,
    qkv_bias: bool = False,
    out_bias: bool = False,
    mlp_bias: bool = False,
    norm_bias: bool = False,
    norms_per_layer: int = 2,
    router_bias: bool = False,
    learned_positions: int = 0,
) -> tuple[int, int]:
    """(total, active) parameters of a decoder-only transformer, counted tensor by tensor.

    Per layer: attention + `norms_per_layer` norms + FFN. Attention (GQA) is q and o of
    heads×head_dim plus k and v of kv_heads×head_dim, with q/k/v biases where the family
    has them (Qwen2) and an o bias for GPT. MLA (DeepSeek-V2 paper §2.1; DeepSeek-V3
    `modeling_deepseek.py`) is q_a (hidden→q_lora_rank) + its norm + q_b (→heads×head_dim),
    kv_a (hidden→kv_lora_rank+rope) + its norm + kv_b (→heads×(nope+v_head_dim)), and
    o (heads×v_head_dim→hidden). A gated FFN (SwiGLU/GeGLU) has three hidden×ffn matrices,
    a plain GELU MLP two. An MoE layer has a router (hidden×experts, plus the DeepSeek-V3
    correction bias) and `experts` + `shared_experts` FFNs of `moe_ffn_hidden`; the first
    `dense_layers` layers keep a dense FFN of `ffn_hidden`. Outside the layers: token
    embeddings (+ learned positions), a final norm, and an LM head unless tied.

    Active parameters count everything except the experts a token is not routed to, so
    the embeddings and router are included (Mixtral-8x7B: 12,879,925,248 of 46,702,792,704).
    """
    arch = dict(locals())
    _check_arch(arch)
    per_norm = 2 if norm_bias else 1  # LayerNorm has a weight and a bias, RMSNorm a weight

    if attention == "mla":
        v_dim = v_head_dim or head_dim
        nope = head_dim - qk_rope_head_dim
        if q_lora_rank:
            q = hidden * q_lora_rank + per_norm * q_lora_rank + q_lora_rank * heads * head_dim
        else:
            q = hidden * heads * head_dim
        kv = (
            hidden * (kv_lora_rank + qk_rope_head_dim)
            + per_norm * kv_lora_rank
            + kv_lora_rank * heads * (nope + v_dim)
        )
        attn = q + kv + heads * v_dim * hidden
    else:
        q_width, kv_width = heads * head_dim, kv_heads * head_dim
        attn = hidden * (q_width + 2 * kv_width) + q_width * hidden
        if qkv_bias:
            attn += q_width + 2 * kv_width
    if out_bias:
        attn += hidden
    common = attn + norms_per_layer * per_norm * hidden

    matrices = 3 if ffn_type == "gated" else 2

    def ffn(width: int) -> int:
        size = matrices * hidden * width
        if mlp_bias:  # gate/up (or fc1) biases of `width`, down (fc2) bias of `hidden`
            size += (matrices - 1) * width + hidden
        return size

    moe_layers = layers - dense_layers if experts > 1 else 0
    dense = (layers - moe_layers) * (common + ffn(ffn_hidden))
    total = active = dense
    if moe_layers:
        expert = ffn(moe_ffn_hidden or ffn_hidden)
        router = hidden * experts + (experts if router_bias else 0)
        total += moe_layers * (common + router + (experts + shared_experts) * expert)
        active += moe_layers * (common + router + (experts_per_token + shared_experts) * expert)

    outside = (vocab + learned_positions) * hidden + per_norm * hidden
    if not tied_embeddings:
        outside += vocab * hidden
    return total + outside, active + outside


# `count_params`'s defaults, so a spec can be built from the fields a source gives.
_ARCH_DEFAULTS: dict[str, Any] = {
    "ffn_type": "gated",
    "experts": 1,
    "experts_per_token": 1,
    "shared_experts": 0,
    "moe_ffn_hidden": 0,
    "dense_layers": 0,
    "attention": "gqa",
    "kv_lora_rank": 0,
    "qk_rope_head_dim": 0,
    "q_lora_rank": 0,
    "v_head_dim": 0,
    "qkv_bias": False,
    "out_bias": False,
    "mlp_bias": False,
    "norm_bias": False,
    "norms_per_layer": 2,
    "router_bias": False,
    "learned_positions": 0,
}


def build_llm_spec(
    *,
    id: str,
    name: str,
    family: str,
    max_context: int,
    published_params_b: float | None = None,
    published_active_params_b: float | None = None,
    inferred: bool = False,
    source: str = "",
    notes: str = "",
    expert_weights: str = "",
    **arch: Any,
) -> ModelSpec:
    """A language-model spec whose `params` and `active_params` come from `count_params`.

    `arch` takes the `ARCH_FIELDS` keywords; the ones left out get `count_params`'s
    defaults (gated FFN, GQA, RMSNorm, no biases, dense).
    """
    unknown = set(arch) - set(ARCH_FIELDS)
    if unknown:
        raise ValueError(f"unknown architecture field(s): {', '.join(sorted(unknown))}")
    full = {**_ARCH_DEFAULTS, **arch}
    total, active = count_params(**full)
    return ModelSpec(
        id=id,
        name=name,
        family=family,
        kind="llm",
        params=total,
        active_params=active,
        max_context=max_context,
        published_params_b=published_params_b,
        published_active_params_b=published_active_params_b,
        inferred=inferred,
        source=source,
        notes=notes,
        expert_weights=expert_weights,
        **full,
    )


# --------------------------------------------------------------------------- presets


# Image presets may describe their denoiser's transformer shape; the counts come from
# the components, never from the data file.
_IMAGE_RECORD_KEYS = {f.name for f in dataclasses.fields(ModelSpec)} - {
    "params",
    "active_params",
}


def _image_spec(record: Mapping[str, Any]) -> ModelSpec:
    """An image pipeline from its published component counts (no architecture to count)."""
    components = tuple(
        Component(name=str(c["name"]), params=int(c["params"]), role=c["role"])
        for c in record["components"]
    )
    denoisers = [c for c in components if c.role == "denoiser"]
    if len(denoisers) != 1:
        raise ValueError(f"{record['id']}: an image model needs exactly one denoiser")
    unknown = set(record) - _IMAGE_RECORD_KEYS
    if unknown:
        raise ValueError(f"preset {record['id']!r}: unknown key(s) {sorted(unknown)}")
    fields = {k: v for k, v in record.items() if k not in ("components", "kind")}
    defaults = {
        "layers": 0,
        "hidden": 0,
        "heads": 0,
        "kv_heads": 0,
        "head_dim": 0,
        "ffn_hidden": 0,
        "ffn_type": "plain",
        "vocab": 0,
        "tied_embeddings": False,
        "max_context": 0,
    }
    return ModelSpec(
        **{**defaults, **fields},
        kind="image",
        params=sum(c.params for c in components),
        active_params=denoisers[0].params,
        components=components,
    )


_LLM_RECORD_KEYS = frozenset(ARCH_FIELDS) | {
    "id",
    "name",
    "family",
    "kind",
    "max_context",
    "published_params_b",
    "published_active_params_b",
    "expert_weights",
    "source",
    "notes",
}


def _spec_from_record(record: Mapping[str, Any]) -> ModelSpec:
    """One entry of `models.yaml` as a spec; unknown keys are an error (they are typos)."""
    if not record.get("source"):
        raise ValueError(f"preset {record.get('id')!r} has no source")
    if record.get("kind", "llm") == "image":
        return _image_spec(record)
    unknown = set(record) - _LLM_RECORD_KEYS
    if unknown:
        raise ValueError(f"preset {record.get('id')!r}: unknown key(s) {sorted(unknown)}")
    fields = {k: v for k, v in record.items() if k != "kind"}
    return build_llm_spec(**fields)


@cache
def _presets() -> tuple[ModelSpec, ...]:
    with PRESETS_PATH.open(encoding="utf-8") as fh:
        records = yaml.safe_load(fh)["models"]
    specs = tuple(_spec_from_record(r) for r in records)
    ids = [s.id for s in specs]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate preset id(s) in {PRESETS_PATH.name}: {duplicates}")
    return specs


def list_presets() -> list[ModelSpec]:
    """Every shipped preset, in the order of `app/data/models.yaml` (read once, cached)."""
    return list(_presets())


@cache
def _presets_by_id() -> dict[str, ModelSpec]:
    return {s.id: s for s in _presets()}


def get_preset(preset_id: str) -> ModelSpec:
    """The preset with this id; KeyError naming the closest ids when there is none."""
    by_id = _presets_by_id()
    key = preset_id.strip().lower()
    if key in by_id:
        return by_id[key]
    close = difflib.get_close_matches(key, list(by_id), n=5, cutoff=0.5)
    # A Notice, so that a page shows it in its own language (app.web.notices).
    if close:
        raise KeyError(
            Notice(
                "unknown model preset '%(preset)s'; did you mean %(close)s? (%(n)s presets: "
                "GET /api/v1/models lists them)",
                preset=preset_id, close=", ".join(close), n=len(by_id),
            )
        )  # fmt: skip
    raise KeyError(
        Notice(
            "unknown model preset '%(preset)s' (%(n)s presets: GET /api/v1/models lists "
            "them; or describe the model with params_b or hf_config)",
            preset=preset_id,
            n=len(by_id),
        )
    )


# --------------------------------------------------------------------------- HF config.json

# model_type -> tie_word_embeddings when the file leaves it out (the transformers config
# class defaults), and how many RMSNorms a decoder layer has.
_HF_TYPES: dict[str, tuple[bool, int]] = {
    "llama": (False, 2),
    "mistral": (False, 2),
    "mixtral": (False, 2),
    "qwen2": (False, 2),
    "gemma": (True, 2),
    "gemma2": (True, 4),  # input, post_attention, pre_feedforward, post_feedforward
    "phi3": (False, 2),
    "deepseek_v3": (False, 2),
}


# Bounds on each integer field of a config.json: wide enough for every published model
# (Llama 3.1 405B: hidden 16,384, 126 layers, 128 heads; DeepSeek-V3: 256 experts, vocab
# 129,280), narrow enough that the memory and FLOP arithmetic stays finite (a value of
# 10**400 would overflow a float). (minimum, maximum); fields not listed: 0 to 10**7.
_HF_BOUNDS: dict[str, tuple[int, int]] = {
    "hidden_size": (1, 1_048_576),
    "num_attention_heads": (1, 16_384),
    "num_key_value_heads": (1, 16_384),
    "head_dim": (1, 65_536),
    "intermediate_size": (1, 4_194_304),
    "moe_intermediate_size": (1, 4_194_304),
    "vocab_size": (1, 10_000_000),
    "num_hidden_layers": (1, 10_000),
    "num_local_experts": (1, 4_096),
    "n_routed_experts": (1, 4_096),
    "num_experts_per_tok": (1, 4_096),
    "max_position_embeddings": (1, 100_000_000),
    "kv_lora_rank": (1, 65_536),
    "v_head_dim": (1, 65_536),
    "qk_rope_head_dim": (0, 65_536),
    "qk_nope_head_dim": (0, 65_536),
}
_HF_DEFAULT_BOUNDS = (0, 10_000_000)


def _hf_check(key: str, value: Any) -> int:
    """`value` of config.json field `key` as a bounded int, or ValueError naming the field."""
    low, high = _HF_BOUNDS.get(key, _HF_DEFAULT_BOUNDS)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(
            Notice(
                "config.json field '%(name)s' must be an integer, got %(value)s",
                name=key, value=_short(value),
            )
        )  # fmt: skip
    if not low <= value <= high:
        raise ValueError(
            Notice(
                "config.json field '%(name)s' must be between %(low)s and %(high)s, got "
                "%(value)s",
                name=key, low=f"{low:,}", high=f"{high:,}", value=_short(value),
            )
        )  # fmt: skip
    return value


def _short(value: Any) -> str:
    """A user's config.json value as JSON spells it (true, null, "x": QA read 收到的是 True, a
    Python spelling), short enough for an error message: a 10**400 int has 401 digits (said
    "≥ 10^30", in no language's words), a nested object could be megabytes."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return "≥ 10^30" if value > 0 else "≤ -10^30"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"


def _hf_int(config: Mapping[str, Any], key: str, model_type: str) -> int:
    if key not in config or config[key] is None:
        raise ValueError(
            Notice(
                "config.json is missing '%(name)s' (needed for model_type '%(type)s')",
                name=key, type=model_type,
            )
        )  # fmt: skip
    return _hf_check(key, config[key])


def _hf_opt_int(config: Mapping[str, Any], key: str) -> int:
    """An optional integer field: 0 when absent or null, else checked like a required one."""
    value = config.get(key)
    return 0 if value is None else _hf_check(key, value)


def from_hf_config(config: Mapping[str, Any]) -> ModelSpec:
    """A spec from a pasted Hugging Face `config.json` (already parsed to a dict).

    Supports model_type llama, mistral, mixtral, qwen2, gemma, gemma2, phi3 and
    deepseek_v3; field names and defaults follow the transformers config classes of those
    types. Raises ValueError naming the missing or unsupported field. The DeepSeek-V3
    multi-token-prediction module (`num_nextn_predict_layers`) is not counted: it is an
    optional speculative-decoding head, as in the 671B the DeepSeek-V3 README states.
    """
    if not isinstance(config, Mapping):
        raise ValueError(Notice("config.json must be a JSON object"))
    model_type = config.get("model_type")
    if not model_type:
        raise ValueError(
            Notice(
                "config.json is missing 'model_type' (one of: %(supported)s)",
                supported=", ".join(sorted(_HF_TYPES)),
            )
        )
    if not isinstance(model_type, str):
        raise ValueError(
            Notice(
                "config.json field 'model_type' must be a string, got %(value)s",
                value=_short(model_type),
            )
        )
    if model_type not in _HF_TYPES:
        raise ValueError(
            Notice(
                "model_type '%(type)s' in config.json is not supported; supported: "
                "%(supported)s",
                type=model_type, supported=", ".join(sorted(_HF_TYPES)),
            )
        )  # fmt: skip
    tied_default, norms_per_layer = _HF_TYPES[model_type]

    def need(key: str) -> int:
        return _hf_int(config, key, model_type)

    hidden, heads = need("hidden_size"), need("num_attention_heads")
    kv_heads = need("num_key_value_heads") if config.get("num_key_value_heads") else heads
    if heads % kv_heads:
        raise ValueError(
            Notice(
                "config.json field 'num_attention_heads' must be a multiple of "
                "'num_key_value_heads'"
            )
        )
    arch: dict[str, Any] = {
        "layers": need("num_hidden_layers"),
        "hidden": hidden,
        "heads": heads,
        "kv_heads": kv_heads,
        "head_dim": need("head_dim") if config.get("head_dim") else 0,
        "ffn_hidden": need("intermediate_size"),
        "vocab": need("vocab_size"),
        "tied_embeddings": bool(config.get("tie_word_embeddings", tied_default)),
        "norms_per_layer": norms_per_layer,
    }
    if not arch["head_dim"]:
        if hidden % heads:
            raise ValueError(
                Notice("config.json needs 'head_dim': hidden_size is not divisible by heads")
            )
        arch["head_dim"] = hidden // heads
    notes: list[str] = []

    if model_type == "qwen2":
        arch["qkv_bias"] = True  # Qwen2Attention builds q/k/v with bias=True, o without
    if model_type in ("llama", "mistral", "mixtral", "phi3") and config.get("attention_bias"):
        arch["qkv_bias"] = arch["out_bias"] = True
    if config.get("mlp_bias"):
        arch["mlp_bias"] = True
    if model_type == "mixtral":
        arch["experts"] = need("num_local_experts")
        arch["experts_per_token"] = need("num_experts_per_tok")
        arch["moe_ffn_hidden"] = arch["ffn_hidden"]
    if model_type == "deepseek_v3":
        if config.get("moe_layer_freq", 1) != 1:
            raise ValueError(
                Notice(
                    "config.json field 'moe_layer_freq' must be 1 (an MoE layer after every "
                    "dense layer): other values are not supported"
                )
            )
        rope, nope = need("qk_rope_head_dim"), need("qk_nope_head_dim")
        arch.update(
            attention="mla",
            head_dim=nope + rope,
            kv_lora_rank=need("kv_lora_rank"),
            qk_rope_head_dim=rope,
            q_lora_rank=_hf_opt_int(config, "q_lora_rank"),
            v_head_dim=need("v_head_dim"),
            experts=need("n_routed_experts"),
            experts_per_token=need("num_experts_per_tok"),
            shared_experts=_hf_opt_int(config, "n_shared_experts"),
            moe_ffn_hidden=need("moe_intermediate_size"),
            dense_layers=_hf_opt_int(config, "first_k_dense_replace"),
            router_bias=config.get("topk_method") == "noaux_tc",
        )
        if mtp := _hf_opt_int(config, "num_nextn_predict_layers"):
            notes.append(plural(mtp, "multi-token-prediction layer") + " not counted")
    quant = config.get("quantization_config")
    if isinstance(quant, Mapping) and quant.get("quant_method"):
        method = _short(quant["quant_method"]).strip("'")
        notes.append(f"checkpoint quantised ({method}); counts are parameters")

    raw_name = config.get("_name_or_path")
    # A name only when it is a string, and never longer than a Hub id can be (96 + 96).
    name_or_path = raw_name[:200].rstrip("/") if isinstance(raw_name, str) else ""
    name = name_or_path.rsplit("/", 1)[-1] or f"{model_type} model"
    return build_llm_spec(
        id="custom",
        name=name,
        family=model_type,
        max_context=need("max_position_embeddings"),
        source="pasted Hugging Face config.json" + (f" ({name_or_path})" if name_or_path else ""),
        notes="; ".join(notes),
        **arch,
    )


# --------------------------------------------------------------------------- custom size

# Depth against size for Llama-layout models (pre-norm, SwiGLU, GQA), from the presets'
# published configs: (total params in billions, layers). GPT-2 small (llm.c d12) anchors
# the small end. Between anchors depth is interpolated in log(params); beyond them the
# end segments are extended.
_DEPTH_ANCHORS: tuple[tuple[float, int], ...] = (
    (0.124, 12),  # GPT-2 small
    (0.494, 24),  # Qwen2.5-0.5B
    (1.54, 28),  # Qwen2.5-1.5B
    (3.21, 28),  # Llama-3.2-3B
    (8.03, 32),  # Llama-3.1-8B
    (14.8, 48),  # Qwen2.5-14B
    (32.8, 64),  # Qwen2.5-32B
    (70.6, 80),  # Llama-3.1-70B
    (406.0, 126),  # Llama-3.1-405B
)
_FFN_RATIO = 3.5  # Llama 3 8B and 70B: intermediate_size = 3.5 × hidden (14336, 28672)
_DEFAULT_VOCAB = 128256  # Llama 3 tokenizer
_TIE_BELOW_B = 5.0  # Llama 3.2 1B/3B and Qwen2.5 ≤3B tie embeddings; 7B/8B and up do not
_DEFAULT_KV_HEADS = 8  # every Llama 3 size uses 8 KV heads
_DEFAULT_CONTEXT = 131072  # Llama 3.1 context
_TOLERANCE = 0.02  # custom counts must land within 2% of the size asked for


def _depth_for(params_b: float) -> int:
    """Layers for a model of `params_b` billions, from `_DEPTH_ANCHORS`."""
    return max(2, round(_depth_exact(params_b)))


def _depth_exact(params_b: float) -> float:
    """The family's depth before rounding to whole layers (log-linear between anchors)."""
    x = math.log(params_b)
    points = [(math.log(p), float(n)) for p, n in _DEPTH_ANCHORS]
    if x <= points[0][0]:
        (x0, y0), (x1, y1) = points[0], points[1]
    elif x >= points[-1][0]:
        (x0, y0), (x1, y1) = points[-2], points[-1]
    else:
        i = next(i for i in range(1, len(points)) if x <= points[i][0])
        (x0, y0), (x1, y1) = points[i - 1], points[i]
    return max(2.0, y0 + (y1 - y0) * (x - x0) / (x1 - x0))


def _round_to(value: float, multiple: int) -> int:
    return max(multiple, multiple * round(value / multiple))


def _attention_shape(
    hidden: int, heads: int | None, kv_heads: int | None, head_dim: int | None
) -> tuple[int, int, int]:
    """(heads, kv_heads, head_dim) for a hidden size, honouring whatever was given.

    Free head width follows Llama 3: 128, or 64 up to hidden 2048 (Llama-3.2-1B).
    Free KV heads: 8 as in Llama 3, else 4, 2 or 1, whichever divides heads (Qwen2.5-0.5B:
    14 heads, 2 KV heads).
    """
    if head_dim is None:
        if heads is not None:
            if hidden % heads:
                raise ValueError(
                    Notice(
                        "hidden (%(hidden)s) must be divisible by heads (%(heads)s)",
                        hidden=hidden, heads=heads,
                    )
                )  # fmt: skip
            head_dim = hidden // heads
        else:
            preferred = 64 if hidden <= 2048 else 128
            head_dim = next((d for d in (preferred, 128, 64, 32, 16, 8) if hidden % d == 0), hidden)
    if heads is None:
        heads = max(1, hidden // head_dim)
        if kv_heads is not None and heads % kv_heads:
            heads = kv_heads * math.ceil(heads / kv_heads)
    if kv_heads is None:
        kv_heads = next(d for d in (_DEFAULT_KV_HEADS, 4, 2, 1) if heads % d == 0)
    elif heads % kv_heads:
        raise ValueError(
            Notice(
                "kv_heads (%(kv_heads)s) must divide heads (%(heads)s)",
                kv_heads=kv_heads, heads=heads,
            )
        )  # fmt: skip
    return heads, kv_heads, head_dim


def _hidden_grid(heads: int | None, head_dim: int | None) -> list[int]:
    """Hidden sizes to search, ascending: multiples of the fixed head shape if one is given."""
    if heads is not None and head_dim is None:
        return [heads * d for d in range(8, 1025, 8)]
    if head_dim is not None and heads is None:
        return [head_dim * n for n in range(1, 2049)]
    # Steps chosen so the free head count (hidden / 64 up to 2048, / 128 above) is even,
    # then a multiple of 4, then of 8 — a prime head count would force MQA (1 KV head)
    # and understate the KV cache. The FFN solve absorbs the coarser steps.
    return [64, *range(128, 2049, 128), *range(2560, 8193, 512), *range(9216, 262145, 1024)]


def _nearest(candidates: list[int], total: Callable[[int], float], target: int) -> int:
    """The candidate whose `total` is nearest `target` (`total` increases with it)."""
    lo, hi = 0, len(candidates) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if total(candidates[mid]) < target:
            lo = mid + 1
        else:
            hi = mid
    best = [candidates[i] for i in (lo - 1, lo) if 0 <= i < len(candidates)]
    return min(best, key=lambda c: abs(math.log(total(c) / target)))


def _positive_int(name: str, value: int | None) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def from_param_count(
    params_b: float,
    *,
    layers: int | None = None,
    hidden: int | None = None,
    heads: int | None = None,
    kv_heads: int | None = None,
    head_dim: int | None = None,
    vocab: int | None = None,
    ffn_hidden: int | None = None,
    experts: int | None = None,
    experts_per_token: int | None = None,
    active_params_b: float | None = None,
    tied_embeddings: bool | None = None,
    max_context: int | None = None,
    name: str | None = None,
) -> ModelSpec:
    """A custom model of `params_b` billion parameters, its architecture inferred.

    The rule is the Llama 3 / Qwen2.5 family table: depth from `_DEPTH_ANCHORS` (log-linear
    in size; an MoE of E experts is as deep as a dense model of params_b / E), a Llama 3
    vocabulary of 128,256 tied below 5B, head width 128 (64 up to hidden 2048), 8 KV heads,
    a SwiGLU FFN of 3.5 × hidden. The hidden size is the grid value whose count, at the
    family's unrounded depth, is nearest the target (so it never steps down as the size
    grows); the FFN width is then solved so the count lands within 2% (count_params is
    linear in it), and depth is re-solved when that would push the FFN outside 2–6 × hidden.
    Explicit arguments win over the rule. With `experts` the model is
    a Mixtral-style MoE (every layer, top-2 unless `experts_per_token` or `active_params_b`
    says otherwise). When fixed fields make 2% unreachable, `params` is set to the size
    asked for and `notes` records the count of the architecture.
    """
    if isinstance(params_b, bool) or not isinstance(params_b, int | float):
        raise ValueError(f"params_b must be a number of billions, got {params_b!r}")
    if not math.isfinite(params_b) or params_b <= 0:
        raise ValueError(f"params_b must be a positive number of billions, got {params_b!r}")
    for key, value in (
        ("layers", layers),
        ("hidden", hidden),
        ("heads", heads),
        ("kv_heads", kv_heads),
        ("head_dim", head_dim),
        ("vocab", vocab),
        ("ffn_hidden", ffn_hidden),
        ("experts", experts),
        ("experts_per_token", experts_per_token),
        ("max_context", max_context),
    ):
        _positive_int(key, value)
    if active_params_b is not None and not (
        isinstance(active_params_b, int | float) and 0 < active_params_b <= params_b
    ):
        raise ValueError(f"active_params_b must be in (0, params_b], got {active_params_b!r}")

    target = round(params_b * 1e9)
    notes: list[str] = []
    if experts is None and active_params_b is not None and active_params_b < params_b * 0.98:
        experts = 8  # fewer active than total parameters means an MoE; assume Mixtral's 8
        notes.append("experts not given: 8 assumed (Mixtral layout) from active_params_b")
    n_experts = experts or 1
    top_k = experts_per_token or min(2, n_experts)
    n_vocab = vocab or _DEFAULT_VOCAB
    tied = tied_embeddings if tied_embeddings is not None else params_b < _TIE_BELOW_B
    # An MoE of E experts is as deep as a dense model of params_b / E (Mixtral 8x7B: 32
    # layers, like Mistral 7B).
    depth = layers or _depth_for(params_b / n_experts)

    def arch_for(width: int, ffn: int | None, n_layers: int) -> dict[str, Any]:
        h, kv, hd = _attention_shape(width, heads, kv_heads, head_dim)
        if ffn is None:
            ffn = _round_to(_FFN_RATIO * width, 256 if width >= 1024 else 64)
        moe = n_experts > 1
        return {
            "layers": n_layers,
            "hidden": width,
            "heads": h,
            "kv_heads": kv,
            "head_dim": hd,
            "ffn_hidden": ffn,
            "vocab": n_vocab,
            "tied_embeddings": tied,
            "experts": n_experts,
            "experts_per_token": top_k if moe else 1,
            "moe_ffn_hidden": ffn if moe else 0,
        }

    def total(arch: dict[str, Any]) -> int:
        return count_params(**arch)[0]

    # The width is chosen at the family's unrounded depth, so that it never steps down as
    # the size grows (at a rounded depth, each extra layer pulled the nearest width one grid
    # step down: 5.00B had hidden 3,584 and 5.01B 3,072); the whole layers come after.
    exact_depth = float(layers) if layers else _depth_exact(params_b / n_experts)

    def total_at_exact_depth(w: int) -> float:
        # count_params is linear in the layers: interpolate between the whole depths around
        low = math.floor(exact_depth)  # ≥ 1: _depth_exact is at least 2, `layers` positive
        a = total(arch_for(w, ffn_hidden, low))
        b = total(arch_for(w, ffn_hidden, low + 1))
        return a + (b - a) * (exact_depth - low)

    width = hidden or _nearest(_hidden_grid(heads, head_dim), total_at_exact_depth, target)
    arch = arch_for(width, ffn_hidden, depth)

    def solve_ffn(arch: dict[str, Any]) -> dict[str, Any]:
        # count_params is linear in the FFN width: two points give the exact solution.
        base = total({**arch, "ffn_hidden": 1, "moe_ffn_hidden": 1 if n_experts > 1 else 0})
        step = total({**arch, "ffn_hidden": 2, "moe_ffn_hidden": 2 if n_experts > 1 else 0})
        exact = max(1.0, 1 + (target - base) / (step - base))
        for multiple in (256, 64, 8, 1):
            ffn = _round_to(exact, multiple)
            trial = {**arch, "ffn_hidden": ffn, "moe_ffn_hidden": ffn if n_experts > 1 else 0}
            if abs(total(trial) / target - 1) <= _TOLERANCE / 4:
                return trial
        return trial

    if ffn_hidden is None:
        arch = solve_ffn(arch)
        ratio = arch["ffn_hidden"] / width
        if not 2 <= ratio <= 6 and layers is None:
            # The grid step or an override left too much (or too little) for the FFN:
            # re-solve depth at the family FFN ratio (linear in layers too), then the FFN.
            default = arch_for(width, None, 1)
            one, two = total(default), total({**default, "layers": 2})
            depth = max(1, round(1 + (target - one) / (two - one)))
            arch = solve_ffn(arch_for(width, None, depth))

    if n_experts > 1 and active_params_b is not None and experts_per_token is None:
        want = active_params_b * 1e9
        arch = min(
            ({**arch, "experts_per_token": k} for k in range(1, n_experts + 1)),
            key=lambda a: abs(count_params(**a)[1] - want),
        )

    params, active = count_params(**arch)
    if abs(params / target - 1) > _TOLERANCE:
        notes.append(
            f"the given architecture counts {params:,} parameters; {target:,} (as asked) used"
        )
        active = target if active == params else min(target, active)
        params = target
    if active_params_b is not None:
        want_active = round(active_params_b * 1e9)
        if abs(active / want_active - 1) > _TOLERANCE:
            notes.append(
                f"active parameters as asked ({want_active:,}); the shape gives {active:,}"
            )
            active = min(want_active, params)

    free = [
        key
        for key, value in (
            ("layers", layers),
            ("hidden", hidden),
            ("heads", heads),
            ("ffn_hidden", ffn_hidden),
        )
        if value is None
    ]
    if free:
        notes.insert(
            0, f"inferred from {params_b:g}B (Llama 3 / Qwen2.5 scaling): {', '.join(free)}"
        )
    spec = build_llm_spec(
        id="custom",
        name=name or f"Custom {params_b:g}B",
        family="custom",
        max_context=max_context or _DEFAULT_CONTEXT,
        published_params_b=float(params_b),
        published_active_params_b=float(active_params_b) if active_params_b else None,
        inferred=bool(free),
        source="custom size (from_param_count)",
        notes="; ".join(notes),
        **arch,
    )
    if (spec.params, spec.active_params) != (params, active):
        spec = replace(spec, params=params, active_params=active)
    return spec
