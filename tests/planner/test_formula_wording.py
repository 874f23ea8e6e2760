"""The sizing engine's formulas on a 中文 page (app/planner/formula_wording.py).

Over the engine's request grid (tests/engine/test_explanations_reproduce.py: every task,
dense and MoE presets, eight GPU types, pinned MFU / goodput / TP / PP / ZeRO / recompute /
GPU count, deadlines, serving targets, image batches and rates, both pricing modes) every
formula of a sizing figure is said in Chinese with no English word left but units, symbols
and names, and with exactly the engine's numbers in the engine's order: the formula a sales
engineer reads out still evaluates to its figure. An English page shows the engine's words.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

import pytest
from babel.messages.pofile import read_po

from app import i18n
from app.costs.explained import is_cost_figure
from app.planner import formula_wording
from tests.engine import test_explanations_reproduce as reproduce

#: Requests the grid lacks, for phrases only they make: attention scores without
#: FlashAttention, LoRA on the attention matrices, MXFP4 expert weights (gpt-oss), a MIG
#: slice, an fp8 KV cache.
EXTRA: tuple[dict[str, object], ...] = (
    {"model": {"preset": "llama-2-7b"}, "task": "pretrain", "tokens": 1e11,
     "flash_attention": False, "recompute": "none"},
    {"model": {"preset": "llama-3.1-8b"}, "task": "lora", "tokens": 1e8,
     "lora_targets": "attention"},
    {"model": {"preset": "gpt-oss-120b"}, "task": "inference", "concurrency": 16},
    {"model": {"preset": "gpt-oss-20b"}, "task": "inference", "users": 50,
     "gpu": "h100-sxm-80gb"},
    {"model": {"preset": "llama-3.1-8b"}, "task": "inference", "users": 5,
     "gpu": "h100-sxm-80gb", "slo": {"tokens_per_s_per_user": 10}},
    {"model": {"preset": "llama-3.1-8b"}, "task": "inference", "concurrency": 8,
     "kv_dtype": "fp8"},
)  # fmt: skip

#: What a Chinese formula may keep in Latin letters (digits written '#'): units, the
#: formulas' symbols, product and technique names, and the terms the Chinese pages keep.
ALLOWED: frozenset[str] = frozenset(
    {
        # units
        "GB", "TB", "MB", "B", "W", "kW", "FLOP", "TFLOPS", "Gbps", "ms", "s", "h", "NT",
        "US", "token", "tokens",
        # symbols
        "max", "min", "d_attn", "d_in", "d_out", "dp", "ep", "logits",
        # names
        "GPU", "CPU", "MFU", "TP", "ZeRO-#", "NCCL", "CUDA", "context", "nvidia-smi",
        "torch.cuda.max_memory_allocated", "NVLink", "InfiniBand", "PCIe", "NVMe", "DIMM",
        "HBM", "MAMF", "GEMM", "MoE", "all-to-all", "all-reduce", "LoRA", "MLA", "KV", "VAE",
        "MIG", "T#", "H#", "SXM", "BF#", "FP#", "NF#", "bf#", "fp#", "int#", "mxfp#",
        "adapter", "NVIDIA", "GeForce", "AMD", "Instinct", "Infinity", "Fabric", "ROCm",
        "TensorRT-LLM", "vLLM", "SGLang", "llama.cpp", "L#S", "L#", "A#",
    }
)  # fmt: skip
_WORD = re.compile(r"(?<![\w.])[A-Za-z]\w*(?:[-.][A-Za-z0-9_]+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:e[+-]\d+)?")
_SHAPE = re.compile(r"(?:NT|US)\$[\d,.]+|\d[\d,]*(?:\.\d+)?(?:e[+-]\d+)?")


def _english(text: str) -> list[str]:
    words = _WORD.findall(text)
    return [w for w in words if len(w) > 1 and re.sub(r"\d+", "#", w) not in ALLOWED]


def _sizing_formulas() -> Iterator[tuple[str, str]]:
    """(figure, formula) of every sizing figure of every response of the grid."""
    grid = reproduce.GRID + reproduce.SERVING_GRID + reproduce.IMAGE_GRID + list(EXTRA)
    for body in grid:
        resp = reproduce._estimate(dict(body))
        if resp is None:
            continue
        for e in reproduce.explanations(resp):
            if not is_cost_figure(e.figure):
                yield e.figure, e.formula


@pytest.fixture(scope="module")
def said() -> list[tuple[str, str, str | None]]:
    """(figure, the engine's formula, the formula said in Chinese or None), each formula once."""
    i18n.activate("zh-TW")
    try:
        return [(f, x, formula_wording.translate(x)) for f, x in dict.fromkeys(_sizing_formulas())]
    finally:
        i18n.activate("en")


def test_every_sizing_formula_of_the_grid_is_said_in_chinese(
    said: list[tuple[str, str, str | None]],
) -> None:
    shapes = Counter((f, _SHAPE.sub("#", x)) for f, x, _zh in said)
    untranslated = {(f, _SHAPE.sub("#", x)): x for f, x, zh in said if zh is None}
    assert len(said) > 5000 and len(shapes) > 200 and len({f for f, _s in shapes}) >= 39
    print(
        f"\n{len(said) - len(untranslated)} of {len(said)} formulas, "
        f"{len(shapes) - len(untranslated)} of {len(shapes)} shapes said in Chinese"
    )
    assert not untranslated, f"{len(untranslated)} shapes left English: {list(untranslated)[:5]}"


def test_no_english_word_is_left_but_units_symbols_and_names(
    said: list[tuple[str, str, str | None]],
) -> None:
    left = {(x, zh): _english(zh) for _f, x, zh in said if zh is not None and _english(zh)}
    assert not left, list(left.items())[:5]
    han = re.compile(r"[\u4e00-\u9fff]")
    # Numbers and arithmetic alone ("1 / 34.53 ms = 29.0 tokens/s") read the same in both.
    assert sum(bool(han.search(zh)) for _f, _x, zh in said if zh) > 0.95 * len(said)


def test_the_numbers_are_the_engines_in_the_engines_order(
    said: list[tuple[str, str, str | None]],
) -> None:
    moved = [(x, zh) for _f, x, zh in said if zh and _NUMBER.findall(zh) != _NUMBER.findall(x)]
    assert not moved, moved[:3]


def test_an_english_page_keeps_the_engines_formula(
    said: list[tuple[str, str, str | None]],
) -> None:
    i18n.activate("en")
    assert all(formula_wording.formula_text(x) == (x, True) for _f, x, _zh in said)


@pytest.mark.parametrize(
    "formula",
    [
        # A phrase no msgid says (an engine change): the whole formula stays English.
        "1.61e+23 FLOP / (16 × 989 TFLOPS dense × MFU 0.35 × goodput 0.9999) / 86,400 s "
        "= 336 days, give or take",
        "largest GEMM share of dense peak (measured MAMF 794.5 of 989.0 BF16 TFLOPS) 0.8033 "
        "× warp-specialised kernels 0.97 = 0.7792",
    ],
)
def test_a_formula_with_an_unsaid_word_stays_english_whole(formula: str) -> None:
    i18n.activate("zh-TW")
    try:
        assert formula_wording.translate(formula) is None
        assert formula_wording.formula_text(formula) == (formula, False)
    finally:
        i18n.activate("en")


@pytest.mark.parametrize(
    ("formula", "zh"),
    [
        # A count of one: the phrase's plural noun reads the engine's singular.
        ("128 cores per node for 1 GPU × 1 node = 128", "每節點 128 核心（供 1 張 GPU）× 1 個節點 = 128 核心"),
        ("1 replica × 1 sequence / 34.53 ms = 1 × 29.0 = 29.0 tokens/s",
         "1 個副本 × 1 個序列 / 34.53 ms = 1 × 29.0 = 29.0 tokens/s"),
        ("30 steps × 1 pass × 1.25e+14 FLOP / (989 TFLOPS BF16 × 0.51) = 7.41 s",
         "30 步 × 1 次運算 × 1.25e+14 FLOP / (989 TFLOPS BF16 × 0.51) = 7.41 s"),
        # A plan saved before the engine counted its nouns keeps its Chinese.
        ("128 cores per node for 8 GPU(s) × 2 node(s) = 256", "每節點 128 核心（供 8 張 GPU）× 2 個節點 = 256 核心"),
        ("30 steps × 2 pass(es) × 6.71e+12 FLOP / (989 TFLOPS BF16 × 0.51) = 0.798 s",
         "30 步 × 2 次運算 × 6.71e+12 FLOP / (989 TFLOPS BF16 × 0.51) = 0.798 s"),
        ("max(1) = 1 GPU(s)", "max(1) = 1 張 GPU"),
    ],
)  # fmt: skip
def test_one_and_a_saved_plans_plural_are_said_as_any_count(formula: str, zh: str) -> None:
    i18n.activate("zh-TW")
    try:
        assert formula_wording.translate(formula) == zh
    finally:
        i18n.activate("en")


def test_each_translation_keeps_its_placeholders_in_order() -> None:
    """A phrase the grid does not reach still keeps its numbers' order in Chinese."""
    path = i18n.LOCALE_DIR / "zh_Hant_TW" / "LC_MESSAGES" / "formulas.po"
    with path.open("rb") as fh:
        catalog = {m.id: m.string for m in read_po(fh) if m.id}
    names = re.compile(r"%\((\w+)\)s")
    for msgid in (*formula_wording.PHRASES, *formula_wording.SOURCES):
        assert catalog.get(msgid), msgid
        assert names.findall(catalog[msgid]) == names.findall(msgid), msgid
        assert _NUMBER.findall(names.sub("", catalog[msgid])) == _NUMBER.findall(
            names.sub("", msgid)
        ), msgid


@pytest.mark.parametrize(
    ("source", "zh", "said"),
    [
        ("planner: smallest feasible configuration", "規劃器：可行的最小配置", True),
        ("definition", "定義", True),
        ("LoRA (Hu et al. 2021) §4.1", "LoRA (Hu et al. 2021) §4.1", False),  # a citation
    ],
)
def test_plain_sources_are_said_and_citations_kept(source: str, zh: str, said: bool) -> None:
    i18n.activate("zh-TW")
    try:
        assert formula_wording.source_text(source) == (zh, said)
    finally:
        i18n.activate("en")
