"""Numbers and money written one way everywhere: formulas, charts, templates, the catalog.

Pure Python (the engine's formula strings use it); the web layer adds only the locale's
digit grouping (`app.web.templating.money` formats with Babel but takes its symbols and
decimal places from here).

NT$ is written explicitly because Babel formats TWD as a bare "$" in zh_Hant_TW
(shared/TOOLCHAIN.md).
"""

from __future__ import annotations

import re
from typing import Final

#: Symbols printed before amounts.
CURRENCY_SYMBOLS: Final = {"TWD": "NT$", "USD": "US$", "EUR": "€", "JPY": "¥", "CNY": "CN¥"}
#: Decimal places shown per currency on pages and quotes (NT$ amounts are whole dollars).
CURRENCY_DIGITS: Final = {"TWD": 0, "USD": 2}


def currency_symbol(currency: str) -> str:
    """ "NT$" for TWD, "US$" for USD, else the ISO code and a space."""
    return CURRENCY_SYMBOLS.get(currency, f"{currency} ")


def fmt(x: float, digits: int = 3) -> str:
    """A number for a formula string: integers plainly, large/small values compactly."""
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 1e7 or ax < 1e-3:
        return f"{x:.{digits}g}"
    if float(x).is_integer():
        return f"{int(x):,}"
    if ax >= 100:
        return f"{x:,.0f}"
    if ax >= 10:
        return f"{x:,.1f}"
    return f"{x:.{digits}g}"


def money(amount: float, currency: str, digits: int | None = None) -> str:
    """Format a money amount: ``money(280000, "TWD") == "NT$280,000"``.

    Amounts of 1,000 or more, and whole amounts, get no decimals; smaller fractional amounts
    (hourly prices such as US$55.04) get two. Negative amounts use a minus sign (−).
    """
    if digits is None:
        digits = 0 if abs(amount) >= 1000 or float(amount).is_integer() else 2
    text = f"{abs(amount):,.{digits}f}"
    sign = "−" if amount < 0 and text.strip("0.,") else ""
    return f"{sign}{currency_symbol(currency)}{text}"


def exact_money(amount: float, currency: str, max_digits: int = 4) -> str:
    """Money as it multiplies and adds: whole amounts without decimals, others with as many
    as they have (two at least, `max_digits` at most): "NT$100,470", "NT$6,238.40/kW-month",
    "US$0.1334/kWh". `money` drops the cents of amounts of 1,000 or more, so a formula that
    multiplies a rate of NT$6,238.40 printed "NT$6,238" and did not reproduce (QA)."""
    digits = 0
    if abs(amount - round(amount)) >= 1e-9:
        digits = next(
            (d for d in range(2, max_digits) if abs(amount - round(amount, d)) < 1e-9),
            max_digits,
        )
    return money(amount, currency, digits)


def number(value: float, digits: int = 2) -> str:
    """Format a quantity with thousands separators and at most `digits` decimals.

    Trailing zeros are dropped: ``number(730.0) == "730"``, ``number(416.666) == "416.67"``.
    """
    text = f"{value:,.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def plural(count: float | str, noun: str, nouns: str | None = None, *, digits: int = 2) -> str:
    """A count and its noun, agreeing as a formula says them: ``plural(2, "node") == "2
    nodes"``, exactly one singular, ``plural(1, "node") == "1 node"`` (never "1 nodes" nor
    "node(s)"); an irregular plural is given, ``plural(2, "pass", "passes") == "2 passes"``.

    A number is written by `number` (thousands grouped, at most `digits` decimals); a count
    given as text is kept as the caller formatted it (``plural(f"{n}", "replica")``,
    ``plural(f"{epochs:g}", "epoch")``), so a formula's numbers do not change with its noun.
    Only "1" takes the singular: 0.5, 1.5 and 0 GPUs are plural, as English says them."""
    text = count if isinstance(count, str) else number(count, digits)
    return f"{text} {noun}" if text == "1" else f"{text} {nouns or noun + 's'}"


def months(value: float, digits: int = 2) -> str:
    """A number of months as a formula says it: ``months(6) == "6 months"``, and exactly one
    singular, ``months(1) == "1 month"`` (never "1 months")."""
    return plural(value, "month", digits=digits)


def days(value: float, digits: int = 3) -> str:
    """A number of days as a formula says it, written by `fmt`: ``days(336) == "336 days"``,
    and exactly one singular, ``days(1) == "1 day"`` (never "1 days")."""
    return plural(fmt(value, digits), "day")


def gpus(value: float | str, digits: int = 2) -> str:
    """A number of GPUs as a formula says it: ``gpus(8) == "8 GPUs"``, ``gpus(1) == "1 GPU"``
    (never "1 GPUs" nor "GPU(s)"); text is kept as written, as `plural` keeps it."""
    return plural(value, "GPU", digits=digits)


def percent(fraction: float, digits: int = 1) -> str:
    """Format a fraction as a percentage: ``percent(0.2) == "20%"``."""
    return f"{number(fraction * 100, digits)}%"


_QUALIFIER: Final = re.compile(r"\(([^()]*)\)\s*$")
_PER: Final = re.compile(r"\bper\b", re.I)
_SIZE: Final = re.compile(r"\d+(?:\.\d+)?\s*[GT]B\b", re.I)


def gpu_name(name: str) -> str:
    """The GPU's name as the customer reads it: the catalog's English qualifiers in brackets
    dropped ("NVIDIA GB200 NVL72 (per Blackwell GPU, 186GB)" → "NVIDIA GB200 NVL72 186GB"),
    product words kept ("(HGX/DGX, per GPU)" → "(HGX/DGX)"); a memory size the name lacks
    is moved out of the brackets. Product names are names in every language; "per GPU" is not
    (QA: English on the 中文 page)."""
    m = _QUALIFIER.search(name)
    if not m:
        return name
    base = name[: m.start()].rstrip()
    kept: list[str] = []
    for part in (p.strip() for p in m.group(1).split(",")):
        if not part or _PER.search(part):
            continue
        if _SIZE.fullmatch(part):
            if not _SIZE.search(base):
                base = f"{base} {part.replace(' ', '')}"
            continue
        kept.append(part)
    return f"{base} ({', '.join(kept)})" if kept else base  # a product name: ASCII
