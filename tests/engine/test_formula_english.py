"""The engine's English counts its nouns: "1 GPU", "8 GPUs", "1 node", "2 passes".

A sales engineer reads each figure's formula out to a procurement committee, and the notes
under a cost option to a customer: "8 GPU(s)", "1 sequences" or "Rents 1 GPUs to cover 0.3"
read as a template left unfinished. Over the engine's request grid (tests/engine/
test_explanations_reproduce.py: every task, dense and MoE presets, eight GPU types, pins,
deadlines, serving targets, image batches and rates, both pricing modes and currencies, 1,078
requests) no formula, warning, cost note or option label writes a noun with "(s)"/"(es)",
a count of exactly 1 with a plural noun, or any other count with a singular one. The counted
nouns are `app.engine.formatting.plural`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from app.engine.formatting import gpus, months, plural
from app.engine.schemas import EstimateResponse
from tests.engine import test_explanations_reproduce as reproduce

#: The nouns the engine writes after a count: (singular, plural).
NOUNS = (("GPU", "GPUs"), ("node", "nodes"), ("replica", "replicas"), ("epoch", "epochs"),
         ("pass", "passes"), ("sequence", "sequences"), ("user", "users"),
         ("instance", "instances"), ("day", "days"))  # fmt: skip
_SINGULAR = "|".join(s for s, _p in NOUNS)
_PLURAL = "|".join(p for _s, p in NOUNS)
# A count starts a word: not the "100" of "H100", the "1" of "0.1" or "2,1", or a money amount.
_COUNT_START = r"(?<![\w.,$])"
#: "GPU(s)", "pass(es)": a plural left to the reader.
UNDECIDED = re.compile(r"[A-Za-z]\((?:s|es)\)")
#: "1 GPUs", "1 pinned GPUs": one, with a plural noun — not the last term of a sum, whose
#: total the noun counts ("(8 + 2 + 1 GPUs)": 11 GPUs in machines of 8, 2 and 1).
ONE_PLURAL = re.compile(rf"{_COUNT_START}(?<!\+ )1 (?:pinned )?(?:{_PLURAL})\b")
#: A rental's machines in its label, the noun counting their total: "12× h100-sxm-80gb as 8 + 4
#: GPUs", "64× a100-sxm-80gb as 64 × 1 GPUs" (64 one-GPU machines). In a formula "× 1 GPUs"
#: is a miss: "days × 24 h × 1 GPUs".
MACHINES = re.compile(r"\bas \d[\d,]*(?: [+×] \d[\d,]*)+ GPUs\b")
#: "8 GPU", "2 node", "0 pass": a count other than one with a singular noun — not the
#: compound words "8-GPU server", "1 GPU-h", "GPU-hours", nor "per GPU" (no count before it).
MANY_SINGULAR = re.compile(
    rf"{_COUNT_START}(?!1 )\d[\d,]*(?:\.\d+)? (?:pinned )?(?:{_SINGULAR})(?![\w\-/(])"
)


def _notes(obj: Any) -> Iterator[str]:
    """The cost block's option notes and labels, wherever they are nested."""
    if isinstance(obj, Mapping):
        for key, value in obj.items():
            if key in ("note", "label") and isinstance(value, str):
                yield value
            else:
                yield from _notes(value)
    elif isinstance(obj, list | tuple):
        for value in obj:
            yield from _notes(value)


def texts(resp: EstimateResponse) -> Iterator[tuple[str, str]]:
    """(what, text) for every formula, warning, cost note and option label of a response."""
    for e in reproduce.explanations(resp):
        yield f"formula of {e.figure}", e.formula
    for w in resp.warnings:
        yield "warning", str(w)
    for n in _notes(resp.cost):
        yield "cost note or label", n


def misses(text: str) -> list[str]:
    """The places where `text` does not count its nouns in English."""
    text = MACHINES.sub("as (machines)", text)
    return [m.group(0) for rx in (UNDECIDED, ONE_PLURAL, MANY_SINGULAR) for m in rx.finditer(text)]


@pytest.fixture(scope="module")
def grid_texts() -> dict[str, str]:
    """Every text of every response of the grid, once each, with what it is."""
    found: dict[str, str] = {}
    tasks: set[str] = set()
    grid = reproduce.GRID + reproduce.SERVING_GRID + reproduce.IMAGE_GRID
    for body in grid:
        resp = reproduce._estimate(body)
        if resp is None:
            continue
        tasks.add(body["task"])
        for what, text in texts(resp):
            found.setdefault(text, what)
    assert len(grid) >= 1000 and tasks == {*reproduce.TASKS, "inference", "image"}
    return found


def test_every_count_in_the_grid_agrees_with_its_noun(grid_texts: dict[str, str]) -> None:
    wrong = {text: (what, misses(text)) for text, what in grid_texts.items() if misses(text)}
    assert not wrong, f"{len(wrong)} texts miscount: {list(wrong.items())[:5]}"


@pytest.mark.parametrize(
    "said",
    # The grid reaches the singular of each noun, so the test above reads it.
    [
        "1 GPU",
        "1 node",
        "1 replica",
        "1 sequence",
        "1 user",
        "1 pass",
        "1 epoch",
        "1 instance",
        "1 day",
    ],
)
def test_the_grid_says_each_singular(grid_texts: dict[str, str], said: str) -> None:
    rx = re.compile(rf"{_COUNT_START}{said}(?![\w\-/(])")
    assert any(rx.search(text) for text in grid_texts), said


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # The engine's English before it counted (QA): each is a miss.
        ("128 cores per node for 8 GPU(s) × 2 node(s) = 256", ["U(s)", "e(s)"]),
        ("30 steps × 2 pass(es) × 6.71e+12 FLOP", ["s(es)"]),
        ("max(1) = 1 GPU(s)", ["U(s)"]),
        ("days × 24 h × 1 GPUs = 24 GPU-h", ["1 GPUs"]),
        ("1 sequences / 34.53 ms = 29.0 tokens/s per replica", ["1 sequences"]),
        ("holds 5 users at 10 tokens/s each ≥ 1 users", ["1 users"]),
        ("Rents 1 GPUs to cover 0.3.", ["1 GPUs"]),
        ("1 pinned GPUs make 2,845 images/h", ["1 pinned GPUs"]),
        ("64 GPUs finish 54.7× sooner than 1 GPUs, the smallest count", ["1 GPUs"]),
        ("200 users / 173 = 2 replica × 1 GPU", ["2 replica"]),
        ("3 × (0.8 GB dataset) / 2 node) → 8 TB per node", ["2 node"]),
        ("30 steps × 2 pass × 1.25e+14 FLOP", ["2 pass"]),
        ("1,024 GPU × 0.5 h", ["1,024 GPU"]),
        # QA: a one-day deadline or rental period, said in the plural.
        ("max(1, ⌈250,000 × 0.798 s / 1 days⌉) = 3 GPUs", ["1 days"]),
        ("one month for a rental period of 1 days.", ["1 days"]),
        ("0.25 GPU", ["0.25 GPU"]),
        # Correct English, compound words and "per": nothing to find.
        ("128 cores per node for 8 GPUs × 1 node = 128", []),
        ("30 steps × 1 pass × 1.25e+14 FLOP; 2 passes", []),
        ("24 days × 24 h × 1 GPU = 576 GPU-h", []),
        ("max(1, ⌈250,000 × 0.798 s / 1 day⌉) = 3 GPUs; 0.5 days", []),
        ("seed 003 T9 (8-GPU HGX H100 ≥ NT$12M); 3,600 s / 0.8 s = 4,500 images/h per GPU", []),
        ("NVIDIA H100 GPU, 2× H200 141GB, 1 replica of TP 8, 1 GPU-h, 0.25 GPUs", []),
        ("AWS p5.48xlarge on demand — 1 instance (us-east-1); 2 instances", []),
        ("Monthly rent — 11× h100-sxm-80gb as 8 + 2 + 1 GPUs; 64× a100 as 64 × 1 GPUs", []),
    ],
)
def test_the_rules_find_a_miscount_and_pass_english(text: str, found: list[str]) -> None:
    assert misses(text) == found


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        (plural(1, "node"), "1 node"),
        (plural(2, "node"), "2 nodes"),
        (plural(0, "replica"), "0 replicas"),
        (plural(1, "pass", "passes"), "1 pass"),
        (plural(2, "pass", "passes"), "2 passes"),
        (plural(1.5, "epoch"), "1.5 epochs"),
        (plural(1024, "sequence"), "1,024 sequences"),
        # Text is the caller's formatting, kept: a formula's numbers do not change.
        (plural("2048", "node"), "2048 nodes"),
        (plural(f"{1.0:g}", "epoch"), "1 epoch"),
        (gpus(1), "1 GPU"),
        (gpus(0.25), "0.25 GPUs"),
        (gpus("8"), "8 GPUs"),
        (months(1), "1 month"),
        (months(6.5), "6.5 months"),
    ],
)
def test_plural_counts_its_noun(said: str, expected: str) -> None:
    assert said == expected
