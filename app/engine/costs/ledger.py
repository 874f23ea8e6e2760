"""Month-by-month cash flows, kept per named part, from which totals and curves are read.

Month index 0 is "now" (upfront payments); index m (1..horizon) is the end of month m. A
recurring cost is charged for the part of each month that falls inside [start, start +
months), so fractional durations (2.5 months) cost exactly 2.5 months.
"""

from __future__ import annotations

import math
from collections.abc import Callable


class Ledger:
    """Cash flows per part over months 0..horizon."""

    __slots__ = ("_flows", "horizon")

    def __init__(self, horizon: int) -> None:
        self.horizon = horizon
        self._flows: dict[str, list[float]] = {}

    def _part(self, part: str) -> list[float]:
        flows = self._flows.get(part)
        if flows is None:
            flows = self._flows[part] = [0.0] * (self.horizon + 1)
        return flows

    def upfront(self, part: str, amount: float) -> None:
        """Pay `amount` at month 0."""
        self._part(part)[0] += amount

    def at_end_of(self, part: str, month: float, amount: float) -> None:
        """Pay (or, when negative, receive) `amount` at the end of month ceil(`month`)."""
        index = min(self.horizon, max(0, math.ceil(month - 1e-9)))
        self._part(part)[index] += amount

    def recurring(self, part: str, per_month: float, months: float, start: float = 0.0) -> None:
        """Pay `per_month` for each month in [start, start + months), pro rata."""
        flows = self._part(part)
        end = min(start + months, float(self.horizon))
        first = max(1, math.floor(start) + 1)
        for m in range(first, self.horizon + 1):
            lo = m - 1.0
            if lo >= end:
                break
            share = min(float(m), end) - max(lo, start)
            if share > 0:
                flows[m] += per_month * share

    def round_parts(self, rounding: Callable[[float], float]) -> None:
        """Round each part's total once (`rounding`: to the currency's unit), the difference
        taken in the part's last month with a flow, so that the curves end on the totals
        printed (a part of NT$3,616,933.22 paid month by month ends on NT$3,616,933)."""
        for flows in self._flows.values():
            raw = sum(flows)
            last = max((i for i, x in enumerate(flows) if x != 0), default=0)
            flows[last] += rounding(raw) - raw

    def breakdown(self) -> dict[str, float]:
        """Total per part over the whole horizon."""
        return {part: sum(flows) for part, flows in self._flows.items()}

    def cumulative_parts(self) -> dict[str, list[float]]:
        """Running total per part at the end of months 0..horizon."""
        out: dict[str, list[float]] = {}
        for part, flows in self._flows.items():
            running, acc = [], 0.0
            for x in flows:
                acc += x
                running.append(acc)
            out[part] = running
        return out

    def cumulative(self) -> list[float]:
        """Running total of all parts at the end of months 0..horizon."""
        totals = [0.0] * (self.horizon + 1)
        for flows in self._flows.values():
            for i, x in enumerate(flows):
                totals[i] += x
        acc, out = 0.0, []
        for x in totals:
            acc += x
            out.append(acc)
        return out
