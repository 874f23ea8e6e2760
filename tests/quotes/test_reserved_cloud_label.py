"""A reserved cloud option in the reader's words (QA: "公有雲,預留 — AWS g6e.48xlarge 1-year
reserved" in the 中文 break-even labels); the engine's label (app.engine.costs.cloud) is
"<provider> <instance> 1-year reserved — <n> instances (<region>, price of <date>)" ("1
instance" for one)."""

from __future__ import annotations

import pytest

from app import i18n
from app.quotes.document import option_label

RESERVED = {
    "kind": "cloud_reserved",
    "label": "AWS g6e.48xlarge 1-year reserved — 1 instance (us-east-1, price of 2026-01-21)",
}


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("zh-TW", "公有雲，預留 — AWS g6e.48xlarge · 1 年期"),
        ("en", "Public cloud, reserved — AWS g6e.48xlarge · 1-year term"),
    ],
)
def test_a_reserved_option_says_its_term_in_the_readers_words(lang: str, expected: str) -> None:
    i18n.activate(lang)
    try:
        assert option_label(RESERVED, {}, 730.0) == expected
    finally:
        i18n.activate("en")


def test_an_instance_named_by_api_id_is_said_as_its_gpus() -> None:
    """Lambda's instance types are API identifiers ("gpu_8x_h100_sxm5"): the customer's
    document printed "公有雲 — Lambda gpu_8x_h100_sxm5"; /tco says "Lambda 8× H100 SXM5 80GB"
    (app.costs.wording.instance_name), and so does the quote now. A public name stays."""
    gpu = {"name": "NVIDIA H100 SXM5 80GB", "count": 4}
    lam = {"kind": "cloud", "label": "Lambda gpu_8x_h100_sxm5 on demand — 1 instance (us, "
           "price of 2026-04-06)"}  # fmt: skip
    aws = {"kind": "cloud", "label": "AWS p5.48xlarge on demand — 1 instance (us-east-1, "
           "price of 2026-01-21)"}  # fmt: skip
    assert option_label(lam, gpu, 730.0) == "Public cloud — Lambda 8× H100 SXM5 80GB"
    assert option_label(aws, gpu, 730.0) == "Public cloud — AWS p5.48xlarge"


def test_a_cloud_line_says_how_many_instances_its_rate_pays_for() -> None:
    """QA: "Public cloud — Lambda 8× H100 SXM5 80GB | US$63.84/h" priced two instances for a
    16-GPU plan, and read as one instance at twice Lambda's rate (US$31.92/h each)."""
    from app.quotes.document import quote_lines

    gpu = {"name": "NVIDIA H100 SXM5 80GB", "count": 16}
    lam = {"key": "cloud:lambda", "kind": "cloud", "billed": {"gpus": 16, "nodes": 2},
           "label": "Lambda gpu_8x_h100_sxm5 on demand — 2 instances (us, price of "
           "2026-04-06)"}  # fmt: skip
    quote = {"currency": "USD", "tax_rate": "0", "discount_pct": "0", "lines": [
        {"option_key": "cloud:lambda", "kind": "cloud", "unit": "hour", "unit_price": "63.84",
         "quantity": "618", "months": "1", "discount_pct": "0"},
        {"option_key": "cloud:lambda", "kind": "cloud", "unit": "hour", "unit_price": "63.84",
         "quantity": "618", "months": "1", "discount_pct": "0", "description": "GPU 雲端"},
    ]}  # fmt: skip
    first, typed = quote_lines(quote, [lam], gpu, 730.0, "USD")
    assert first["description"] == (
        "Public cloud — Lambda 8× H100 SXM5 80GB · 16 × NVIDIA H100 SXM5 80GB on 2 servers"
    )
    assert typed["description"] == "GPU 雲端"  # what the seller typed stays as typed
