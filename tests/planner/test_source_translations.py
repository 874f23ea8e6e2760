"""The sources of sizing figures on a 中文 page (app/planner/formula_wording.py `source_text`).

QA found the Explain panel's 「出處：」 lines in English prose ("LoRA skips weight gradients (×2);
recomputation is not model FLOPs (it enters the MFU)", "T12: 140 GB over 100 Mbps >3 h"). Over
a grid of requests (every task, dense and MoE presets, consumer to data-centre GPUs of both
vendors, pinned TP / ZeRO / recomputation / GPU count, deadlines, fp8 and fp32, every optimizer,
serving targets, a MIG slice, image batches and rates) a source the page leaves in English holds
no English prose: it is a bare citation ("LoRA (Hu et al. 2021) §4.1") or one of `VARYING`, the
sources that name the request's GPU or one of its numbers and wait for a wording of their own.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest
from babel.messages.pofile import read_po

from app import i18n
from app.costs.explained import is_cost_figure
from app.engine.estimate import InputError, estimate
from app.engine.schemas import EstimateRequest
from app.planner import formula_wording
from tests.engine.test_explanations_reproduce import explanations

#: English prose: three or more lowercase English words in a row ("datasheet without
#: sparsity", "skips weight gradients"). A citation has none: authors and titles are
#: capitalised, and "et al." is two words ("Narayanan et al. 2021", "ZeRO §3.1",
#: "vLLM (Kwon et al. 2023) §3; GQA (Ainslie et al. 2023)").
PROSE = re.compile(r"\b[a-z]+(?:['’-][a-z]+)*(?: [a-z]+(?:['’-][a-z]+)*){2,}\b")

_TRAINING: tuple[dict[str, Any], ...] = (
    {},
    {"recompute": "none", "flash_attention": False},
    {"recompute": "full"},
    {"zero_stage": 3, "gpu_count": 8},
    {"gpu_count": 8, "tp": 2},
    {"deadline_days": 3},
    {"precision": "fp8"},
    {"precision": "fp32"},
    {"optimizer": "adamw_8bit"},
    {"optimizer": "sgd"},
    {"optimizer": "adafactor"},
)
_SERVING: tuple[dict[str, Any], ...] = (
    {"concurrency": 32},
    {"users": 300, "slo": {"ttft_s": 1.0, "tokens_per_s_per_user": 20}},
    {"precision": "int4", "concurrency": 8},
)


def _grid() -> Iterator[dict[str, Any]]:
    presets = ("llama-3.1-8b", "mixtral-8x7b")
    gpus = ("h100-sxm-80gb", "l40s-48gb", "rtx-4090-24gb", "mi300x-192gb")
    tasks = ("pretrain", "full_finetune", "lora", "qlora")
    for preset, task, gpu, pins in itertools.product(presets, tasks, gpus, _TRAINING):
        tokens = 1e11 if task == "pretrain" else 1e8
        yield {"model": {"preset": preset}, "task": task, "gpu": gpu, "tokens": tokens, **pins}
    for preset, gpu, load in itertools.product(
        ("llama-3.1-8b", "gpt-oss-120b"), (None, *gpus), _SERVING
    ):
        yield {"model": {"preset": preset}, "task": "inference", **load} | (
            {"gpu": gpu} if gpu else {}
        )
    # Recomputation × FlashAttention and the LoRA base's precisions the product lacks.
    for pins in (
        {"recompute": "none"},
        {"flash_attention": False},
        {"recompute": "full", "flash_attention": False},
        {"precision": "fp16"},
        {"precision": "int8"},
    ):
        yield {"model": {"preset": "llama-3.1-8b"}, "task": "lora", "tokens": 1e8, **pins}
    # A MIG slice (gpu.fraction).
    yield {"model": {"preset": "llama-3.1-8b"}, "task": "inference", "users": 5,
           "gpu": "h100-sxm-80gb", "slo": {"tokens_per_s_per_user": 10}}  # fmt: skip
    for preset, gpu, load in itertools.product(
        ("sdxl", "flux-1-dev"),
        ("h100-sxm-80gb", "rtx-4090-24gb"),
        ({}, {"images_per_hour": 5000}, {"images": 100_000, "deadline_days": 1}),
    ):
        yield {"model": {"preset": preset}, "task": "image", "gpu": gpu, **load}


@pytest.fixture(scope="module")
def sources() -> dict[str, str]:
    """Each source of a sizing figure the grid makes → a figure it is the source of."""
    found: dict[str, str] = {}
    for body in _grid():
        try:
            resp = estimate(EstimateRequest(**body), search_all=False)
        except InputError:
            continue  # a 422: no figure
        for e in explanations(resp):
            if not is_cost_figure(e.figure):
                found.setdefault(e.source, e.figure)
    return found


@pytest.fixture
def chinese() -> Iterator[None]:
    i18n.activate("zh-TW")
    try:
        yield
    finally:
        i18n.activate("en")


@pytest.mark.parametrize(
    ("text", "prose"),
    [
        ("Narayanan et al. 2021", False),
        ("NVIDIA H100 datasheet", False),
        ("LoRA (Hu et al. 2021) §4.1", False),
        ("vLLM (Kwon et al. 2023) §3; GQA (Ainslie et al. 2023); MLA (DeepSeek-V2 §2.1)", False),
        ("T12: 140 GB over 100 Mbps >3 h, over 1 Gbps ≈20 min", False),
        ("LoRA skips weight gradients (×2)", True),
        ("the 2× rule is applied", True),
        ("NVIDIA L40S 48GB dense BF16 peak (datasheet without sparsity)", True),
    ],
)
def test_what_counts_as_prose(text: str, prose: bool) -> None:
    assert bool(PROSE.search(text)) is prose


def test_no_source_left_in_english_prose(sources: dict[str, str], chinese: None) -> None:
    assert len(sources) > 60
    left: dict[str, str] = {}
    for source, figure in sources.items():
        text, said = formula_wording.source_text(source)
        if said:
            assert text != source, (figure, source)
            continue
        assert text == source
        if PROSE.search(source):
            left[figure] = source  # a bare citation is fine; prose is not
    assert not left, f"{len(left)} sources in English prose: {left}"


def test_sources_that_name_the_gpu_or_a_count_are_said_with_them(
    sources: dict[str, str], chinese: None
) -> None:
    """QA: 「出處： NVIDIA H100 SXM5 80GB dense BF16 peak (datasheet without sparsity)」 on every
    中文 plan, and the MFU's scaling-floor source in English. Each shape of
    `VARYING_SOURCES` is one the grid reaches (a shape the engine no longer writes is dead),
    and its GPU name and numbers are kept in the Chinese."""
    reached = {wording: 0 for _shape, wording in formula_wording.VARYING_SOURCES}
    for source in sources:
        for shape, wording in formula_wording.VARYING_SOURCES:
            m = shape.fullmatch(source)
            if m is None:
                continue
            reached[wording] += 1
            text, said = formula_wording.source_text(source)
            assert said, source
            for name, value in m.groupdict().items():
                if name != "said":
                    assert value in text, (name, value, text)
            assert not PROSE.search(text.replace(m.groupdict().get("said", ""), "")), text
            break
    assert all(reached.values()), reached
    text, _ = formula_wording.source_text(
        "NVIDIA H100 SXM5 80GB dense BF16 peak (datasheet without sparsity)"
    )
    assert text == "NVIDIA H100 SXM5 80GB 的 BF16 稠密峰值（規格表，不含稀疏加速）"


def test_every_cited_source_is_one_the_engine_writes(sources: dict[str, str]) -> None:
    """A msgid the engine no longer writes byte for byte (a reworded source) is dead: the
    grid reaches every one."""
    dead = [s for s in formula_wording.CITED_SOURCES if s not in sources]
    assert not dead, dead


def test_the_qa_examples_are_said_in_chinese(sources: dict[str, str], chinese: None) -> None:
    for words in ("LoRA skips weight gradients", "T11: hot tier capacity", "T12: 140 GB over",
                  "T6/U5: RAM ≥ 2× VRAM"):  # fmt: skip
        hits = [s for s in sources if words in s]
        assert hits, words
        for source in hits:
            text, said = formula_wording.source_text(source)
            assert said and re.search(r"[\u4e00-\u9fff]", text), source


def _catalog(name: str) -> dict[str, str]:
    path = i18n.LOCALE_DIR / "zh_Hant_TW" / "LC_MESSAGES" / name
    with path.open("rb") as fh:
        return {
            m.id: m.string
            for m in read_po(fh)
            if isinstance(m.id, str) and m.id and isinstance(m.string, str)
        }


def test_every_source_msgid_has_a_chinese_translation(chinese: None) -> None:
    i18n.reload()
    for msgid in (*formula_wording.SOURCES, *formula_wording.CITED_SOURCES):
        zh = i18n.gettext(msgid)
        assert zh != msgid and re.search(r"[\u4e00-\u9fff]", zh), msgid
        assert formula_wording.source_text(msgid) == (zh, True)


def test_a_translation_keeps_the_numbers_rule_ids_and_names() -> None:
    """「種子文件 003」 for "seed 003"; every number, T#/U# rule, citation year in its place."""
    catalog = _catalog("sources.po")
    number = re.compile(r"\d+(?:[.,]\d+)*(?:e[+-]\d+)?")
    rule = re.compile(r"\b[TU]\d+\b")
    for msgid in formula_wording.CITED_SOURCES:
        zh = catalog.get(msgid)
        assert zh, msgid
        assert number.findall(zh) == number.findall(msgid), msgid
        assert rule.findall(zh) == rule.findall(msgid), msgid
        assert "seed" not in zh.lower(), msgid
        for name in re.findall(r"[A-Z][a-z]+ et al\. \d{4}", msgid):
            assert name in zh, (name, msgid)


def test_an_english_page_keeps_the_engines_source(sources: dict[str, str]) -> None:
    i18n.activate("en")
    assert all(formula_wording.source_text(s) == (s, True) for s in sources)
