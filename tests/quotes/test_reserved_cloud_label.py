"""A reserved cloud option in the reader's words (QA: "公有雲,預留 — AWS g6e.48xlarge 1-year
reserved" in the 中文 break-even labels); the engine's label (app.engine.costs.cloud) is
"<provider> <instance> 1-year reserved — <n> instance(s) (<region>, price of <date>)"."""

from __future__ import annotations

import pytest

from app import i18n
from app.quotes.document import option_label

RESERVED = {
    "kind": "cloud_reserved",
    "label": "AWS g6e.48xlarge 1-year reserved — 1 instance(s) (us-east-1, price of 2026-01-21)",
}


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("zh-TW", "公有雲,預留 — AWS g6e.48xlarge · 1 年期"),
        ("en", "Public cloud, reserved — AWS g6e.48xlarge · 1-year term"),
    ],
)
def test_a_reserved_option_says_its_term_in_the_readers_words(lang: str, expected: str) -> None:
    i18n.activate(lang)
    try:
        assert option_label(RESERVED, {}, 730.0) == expected
    finally:
        i18n.activate("en")
