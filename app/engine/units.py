"""Units shared by the engine (formatting lives in `app.engine.formatting`)."""

from __future__ import annotations

from app.engine.formatting import fmt

__all__ = ["GB", "HOURS_PER_MONTH", "fmt"]

GB = 1e9  # bytes; the product reports decimal GB (PRODUCT.md §5)
HOURS_PER_MONTH = 730.0  # 8,760 h / 12
