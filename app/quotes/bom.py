"""The bill of materials of a saved plan: the quoted cost option as line items.

Built from the plan's stored result (its cost block and infrastructure) plus the rental
offers of the plan's own price list — never re-priced — so every line total comes from the
stored figures and the lines add up, to the cent, to the quoted option's stored `total`.

The quoted option is the one the saved quote's largest option line quotes; without one, the
result's `cheapest` option when it is feasible, else the cheapest feasible one. Rental options become one line per rental offer (unit price, quantity, term
discount, line total); buying and cloud become one line per cost part (`breakdown`).
Infrastructure lines (CPU, RAM, NVMe, NAS, network, power) describe what the configuration
includes and carry no price of their own (the rent or the hardware price covers them).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Final

from app.csv_safety import safe_row
from app.engine.costs.formulas import term_discount
from app.engine.formatting import number
from app.engine.price_book import PriceBook, RentalOffer
from app.quotes.pricing import QUOTABLE_KINDS, gross

RENTAL_KINDS: Final = ("rent_hourly", "rent_monthly", "rent_term", "mig")
CENT: Final = Decimal("0.01")

# Cost parts of buying and cloud options (cost block `breakdown` keys) → English msgid.
PART_LABELS: Final = {
    "rent": "Rent",
    "capex": "Hardware (capex)",
    "storage_network": "Storage and network",
    "power": "Power",
    "facility": "Facility (colocation)",
    "maintenance": "Maintenance",
    "staff": "Operations staff",
    "residual": "Resale value",
    "cloud": "Cloud",
    "install": "Installation",
}


def cents(value: float | Decimal) -> Decimal:
    """Money rounded half-up to the cent (the CSV's and the totals' precision)."""
    return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True, slots=True)
class BomLine:
    section: str  # "rental" | "cost" | "infrastructure"
    item: str  # English msgid or data (an offer id), see `translate_item`
    description: str  # data: offer provider, option label, or a spec ("16 cores")
    unit_price: Decimal | None
    unit: str  # "h" | "month" | "" (per unit of `quantity`)
    quantity: Decimal | None
    discount: float  # term discount, 0–1
    line_total: Decimal  # cents; 0 for included infrastructure
    currency: str
    included: bool = False  # infrastructure covered by the priced lines


@dataclass(frozen=True, slots=True)
class Bom:
    option: Mapping[str, Any] | None
    lines: list[BomLine]
    currency: str

    @property
    def total(self) -> Decimal:
        return sum((line.line_total for line in self.lines), Decimal("0"))


def is_own_option(option: Mapping[str, Any], house: str) -> bool:
    """Whether `option` is the seller's own way to pay: its rent or MIG slice (`house`, the
    price list's `PriceBook.house_provider`; "" when unknown: every provider's) or buying —
    never another provider's rent nor a public cloud, which a quote shows only as a
    comparison (`document.is_comparison`)."""
    if option.get("kind") not in QUOTABLE_KINDS:
        return False
    provider = str(option.get("provider") or "")
    return not (house and provider and provider != house)


def default_option(cost: Mapping[str, Any] | None, house: str = "") -> Mapping[str, Any] | None:
    """The option a quote opens on before anyone chose one: the plan's cheapest (the
    engine's `cost.cheapest`) when it is the seller's own (`is_own_option`) and feasible,
    else the seller's own feasible option with the lowest total (economical first); None
    when no option can run the plan. A
    marketplace's hourly H100 was the cheapest of a converted lead, and its default line
    read "RunPod NT$96/h" in a quote whose ways to pay, comparison off, listed the seller's
    NT$120/h (QA). Only where the seller has no option is another quotable one taken."""
    if not cost:
        return None
    options = [o for o in cost.get("options") or [] if o.get("total") is not None]
    own = [o for o in options if is_own_option(o, house)]
    pool = own or [o for o in options if o.get("kind") in QUOTABLE_KINDS] or options
    cheapest = next((o for o in pool if o.get("key") == cost.get("cheapest")), None)
    if cheapest is not None and cheapest.get("feasible", True):
        return cheapest
    feasible = [o for o in pool if o.get("feasible", True)]
    sensible = [o for o in feasible if o.get("economical", True)]
    # None when nothing can run the plan: a document quoting an option that cannot (QA:
    # "Quoted total NT$9,991,775,846" for 32,768 single-GPU machines where the plan needs
    # 4 GPUs in one) asks the customer for a setup that does not work.
    return min(sensible or feasible, key=lambda o: float(o["total"]), default=None)


def quoted_option(
    cost: Mapping[str, Any] | None, quote: Mapping[str, Any] | None = None, house: str = ""
) -> Mapping[str, Any] | None:
    """The option the quote is for: the option of the saved quote's largest option line,
    where it has one (QA: the BOM of a quote for Stratagem's monthly rent listed RunPod's
    hourly rent, the plan's cheapest); else the option a quote opens on (`default_option`:
    the seller's own cheapest, never a public cloud's or another provider's total as the
    "Quoted total", QA 2026-12-02)."""
    if not cost:
        return None
    options = [o for o in cost.get("options") or [] if o.get("total") is not None]
    by_key = {o.get("key"): o for o in options}
    quoted = [line for line in (quote or {}).get("lines") or [] if line.get("option_key") in by_key]
    if quoted:
        largest = max(quoted, key=gross)  # the first of equals
        return by_key[largest["option_key"]]
    return default_option(cost, house)


def _split(total: Decimal, weights: Sequence[float]) -> list[Decimal]:
    """`total` split by `weights` in cents; the last share takes the rounding remainder."""
    if len(weights) <= 1:
        return [total]
    whole = sum(weights) or 1.0
    shares = [cents(total * Decimal(str(w / whole))) for w in weights[:-1]]
    return [*shares, total - sum(shares, Decimal("0"))]


def _rental_lines(
    option: Mapping[str, Any], book: PriceBook | None, term_months: int | None, currency: str
) -> list[BomLine]:
    total = cents(float(option["total"]))
    kind = str(option.get("kind"))
    ids = [str(i) for i in option.get("source_ids") or []]
    offers: list[RentalOffer] = []
    if book is not None:
        by_id = {o.id: o for o in book.offers}
        offers = [by_id[i] for i in ids if i in by_id]
    if not offers:
        return [
            BomLine(
                "rental", str(option.get("label", "")), "", None, "", None, 0.0, total, currency
            )
        ]
    hourly = kind == "rent_hourly"

    def unit_price(o: RentalOffer) -> float:
        price = o.hourly_price if hourly and o.hourly_price is not None else o.monthly_price
        return book.convert(price, o.currency, currency) if book is not None else price

    def discount(o: RentalOffer) -> float:
        if kind != "rent_term" or not term_months:
            return 0.0
        return term_discount(o, term_months)[1]

    totals = _split(total, [unit_price(o) * (1 - discount(o)) for o in offers])
    lines = []
    for o, line_total in zip(offers, totals, strict=True):
        price = unit_price(o)
        net = price * (1 - discount(o))
        quantity = cents(float(line_total) / net) if net > 0 else None
        lines.append(
            BomLine(
                section="rental",
                item=o.id,
                description=str(option.get("label", "")),
                unit_price=cents(price),
                unit="h" if hourly else "month",
                quantity=quantity,
                discount=discount(o),
                line_total=line_total,
                currency=currency,
            )
        )
    return lines


def _part_lines(option: Mapping[str, Any], currency: str) -> list[BomLine]:
    total = cents(float(option["total"]))
    parts = [(k, float(v)) for k, v in (option.get("breakdown") or {}).items() if v]
    if not parts:
        parts = [(str(option.get("kind", "")), float(option["total"]))]
    amounts = [cents(v) for _, v in parts]
    # The parts add up to the total; any cent of rounding goes to the largest part.
    gap = total - sum(amounts, Decimal("0"))
    if gap:
        i = max(range(len(amounts)), key=lambda j: abs(amounts[j]))
        amounts[i] += gap
    return [
        BomLine(
            section="cost",
            item=PART_LABELS.get(key, key.replace("_", " ").capitalize()),
            description=str(option.get("label", "")),
            unit_price=amount,
            unit="",
            quantity=Decimal("1"),
            discount=0.0,
            line_total=amount,
            currency=currency,
        )
        for (key, _), amount in zip(parts, amounts, strict=True)
    ]


def _fmt(value: float) -> str:
    return number(value, 1)


def infrastructure_lines(infra: Mapping[str, Any], currency: str) -> list[BomLine]:
    """CPU, RAM, NVMe, NAS, network, power of the configuration (included: no price)."""
    net = infra.get("network") or {}
    nodes = int(infra.get("nodes") or 1)
    specs = [
        ("CPU", f"{infra.get('cpu_cores', 0)} cores ({infra.get('cpu_cores_per_node', 0)}/node)"),
        ("RAM", f"{infra.get('ram_gb', 0):,} GB ({infra.get('ram_gb_per_node', 0):,} GB/node)"),
        ("NVMe", f"{_fmt(float(infra.get('nvme_tb') or 0))} TB"),
        ("NAS", f"{_fmt(float(infra.get('nas_tb') or 0))} TB"),
        (
            "Network",
            "; ".join(
                str(x)
                for x in (
                    net.get("internal"),
                    net.get("scale_out"),
                    f"uplink {_fmt(float(net.get('uplink_gbps') or 0))} Gbps",
                )
                if x
            ),
        ),
        (
            "Power",
            f"{_fmt(float(infra.get('power_kw') or 0))} kW peak, "
            f"{_fmt(float(infra.get('power_typical_kw') or 0))} kW typical",
        ),
    ]
    return [
        BomLine(
            section="infrastructure",
            item=item,
            description=desc,
            unit_price=None,
            unit="",
            quantity=Decimal(nodes) if item in ("CPU", "RAM", "NVMe") else None,
            discount=0.0,
            line_total=Decimal("0.00"),
            currency=currency,
            included=True,
        )
        for item, desc in specs
    ]


def build_bom(
    result: Mapping[str, Any],
    *,
    book: PriceBook | None,
    workload: Mapping[str, Any],
    quote: Mapping[str, Any] | None = None,
) -> Bom:
    """The bill of materials of a stored result (module docstring), for the option its
    saved `quote` quotes where it has one."""
    cost = result.get("cost") or None
    currency = str((cost or {}).get("currency") or workload.get("currency") or "TWD")
    option = quoted_option(cost, quote, book.house_provider if book is not None else "")
    lines: list[BomLine] = []
    if option is not None:
        if option.get("kind") in RENTAL_KINDS:
            term = workload.get("term_months")
            lines += _rental_lines(option, book, int(term) if term else None, currency)
        else:
            lines += _part_lines(option, currency)
    lines += infrastructure_lines(result.get("infra") or {}, currency)
    return Bom(option=option, lines=lines, currency=currency)


CSV_HEADER: Final = (
    "section",
    "item",
    "description",
    "unit_price",
    "unit",
    "quantity",
    "term_discount",
    "line_total",
    "currency",
)


def _dec(value: Decimal | None) -> str:
    return "" if value is None else f"{value:.2f}"


def bom_csv(bom: Bom, *, quote_number: str) -> bytes:
    """The BOM as CSV for Excel: UTF-8 with BOM, header row, one currency column, a TOTAL row."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(CSV_HEADER)
    for line in bom.lines:
        w.writerow(
            safe_row(  # a provider named "=HYPERLINK(…)" stays text (app/csv_safety.py)
                [
                    line.section,
                    line.item,
                    line.description if not line.included else f"{line.description} (included)",
                    _dec(line.unit_price),
                    line.unit,
                    _dec(line.quantity),
                    f"{line.discount:.2f}",
                    _dec(line.line_total),
                    line.currency,
                ]
            )
        )
    w.writerow(safe_row(["total", quote_number, "", "", "", "", "", _dec(bom.total), bom.currency]))
    return ("\ufeff" + buf.getvalue()).encode("utf-8")
