"""Units and number formatting shared by the engine's formula strings."""

from __future__ import annotations

GB = 1e9  # bytes; the product reports decimal GB (PRODUCT.md §5)
HOURS_PER_MONTH = 730.0  # 8,760 h / 12


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
