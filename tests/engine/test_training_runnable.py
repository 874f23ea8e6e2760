"""A training plan says whether it can run, refuses layouts no framework runs, and reports
the batch it actually runs (QA of issue 11's figures, 2026-12-01).

Memory figures come from the engine's own per-GPU sum (its explanation is checked elsewhere);
these tests pin what the answer *does* with them: a plan over the GPU's memory meets no
deadline and is not priced, a search that no count can satisfy stops where more GPUs stop
helping, and every refusal names its field.
"""

from __future__ import annotations

import pytest

from app.catalog.shipped import shipped_price_book
from app.engine.estimate import InputError, estimate
from app.engine.schemas import EstimateRequest
from tests.engine.helpers import est


def _priced(**body: object) -> object:
    return estimate(EstimateRequest(**body), prices=shipped_price_book(), search_all=False)


def test_a_plan_over_memory_meets_no_deadline_and_is_not_priced() -> None:
    # 70B full fine-tuning without recomputation on 8 × H100: 163 GB per 80 GB GPU.
    r = _priced(
        model={"preset": "llama-3.1-70b"}, task="full_finetune", tokens=1e9,
        gpu="h100-sxm-80gb", gpu_count=8, recompute="none", deadline_days=14,
    )  # fmt: skip
    assert r.training is not None
    assert r.memory_per_gpu_gb.total > r.gpu.memory_gb
    assert r.training.fits is False
    assert r.training.meets_deadline is False
    assert r.cost is None
    assert any("is not priced" in w for w in r.warnings)
    # The pins stay; no layout fits on 8 GPUs, so the answer names the count that would.
    assert r.gpu.count == 8 and r.parallelism.recompute == "none"
    assert any(w.startswith("The pins are kept as asked. What would fit: 24 ×") for w in r.warnings)


def test_a_plan_that_fits_is_priced_and_says_so() -> None:
    r = _priced(model={"preset": "llama-3.1-8b"}, task="lora", tokens=1e8, gpu="h100-sxm-80gb")
    assert r.training is not None and r.training.fits is True
    assert r.cost is not None and r.cost["options"]


def test_when_no_count_fits_the_search_stops_where_more_gpus_stop_helping() -> None:
    # 8B LoRA with 16 sequences of 4,096 tokens per micro-batch on 24 GB cards: activations
    # do not shard over data parallelism, so past some count the most-loaded GPU stays put.
    r = est("llama-3.1-8b", task="lora", tokens=1e8, gpu="rtx-4090-24gb", micro_batch=16)
    assert r.training is not None and r.training.fits is False
    assert r.gpu.count < 32_768  # not the search's cap
    doubled = est(
        "llama-3.1-8b", task="lora", tokens=1e8, gpu="rtx-4090-24gb", micro_batch=16,
        gpu_count=r.gpu.count * 2,
    )  # fmt: skip
    # Twice the GPUs lower the most-loaded GPU by at most 1%: the count is past the plateau.
    assert doubled.memory_per_gpu_gb.total >= 0.99 * r.memory_per_gpu_gb.total
    assert any(w.startswith("No number of NVIDIA GeForce RTX 4090") for w in r.warnings)
    # One sequence per micro-batch fits on two cards (the engine's own search says so).
    fit = est("llama-3.1-8b", task="lora", tokens=1e8, gpu="rtx-4090-24gb", micro_batch=1)
    assert fit.training is not None and fit.training.fits
    assert any(
        w.startswith("What would fit: one sequence per micro-batch, on "
                     f"{fit.gpu.count} × NVIDIA GeForce RTX 4090")
        for w in r.warnings
    )  # fmt: skip


def test_when_no_count_fits_a_pinned_replica_the_count_shown_holds_whole_replicas() -> None:
    # 405B at 32,768 tokens a sequence, 8 a micro-batch, no recomputation: nothing fits a
    # 24 GB card. With TP 1 × PP 3 pinned on nodes of 4 the counts shown are whole nodes of
    # whole replicas (multiples of lcm(4, 3) = 12), so the layout uses every GPU of the
    # count (a count of 32,768 with PP 5 showed dp 819: 32,760 GPUs).
    r = est("llama-3.1-405b", task="full_finetune", tokens=1e8, gpu="rtx-4090-24gb", tp=1, pp=3,
            seq_len=32768, micro_batch=8, recompute="none")  # fmt: skip
    assert r.training is not None and r.training.fits is False
    lay = r.parallelism
    assert (lay.tp, lay.pp) == (1, 3)
    assert lay.dp * lay.tp * lay.pp == r.gpu.count and r.gpu.count % 12 == 0
    assert any(w.startswith("No number of NVIDIA GeForce RTX 4090") for w in r.warnings)


def test_a_pinned_count_that_is_too_small_gets_what_would_fit() -> None:
    r = est("llama-3.1-70b", task="full_finetune", tokens=1e9, gpu="h100-sxm-80gb", gpu_count=2)
    assert r.training is not None and r.training.fits is False
    assert any(w.startswith("The pins are kept as asked. What would fit") for w in r.warnings)


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        # Llama 3.1 8B has 32 query heads and 8 KV heads: 3 splits neither.
        ({"tp": 3}, "tp", "choose one of 1, 2, 4, 8"),
        # 32 layers: a 64-stage pipeline would leave stages empty.
        ({"pp": 64, "gpu_count": 64}, "pp", "exceeds the 32 layers"),
        ({"pp": 3, "gpu_count": 8}, "pp", "multiple of pp 3"),
        # No FP8 tensor cores on Ampere (A100 datasheet: FP8 not listed).
        ({"precision": "fp8", "gpu": "a100-sxm-80gb"}, "precision", "needs FP8 tensor cores"),
    ],
)
def test_layouts_no_framework_runs_are_refused_naming_the_field(
    body: dict[str, object], field: str, words: str
) -> None:
    req = {"model": {"preset": "llama-3.1-8b"}, "task": "pretrain", "tokens": 1e10,
           "gpu": "h100-sxm-80gb", **body}  # fmt: skip
    with pytest.raises(InputError) as err:
        estimate(EstimateRequest(**req), search_all=False)
    assert err.value.field == field
    assert words in str(err.value)


def test_qlora_has_no_fp8_path() -> None:
    # Dettmers et al. 2023 §3: the NF4 base is dequantised to the bf16 compute type.
    with pytest.raises(InputError) as err:
        est("llama-3.1-8b", task="qlora", tokens=1e8, gpu="h100-sxm-80gb", precision="fp8")
    assert err.value.field == "precision"


def test_a_shape_that_cannot_hold_its_parameter_count_is_refused() -> None:
    # 1,000 layers of width 131,072: the q and o projections alone are 2 × 1,000 × 131,072²
    # = 3.4e13 parameters, against the 1e6 claimed.
    with pytest.raises(InputError) as err:
        estimate(
            EstimateRequest(model={"params_b": 0.001, "layers": 1000, "hidden": 131072},
                            task="lora", tokens=1e8),
            search_all=False,
        )  # fmt: skip
    assert err.value.field == "model"
    assert "34,360B" in str(err.value)


def test_the_batch_reported_is_the_batch_that_runs() -> None:
    # 8 GPUs at TP 2 leave dp 4; 100 sequences in micro-batches of 3 on 4 replicas need
    # ceil(100 / 12) = 9 accumulation steps, so each step runs 4 × 3 × 9 = 108 sequences.
    r = est(
        "llama-3.1-8b", task="full_finetune", tokens=1e9, gpu="h100-sxm-80gb", gpu_count=8,
        micro_batch=3, global_batch=100, tp=2,
    )  # fmt: skip
    p = r.parallelism
    assert p.dp * p.micro_batch * p.gradient_accumulation == p.global_batch == 108
    assert any("each step runs 108 sequences (9 accumulation steps" in w for w in r.warnings)


def test_fp32_is_sized_on_tf32_and_says_what_plain_fp32_would_cost() -> None:
    r = est("llama-3.1-8b", task="lora", tokens=1e8, gpu="a100-sxm-80gb", precision="fp32",
            gpu_count=1)  # fmt: skip
    days = next(e for e in r.explain if e.figure == "training.days")
    assert "TF32 tensor-core peak" in days.source
    # A100 datasheet: TF32 156 TFLOPS dense, FP32 19.5 TFLOPS: 8× slower without TF32.
    assert any("FP32 peak of 19.5 TFLOPS, about 8× slower" in w for w in r.warnings)


def test_a_single_gpu_that_overflows_names_no_zero_stage_it_cannot_use() -> None:
    # ZeRO shards states over data-parallel ranks (Rajbhandari et al. 2019 §5): on one GPU
    # (dp = 1) stage 3 saves nothing, so the overflowing layout says ZeRO-0, not ZeRO-3.
    r = est("llama-3.1-8b", task="lora", tokens=1e7, gpu="rtx-4090-24gb", gpu_count=1,
            seq_len=2048, global_batch=2)  # fmt: skip
    assert r.training is not None and r.training.fits is False
    assert r.parallelism.dp == 1 and r.parallelism.zero_stage == 0
    assert "(ZeRO-0, full activation recomputation, TP 1, PP 1)" in r.warnings[0]


def test_the_peak_a_plan_divides_by_names_the_format_it_computes_in() -> None:
    """The source of `training.days` names the tensor-core format whose peak it uses: a
    QLoRA run asked for in int4 computes in BF16 (hardware.GpuSpec.peak_tflops), so its
    source read 'RTX 4090 dense int4 peak' beside the BF16 figure (165.2 TFLOPS)."""
    r = est("llama-3.1-8b", task="qlora", gpu="rtx-4090-24gb", precision="int4")
    (days,) = [e for e in r.explain if e.figure == "training.days"]
    assert "dense BF16 peak" in days.source and "int4 weights compute in BF16" in days.source
    assert "int4 peak" not in days.source
    r = est("llama-3.1-8b", task="pretrain", gpu="h100-sxm-80gb", precision="fp8", tokens=1e11)
    (days,) = [e for e in r.explain if e.figure == "training.days"]
    assert "dense FP8 peak" in days.source and "compute in" not in days.source


# QA: 10 sequences a step in micro-batches of 3 on 8 GPUs at TP 1, PP 1. The pins leave
# dp = 8 / (1 × 1) = 8 ranks, and one micro-batch each is 8 × 3 = 24 sequences > 10: no
# framework runs it (Megatron-LM: global batch = dp × micro-batch × accumulation steps). It
# was reported "does not fit in 80 GB … needs 50.4 GB of the 76 GB usable".
QA_BATCH = dict(
    task="full_finetune", dataset_gb=10, gpu="h100-sxm-80gb", gpu_count=8, tp=1, pp=1,
    micro_batch=3,
)  # fmt: skip


def test_a_pinned_batch_too_small_for_the_pinned_ranks_is_refused_naming_what_runs() -> None:
    with pytest.raises(InputError) as err:
        est("llama-3.1-8b", **QA_BATCH, global_batch=10)
    assert err.value.field == "global_batch"
    text = str(err.value)
    assert "does not fit" not in text
    # 8 ranks × 3 = 24 a step; micro_batch ≤ 10 // 8 = 1; gpu_count ≤ (10 // 3) × 1 = 3
    assert "a step runs at least 8 × 3 = 24 sequences" in text
    assert "Give global_batch 24 or a multiple of it, micro_batch at most 1, or gpu_count at most 3" in text  # fmt: skip
    # Each way out it names is planned: 3 GPUs (dp 3 × 3 = 9 ≤ 10 a step; whether 3 GPUs
    # hold the states is the memory check's answer), micro-batch 1 (8 × 1 = 8 ≤ 10).
    three = est("llama-3.1-8b", **{**QA_BATCH, "gpu_count": 3}, global_batch=10).parallelism
    assert three.dp * three.micro_batch == 9
    assert est("llama-3.1-8b", **{**QA_BATCH, "micro_batch": 1}, global_batch=10).training.fits


def test_the_batch_that_splits_fits_and_says_so_with_one_figure() -> None:
    r = est("llama-3.1-8b", **QA_BATCH, global_batch=24)
    assert r.training is not None and r.training.fits
    p = r.parallelism
    assert (p.dp, p.micro_batch, p.gradient_accumulation, p.global_batch) == (8, 3, 1, 24)
    # H100 80 GB × the planner's 95% headroom = 76 GB usable
    assert r.memory_per_gpu_gb.total <= 80 * 0.95
    assert not any("does not fit" in w for w in r.warnings)


def test_a_free_tensor_degree_can_still_keep_a_small_pinned_batch() -> None:
    # Without tp and pp pinned, TP 8 leaves 8 / 8 = 1 rank: one micro-batch of 3 ≤ 10.
    body = {k: v for k, v in QA_BATCH.items() if k not in ("tp", "pp")}
    r = est("llama-3.1-8b", **body, global_batch=10)
    p = r.parallelism
    assert r.training is not None and r.training.fits
    assert p.dp * p.micro_batch <= 10


def test_an_overflowing_plan_keeps_a_pinned_batch() -> None:
    # Llama 3.1 70B full fine-tune at TP 1, PP 1 with a batch of 2: at most 2 ranks of one
    # sequence. It fits nowhere, and the layout shown ran 8,192 GPUs and 8,192 sequences.
    r = est("llama-3.1-70b", task="full_finetune", tokens=1e8, gpu="h100-sxm-80gb", tp=1, pp=1,
            global_batch=2)  # fmt: skip
    assert r.training is not None and r.training.fits is False
    p = r.parallelism
    assert (p.dp, p.global_batch) == (2, 2)
    assert not any("accumulation step" in w for w in r.warnings)


def test_one_epoch_without_a_dataset_is_said_in_the_singular() -> None:
    r = est("llama-3.1-8b", task="lora", epochs=1, gpu="h100-sxm-80gb", gpu_count=1)
    assert any(w.startswith("1 epoch given without a dataset size: it counts nothing") for w in r.warnings)  # fmt: skip


def test_a_dataset_of_0_gb_is_said_to_count_as_none() -> None:
    # dataset_gb 0 is the field's default (no dataset): the assumed 1e8-token budget
    # (training.DEFAULT_FINETUNE_TOKENS) is planned, and the warning says 0 GB was read as none.
    r = est("llama-3.1-8b", task="lora", dataset_gb=0, gpu="h100-sxm-80gb", gpu_count=1)
    assert r.training is not None and r.training.tokens == 1e8
    assert any("(a dataset of 0 GB counts as none): assumed 1e+08 fine-tuning tokens" in w
               for w in r.warnings)  # fmt: skip
