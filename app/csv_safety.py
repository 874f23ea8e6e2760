"""CSV formula injection: cells a spreadsheet would run as a formula are neutralised.

OWASP "CSV Injection": a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage
return is read by Excel, LibreOffice and Google Sheets as a formula
(`=HYPERLINK("http://evil.example/","x")`, `+cmd|' /C calc'!A0`, `@SUM(1+1)`). Every CSV the
app writes passes its cells through `safe_cell`, which prefixes such a cell with a single
quote — the spreadsheet then shows it as text — unless the cell is a plain number
(`-5`, `+1.5`, `-1e3` stay numbers). `unescape_cell` undoes it on import, so an exported
catalog imports back unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

#: First characters that make a spreadsheet cell a formula (OWASP CSV Injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def safe_cell(value: str) -> str:
    """`value`, with a leading `'` when a spreadsheet would take it for a formula."""
    if value.startswith(FORMULA_PREFIXES) and not _is_number(value):
        return "'" + value
    return value


def safe_row(cells: Iterable[str]) -> list[str]:
    return [safe_cell(c) for c in cells]


def unescape_cell(value: str) -> str:
    """The value `safe_cell` was given: a `'` before a formula prefix is dropped."""
    if value.startswith("'") and value[1:].startswith(FORMULA_PREFIXES):
        return value[1:]
    return value
