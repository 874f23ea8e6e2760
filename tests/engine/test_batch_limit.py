"""An unpinned pre-training batch grows with the data-parallel width only up to the
compute-optimal batch (QA M2, 2026-12-01).

Before: nothing bounded it, so the planner preferred pure data parallelism at any scale —
Llama 3.1 405B on 16,384 H100 ran 16,384 sequences of 8,192 tokens per step (134M tokens),
twice the compute-optimal batch and eight times Llama 3's 16M. The bound is DeepSeek LLM's
fit (Bi et al. 2024, arXiv:2401.02954 §3.1 eq. 1): B_opt = 0.2920 · C^0.3271 tokens, C the
training compute in FLOPs. Layouts that keep the batch within it are preferred; one beyond it
is chosen only when none within it fits in memory, and the answer says so.
"""

from __future__ import annotations

import pytest

from app.engine import compute
from app.engine.architectures import get_preset
from app.engine.training import compute_optimal_batch_tokens
from tests.engine.helpers import est, rel


def test_the_compute_optimal_batch_is_deepseeks_fit() -> None:
    # Hand calculation: 0.2920 × (1e24)^0.3271 = 0.2920 × 10^7.8504 = 0.2920 × 7.087e7
    # = 2.069e7 tokens.
    assert rel(compute_optimal_batch_tokens(1e24), 2.069e7) < 1e-3


def test_405b_on_16k_gpus_keeps_the_batch_within_the_compute_optimal_one() -> None:
    r = est("llama-3.1-405b", task="pretrain", tokens=15.6e12, seq_len=8192,
            gpu="h100-sxm-80gb", gpu_count=16_384)  # fmt: skip
    assert r.training is not None
    flops = compute.training_flops_value(
        get_preset("llama-3.1-405b"), tokens=15.6e12, seq_len=8192, task="pretrain"
    )
    limit = compute_optimal_batch_tokens(flops) / 8192  # ≈ 8,400 sequences of 8,192 tokens
    p = r.parallelism
    assert p.global_batch <= limit
    assert p.global_batch == p.dp * p.micro_batch * p.gradient_accumulation
    assert p.tp * p.pp > 1  # pure data parallelism (16,384 sequences per step) exceeds it
    assert any(
        "within the compute-optimal batch of" in w and "DeepSeek LLM 2024" in w for w in r.warnings
    )


def test_a_default_batch_that_fits_is_unchanged() -> None:
    # Llama 2 7B on 2T tokens: C ≈ 8.7e22 FLOP gives B_opt ≈ 9.3M tokens, above the default
    # 4M; a deadline met on 512 A100 with dp 512 runs the default 1,024 × 4,096 tokens.
    r = est("llama-2-7b", task="pretrain", tokens=2e12, seq_len=4096, gpu="a100-sxm-80gb",
            gpu_count=512)  # fmt: skip
    assert r.parallelism.global_batch == 1024
    assert not any("compute-optimal batch" in w for w in r.warnings)


def test_a_batch_past_the_limit_only_when_nothing_within_it_fits() -> None:
    # TP 1 and PP 1 pinned leave data parallelism as the only way to use 8,192 GPUs: each step
    # runs 8,192 sequences of 2,048 tokens (16.8M) while Llama 3.2 1B on 1e11 tokens
    # (C ≈ 7.8e20 FLOP, B_opt ≈ 2.0M tokens) allows max(1,953 default, 973) = 1,953.
    r = est("llama-3.2-1b", task="pretrain", tokens=1e11, seq_len=2048, gpu="h100-sxm-80gb",
            gpu_count=8192, tp=1, pp=1)  # fmt: skip
    assert r.parallelism.dp == 8192 and r.parallelism.global_batch == 8192
    assert any("past the compute-optimal batch of" in w for w in r.warnings)


@pytest.mark.parametrize("task", ["full_finetune", "lora"])
def test_fine_tuning_batches_still_grow_with_a_notice(task: str) -> None:
    # The law was fitted on pre-training: a fine-tune's batch is not bounded by it, and a
    # batch past twice the recipe's 64 sequences is said, as before.
    r = est("llama-2-7b", task=task, tokens=1e9, seq_len=4096, gpu="h100-sxm-80gb",
            gpu_count=256)  # fmt: skip
    assert r.parallelism.global_batch == 256
    assert any("A batch this large may need more tokens" in w for w in r.warnings)


def test_a_pipeline_fills_up_to_the_compute_optimal_batch() -> None:
    # Llama 3.1 405B, TP 8 × PP 16 on 16,384 H100 (Llama 3's own layout, Table 4): 128
    # data-parallel pipelines of micro-batch 1. At the default 4M tokens (488 sequences) each
    # ran m = ceil(488 / 128) = 4 micro-batches and its bubble (16 − 1)/(v · 4) idled it;
    # the batch may grow to B_opt = 6.89e7 tokens = 8,411 sequences of 8,192, so
    # m = 8,411 // 128 = 65 and each step runs 128 × 65 = 8,320 sequences (68.2M tokens).
    r = est("llama-3.1-405b", task="pretrain", tokens=15.6e12, seq_len=8192,
            gpu="h100-sxm-80gb", gpu_count=16_384, tp=8, pp=16)  # fmt: skip
    p = r.parallelism
    assert (p.dp, p.gradient_accumulation, p.global_batch) == (128, 65, 8320)
    mfu = next(e for e in r.explain if e.figure == "training.mfu")
    assert "p=16, v=4, m=65" in mfu.formula
    assert any("65 micro-batches of 1 on each of 128 data-parallel pipelines" in w
               for w in r.warnings)  # fmt: skip
    # A pinned batch is kept: 16M tokens = 1,953 sequences → m = ceil(1,953 / 128) = 16.
    pinned = est("llama-3.1-405b", task="pretrain", tokens=15.6e12, seq_len=8192,
                 gpu="h100-sxm-80gb", gpu_count=16_384, tp=8, pp=16,
                 global_batch=1953)  # fmt: skip
    assert pinned.parallelism.gradient_accumulation == 16
    # Fine-tuning has no limit (the law was fitted on pre-training): nothing fills.
    ft = est("llama-3.1-70b", task="full_finetune", tokens=1e9, seq_len=4096,
             gpu="h100-sxm-80gb", gpu_count=64, tp=8, pp=4)  # fmt: skip
    assert ft.parallelism.gradient_accumulation == -(-64 // ft.parallelism.dp)
