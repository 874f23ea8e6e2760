"""Input checks that raise `CostInputError` naming the field and its allowed range."""

from __future__ import annotations

import math

from app.engine.costs.model import CostInputError


def finite(name: str, value: float) -> float:
    if not isinstance(value, int | float) or not math.isfinite(value):
        raise CostInputError(name, "a finite number", value)
    return float(value)


def positive(name: str, value: float) -> float:
    """value > 0."""
    if finite(name, value) <= 0:
        raise CostInputError(name, "> 0", value)
    return float(value)


def non_negative(name: str, value: float) -> float:
    """value ≥ 0."""
    if finite(name, value) < 0:
        raise CostInputError(name, "≥ 0", value)
    return float(value)


def fraction(name: str, value: float) -> float:
    """0 < value ≤ 1."""
    v = finite(name, value)
    if not 0 < v <= 1:
        raise CostInputError(name, "in (0, 1]", value)
    return v


def in_range(name: str, value: float, lo: float, hi: float, *, lo_open: bool = False) -> float:
    """lo ≤ value ≤ hi (lo < value when lo_open)."""
    v = finite(name, value)
    if v > hi or v < lo or (lo_open and v == lo):
        bracket = "(" if lo_open else "["
        raise CostInputError(name, f"in {bracket}{lo:g}, {hi:g}]", value)
    return v


def whole(name: str, value: int, lo: int, hi: int) -> int:
    """An integer lo..hi."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise CostInputError(name, f"an integer in {lo}–{hi}", value)
    return value
