"""Model library: preset counts against published figures, KV cache, HF configs, custom sizes.

Every expected figure names where it comes from. "reference" is the team's
`shared/reference/models.json` (architectures from the published config.json files, with
parameter counts recomputed from them); "keras-hub" is the `params` metadata in
keras-team/keras-hub `*_presets.py`, an exact tensor count of the converted checkpoint.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.architectures import (
    ARCH_FIELDS,
    ModelSpec,
    count_params,
    from_hf_config,
    from_param_count,
    get_preset,
    list_presets,
)

HF_CONFIGS = Path(__file__).parent / "data" / "hf_configs"


def load_config(name: str) -> dict[str, Any]:
    return json.loads((HF_CONFIGS / name).read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- presets

# (preset id, published size in billions, who states it)
PUBLISHED_TOTALS = [
    ("llama-2-7b", 6.7, "LLaMA paper Table 2, same 7B architecture"),
    ("llama-2-13b", 13.0, "LLaMA paper Table 2, same 13B architecture"),
    ("llama-2-70b", 70.0, "Llama 2 paper Table 1"),
    ("llama-3.1-8b", 8.0, "Llama 3.1 model card"),
    ("llama-3.1-70b", 70.0, "Llama 3.1 model card"),
    ("llama-3.1-405b", 405.0, "Llama 3 paper Table 3"),
    ("llama-3.2-1b", 1.23, "Llama 3.2 model card"),
    ("llama-3.2-3b", 3.21, "Llama 3.2 model card"),
    ("qwen2.5-0.5b", 0.49, "Qwen2.5-0.5B model card"),
    ("qwen2.5-1.5b", 1.54, "Qwen2.5-1.5B model card"),
    ("qwen2.5-3b", 3.09, "Qwen2.5-3B model card"),
    ("qwen2.5-7b", 7.61, "Qwen2.5-7B model card"),
    ("qwen2.5-14b", 14.7, "Qwen2.5-14B model card"),
    ("qwen2.5-32b", 32.5, "Qwen2.5-32B model card"),
    ("qwen2.5-72b", 72.7, "Qwen2.5-72B model card"),
    ("mistral-7b", 7.3, "Mistral AI Mistral 7B announcement"),
    ("mixtral-8x7b", 46.7, "Mistral AI 'Mixtral of experts'"),
    ("mixtral-8x22b", 141.0, "Mistral AI Mixtral 8x22B announcement"),
    ("deepseek-v3", 671.0, "DeepSeek-V3 README (without the 14B MTP module)"),
    ("llama-4-scout-17b-16e", 109.0, "Llama 4 model card '109B (Total)' (incl. vision)"),
    ("llama-4-maverick-17b-128e", 400.0, "Llama 4 model card '400B (Total)'"),
    ("qwen3-32b", 32.8, "Qwen3-32B model card '32.8B'"),
    ("qwen3-30b-a3b", 30.5, "Qwen3-30B-A3B model card '30.5B in total'"),
    ("qwen3-235b-a22b", 235.0, "Qwen3-235B-A22B model card '235B in total'"),
    ("gpt-oss-20b", 20.91, "OpenAI gpt-oss model card 20.91B"),
    ("gpt-oss-120b", 116.83, "OpenAI gpt-oss model card 116.83B"),
    ("deepseek-r1", 671.0, "DeepSeek-R1 README '671B' (V3 architecture)"),
    ("kimi-k2", 1040.0, "Kimi K2 tech report '1.04 trillion'"),
    ("gemma-2-2b", 2.61, "Gemma 2 report Table 2"),
    ("gemma-2-9b", 9.24, "Gemma 2 report Table 2"),
    ("gemma-2-27b", 27.23, "Gemma 2 report Table 2"),
    ("phi-3-mini", 3.8, "Phi-3 technical report"),
    ("phi-3-medium", 14.0, "Phi-3 technical report"),
    ("gpt-3-175b", 175.0, "GPT-3 paper Table 2.1"),
    ("sdxl", 3.5, "Stability AI SDXL 1.0 announcement, whole base pipeline"),
]


@pytest.mark.parametrize(("preset_id", "published_b", "source"), PUBLISHED_TOTALS)
def test_computed_params_within_2pct_of_published(
    preset_id: str, published_b: float, source: str
) -> None:
    spec = get_preset(preset_id)
    assert spec.params / 1e9 == pytest.approx(published_b, rel=0.02), source
    assert spec.published_params_b == published_b  # the data file states the same figure


# (preset id, exact tensor count, source)
EXACT_TOTALS = [
    ("llama-2-7b", 6_738_415_616, "reference"),
    ("llama-2-13b", 13_015_864_320, "reference"),
    ("llama-2-70b", 68_976_648_192, "reference"),
    ("llama-3.1-8b", 8_030_261_248, "reference; keras-hub llama3_8b_en"),
    ("llama-3.1-70b", 70_553_706_496, "reference"),
    ("llama-3.1-405b", 405_853_388_800, "reference"),
    ("mistral-7b", 7_241_732_096, "reference; keras-hub mistral_7b_en"),
    ("mixtral-8x7b", 46_702_792_704, "reference; keras-hub mixtral_8_7b_en"),
    ("qwen2.5-0.5b", 494_032_768, "keras-hub qwen2.5_0.5b_en"),
    ("qwen2.5-3b", 3_085_938_688, "keras-hub qwen2.5_3b_en"),
    ("qwen2.5-7b", 7_615_616_512, "reference"),
    ("qwen2.5-32b", 32_763_876_352, "keras-hub qwen2.5_instruct_32b_en"),
    ("qwen2.5-72b", 72_706_203_648, "reference; keras-hub qwen2.5_instruct_72b_en"),
    ("gemma-2-2b", 2_614_341_888, "keras-hub gemma2_2b_en"),
    ("gemma-2-9b", 9_241_705_984, "keras-hub gemma2_9b_en"),
    ("gemma-2-27b", 27_227_128_320, "keras-hub gemma2_27b_en"),
    ("phi-3-mini", 3_821_079_552, "keras-hub phi3_mini_4k_instruct_en"),
]


@pytest.mark.parametrize(("preset_id", "expected", "source"), EXACT_TOTALS)
def test_computed_params_match_exact_counts(preset_id: str, expected: int, source: str) -> None:
    assert get_preset(preset_id).params == expected, source


@pytest.mark.parametrize(
    ("preset_id", "non_embedding"),
    [
        # Gemma 2 report Table 2, non-embedding parameters (final norm included).
        ("gemma-2-2b", 2_024_517_888),
        ("gemma-2-9b", 8_324_201_984),
        ("gemma-2-27b", 26_047_480_320),
    ],
)
def test_gemma2_non_embedding_matches_report(preset_id: str, non_embedding: int) -> None:
    spec = get_preset(preset_id)
    assert spec.tied_embeddings and spec.norms_per_layer == 4
    assert spec.params - spec.vocab * spec.hidden == non_embedding


def test_gpt3_matches_closed_form() -> None:
    # Narayanan et al. 2021 §3: P = 12nh² + 13nh + (V + s)h (n layers) for a GPT block stack with
    # biases and learned positions; the formula leaves out the final LayerNorm (2h).
    spec = get_preset("gpt-3-175b")
    n, h, v, s = spec.layers, spec.hidden, spec.vocab, spec.learned_positions
    assert spec.ffn_type == "plain"
    assert spec.params == 12 * n * h**2 + 13 * n * h + (v + s) * h + 2 * h


@pytest.mark.parametrize(
    ("preset_id", "published_active_b", "rel", "source"),
    [
        ("mixtral-8x7b", 12.9, 0.02, "Mistral AI 'Mixtral of experts': 12.9B per token"),
        ("mixtral-8x22b", 39.0, 0.02, "Mistral AI: 39B active of 141B"),
        ("deepseek-v3", 37.0, 0.03, "DeepSeek-V3 README: 37B activated"),
        ("flux-1-dev", 12.0, 0.02, "BFL model card: 12B-parameter transformer"),
    ],
)
def test_active_params_near_published(
    preset_id: str, published_active_b: float, rel: float, source: str
) -> None:
    spec = get_preset(preset_id)
    assert spec.active_params / 1e9 == pytest.approx(published_active_b, rel=rel), source
    assert spec.published_active_params_b == published_active_b


def test_mixtral_active_params_exact() -> None:
    # reference: params_active_computed (attention, norms, router, 2 of 8 experts, embeddings)
    spec = get_preset("mixtral-8x7b")
    assert spec.is_moe
    assert spec.active_params == 12_879_925_248


def test_deepseek_v3_counts_main_model_only() -> None:
    spec = get_preset("deepseek-v3")
    assert spec.attention == "mla" and spec.dense_layers == 3 and spec.shared_experts == 1
    # DeepSeek-V3 README: 671B main model (685B with the 14B MTP module)
    assert spec.params / 1e9 == pytest.approx(671.0, rel=0.001)


@pytest.mark.parametrize(
    ("preset_id", "kv_bytes", "expected", "rule"),
    [
        ("llama-2-7b", 2, 524_288, "2 × 32 layers × 32 KV heads × 128 × 2 B (MHA)"),
        ("llama-2-70b", 2, 327_680, "2 × 80 × 8 KV heads × 128 × 2 B (GQA)"),
        ("llama-3.1-8b", 2, 131_072, "2 × 32 × 8 × 128 × 2 B (GQA)"),
        ("llama-3.1-8b", 1, 65_536, "fp8 cache halves it"),
        ("mixtral-8x7b", 2, 131_072, "experts do not change the cache"),
        ("deepseek-v3", 2, 70_272, "MLA: (512 + 64) × 61 layers × 2 B (DeepSeek-V2 §2.1)"),
        ("sdxl", 2, 0, "image models keep no KV cache"),
    ],
)
def test_kv_cache_bytes_per_token(
    preset_id: str, kv_bytes: float, expected: int, rule: str
) -> None:
    assert get_preset(preset_id).kv_cache_bytes_per_token(kv_bytes) == expected, rule


@pytest.mark.parametrize(
    ("preset_id", "params", "denoiser", "source"),
    [
        # UNet 2,567,463,684 + CLIP-L 123,060,480 + OpenCLIP bigG 694,659,840 + VAE 83,653,863
        ("sdxl", 3_468_837_867, 2_567_463_684, "stable-diffusion-xl-base-1.0 checkpoints"),
        # transformer 11,901,408,320 + T5-XXL 4,762,310,656 + CLIP-L 123,060,480 + VAE 83,819,683
        ("flux-1-dev", 16_870_599_139, 11_901_408_320, "FLUX.1-dev checkpoints"),
    ],
)
def test_image_models_count_published_components(
    preset_id: str, params: int, denoiser: int, source: str
) -> None:
    spec = get_preset(preset_id)
    assert spec.kind == "image"
    assert spec.params == params == sum(c.params for c in spec.components), source
    assert spec.active_params == denoiser
    assert [c.role for c in spec.components].count("denoiser") == 1


REQUIRED_IDS = {
    "llama-2-7b",
    "llama-2-13b",
    "llama-2-70b",
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.1-405b",
    "llama-3.2-1b",
    "llama-3.2-3b",
    "qwen2.5-0.5b",
    "qwen2.5-1.5b",
    "qwen2.5-3b",
    "qwen2.5-7b",
    "qwen2.5-14b",
    "qwen2.5-32b",
    "qwen2.5-72b",
    "mistral-7b",
    "mixtral-8x7b",
    "mixtral-8x22b",
    "deepseek-v3",
    "gemma-2-2b",
    "gemma-2-9b",
    "gemma-2-27b",
    "phi-3-mini",
    "phi-3-medium",
    "sdxl",
    "flux-1-dev",
}


def test_preset_ids_unique_lowercase_hyphenated() -> None:
    ids = [s.id for s in list_presets()]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 25
    assert set(ids) >= REQUIRED_IDS
    for preset_id in ids:
        # lowercase words joined by hyphens; a dot only between digits ("3.1", "0.5b")
        assert re.fullmatch(r"[a-z0-9]+(?:[.-][a-z0-9]+)*", preset_id), preset_id
        assert not re.search(r"(?<![0-9])\.|\.(?![0-9])", preset_id), preset_id


def test_every_preset_has_a_source_and_a_published_check() -> None:
    checked = {p for p, *_ in PUBLISHED_TOTALS} | {"flux-1-dev"}  # FLUX: active check above
    for spec in list_presets():
        assert spec.source, spec.id
        assert spec.id in checked, f"{spec.id} needs a row in PUBLISHED_TOTALS"
        assert spec.published_params_b or spec.published_active_params_b, spec.id
        assert not spec.inferred


def test_list_presets_is_a_fresh_list() -> None:
    first = list_presets()
    first.clear()
    assert list_presets()


def test_get_preset_is_case_insensitive() -> None:
    assert get_preset("Llama-3.1-8B").id == "llama-3.1-8b"


def test_get_preset_unknown_names_close_ids() -> None:
    with pytest.raises(KeyError, match=r"llama-3\.1-8b"):
        get_preset("llama-3.1-7b")


# --------------------------------------------------------------------------- HF config.json


@pytest.mark.parametrize(
    ("fixture", "preset_id"),
    [
        ("llama-3.1-8b.json", "llama-3.1-8b"),
        ("llama-3.2-1b.json", "llama-3.2-1b"),
        ("mistral-7b-v0.1.json", "mistral-7b"),
        ("qwen2.5-7b.json", "qwen2.5-7b"),
        ("qwen2.5-0.5b.json", "qwen2.5-0.5b"),
        ("mixtral-8x7b.json", "mixtral-8x7b"),
        ("gemma-2-9b.json", "gemma-2-9b"),
        ("phi-3-mini-4k.json", "phi-3-mini"),
        ("deepseek-v3.json", "deepseek-v3"),
    ],
)
def test_from_hf_config_matches_preset(fixture: str, preset_id: str) -> None:
    # Fixtures: the published config.json of the model each preset names in its source.
    spec = from_hf_config(load_config(fixture))
    preset = get_preset(preset_id)
    assert spec.architecture() == preset.architecture()
    assert (spec.params, spec.active_params) == (preset.params, preset.active_params)
    assert spec.max_context == preset.max_context
    assert spec.family == preset.family
    assert spec.id == "custom" and spec.kind == "llm" and not spec.inferred


def test_from_hf_config_defaults_follow_transformers() -> None:
    # Gemma2Config defaults tie_word_embeddings to True; the 9B file leaves it out.
    gemma = load_config("gemma-2-9b.json")
    assert "tie_word_embeddings" not in gemma
    assert from_hf_config(gemma).tied_embeddings
    # Without num_key_value_heads attention is MHA (every config class defaults to heads).
    phi = load_config("phi-3-mini-4k.json")
    del phi["num_key_value_heads"]
    assert from_hf_config(phi).kv_heads == 32
    # Qwen2 always has q/k/v biases: 28 layers × (3584 + 2 × 512) more than without.
    qwen = from_hf_config(load_config("qwen2.5-7b.json"))
    without = count_params(**{**qwen.architecture(), "qkv_bias": False})[0]
    assert qwen.params - without == 28 * (3584 + 2 * 512)


def test_from_hf_config_notes_what_it_leaves_out() -> None:
    spec = from_hf_config(load_config("deepseek-v3.json"))
    assert "multi-token-prediction" in spec.notes
    assert "fp8" in spec.notes


@pytest.mark.parametrize(
    ("fixture", "field"),
    [
        ("llama-3.1-8b.json", "num_hidden_layers"),
        ("llama-3.1-8b.json", "hidden_size"),
        ("llama-3.1-8b.json", "num_attention_heads"),
        ("llama-3.1-8b.json", "intermediate_size"),
        ("llama-3.1-8b.json", "vocab_size"),
        ("llama-3.1-8b.json", "max_position_embeddings"),
        ("llama-3.1-8b.json", "model_type"),
        ("mixtral-8x7b.json", "num_local_experts"),
        ("mixtral-8x7b.json", "num_experts_per_tok"),
        ("deepseek-v3.json", "kv_lora_rank"),
        ("deepseek-v3.json", "moe_intermediate_size"),
        ("deepseek-v3.json", "qk_rope_head_dim"),
    ],
)
def test_from_hf_config_missing_field_is_named(fixture: str, field: str) -> None:
    config = load_config(fixture)
    del config[field]
    with pytest.raises(ValueError, match=field):
        from_hf_config(config)


def test_from_hf_config_rejects_unsupported_model_type() -> None:
    config = {**load_config("llama-3.1-8b.json"), "model_type": "falcon"}
    with pytest.raises(ValueError, match="falcon"):
        from_hf_config(config)


def test_from_hf_config_rejects_non_integer_field() -> None:
    config = {**load_config("llama-3.1-8b.json"), "num_hidden_layers": "32"}
    with pytest.raises(ValueError, match="num_hidden_layers"):
        from_hf_config(config)


# --------------------------------------------------------------------------- custom size


def test_from_param_count_7b() -> None:
    spec = from_param_count(7)
    assert spec.params / 1e9 == pytest.approx(7.0, rel=0.02)
    assert spec.inferred and spec.id == "custom" and spec.family == "custom"
    assert spec.active_params == spec.params
    assert spec.heads % spec.kv_heads == 0
    assert "inferred" in spec.notes


def test_from_param_count_llama3_8b_reproduces_llama3() -> None:
    # The rule is the Llama 3 table, so 8B lands on Llama 3.1 8B's shape.
    spec = from_param_count(8)
    preset = get_preset("llama-3.1-8b")
    shape = ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden", "vocab")
    assert [getattr(spec, k) for k in shape] == [getattr(preset, k) for k in shape]


def assert_sane(spec: ModelSpec, params_b: float) -> None:
    assert spec.params / 1e9 == pytest.approx(params_b, rel=0.02)
    for name in ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden", "vocab"):
        value = getattr(spec, name)
        assert isinstance(value, int) and value > 0, name
    assert spec.heads % spec.kv_heads == 0
    assert 2 <= spec.ffn_hidden / spec.hidden <= 6
    assert spec.kv_cache_bytes_per_token(2) > 0


@pytest.mark.parametrize("params_b", [0.1, 0.3, 1, 3, 7, 13, 34, 70, 175, 405, 1000, 10000])
def test_from_param_count_sane_over_range(params_b: float) -> None:
    assert_sane(from_param_count(params_b), params_b)


@settings(max_examples=60, deadline=None)
@given(st.floats(min_value=0.1, max_value=10_000, allow_nan=False))
def test_from_param_count_property(params_b: float) -> None:
    assert_sane(from_param_count(params_b), params_b)


def test_from_param_count_full_architecture_is_not_inferred() -> None:
    spec = from_param_count(
        70, layers=80, hidden=8192, heads=64, kv_heads=8, vocab=128256, ffn_hidden=28672
    )
    assert not spec.inferred
    assert spec.params == get_preset("llama-3.1-70b").params  # within 2%: the count is kept


def test_from_param_count_overrides_win_and_conflicts_are_recorded() -> None:
    # An 8B shape asked to be 70B: the shape is kept, params is the size asked for.
    spec = from_param_count(70, layers=32, hidden=4096, ffn_hidden=14336)
    assert (spec.layers, spec.hidden, spec.ffn_hidden) == (32, 4096, 14336)
    assert spec.params == 70_000_000_000
    assert "8,030,261,248" in spec.notes


def test_from_param_count_partial_overrides() -> None:
    spec = from_param_count(13, heads=40, kv_heads=8, vocab=32000)
    assert (spec.heads, spec.kv_heads, spec.vocab) == (40, 8, 32000)
    assert spec.params / 1e9 == pytest.approx(13, rel=0.02)


def test_from_param_count_moe() -> None:
    spec = from_param_count(46.7, experts=8)
    assert spec.is_moe and spec.experts_per_token == 2
    assert spec.params / 1e9 == pytest.approx(46.7, rel=0.02)
    assert spec.active_params < spec.params / 3


def test_from_param_count_moe_active_as_asked() -> None:
    spec = from_param_count(46.7, experts=8, active_params_b=12.9)
    assert spec.active_params / 1e9 == pytest.approx(12.9, rel=0.02)
    spec = from_param_count(100, active_params_b=20)  # fewer active: an MoE is assumed
    assert spec.is_moe
    assert spec.active_params / 1e9 == pytest.approx(20, rel=0.02)


@pytest.mark.parametrize(
    ("args", "kwargs", "field"),
    [
        ((0,), {}, "params_b"),
        ((-1,), {}, "params_b"),
        ((math.nan,), {}, "params_b"),
        ((math.inf,), {}, "params_b"),
        ((7,), {"layers": 0}, "layers"),
        ((7,), {"hidden": -4096}, "hidden"),
        ((7,), {"heads": 32, "kv_heads": 5}, "kv_heads"),
        ((7,), {"active_params_b": 8}, "active_params_b"),
    ],
)
def test_from_param_count_rejects_bad_input(
    args: tuple[float], kwargs: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValueError, match=field):
        from_param_count(*args, **kwargs)


# --------------------------------------------------------------------------- count_params


def test_count_params_rejects_impossible_shapes() -> None:
    arch = get_preset("llama-3.1-8b").architecture()
    with pytest.raises(ValueError, match="kv_heads"):
        count_params(**{**arch, "kv_heads": 7})
    with pytest.raises(ValueError, match="experts_per_token"):
        count_params(**{**arch, "experts": 8, "experts_per_token": 9, "moe_ffn_hidden": 14336})


def test_architecture_covers_count_params_arguments() -> None:
    spec = get_preset("deepseek-v3")
    assert set(spec.architecture()) == set(ARCH_FIELDS)
    assert count_params(**spec.architecture()) == (spec.params, spec.active_params)


def test_models_module_is_pure() -> None:
    code = (
        "import sys, app.engine.architectures as m; m.list_presets(); "
        "bad = {'fastapi', 'sqlmodel', 'jinja2', 'plotly'} & set(sys.modules); "
        "sys.exit(sorted(bad) or 0)"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def test_an_inferred_shape_never_narrows_or_gets_shallower_as_the_size_grows() -> None:
    """The width is chosen at the family's unrounded depth, so a larger custom model is never
    narrower or shallower than a smaller one (before, each whole extra layer pulled the nearest
    width one grid step down: ten such steps between 0.1B and 5T, 5.00B at hidden 3,584 and
    5.01B at 3,072). The one step down left is where Llama 3 / Qwen2.5 stop tying the
    embeddings (5B): the untied LM head takes vocab × hidden parameters from the width."""
    drops = []
    previous = from_param_count(0.1)
    for i in range(1, 3001):
        size = 0.1 * 50_000 ** (i / 3000)  # 0.1B … 5,000B, log-spaced
        spec = from_param_count(size)
        if spec.layers < previous.layers or spec.hidden < previous.hidden:
            drops.append(round(size, 2))
        previous = spec
    assert all(4.99 <= d <= 5.02 for d in drops), drops
