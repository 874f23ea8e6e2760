"""The API's JSON: floats written to 12 significant digits.

The engine computes in binary floating point, so sums like 0.1 × 3 come out as
69,846.40000000001 or 0.37000000000000005 (a utilisation of 37 % given as 0.37). Written
as they are, an integrator read "NT$478.40000000000003" in a cost option (QA). Twelve
significant digits keep every figure exact to far below a cent of any amount the product
handles (NT$10^9 to the thousandth of a dollar) and below any engine tolerance (explanations
reproduce within 0.5 %), while dropping the last bits' noise. Money in quotes is `Decimal`
and written as strings; it is not touched.
"""

from __future__ import annotations

import math
from typing import Any

from fastapi.responses import JSONResponse

SIGNIFICANT_DIGITS = 12


def tidy(value: Any) -> Any:
    """`value` with every finite float rounded to SIGNIFICANT_DIGITS significant digits."""
    if isinstance(value, float):
        return float(f"{value:.{SIGNIFICANT_DIGITS}g}") if math.isfinite(value) else value
    if isinstance(value, dict):
        return {k: tidy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [tidy(v) for v in value]
    return value


class TidyJSONResponse(JSONResponse):
    """JSONResponse that writes floats without their binary noise (module docstring)."""

    def render(self, content: Any) -> bytes:
        return super().render(tidy(content))
