"""The estimate contract (PRODUCT.md §5): request and response models.

These Pydantic models are the API's JSON and the CLI's input alike. Every field states its
unit and allowed range; a value outside it is a 422 naming the field. Sizes are GB (10^9 B).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, model_validator

from app.engine.cost_schema import EstimateCostDoc, inline_schema
from app.engine.explain import Explanation
from app.engine.notices import Notice
from app.engine.strict_numbers import NumbersNotBooleans

Task = Literal["pretrain", "full_finetune", "lora", "qlora", "inference", "image"]
Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"]
KvDtype = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4"]
Recompute = Literal["none", "selective", "full"]
Interconnect = Literal["nvlink", "pcie", "infiniband", "roce", "ethernet"]
Optimizer = Literal["adamw", "adamw_8bit", "sgd", "adafactor"]
Tier = Literal["single_gpu", "multi_gpu", "multi_node"]
Currency = Literal["TWD", "USD"]

TRAINING_TASKS: frozenset[str] = frozenset({"pretrain", "full_finetune", "lora", "qlora"})


_SOURCES = ("preset", "params_b", "hf_config")
#: JSON Schema for "exactly one of preset / params_b / hf_config is given" (null = not given;
#: each property's own type is in `properties`). Written with `not null` rather than the
#: types again, so a client generator does not make a second model of each branch.
_ONE_SOURCE: list[Any] = [
    {
        "required": [given],
        "properties": {
            name: {"not": {"type": "null"}} if name == given else {"type": "null"}
            for name in _SOURCES
        },
    }
    for given in _SOURCES
]


class ModelInput(NumbersNotBooleans, BaseModel):
    """A preset id, a parameter count (architecture inferred unless given), or a config.json."""

    # allow_inf_nan=False: NaN, ±Infinity (and 1e400, which JSON parses to inf) are a 422.
    # The schema says what `_one_source` checks, so `{"model": {}}` is invalid by the
    # OpenAPI document too (issue 13): exactly one source, the other two absent or null.
    model_config = ConfigDict(
        extra="forbid", allow_inf_nan=False, json_schema_extra={"anyOf": _ONE_SOURCE}
    )

    # An id is short: a 100k-character one was echoed whole in its 422 (QA).
    preset: str | None = Field(None, max_length=100, description="Preset id, e.g. 'llama-3.1-70b'.")
    params_b: float | None = Field(
        None, ge=0.001, le=100_000, description="Total parameters, 10^9 (0.001 = 1M to 100T)."
    )
    layers: int | None = Field(None, ge=1, le=1_000)
    hidden: int | None = Field(None, ge=64, le=131_072)
    heads: int | None = Field(None, ge=1, le=1_024)
    kv_heads: int | None = Field(None, ge=1, le=1_024)
    vocab: int | None = Field(None, ge=2, le=2_000_000)
    ffn_hidden: int | None = Field(None, ge=64, le=1_048_576)
    experts: int | None = Field(None, ge=1, le=4_096)
    experts_per_token: int | None = Field(None, ge=1, le=256)
    active_params_b: float | None = Field(None, ge=0.001, le=100_000)
    hf_config: dict[str, Any] | None = Field(
        None,
        description="A pasted Hugging Face config.json (llama, mistral, qwen2, mixtral, "
        "gemma2, phi3, deepseek_v3).",
    )

    @model_validator(mode="after")
    def _one_source(self) -> ModelInput:
        given = [n for n in ("preset", "params_b", "hf_config") if getattr(self, n) is not None]
        if len(given) != 1:
            # Notices: an API answer or a page says them in the reader's language.
            if given:
                raise ValueError(
                    Notice(
                        "give one of preset, params_b or hf_config, not several (got %(given)s)",
                        given=", ".join(given),
                    )
                )
            raise ValueError(Notice("give exactly one of preset, params_b or hf_config"))
        if self.active_params_b and self.params_b and self.active_params_b > self.params_b:
            raise ValueError(
                Notice(
                    "active_params_b (%(active)s) must not exceed params_b (%(params)s)",
                    active=f"{self.active_params_b:g}", params=f"{self.params_b:g}",
                )
            )  # fmt: skip
        if self.experts_per_token and self.experts_per_token > (self.experts or 1):
            # A dense model (1 expert) routing to 2 was accepted and its MoE fields dropped
            # without a word (QA); each token's experts are chosen among `experts`.
            raise ValueError(
                Notice(
                    "experts_per_token (%(k)s) needs experts, the number each token's experts "
                    "are chosen from, of at least experts_per_token",
                    k=self.experts_per_token,
                )
                if self.experts is None
                else Notice(
                    "experts_per_token (%(k)s) must not exceed experts (%(experts)s)",
                    k=self.experts_per_token, experts=self.experts,
                )
            )  # fmt: skip
        if self.heads and self.kv_heads and self.heads % self.kv_heads:
            raise ValueError(
                Notice(
                    "heads (%(heads)s) must be a multiple of kv_heads (%(kv_heads)s)",
                    heads=self.heads, kv_heads=self.kv_heads,
                )
            )  # fmt: skip
        return self


class SloIn(NumbersNotBooleans, BaseModel):
    """Service-level targets every user must get: first token within `ttft_s`, then at
    least `tokens_per_s_per_user` tokens per second."""

    model_config = ConfigDict(extra="forbid")

    ttft_s: float | None = Field(None, gt=0, le=600, description="Time to first token, s.")
    tokens_per_s_per_user: float | None = Field(
        None, gt=0, le=10_000, description="Output tokens/s each user gets, at least."
    )


class EstimateRequest(NumbersNotBooleans, BaseModel):
    """A workload: what to run, how much data, how soon. Optional pins override the planner."""

    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,
        json_schema_extra={
            "examples": [
                {
                    "model": {"preset": "llama-3.1-8b"},
                    "task": "lora",
                    "precision": "bf16",
                    "seq_len": 4096,
                    "tokens": 2e8,
                    "dataset_gb": 1,
                    "deadline_days": 7,
                },
                {
                    "model": {"preset": "llama-3.1-70b"},
                    "task": "inference",
                    "precision": "fp8",
                    "concurrency": 64,
                    "avg_context_tokens": 2048,
                    "currency": "USD",
                },
            ]
        },
    )

    model: ModelInput
    task: Task
    precision: Precision = Field(
        "bf16",
        description="Weights/compute precision. Training: fp32, bf16, fp16 or fp8; "
        "inference also int8 and int4 (weight-only).",
    )
    seq_len: int = Field(4096, ge=16, le=1_048_576, description="Training sequence length, tokens.")
    micro_batch: int = Field(1, ge=1, le=4_096, description="Sequences per GPU per step.")
    global_batch: int | None = Field(
        None, ge=1, le=1_000_000, description="Sequences per optimizer step (default derived)."
    )
    tokens: float | None = Field(
        None,
        ge=0,
        le=1e17,
        description="Training tokens in total (all epochs); when given, it is the token "
        "count, and epochs × dataset_gb is not used for it.",
    )
    epochs: float | None = Field(
        None,
        ge=0.001,
        le=1_000,
        description="Passes over dataset_gb (the token count when `tokens` is not given).",
    )
    dataset_gb: float = Field(
        0,
        ge=0,
        le=1e8,
        description="Training data on disk, GB: sizes the storage, and with `epochs` the "
        "token count when `tokens` is not given. 0 (the default) is no dataset: a training "
        "task without `tokens` then plans an assumed token budget and says so in `warnings`.",
    )
    deadline_days: float | None = Field(None, ge=0.01, le=3_650, description="Finish within, days.")
    concurrency: int = Field(
        1,
        ge=1,
        le=10_000_000,
        description="Concurrent sequences served (not used when `users` is given).",
    )
    avg_context_tokens: int = Field(
        2048, ge=1, le=1_048_576, description="Prompt + output tokens held per sequence."
    )
    output_tokens: int = Field(256, ge=1, le=262_144, description="Output tokens per request.")
    users: int | None = Field(
        None, ge=1, le=10_000_000, description="Users served at once (default: concurrency)."
    )
    slo: SloIn | None = Field(None, description="Service-level targets (serving).")
    gpu_search: Literal["fleet", "cheapest"] = Field(
        "fleet",
        description="Serving without a pinned `gpu`: 'fleet' plans on the provider's GPU "
        "(another only when it cannot meet the targets); 'cheapest' takes the configuration "
        "with the lowest monthly rent (else the fewest GPUs) over every GPU that meets them.",
    )
    gpu_memory_utilization: float = Field(
        0.9,
        ge=0.1,
        le=0.99,
        description="Share of GPU memory the serving engine may use (vLLM default 0.9).",
    )
    images: int = Field(1_000, ge=1, le=1e9, description="Images to generate (task=image).")
    image_resolution: int = Field(1024, ge=256, le=4096, description="Image side, pixels.")
    image_steps: int = Field(30, ge=1, le=200, description="Diffusion steps per image.")
    images_per_hour: float | None = Field(
        None,
        gt=0,
        le=100_000_000,
        description="Target images per hour for an image service (task=image): the planner "
        "gives the GPUs that make them and prices the service by the month. Empty: a batch "
        "of `images`, priced by its duration.",
    )
    optimizer: Optimizer = "adamw"
    lora_rank: int = Field(16, ge=1, le=4_096)
    lora_targets: Literal["attention", "all_linear"] = "all_linear"
    kv_dtype: KvDtype | None = Field(
        None,
        description="KV-cache dtype (default: fp8 when precision is fp8 or fp4, as the engines "
        "that serve fp8 weights store their KV cache; bf16 otherwise).",
    )
    flash_attention: bool = True
    # Optional pins: the planner fills what is left out.
    gpu: str | None = Field(None, max_length=100, description="GPU id from GET /api/v1/gpus.")
    gpu_count: int | None = Field(None, ge=1, le=100_000)
    zero_stage: Literal[0, 1, 2, 3] | None = None
    tp: int | None = Field(None, ge=1, le=64, description="Tensor-parallel degree.")
    pp: int | None = Field(None, ge=1, le=512, description="Pipeline-parallel degree.")
    recompute: Recompute | None = None
    mfu: float | None = Field(
        None, ge=0.01, le=0.9, description="Model FLOPs utilisation, 0.01–0.9."
    )
    goodput: float | None = Field(
        None,
        ge=0.01,
        le=1,
        description="Share of wall time doing useful work (default: the Llama 3 "
        "interruption model; 1 ignores interruptions, as seed rule U1 does).",
    )
    interconnect: Interconnect | None = None
    utilization: float | None = Field(
        None, ge=0.01, le=1, description="Share of the month's hours the GPUs are busy, 0.01–1."
    )
    term_months: int | None = Field(None, ge=1, le=60, description="Contract length, months.")
    rent_months: float | None = Field(
        None,
        gt=0,
        le=120,
        description="Rent for: the rental period, months (default: the job's duration, "
        "rounded up to each option's billing unit — hours or whole months).",
    )
    pricing_mode: Literal["job", "capacity"] | None = Field(
        None,
        description="job: priced by the work's duration; capacity: an ongoing service priced "
        "per month (default: capacity for inference, job otherwise).",
    )
    currency: Currency = "TWD"

    # The checks across fields (a training precision, gpu_count against tp × pp, the batch
    # against the micro-batch) are made by app.engine.estimate (`_check_coherent`), which
    # names the field in the 422: a model validator here answered at loc ["body"] (QA).


# The response's parts are slots dataclasses rather than Pydantic models: the engine builds
# them itself, and Pydantic takes a dataclass instance as it is where a model would be built
# and validated field by field (several times the cost). The JSON, the OpenAPI schema and the
# parsing of stored responses are the same.


@dataclass(slots=True, kw_only=True)
class MemoryTerms:
    """Memory by term, GB. `total` is what nvidia-smi shows for the process (tensors, the
    caching allocator's reserve, the CUDA context, NCCL buffers); `allocated` the tensors
    alone, as torch.cuda.max_memory_allocated() reports (total − overhead)."""

    weights: Annotated[
        float, Field(description="Model weights, GB (as stored at the plan's precision).")
    ]
    gradients: Annotated[
        float,
        Field(description="Gradients, GB (0 when serving; LoRA and QLoRA: the adapters' only)."),
    ]
    optimizer: Annotated[
        float,
        Field(
            description="Optimizer state, GB (e.g. Adam's fp32 master weights, momentum, variance)."
        ),
    ]
    activations: Annotated[
        float,
        Field(
            description="Activations kept for the backward pass (serving and images: working buffers), GB."
        ),
    ]
    kv_cache: Annotated[
        float, Field(description="KV cache, GB (serving: every sequence held at once).")
    ]
    overhead: Annotated[
        float,
        Field(
            description="CUDA context, NCCL buffers and the caching allocator's reserve, GB: total − allocated."
        ),
    ]
    total: Annotated[
        float,
        Field(
            description="GB as nvidia-smi shows it: allocated tensors + the PyTorch caching "
            "allocator's reserve + CUDA context + NCCL buffers."
        ),
    ]
    allocated: Annotated[
        float | None,
        Field(
            description="GB of tensors only (weights, gradients, optimizer state, activations, "
            "KV cache), as torch.cuda.max_memory_allocated() reports; null in plans stored "
            "before this field existed."
        ),
    ] = None


@dataclass(slots=True, kw_only=True)
class MemoryGB(MemoryTerms):
    per_gpu: Annotated[
        float, Field(description="GB on the most loaded GPU: memory_per_gpu_gb.total.")
    ]


@dataclass(slots=True, kw_only=True)
class GpuOut:
    id: Annotated[str, Field(description="GPU id, as GET /api/v1/gpus lists them.")]
    name: Annotated[str, Field(description="GPU name (datasheet).")]
    count: Annotated[
        int, Field(description="GPUs the plan uses (1 for a MIG slice, with `fraction`).")
    ]
    nodes: Annotated[int, Field(description="Servers those GPUs sit in.")]
    memory_gb: Annotated[float, Field(description="Memory of one GPU, GB.")]
    fraction: Annotated[float | None, Field(description="MIG share of one GPU when under 1.")] = (
        None
    )


@dataclass(slots=True, kw_only=True)
class ParallelismOut:
    dp: Annotated[
        int,
        Field(
            description="Data-parallel degree: copies of the model (training ranks; serving replicas)."
        ),
    ]
    tp: Annotated[
        int,
        Field(
            description="Tensor-parallel degree: GPUs each layer is split over, inside one NVLink machine."
        ),
    ]
    pp: Annotated[
        int, Field(description="Pipeline-parallel degree: stages the layers are split into.")
    ]
    ep: Annotated[
        int,
        Field(
            description="Expert-parallel degree (MoE training): the routed experts are split "
            "over this many of the dp ranks; 1 for dense models and serving."
        ),
    ]
    zero_stage: Annotated[
        int,
        Field(
            description="ZeRO stage, 0–3: 1 shards optimizer state, 2 also gradients, 3 also weights."
        ),
    ]
    recompute: Annotated[
        Recompute,
        Field(description="Activation recomputation: none, selective (attention) or full."),
    ]
    micro_batch: Annotated[int, Field(description="Sequences each GPU runs per forward pass.")]
    global_batch: Annotated[
        int,
        Field(
            description="Sequences per optimizer step: dp × micro_batch × gradient_accumulation."
        ),
    ]
    gradient_accumulation: Annotated[
        int, Field(description="Micro-batches each data-parallel rank accumulates per step.")
    ]


@dataclass(slots=True, kw_only=True)
class CurvePoint:
    """One point of the planner's scaling curve: days and GPU-hours at a GPU count."""

    gpus: int
    days: float
    gpu_hours: float


@dataclass(slots=True, kw_only=True)
class Uncertainty:
    """The error band of a figure: median |error| of its validation category (as a
    percentage, exp(median |log error|) − 1) over `runs` published runs."""

    median_pct: float
    runs: int
    category: str = ""


@dataclass(slots=True, kw_only=True)
class TrainingOut:
    flops: Annotated[
        float,
        Field(
            description="Model FLOPs of the whole run, FLOP (recomputation not counted: it enters `mfu`)."
        ),
    ]
    tokens: Annotated[float, Field(description="Tokens trained on, epochs included.")]
    gpu_hours: Annotated[float, Field(description="GPU-hours: days × 24 × GPUs.")]
    days: Annotated[
        float,
        Field(
            description="Wall-clock days, interruptions included: flops / (GPUs × dense peak × mfu × goodput) / 86,400."
        ),
    ]
    mfu: Annotated[
        float,
        Field(
            description="Model FLOPs utilisation, 0–1: model FLOPs / (GPUs × dense peak × wall-clock time excluding interruptions)."
        ),
    ]
    tokens_per_s: Annotated[float, Field(description="Tokens per second of all the plan's GPUs.")]
    meets_deadline: Annotated[
        bool | None,
        Field(description="Whether `days` ≤ the request's deadline_days; null without a deadline."),
    ]
    goodput: Annotated[
        float,
        Field(
            description="Share of wall-clock time doing useful work, 0–1 (failures' restarts and lost steps excluded)."
        ),
    ] = 1.0
    fits: Annotated[
        bool,
        Field(
            description="Whether the chosen layout fits in every GPU's memory. False: the "
            "figures are those of the most frugal layout the pins allow, which overflows; the "
            "plan cannot run as shown, is not priced, and `meets_deadline` is false."
        ),
    ] = True
    uncertainty: Annotated[
        Uncertainty | None,
        Field(
            description="Error band of `days` and `gpu_hours`: median |error| of the published "
            "runs of this category (GET /api/v1/validation); null when none ran on this GPU."
        ),
    ] = None
    deadline_margin: Annotated[
        bool | None,
        Field(
            description="Whether the deadline is met even at the slow end of the error band: "
            "days × (1 + uncertainty.median_pct) ≤ deadline_days. False: `meets_deadline` "
            "holds only if the estimate is not slower than published runs of its kind "
            "usually are (a warning names the count that leaves that margin); null without a "
            "deadline it meets or without a band."
        ),
    ] = None
    memory_uncertainty: Annotated[
        Uncertainty | None,
        Field(
            description="Error band of memory per GPU; null: the validation table has no "
            "published memory measurement of this category to check it against."
        ),
    ] = None
    curve: Annotated[
        list[CurvePoint],
        Field(
            description="Days and GPU-hours on the chosen GPU from the smallest fitting count "
            "up to 4× the chosen one (at least 8 GPUs): the planner's own search."
        ),
    ] = field(default_factory=list)


@dataclass(slots=True, kw_only=True)
class ServingPointOut:
    """One point of the serving curve: what each user gets at a concurrency per replica."""

    concurrency: Annotated[int, Field(description="Sequences decoding at once on one replica.")]
    tokens_per_s_per_user: Annotated[
        float, Field(description="Output tokens/s each sequence receives.")
    ]
    tokens_per_s: Annotated[float, Field(description="Output tokens/s of the replica.")]
    ttft_s: Annotated[float, Field(description="Seconds to the first token.")]


@dataclass(slots=True, kw_only=True)
class UncertaintyOut:
    """Median |error| of the engine on published runs of this kind (validation table)."""

    median_pct: float
    runs: int


@dataclass(slots=True, kw_only=True)
class InferenceOut:
    max_concurrency: Annotated[
        int,
        Field(
            description="Sequences the whole deployment's KV cache holds at once: "
            "max_concurrency_per_replica × replicas (task=image: the plan's GPU count)."
        ),
    ]
    tokens_per_s: Annotated[
        float, Field(description="Output tokens/s of all replicas at the requested load.")
    ]
    tokens_per_s_per_user: Annotated[
        float, Field(description="Output tokens/s each user (sequence) receives at that load.")
    ]
    time_to_first_token_s: Annotated[
        float, Field(description="Seconds from a request to its first output token at that load.")
    ]
    cost_per_million_tokens: Annotated[
        float | None,
        Field(
            description="Money per 1M output tokens at the cheapest option, in the request's currency, excl. tax; null when unpriced."
        ),
    ]
    replicas: Annotated[
        int, Field(description="Copies of the model serving, each on tp × pp GPUs.")
    ]
    images_per_hour: Annotated[
        float | None, Field(description="Images per hour of all the plan's GPUs (task=image).")
    ] = None
    images_per_hour_per_gpu: Annotated[
        float | None, Field(description="Images per hour of one GPU (task=image).")
    ] = None
    seconds_per_image: Annotated[
        float | None, Field(description="Seconds one GPU spends on one image (task=image).")
    ] = None
    batch_hours: Annotated[
        float | None, Field(description="Hours the plan's GPUs take for `images` images.")
    ] = None
    cost_per_image: Annotated[
        float | None,
        Field(description="Money per image at the cheapest option, in the request's currency."),
    ] = None
    meets_images_per_hour: Annotated[
        bool | None, Field(description="The GPUs make the target `images_per_hour` (if any).")
    ] = None
    itl_s: Annotated[
        float | None,
        Field(
            description="Seconds between two output tokens of one sequence (inter-token latency)."
        ),
    ] = None
    meets_slo: Annotated[
        bool | None,
        Field(
            description="Whether every user gets the request's slo targets; null without targets."
        ),
    ] = None
    fits: Annotated[
        bool,
        Field(
            description="Whether the model fits in each GPU's memory with room for one "
            "sequence of KV cache (task=image: one pipeline per GPU). False: the plan cannot "
            "run as shown and is not priced."
        ),
    ] = True
    concurrency_per_replica: Annotated[
        int | None, Field(description="Users one replica holds with every user at the targets.")
    ] = None
    max_concurrency_per_replica: Annotated[
        int | None, Field(description="Sequences one replica's KV cache holds at once.")
    ] = None
    offline_tokens_per_s: Annotated[
        float | None, Field(description="Max-load (MLPerf Offline) output tokens/s, all replicas.")
    ] = None
    cost_per_million_input_tokens: Annotated[
        float | None,
        Field(
            description="The same monthly cost per 1M prompt tokens, in the request's currency, excl. tax: another view of cost_per_million_tokens, not to be added to it."
        ),
    ] = None
    uncertainty: Annotated[
        UncertaintyOut | None,
        Field(
            description="Error band of the serving figures: median |error| on published runs (GET /api/v1/validation)."
        ),
    ] = None
    curve: Annotated[
        list[ServingPointOut],
        Field(
            description="One replica's operating points: what each user gets as concurrency grows."
        ),
    ] = field(default_factory=list)


@dataclass(slots=True, kw_only=True)
class NetworkOut:
    uplink_gbps: Annotated[float, Field(description="Internet uplink, Gbit/s.")]
    transfer_hours: Annotated[
        float, Field(description="Hours to bring the dataset in over that uplink.")
    ]
    internal: Annotated[
        str, Field(description="Network inside a server (GPU to GPU, and to the storage).")
    ]
    scale_out: Annotated[
        str | None, Field(description="Network between servers; null on one server.")
    ]
    rails: Annotated[int, Field(description="Scale-out links per server.")]


@dataclass(slots=True, kw_only=True)
class InfraOut:
    nodes: Annotated[int, Field(description="Servers.")]
    gpus_per_node: Annotated[int, Field(description="GPUs per server.")]
    cpu_cores: Annotated[int, Field(description="CPU cores, all servers.")]
    cpu_cores_per_node: Annotated[int, Field(description="CPU cores per server.")]
    ram_gb: Annotated[
        int, Field(description="System memory, GB, all servers (2× the GPUs' memory).")
    ]
    ram_gb_per_node: Annotated[int, Field(description="System memory per server, GB.")]
    nvme_tb: Annotated[float, Field(description="Local NVMe, TB, all servers (the hot tier).")]
    nvme_tb_per_node: Annotated[float, Field(description="Local NVMe per server, TB.")]
    nas_tb: Annotated[float, Field(description="Shared storage (NAS, the warm tier), TB.")]
    checkpoint_gb: Annotated[float, Field(description="One checkpoint, GB.")]
    checkpoint_kind: Annotated[
        str,
        Field(
            description="What a checkpoint holds: resumable (weights and optimizer state) or weights only."
        ),
    ]
    network: Annotated[
        NetworkOut, Field(description="Networks inside and between servers, and the uplink.")
    ]
    power_kw: Annotated[
        float, Field(description="Rated IT power of the servers, kW (their maximum draw).")
    ]
    power_typical_kw: Annotated[float, Field(description="Typical IT power under load, kW.")]
    cooling: Annotated[str, Field(description="How the heat is removed (English).")]
    cooling_btu_h: Annotated[
        float, Field(description="Heat to remove, BTU/h: power_kw × 3,412.14.")
    ]
    storage_tiers: Annotated[
        list[dict[str, Any]],
        Field(description="Storage tiers (hot, warm, cold): what each is and its size in TB."),
    ]


@dataclass(slots=True, kw_only=True)
class NoticeOut:
    """A warning as a translatable template (English, %(name)s placeholders) and its values."""

    template: str
    params: dict[str, str]


@dataclass(slots=True, kw_only=True)
class CandidateOut:
    gpu: str
    count: int
    feasible: bool
    days: float | None
    per_gpu_gb: float | None
    reason: str = ""


class EstimateResponse(BaseModel):
    model: dict[str, Any]
    task: Task
    precision: Precision
    tier: Tier
    gpu: GpuOut
    parallelism: ParallelismOut
    memory_gb: MemoryGB
    memory_per_gpu_gb: MemoryTerms
    training: TrainingOut | None
    inference: InferenceOut | None
    infra: InfraOut
    # A dict to every reader; its shape published for integrators (app.engine.cost_schema).
    cost: Annotated[
        dict[str, Any] | None,
        WithJsonSchema({"anyOf": [inline_schema(EstimateCostDoc), {"type": "null"}]}),
    ]
    warnings: list[str]
    notices: list[NoticeOut] = Field(
        default_factory=list,
        description="The warnings again, as gettext templates and values for translation.",
    )
    explain: list[Explanation]
    candidates: list[CandidateOut]
