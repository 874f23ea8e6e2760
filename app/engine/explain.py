"""How every figure the engine returns was computed.

A procurement committee does not take a number on trust: each figure the engine returns
comes with an `Explanation` whose `formula` shows the arithmetic with the user's own numbers
substituted ("NT$350,000 × (1 − 0.20) = NT$280,000") and whose `source` names the rule or
price it rests on (seed rule T8, a datasheet, a price-list entry id).

The formatting helpers here (`money`, `number`) are shared so that every formula in the
product writes money and quantities the same way.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Explanation:
    """One computed figure and its derivation.

    Not frozen: an estimate builds a score of these, and a frozen dataclass's __init__ sets
    each field through object.__setattr__, twice as slow. Nothing mutates one after it is made.

    figure: what the number is ("Monthly rent"); value: the number itself; unit: its unit
    ("TWD/month", "h/month", "kWh", "months"); formula: the arithmetic with the user's numbers
    substituted; source: the rule, datasheet or price-list entry the inputs come from.
    """

    figure: str
    value: float
    unit: str
    formula: str
    source: str


# Symbols used in formulas. NT$ is written explicitly because Babel formats TWD as a bare
# "$" in zh_Hant_TW (see shared/TOOLCHAIN.md).
_SYMBOLS = {"TWD": "NT$", "USD": "US$", "EUR": "€", "JPY": "¥", "CNY": "CN¥"}


def money(amount: float, currency: str, digits: int | None = None) -> str:
    """Format a money amount for a formula: ``money(280000, "TWD") == "NT$280,000"``.

    Amounts of 1,000 or more, and whole amounts, get no decimals; smaller fractional amounts
    (hourly prices such as US$55.04) get two. Negative amounts use a minus sign (−).
    """
    if digits is None:
        digits = 0 if abs(amount) >= 1000 or float(amount).is_integer() else 2
    symbol = _SYMBOLS.get(currency, f"{currency} ")
    text = f"{abs(amount):,.{digits}f}"
    sign = "−" if amount < 0 and text.strip("0.,") else ""
    return f"{sign}{symbol}{text}"


def number(value: float, digits: int = 2) -> str:
    """Format a quantity with thousands separators and at most `digits` decimals.

    Trailing zeros are dropped: ``number(730.0) == "730"``, ``number(416.666) == "416.67"``.
    """
    text = f"{value:,.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def percent(fraction: float, digits: int = 1) -> str:
    """Format a fraction as a percentage: ``percent(0.2) == "20%"``."""
    return f"{number(fraction * 100, digits)}%"
