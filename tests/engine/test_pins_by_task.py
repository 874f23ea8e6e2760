"""A field the chosen task cannot honour is refused, naming the field; never dropped.

Pins are pins: a value the request gives is kept, or the request is a 422 on that field that
says what is allowed. QA (2026-12) found POST /api/v1/estimate planning on while it silently
changed or ignored these values; each case below is one of its requests.

What the serving and image planners model (app.engine.serving, app.engine.image): a serving
replica is `tp` GPUs with no pipeline stages; an image model runs one copy per GPU. Context
limits are the model's `max_position_embeddings` (config.json; `ModelSpec.max_context`).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.estimate import InputError, estimate
from app.engine.schemas import EstimateRequest

H100 = "h100-sxm-80gb"
LLAMA_8B = {"preset": "llama-3.1-8b"}  # 32 query heads, 8 KV heads, 131,072-token context
SERVE = {"model": LLAMA_8B, "task": "inference"}
LORA = {"model": LLAMA_8B, "task": "lora", "tokens": 1e8}
FLUX = {"model": {"preset": "flux-1-dev"}, "task": "image"}


def refusal(body: dict[str, Any]) -> InputError:
    with pytest.raises(InputError) as err:
        estimate(EstimateRequest(**body), search_all=False)
    return err.value


# ----------------------------------------------------------------- serving has no pipeline


def test_serving_refuses_pipeline_stages_and_names_the_tp_that_would_split_the_heads() -> None:
    # QA: returned tp 2, pp 1 — the pinned pp 2 folded into TP without a word.
    err = refusal({**SERVE, "concurrency": 10, "gpu": H100, "gpu_count": 2, "pp": 2})
    assert err.field == "pp"
    assert "pipeline parallelism is not modelled for serving" in str(err)
    # 32 query heads and 8 KV heads split over 1, 2, 4 or 8 GPUs of one 8-GPU HGX node.
    assert "pin tp instead, one of 1, 2, 4, 8" in str(err)


def test_serving_takes_pp_1_as_no_pipeline() -> None:
    r = estimate(EstimateRequest(**SERVE, gpu=H100, gpu_count=2, tp=2, pp=1), search_all=False)
    assert (r.parallelism.tp, r.parallelism.pp) == (2, 1)


# ------------------------------------------------------- image: one model copy per GPU


@pytest.mark.parametrize(
    ("pin", "words"),
    [
        # QA: returned tp 1, dp 2 for a pinned tp 2.
        ({"tp": 2}, "tensor parallelism is not modelled"),
        ({"pp": 2}, "pipeline parallelism is not modelled"),
    ],
)
def test_image_generation_refuses_model_parallel_pins(pin: dict[str, int], words: str) -> None:
    err = refusal({**FLUX, "gpu": H100, "gpu_count": 2, **pin})
    assert err.field == next(iter(pin))
    assert "image generation runs one model copy per GPU" in str(err) and words in str(err)


def test_image_generation_keeps_tp_1_and_its_gpu_count() -> None:
    r = estimate(EstimateRequest(**FLUX, gpu=H100, gpu_count=2, tp=1), search_all=False)
    assert (r.gpu.count, r.parallelism.tp) == (2, 1)


# ------------------------------------------------- training fields on serving and images

TRAINING_ONLY: list[tuple[str, Any]] = [
    # QA: each was accepted on task inference and the answer was the same without it.
    ("zero_stage", 3),
    ("recompute", "full"),
    ("mfu", 0.5),
    ("micro_batch", 4),
    ("global_batch", 64),
    ("seq_len", 8192),
    ("tokens", 1e9),
    ("goodput", 0.9),
    ("optimizer", "sgd"),
    ("lora_rank", 64),
    ("lora_targets", "attention"),
]


@pytest.mark.parametrize(("field", "value"), TRAINING_ONLY)
@pytest.mark.parametrize("base", [SERVE, FLUX], ids=["inference", "image"])
def test_a_training_field_on_serving_or_images_is_refused(
    base: dict[str, Any], field: str, value: Any
) -> None:
    err = refusal({**base, field: value})
    assert err.field == field
    assert "applies to training tasks only (pretrain, full_finetune, lora, qlora)" in str(err)


def test_training_fields_at_their_defaults_are_not_given() -> None:
    # Saved plans store the whole request (defaults included) and the CLI sends seq_len 4096
    # and micro_batch 1 for every task: those are no pins.
    saved = EstimateRequest(**SERVE).model_dump(mode="json")
    assert saved["seq_len"] == 4096 and saved["micro_batch"] == 1
    assert estimate(EstimateRequest.model_validate(saved), search_all=False).inference


@pytest.mark.parametrize(
    ("field", "value"),
    [
        # Read by the serving and image plans: the data on disk sizes NVMe and the uplink,
        # and an image batch meets its deadline.
        ("dataset_gb", 50),
        ("deadline_days", 3),
        # The planner form sends 2 for every task (its opening example) and saved plans
        # carry it: refusing it would fail every saved serving plan on repricing.
        ("epochs", 2),
    ],
)
def test_fields_serving_also_reads_or_forms_always_send_stay_accepted(
    field: str, value: Any
) -> None:
    assert estimate(EstimateRequest(**SERVE, **{field: value}), search_all=False).inference


# ------------------------------------------------------- serving fields on other tasks


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("slo", {"ttft_s": 1}),
        ("kv_dtype", "fp8"),
        ("gpu_search", "cheapest"),
        ("gpu_memory_utilization", 0.5),
    ],
)
@pytest.mark.parametrize("base", [LORA, FLUX], ids=["lora", "image"])
def test_a_serving_field_on_training_or_images_is_refused(
    base: dict[str, Any], field: str, value: Any
) -> None:
    err = refusal({**base, field: value})
    assert err.field == field
    assert "applies to serving a language model (task inference) only" in str(err)


def test_serving_fields_the_planner_form_always_sends_stay_accepted_on_training() -> None:
    # The planner form sends users = concurrency = 64, a 2,048-token context and 256 output
    # tokens whatever the task (hidden inputs with defaults), and saved plans carry them.
    r = estimate(
        EstimateRequest(**LORA, concurrency=64, users=64, avg_context_tokens=2048,
                        output_tokens=256),
        search_all=False,
    )  # fmt: skip
    assert r.training is not None


# --------------------------------------------------------------- NVLink only where it is


@pytest.mark.parametrize(
    ("body", "gpu"),
    [
        # QA: accepted, and training ran at NVLink speed while infra said PCIe.
        (LORA, "l40s-48gb"),
        ({**LORA, "task": "full_finetune"}, "rtx-4090-24gb"),
        (SERVE, "l40s-48gb"),
    ],
)
def test_nvlink_on_a_gpu_without_it_is_refused(body: dict[str, Any], gpu: str) -> None:
    err = refusal({**body, "gpu": gpu, "gpu_count": 2, "interconnect": "nvlink"})
    assert err.field == "interconnect"
    assert "has no NVLink: choose pcie within a node, or infiniband, roce or ethernet" in str(err)


def test_nvlink_on_an_nvlink_gpu_and_pcie_anywhere_are_kept() -> None:
    for gpu, link in ((H100, "nvlink"), ("l40s-48gb", "pcie")):
        r = estimate(
            EstimateRequest(**LORA, gpu=gpu, gpu_count=2, interconnect=link), search_all=False
        )
        assert r.training is not None and r.gpu.id == gpu


# ------------------------------------------------------------ the model's context window


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        # QA: a 1,048,576-token context was planned for a 131,072-token model.
        ({**SERVE, "avg_context_tokens": 1_048_576}, "avg_context_tokens",
         "avg_context_tokens 1,048,576 exceeds the 131,072-token context of Llama 3.1 8B: "
         "give 1–131,072"),
        ({**LORA, "task": "full_finetune", "seq_len": 1_048_576}, "seq_len",
         "seq_len 1,048,576 exceeds the 131,072-token context of Llama 3.1 8B: give 16–131,072"),
        # Llama 2 has 4,096 positions (its config.json max_position_embeddings).
        ({**LORA, "model": {"preset": "llama-2-7b"}, "seq_len": 8192}, "seq_len",
         "exceeds the 4,096-token context of Llama 2 7B"),
    ],
)  # fmt: skip
def test_a_context_beyond_the_models_maximum_is_refused(
    body: dict[str, Any], field: str, words: str
) -> None:
    err = refusal(body)
    assert err.field == field
    assert words in str(err)


def test_the_full_context_is_allowed() -> None:
    r = estimate(EstimateRequest(**SERVE, avg_context_tokens=131_072), search_all=False)
    assert r.inference is not None


def test_a_size_only_model_has_no_known_context_to_refuse() -> None:
    # From a parameter count the context (131,072) is assumed, not the model's: not a limit.
    r = estimate(
        EstimateRequest(model={"params_b": 8}, task="inference", avg_context_tokens=262_144),
        search_all=False,
    )
    assert r.inference is not None


def test_a_default_sequence_length_follows_a_shorter_model_context() -> None:
    # GPT-3 175B has 2,048 positions (Brown et al. 2020, Table 2.1 n_ctx); the default
    # seq_len is 4,096. Left at its default it is no pin: the plan trains at 2,048 instead of
    # refusing a field the request never set. Given explicitly, 4,096 is refused above.
    body = {"model": {"preset": "gpt-3-175b"}, "task": "pretrain", "tokens": 3e11,
            "gpu": "a100-sxm-80gb", "gpu_count": 1024}  # fmt: skip
    r = estimate(EstimateRequest(**body), search_all=False)
    assert r.training is not None and r.training.days > 0
    flops = next(e for e in r.explain if e.figure == "training.flops")
    # Attention's FLOPs per token and pass, 2 · L · s · d_attn (the formula's term, times 3
    # passes), at L = 96 layers, d = 12,288 (Table 2.1) and s = 2,048 (4,096 would double it).
    attention = next(o.value for o in flops.operands if o.name == "attention")
    assert attention == pytest.approx(2 * 96 * 2048 * 12288)


def test_serving_refuses_a_tp_that_does_not_split_the_heads() -> None:
    # QA: tp 3 on Llama 3.1 8B (32 query heads, 8 KV heads) was kept and sized; vLLM, like
    # Megatron-LM, shards whole heads. 1, 2, 4 and 8 split both.
    err = refusal({**SERVE, "concurrency": 10, "gpu": H100, "gpu_count": 3, "tp": 3})
    assert err.field == "tp"
    assert "tp 3 does not split the 32 attention heads (8 KV heads)" in str(err)
    assert "choose one of 1, 2, 4, 8" in str(err)
