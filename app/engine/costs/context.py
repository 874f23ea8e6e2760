"""What every option builder needs: the price list, the currency and the resolved usage."""

from __future__ import annotations

from dataclasses import dataclass

from app.engine.costs.ledger import Ledger
from app.engine.costs.model import CostInputError, CostOption
from app.engine.explain import Explanation, money, number
from app.engine.price_book import EnergyPrice, PriceBook


def book_currencies(book: PriceBook) -> list[str]:
    """Currencies this price list can convert between."""
    found = {book.currency}
    for r in book.fx:
        found |= {r.base, r.quote}
    return sorted(found)


def convert(book: PriceBook, amount: float, from_ccy: str, to_ccy: str) -> float:
    """`book.convert`, but a missing rate is an input error naming the currency."""
    try:
        return book.convert(amount, from_ccy, to_ccy)
    except KeyError:
        raise CostInputError(
            "currency",
            f"one of {', '.join(book_currencies(book))} (price list {book.name!r} has no "
            f"{from_ccy}→{to_ccy} rate)",
            to_ccy,
        ) from None


@dataclass(frozen=True)
class Context:
    """A resolved comparison request.

    hours: busy GPU hours per month; need_months: how long the need lasts; covered: the
    months of need inside the horizon; storage_network: the usage's separately priced
    storage + network per month, already in `currency`.
    """

    book: PriceBook
    currency: str
    horizon: int
    hours: float
    need_months: float
    covered: float
    storage_network: float
    energy: EnergyPrice | None
    term_months: int | None

    def conv(self, amount: float, ccy: str) -> float:
        return convert(self.book, amount, ccy, self.currency)

    @property
    def book_ref(self) -> str:
        return f"price list {self.book.name!r} ({self.book.effective_date.isoformat()})"


def finish_option(
    ctx: Context,
    ledger: Ledger,
    *,
    kind: str,
    key: str,
    label: str,
    lead_time_days: float,
    source_ids: list[str],
    explain: list[Explanation],
    fixed_monthly: float,
    metered_monthly_full: float,
    feasible: bool = True,
    note: str = "",
) -> CostOption:
    """Read totals and curves off the ledger and add the total/monthly explanations."""
    breakdown = ledger.breakdown()
    total = sum(breakdown.values())
    cumulative = ledger.cumulative()
    # A need shorter than a month is shown per month of calendar it occupies (one), so a
    # 3-day job's "per month" is what that month costs, not the total scaled up 10×.
    months = max(ctx.covered, min(1.0, float(ctx.horizon)))
    monthly = total / months
    parts = " + ".join(
        f"{name} {money(v, ctx.currency)}" for name, v in breakdown.items() if v != 0
    )
    explain = [
        *explain,
        Explanation(
            f"{label}: total",
            total,
            ctx.currency,
            f"{parts or '0'} = {money(total, ctx.currency)}",
            f"sum of the parts over {number(months)} months of need ({ctx.horizon}-month horizon)",
        ),
        Explanation(
            f"{label}: average per month",
            monthly,
            f"{ctx.currency}/month",
            f"{money(total, ctx.currency)} / {number(months)} months "
            f"= {money(monthly, ctx.currency)}",
            "total over the months of need inside the horizon",
        ),
    ]
    return CostOption(
        kind=kind,
        label=label,
        monthly=monthly,
        total=total,
        upfront=cumulative[0],
        currency=ctx.currency,
        breakdown=breakdown,
        cumulative=cumulative,
        lead_time_days=lead_time_days,
        source_ids=source_ids,
        explain=explain,
        feasible=feasible,
        note=note,
        key=key,
        fixed_monthly=fixed_monthly,
        metered_monthly_full=metered_monthly_full,
        cumulative_parts=ledger.cumulative_parts(),
    )


def add_storage_network(ctx: Context, ledger: Ledger) -> list[Explanation]:
    """Charge the usage's separately priced storage + network for the months of need."""
    sn, ccy = ctx.storage_network, ctx.currency
    if sn <= 0:
        return []
    ledger.recurring("storage_network", sn, ctx.covered)
    return [
        Explanation(
            "Storage + network",
            sn * ctx.covered,
            ccy,
            f"{money(sn, ccy)}/month × {number(ctx.covered)} months = "
            f"{money(sn * ctx.covered, ccy)}",
            "usage input (separately priced storage/network); seed 003 T13 (≥15 % of budget)",
        )
    ]
