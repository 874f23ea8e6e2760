"""The seed-003 tables the pages show (tiers, reference templates, T14 signals), priced live.

Text is marked with `N_` and translated when rendered; prices come from the current price
list (`app.catalog.current.price_book`), so a new list changes every page at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from app.catalog.current import price_book
from app.engine.expression import round_half_up
from app.engine.formatting import currency_symbol
from app.engine.price_book import FxRate, PriceBook, RentalOffer
from app.i18n import N_
from app.i18n import gettext as _

REFERENCE_GPU = "h100-sxm-80gb"


@dataclass(frozen=True, slots=True)
class TierInfo:
    """One row of seed 003's three-tier table (T1)."""

    key: str
    name: str
    scenarios: str
    hardware: str
    interconnect: str
    min_gpus: int
    max_gpus: int | None
    template: str  # key of the reference architecture


TIERS: tuple[TierInfo, ...] = (
    TierInfo(
        "single_gpu",
        N_("Single GPU"),
        N_("7B–13B fine-tuning, inference, image generation"),
        "H100 80GB ×1",
        "PCIe 5.0",
        1,
        1,
        "entry",
    ),
    TierInfo(
        "multi_gpu",
        N_("Multi-GPU"),
        N_("13B full fine-tuning, 70B LoRA"),
        "H100 ×2–8",
        "NVLink 900 GB/s",
        2,
        8,
        "growth",
    ),
    TierInfo(
        "multi_node",
        N_("Multi-node"),
        N_("70B full fine-tuning, pre-training"),
        N_("H100 ×16 and up"),
        "InfiniBand 400 Gbps",
        16,
        None,
        "training",
    ),
)
TIER_BY_KEY = {t.key: t for t in TIERS}

#: Seed 003 T14: leave the single tier when two or more of these show up.
UPGRADE_SIGNALS: tuple[str, ...] = (
    N_("Training jobs queue for more than a week before they run."),
    N_("The model you want to train jumps from 13B to 70B."),
    N_("Inference peaks start to queue: users wait for an answer."),
)


@dataclass(frozen=True, slots=True)
class Architecture:
    """A reference template of seed 003 (entry / growth / training)."""

    key: str
    name: str
    tier: str
    gpus: int
    gpu_text: str
    cpu_ram: str
    storage: str
    network: str
    uses: tuple[str, ...]
    quoted: bool  # "專案報價": priced per project


ARCHITECTURES: tuple[Architecture, ...] = (
    Architecture(
        "entry",
        N_("Entry"),
        "single_gpu",
        1,
        "H100 80GB ×1",
        N_("16 cores / 192 GB"),
        "NVMe 2 TB",
        N_("100 Mbps uplink"),
        (N_("Fine-tuning (LoRA)"), N_("Inference"), N_("Image generation")),
        False,
    ),
    Architecture(
        "growth",
        N_("Growth"),
        "multi_gpu",
        4,
        "H100 ×4 + NVLink",
        N_("48 cores / 512 GB"),
        "NVMe 8 TB + NAS 20 TB",
        N_("1 Gbps uplink + 10GbE internal"),
        (N_("13B full fine-tuning"), N_("70B LoRA")),
        False,
    ),
    Architecture(
        "training",
        N_("Training"),
        "multi_node",
        16,
        "H100 ×16 + NVSwitch",
        N_("2 × 64 cores / 1 TB per node"),
        N_("NVMe 16 TB + parallel file system"),
        N_("InfiniBand 400 Gbps × 8 rails"),
        (N_("70B full fine-tuning"), N_("Pre-training")),
        True,
    ),
)
ARCH_BY_KEY = {a.key: a for a in ARCHITECTURES}


def _convert(book: PriceBook, amount: float, from_ccy: str, to_ccy: str) -> float | None:
    try:
        return book.convert(amount, from_ccy, to_ccy)
    except KeyError:
        return None


def house_offers(book: PriceBook | None) -> list[RentalOffer]:
    """The provider's own reference-GPU offers in the list's home currency
    (`PriceBook.house_provider`: seed 003's tier table is the provider's own list)."""
    if book is None:
        return []
    house = book.house_provider
    return [
        o
        for o in book.offers
        if o.gpu_id == REFERENCE_GPU and o.currency == book.currency and o.provider == house
    ]


def monthly_offer(book: PriceBook | None, gpus: float, currency: str) -> float | None:
    """The list monthly rent of the provider's reference-GPU offer with exactly `gpus` GPUs."""
    if book is None:
        return None
    for offer in house_offers(book):
        if offer.gpu_count == gpus:
            return _convert(book, offer.monthly_price, offer.currency, currency)
    return None


def tier_price_range(
    book: PriceBook | None, tier: TierInfo, currency: str
) -> tuple[float, float] | None:
    """Lowest and highest monthly rent of the reference-GPU offers inside the tier."""
    if book is None or tier.max_gpus is None:
        return None
    prices = [
        _convert(book, o.monthly_price, o.currency, currency)
        for o in house_offers(book)
        if tier.min_gpus <= o.gpu_count <= tier.max_gpus
    ]
    found = [p for p in prices if p is not None]
    return (min(found), max(found)) if found else None


def whole(amount: float) -> int:
    """A reference price in whole units, half up as quotes round (app/quotes/pricing.py):
    NT$50,000 at 32 NT$/US$ is US$1,562.50 → US$1,563 (the money formatter rounds half to
    even, so it showed US$1,562 beside US$10,938 for 10,937.50, QA)."""
    return int(round_half_up(amount))


def fx_rate(book: PriceBook | None, currency: str) -> FxRate | None:
    """The price list's rate the page converts its home-currency prices at; None when the page
    shows the list's own currency (nothing is converted) or the list has no such rate."""
    if book is None or currency == book.currency:
        return None
    pair = {book.currency, currency}
    return next((r for r in book.fx if {r.base, r.quote} == pair), None)


def fx_note(book: PriceBook | None, currency: str) -> str:
    """ "Converted from NT$ at the price list's rate, US$1 = NT$32, as of Nov 1, 2026." —
    PRODUCT.md §6: a foreign-currency figure carries its rate and its date."""
    from app.web.templating import date, number

    rate = fx_rate(book, currency)
    if rate is None or book is None:
        return ""
    digits = 0 if rate.rate == round(rate.rate) else 4
    text = number(rate.rate, digits)
    if digits:
        text = text.rstrip("0").rstrip(".")
    values = {
        "home": currency_symbol(book.currency).strip(),
        "rate": f"{currency_symbol(rate.base)}1 = {currency_symbol(rate.quote)}{text}",
        "date": date(rate.as_of),
    }
    return _("Converted from %(home)s at the price list's rate, %(rate)s, as of %(date)s.") % values


def tier_rows(request: Request, currency: str) -> list[dict[str, Any]]:
    """The three-tier table with live prices (None = quoted per project), in whole units half
    up (`whole`), on the home page as on /assess (QA: home said "about US$1,562", /assess
    "about US$1,563", for NT$50,000 at 32)."""
    book = price_book(request)
    rows = []
    for t in TIERS:
        price = tier_price_range(book, t, currency)
        rows.append({"tier": t, "price": (whole(price[0]), whole(price[1])) if price else None})
    return rows


def home_context(request: Request) -> dict[str, Any]:
    from app.web.templating import choose_currency

    return {"nav_active": "home", "tier_rows": tier_rows(request, choose_currency(request))}
