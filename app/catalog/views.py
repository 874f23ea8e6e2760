"""What the catalog pages show: labels, the list a page is about, and the context each
template renders (tables with pre-formatted cells, row and price-list forms, the import
preview). No routes here (`pages`), no form parsing (`forms`)."""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Mapping, Sequence
from datetime import date
from decimal import Decimal
from typing import Any, Final
from urllib.parse import quote, urlencode

from babel.numbers import format_decimal, get_decimal_symbol, get_group_symbol
from sqlmodel import Session

from app import i18n
from app.catalog import io, service
from app.catalog.kinds import KINDS, Kind
from app.catalog.models import CURRENCIES, FORM_FACTORS, INTERCONNECTS, PriceList
from app.catalog.service.comparisons import pick_default
from app.i18n import N_, listing, ngettext
from app.i18n import gettext as _
from app.web.templating import CURRENCY_DIGITS, CURRENCY_SYMBOLS, money, number, percent
from app.web.templating import date as fmt_date

#: Page order of the kinds, with their URL segment.
PAGE_KINDS: Final = ("offers", "gpus", "servers", "cloud", "energy", "fx", "buy", "gpu_prices")
SLUGS: Final = {name.replace("_", "-"): name for name in KINDS}
COLUMN_LABELS: Final[dict[str, str]] = {
    "id": N_("ID"),
    "name": N_("Name"),
    "vendor": N_("Vendor"),
    "generation": N_("Generation"),
    "memory_gb": N_("Memory (GB)"),
    "bandwidth_gbs": N_("Bandwidth (GB/s)"),
    "bf16_tflops": N_("BF16 dense (TFLOPS)"),
    "fp8_tflops": N_("FP8 dense (TFLOPS)"),
    "int8_tops": N_("INT8 dense (TOPS)"),
    "fp32_tflops": N_("FP32 (TFLOPS)"),
    "tdp_w": N_("TDP (W)"),
    "form_factor": N_("Form factor"),
    "nvlink_gbs": N_("NVLink (GB/s)"),
    "pcie_gbs": N_("PCIe (GB/s)"),
    "gpus_per_node": N_("GPUs per node"),
    "mig_max": N_("MIG slices"),
    "launch_year": N_("Launch year"),
    "notes": N_("Notes"),
    "source": N_("Source"),
    "gpu_id": N_("GPU"),
    "price_usd": N_("Purchase price (USD)"),
    "gpu_count": N_("GPU count"),
    "cpu_cores": N_("CPU cores"),
    "ram_gb": N_("RAM (GB)"),
    "nvme_tb": N_("NVMe (TB)"),
    "nics": N_("Network cards"),
    "power_kw": N_("Power (kW)"),
    "price": N_("Price"),
    "currency": N_("Currency"),
    "lead_time_weeks": N_("Lead time (weeks)"),
    "provider": N_("Provider"),
    "monthly_price": N_("Monthly price"),
    "hourly_price": N_("Hourly price"),
    "term_discounts": N_("Term discounts"),
    "lead_time_hours": N_("Lead time (hours)"),
    "includes_power": N_("Includes power"),
    "interconnect": N_("Interconnect"),
    "region": N_("Region"),
    "on_demand_hourly": N_("On demand, hourly"),
    "reserved_hourly": N_("Reserved, hourly"),
    "price_date": N_("Price date"),
    "tariff_per_kwh": N_("Tariff per kWh"),
    "pue": N_("PUE"),
    "colo_per_kw_month": N_("Colocation per kW-month"),
    "amortisation_years": N_("Amortisation (years)"),
    "maintenance_pct_per_year": N_("Maintenance per year"),
    "staff_per_month": N_("Operations staff per month"),
    "residual_pct": N_("Residual value"),
    "install_pct": N_("Installation"),
    "network_storage_pct": N_("Network and storage"),
    "base": N_("Base currency"),
    "quote": N_("Quote currency"),
    "rate": N_("Rate"),
    "as_of": N_("As of"),
}
HINTS: Final[dict[str, str]] = {
    "id": N_("Lowercase letters, digits and hyphens, e.g. h100-x8-monthly. Cannot change later."),
    "gpu_count": N_("A fraction for a MIG slice: 0.25 = one quarter of a GPU."),
    "bf16_tflops": N_("Dense figure: half of a with-sparsity headline."),
    "fp8_tflops": N_("Dense figure; empty when the GPU has no FP8 tensor cores."),
    "term_discounts": N_("Contract months:fraction off list, e.g. 3:0;6:0.1;12:0.2"),
    "hourly_price": N_("Per offer-hour; empty when not rented by the hour."),
    "reserved_hourly": N_("1-year reserved or committed price; empty when unknown."),
    "maintenance_pct_per_year": N_("A fraction of hardware capex, e.g. 0.08 = 8%."),
    "residual_pct": N_("A fraction of capex, e.g. 0.1 = 10%."),
    "install_pct": N_("A fraction of server capex, e.g. 0.05 = 5%."),
    "network_storage_pct": N_("A fraction of server capex, e.g. 0.15 = 15%."),
    "rate": N_("Units of the quote currency per one base currency, e.g. 32 TWD per USD."),
    "source": N_("Where the figures come from: a URL, a datasheet, a quote. Required."),
    "pue": N_("Facility power ÷ IT power, e.g. 1.3–1.6."),
}
STATUS_LABELS: Final = {
    "draft": N_("Draft"),
    "published": N_("Published"),
    "archived": N_("Archived"),
}
#: Amounts the tables write with their row's currency (the tariff per kWh and the GPU's US$
#: purchase price have formats of their own).
MONEY_COLUMNS: Final = io.AMOUNT_COLUMNS - {"tariff_per_kwh", "price_usd"}
FRACTION_COLUMNS: Final = frozenset(
    {"maintenance_pct_per_year", "residual_pct", "install_pct", "network_storage_pct"}
)
TEXTAREA_COLUMNS: Final = frozenset({"source", "notes", "nics"})
#: Stored values of the choice columns as their makers write them (QA: the tables showed
#: `pcie`, `nvlink`, `infiniband`); the stored value stays what an import and the API use.
CHOICE_NAMES: Final[dict[str, dict[str, str]]] = {
    "interconnect": {"pcie": "PCIe", "nvlink": "NVLink", "infiniband": "InfiniBand"},
    "form_factor": {"sxm": "SXM", "pcie": "PCIe", "oam": "OAM", "superchip": N_("Superchip")},
}
CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "currency": CURRENCIES,
    "base": CURRENCIES,
    "quote": CURRENCIES,
    "interconnect": INTERCONNECTS,
    "form_factor": FORM_FACTORS,
}


def kind_for_slug(slug: str) -> Kind:
    name = SLUGS.get(slug)
    if name is None:
        raise service.NotFound(f"no catalog page {slug!r}")
    return KINDS[name]


def selected_list(session: Session, price_list_id: int | None) -> PriceList | None:
    """The list asked for (404 when unknown), else the current one, else the newest one (only
    drafts or archived lists), else None (an empty catalog)."""
    if price_list_id is not None:
        return service.get_price_list(session=session, price_list_id=price_list_id)
    current = service.current_price_list(session=session)
    if current is not None:
        return current
    return next(iter(service.list_price_lists(session=session)), None)


def selected_list_or_404(session: Session, price_list_id: int | None) -> PriceList:
    pl = selected_list(session, price_list_id)
    if pl is None:
        raise service.NotFound(_("The catalog has no price list yet."))
    return pl


def editable_list(session: Session, k: Kind, price_list_id: int | None) -> PriceList | None:
    """The draft rows are edited in (None for GPU specs, which are not per list)."""
    if not k.scoped:
        return selected_list(session, price_list_id)
    pl = selected_list_or_404(session, price_list_id)
    if pl.status != "draft":
        raise service.Conflict(
            _(
                "Price list “%(name)s” is %(status)s: its prices are frozen for the quotes made "
                "with it. Start a new draft from it and edit that."
            )
            # mid-sentence: "is published" (lower() leaves 中文 as it is)
            % {"name": pl.name, "status": _(STATUS_LABELS[pl.status]).lower()}
        )
    return pl


def pl_id(pl: PriceList | None) -> int | None:
    return pl.id if pl is not None else None


def list_query(pl: PriceList | None, **params: Any) -> str:
    q = {"price_list": pl.id} if pl is not None else {}
    q.update({k: v for k, v in params.items() if v not in (None, "")})
    return "?" + urlencode(q) if q else ""


def kind_url(k: Kind, pl: PriceList | None) -> str:
    return f"/catalog/{k.name.replace('_', '-')}{list_query(pl)}"


def frame(session: Session, pl: PriceList | None) -> dict[str, Any]:
    """What every catalog page shows around its content: the list, the list switch, the nav."""
    current = service.current_price_list(session=session)
    return {
        "nav_active": "catalog",
        "pl": pl,
        "current_id": current.id if current else None,
        "all_lists": service.list_price_lists(session=session),
        "kind_links": [(KINDS[n].name.replace("_", "-"), KINDS[n].label) for n in PAGE_KINDS],
        "status_labels": STATUS_LABELS,
        "list_query": list_query(pl),
    }


#: Rows a catalog table draws at once.
ROWS_PER_PAGE: Final = 200


def table_context(
    session: Session,
    k: Kind,
    price_list_id: int | None,
    *,
    q: str,
    sort: str | None,
    descending: bool,
    page: int = 1,
) -> dict[str, Any]:
    """The table of one kind: header cells with sort links, pre-formatted body cells, one page
    of `ROWS_PER_PAGE` rows at a time (QA: a list of 19,864 imported offers took 15–23 s to
    draw whole)."""
    pl = selected_list(session, price_list_id)  # GPU specs are global; their prices are not
    rows: list[Any] = []
    if pl is not None or not k.scoped:
        needed = {*k.list_columns, *k.key_fields, "source"}
        needed |= {"currency"} if "currency" in k.columns else set()
        rows = service.list_rows(
            session=session,
            kind_name=k.name,
            price_list_id=pl_id(pl),
            q=q,
            sort=sort,
            descending=descending,
            columns=[c for c in k.columns if c in needed],
        )
    total = len(rows)
    pages = max(1, -(-total // ROWS_PER_PAGE))
    page = min(max(page, 1), pages)
    rows = rows[(page - 1) * ROWS_PER_PAGE : page * ROWS_PER_PAGE]
    sortable = set(service.sort_columns(k))
    sort = sort if sort in sortable else None
    base = f"/catalog/{k.name.replace('_', '-')}"
    columns = []
    for c in k.list_columns:
        flip = "desc" if sort == c and not descending else "asc"
        columns.append(
            {
                "name": c,
                "label": _(COLUMN_LABELS.get(c, c)),
                "numeric": _is_numeric(k, c),
                "href": base + list_query(pl, q=q, sort=c, dir=flip) if c in sortable else None,
                "sorted": ("descending" if descending else "ascending") if sort == c else None,
            }
        )
    prices = (
        service.gpu_prices(session=session, price_list_id=pl.id)
        if k.name == "gpus" and pl is not None and pl.id is not None
        else None
    )
    if prices is not None:
        columns.append(
            {
                "name": "price_usd",
                "label": _(COLUMN_LABELS["price_usd"]),
                "numeric": True,
                "href": None,
                "sorted": None,
            }
        )
    editable = (pl is not None and pl.status == "draft") or not k.scoped
    query = list_query(pl)
    fmt = CellFormat()
    numeric = [_is_numeric(k, c) for c in k.list_columns]
    body = []
    for r in rows:
        cells = [(fmt.cell(c, r), n) for c, n in zip(k.list_columns, numeric, strict=True)]
        if prices is not None:
            price = prices.get(r.id)
            cells.append((fmt.money(price, "USD", 0) if price is not None else "—", True))
        key = k.key_of(r)
        body.append(
            {
                "cells": cells,
                "source": r.source,
                "edit": f"{base}/{quote(key, safe='/')}/edit{query}",
            }
        )
    return frame(session, pl) | {
        "kind": k,
        "kind_label": _(k.label),
        "slug": k.name.replace("_", "-"),
        "columns": columns,
        "rows": body,
        "q": q,
        "sort": sort or "",
        "dir": "desc" if descending else "asc",
        "editable": editable,
        "can_add": editable and not (k.single and body),
        "base_url": base,
        "total": total,
        "page": page,
        "pages": pages,
        # the same search and sort, another page
        "page_url": lambda n: (
            base + list_query(pl, q=q, sort=sort, dir="desc" if descending else None, page=n)
        ),
    }


def _is_numeric(k: Kind, column: str) -> bool:
    ann = str(k.create.model_fields[column].annotation)
    return ("float" in ann or "int" in ann) and "dict" not in ann


class CellFormat:
    """Formats the cells of one table in the request's language, fast.

    A table of 1,000 offers holds thousands of figures, and Babel's `format_decimal` (≈40 µs a
    call) would dominate the page (issue 3: under 100 ms). Both languages group digits with
    ',' and use '.' for decimals, so formatting the same `Decimal(str(value))` with Python's
    ',' spec, half-even like Babel, gives Babel's output (tests compare the two); any other
    locale falls back to the shared filters.
    """

    def __init__(self) -> None:
        loc = i18n.babel_locale()
        self.fast = get_group_symbol(loc) == "," and get_decimal_symbol(loc) == "."
        self.yes, self.no = _("yes"), _("no")
        self.term = _("%(months)s mo −%(pct)s")
        self.mig = _("%(n)s (MIG)")

    def number(self, v: float | int, digits: int = 0) -> str:
        if not self.fast:
            return number(v, digits)
        return format(Decimal(str(v)), f",.{digits}f")

    def money(self, v: float | int, currency: str, digits: int | None = None) -> str:
        if not self.fast:
            return money(v, currency, digits)
        places = CURRENCY_DIGITS.get(currency, 2) if digits is None else digits
        body = format(abs(Decimal(str(v))), f",.{places}f")
        sign = "−" if v < 0 and body.strip("0.,") else ""
        return f"{sign}{CURRENCY_SYMBOLS.get(currency, currency + ' ')}{body}"

    def percent(self, v: float, digits: int = 0) -> str:
        return self.number(v * 100, digits) + "%" if self.fast else percent(v, digits)

    def cell(self, column: str, row: Any) -> str:
        """One cell: money with its currency, fractions as %, MIG slices marked."""
        v = getattr(row, column)
        if v is None:
            return "—"
        if column in MONEY_COLUMNS:
            return self.money(v, row.currency)
        if column == "tariff_per_kwh":
            return self.money(v, row.currency, 2 if row.currency == "TWD" else 4)
        if column in FRACTION_COLUMNS:
            return self.percent(v, 1)
        if column == "term_discounts":
            terms = sorted((int(m), float(f)) for m, f in (v or {}).items())
            parts = [self.term % {"months": m, "pct": self.percent(f)} for m, f in terms if f]
            return " · ".join(parts) or "—"
        if isinstance(v, bool):
            return self.yes if v else self.no
        if isinstance(v, date):
            return fmt_date(v)
        if isinstance(v, float):
            if column == "gpu_count" and not v.is_integer():
                return self.mig % {"n": self.number(v, 2)}
            if v.is_integer():
                return self.number(v)
            if abs(v) >= 1:
                return self.number(v, 2)
            # Below 1: as many places (2–4) as the value needs — 0.25 h, not 0.2500 h.
            places = next(d for d in (2, 3, 4) if round(v, d) == round(v, 4))
            return self.number(v, places)
        if isinstance(v, int):
            return str(v) if column == "launch_year" else self.number(v)
        if column in CHOICE_NAMES:
            return _(CHOICE_NAMES[column].get(v, v))
        return str(v)


def form_context(
    session: Session,
    k: Kind,
    pl: PriceList | None,
    *,
    values: Mapping[str, str],
    errors: Mapping[str, str],
    key: str | None,
) -> dict[str, Any]:
    """The row form: one field per column of the kind, with its value, choices and error."""
    editable = (pl is not None and pl.status == "draft") or not k.scoped
    gpu_choices = [(g, g) for g in service.gpu_ids(session=session)]
    fields = []
    for c, info in k.create.model_fields.items():
        ann = str(info.annotation)
        kind_of = "text"
        options: list[tuple[str, str]] = []
        if c == "gpu_id":
            kind_of, options = "select", gpu_choices
        elif c in CHOICES:
            names = CHOICE_NAMES.get(c, {})
            kind_of, options = "select", [(o, _(names.get(o, o))) for o in CHOICES[c]]
        elif "bool" in ann:
            kind_of, options = "select", [("true", _("yes")), ("false", _("no"))]
        elif c in TEXTAREA_COLUMNS:
            kind_of = "textarea"
        elif "date" in ann:
            kind_of = "date"
        default = info.get_default(call_default_factory=True) if not info.is_required() else None
        fields.append(
            {
                "name": c,
                "label": _(COLUMN_LABELS.get(c, c)),
                "hint": _(HINTS[c]) if c in HINTS else None,
                "type": kind_of,
                "options": options,
                "value": values.get(c, input_value(default) if key is None else ""),
                "inputmode": "decimal" if "float" in ann else "numeric" if "int" in ann else None,
                "required": info.is_required(),
                "readonly": key is not None and c in k.key_fields,
            }
        )
    action = f"/catalog/{k.name.replace('_', '-')}"
    action += f"/{quote(key, safe='/')}/edit" if key else "/new"
    return frame(session, pl) | {
        "kind": k,
        "kind_label": _(k.label),
        "slug": k.name.replace("_", "-"),
        "fields": fields,
        "errors": dict(errors),
        "key": key,
        "action": action + list_query(pl if k.scoped else None),
        "delete_action": (
            f"/catalog/{k.name.replace('_', '-')}/{quote(key, safe='/')}/delete"
            + list_query(pl if k.scoped else None)
            if key
            else None
        ),
        "editable": editable,
        "back": kind_url(k, pl if k.scoped else None),
    }


def input_value(v: Any) -> str:
    """A stored value as an <input> shows it (no '50000.0', no 'None')."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() and math.isfinite(v) and abs(v) < 1e15 else repr(v)
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, dict):
        return io.format_terms(v)
    return str(v)


def price_list_form_context(
    session: Session,
    pl: PriceList | None,
    values: Mapping[str, str],
    errors: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    return frame(session, pl) | {
        "values": dict(values),
        "errors": dict(errors or {}),
        "editing": pl,
        "action": f"/catalog/price-lists/{pl.id}/edit" if pl else "/catalog/price-lists/new",
        "copy_options": [
            (str(x.id), x.name + i18n.paren(_(STATUS_LABELS[x.status])))
            for x in service.list_price_lists(session=session)
        ],
        "currency_options": [(c, c) for c in CURRENCIES],
    }


def import_context(session: Session, values: Mapping[str, str]) -> dict[str, Any]:
    drafts = [p for p in service.list_price_lists(session=session) if p.status == "draft"]
    return frame(session, None) | {
        "values": dict(values),
        "preview": None,
        "targets": [("new", _("A new draft, copied from the current list"))]
        + [(str(p.id), _("Draft: %(name)s") % {"name": p.name}) for p in drafts],
        "kind_options": [(n, _(KINDS[n].label)) for n in PAGE_KINDS],
        "kind_names": {n: _(KINDS[n].label) for n in KINDS},
        "errors": {},
    }


#: Rows of each kind of change an import preview lists (the counts above them are complete,
#: and every rejected row is listed): a 10 MB file adds ~24,000 rows (issue 13).
PREVIEW_ROWS: Final = 50


def preview_context(preview: io.ImportPreview, *, rows: int = PREVIEW_ROWS) -> dict[str, Any]:
    """The preview: every error, the first `rows` added / changed / removed rows, and each
    shown change's fields as display strings (old → new)."""
    changes = change_rows(preview.changed[:rows])
    shown = {
        "added": preview.added[:rows],
        "changed": preview.changed[:rows],
        "removed": preview.removed[:rows],
    }
    more = {
        name: len(getattr(preview, name)) - len(items)
        for name, items in shown.items()
        if len(getattr(preview, name)) > len(items)
    }
    cell = CellFormat()
    return {
        "preview": preview,
        "changes": changes,
        "shown": shown,
        "more": more,
        # What each added and removed row holds, its prices with their currency: the admin
        # checks a new offer's price before applying (QA: only kind and key were listed).
        "row_values": {
            (c.kind, c.key): row_summary(c.kind, c.values or {}, c.currency, cell)
            for c in (*shown["added"], *shown["removed"])
        },
        "gpu_changes": service.gpu_changes(preview),
    }


def row_summary(
    kind_name: str,
    values: Mapping[str, Any],
    currency: str | None,
    cell: CellFormat | None = None,
) -> list[tuple[str, str]]:
    """(label, value) of a whole row's columns as the kind's table lists them, its key left
    out (named beside it): amounts with their currency, counts as numbers, in the page's
    language; columns without a value left out."""
    k = KINDS[kind_name]
    cell = cell or CellFormat()
    return [
        (_(COLUMN_LABELS.get(c, c)), shown_value(values[c], c, currency, cell))
        for c in k.list_columns
        if c not in k.key_fields and values.get(c) not in (None, "", {})
    ]


def change_rows(changed: Sequence[Any]) -> list[dict[str, Any]]:
    """Each changed field of `changed` as the tables show it: kind and field by their labels,
    old and new as the catalog's tables write them (amounts with their currency, the old ones
    in the old currency where it changed), the factor ("×3,175", "÷2.5", "+5%", "to 0") and
    whether it is to check (`io.CHECK_FACTOR`)."""
    cell = CellFormat()
    out = []
    for c in changed:
        single = KINDS[c.kind].single  # the buying parameters: one row a list, no key
        currency = getattr(c, "currency", None)
        before = getattr(c, "old_currency", None) or currency
        for f in c.fields:
            out.append(
                {
                    "kind": _(KINDS[c.kind].label),
                    "row": getattr(c, "row", None),  # an import's row in its file
                    "key": "" if single else c.key,
                    "field": _(COLUMN_LABELS.get(f.field, f.field)),
                    "old": shown_value(f.old, f.field, before, cell),
                    "new": shown_value(f.new, f.field, currency, cell),
                    "factor": factor_text(f),
                    "check": f.check,
                }
            )
    return out


def shown_value(
    v: Any, column: str = "", currency: str | None = None, cell: CellFormat | None = None
) -> str:
    """A compared value as the catalog's tables write it: an amount with its currency
    ("NT$50,000"; a tariff to the cent), a share as a percentage, term discounts as "6 mo
    −10%", a date in the reader's form, another number with the decimals it has (at most 6,
    without float noise); '—' for none."""
    cell = cell or CellFormat()
    if v is None or v == "":
        return "—"
    if column == "term_discounts" and isinstance(v, Mapping):
        terms = sorted((int(m), float(f)) for m, f in v.items())
        parts = [cell.term % {"months": m, "pct": cell.percent(f)} for m, f in terms if f]
        return " · ".join(parts) or "—"
    if isinstance(v, str) and column in DATE_COLUMNS:
        try:
            return fmt_date(date.fromisoformat(v))
        except ValueError:
            return v
    if not (isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)):
        return input_value(v) or "—"
    digits = _decimals(v)
    if column == "price_usd":
        currency = "USD"
    if currency and column in io.AMOUNT_COLUMNS:
        places = CURRENCY_DIGITS.get(currency, 2)
        if column == "tariff_per_kwh":  # per kWh: to the cent at least, as the table does
            places = max(places, 2)
        return cell.money(v, currency, max(digits, places))
    if column in FRACTION_COLUMNS:
        return cell.percent(v, max(digits - 2, 0))
    return cell.number(v, digits)


#: Columns that hold a date (compared as ISO strings).
DATE_COLUMNS: Final = frozenset({"price_date", "as_of", "effective_date"})


def _decimals(v: float) -> int:
    """The decimals `v` needs, at most 6, its binary noise dropped (4.4835000000000003: 4)."""
    text = f"{v:.6f}".rstrip("0")
    return len(text.split(".")[1]) if "." in text else 0


def factor_text(change: io.CatalogFieldChange) -> str:
    """How far a number moved: "+5%" / "−10%" within a factor of 2, beyond it "×3.33" / "×730"
    up and "÷32" down; "to 0" / "from 0"; "other currency" for an amount whose currency
    changed; for term discounts, the price paid on the term that moves most; '' for what is
    not a number."""
    f = change.factor
    if isinstance(change.old, Mapping) and isinstance(change.new, Mapping):
        # term discounts: how far the price paid moves on the term that moves most
        f = io.term_price_ratio(change.old, change.new)
        if f is None or math.isclose(f, 1.0):
            return ""
    if f is None:
        if not change.check:
            return ""
        if change.new == 0:
            return _("to 0")
        if change.old == 0:
            return _("from 0")
        return _("other currency") if isinstance(change.new, int | float) else ""
    if 0.5 < f < 2:
        pct = (f - 1) * 100
        return ("+" if pct >= 0 else "−") + _short(abs(pct)) + "%"
    up = f >= 1
    return ("×" if up else "÷") + _short(f if up else 1 / f)


def _short(x: float) -> str:
    """Three significant figures at most, no trailing zeros: 3.33, 10, 32, 730, 1,000."""
    digits = 2 if x < 10 else 1 if x < 100 else 0
    return format_decimal(round(x, digits), format="#,##0.##", locale=i18n.babel_locale())


#: Changed fields a comparison page lists (then "and N more").
COMPARISON_ROWS: Final = 500


def comparison_context(
    session: Session, comparison: Any, *, rows: int = COMPARISON_ROWS
) -> dict[str, Any]:
    """The changes page of `comparison` (`compare.PriceListComparison`): the numbers to check
    first, then every changed field, the added and removed rows (each table its first `rows`),
    and the other lists to compare with."""
    pl = service.get_price_list(session=session, price_list_id=comparison.price_list.id)
    changes = change_rows(comparison.changed)
    lists = service.list_price_lists(session=session)
    checks = [c for c in changes if c["check"]]
    return frame(session, pl) | {
        "cmp": comparison,
        "check_rows": checks[:rows],
        "changes": changes[:rows],
        "added": comparison.added[:rows],
        "removed": comparison.removed[:rows],
        # what each table leaves out (a draft of 12,000 imported rows drew them all: 744 KB)
        "more": {
            "checks": max(0, len(checks) - rows),
            "changes": max(0, len(changes) - rows),
            "added": max(0, len(comparison.added) - rows),
            "removed": max(0, len(comparison.removed) - rows),
        },
        "kind_names": {name: _(k.label) for name, k in KINDS.items()},
        "others": [o for o in lists if o.id != pl.id],
    }


def with_default_comparison(lists: list[Any]) -> set[int]:
    """The ids of the lists that have a list to be compared with by default
    (`service.default_against`, its rule applied to the lists the page already read)."""
    current = next((pl.id for pl in lists if pl.is_current), None)
    return {pl.id for pl in lists if pick_default(pl, lists, current) is not None}


def drafts_to_check(session: Session, lists: list[Any]) -> dict[int, tuple[int, str]]:
    """{draft id: (numbers to check, the list compared with)} of every draft with a number
    that moved ×3 or more against its default comparison (`service.default_against`): the
    price lists page says so beside Publish."""
    out: dict[int, tuple[int, str]] = {}
    for pl in lists:
        if pl.status != "draft":
            continue
        try:
            found = service.compare_price_lists(session=session, price_list_id=pl.id)
        except service.Conflict:  # the only list: nothing to compare with
            continue
        if found.to_check:
            out[pl.id] = (found.to_check, found.against.name)
    return out


#: An audit entry's action and kind as the trail names them (the table stores the English
#: words; QA read "publish", "price_lists" on the 中文 page).
AUDIT_ACTIONS: Final = {
    "create": N_("Created"),
    "update": N_("Changed"),
    "delete": N_("Deleted"),
    "publish": N_("Published"),
    "archive": N_("Archived"),
    "copy": N_("Copied"),
    "import": N_("Imported"),
    "load": N_("Loaded"),
    "reload": N_("Reloaded"),
}


def audit_kind_name(entity: str) -> str:
    """The kind of row an audit entry is about, in the page's language."""
    from app.catalog.kinds import KINDS

    if entity == "price_lists":
        return _("Price lists")
    found = KINDS.get(entity)
    return _(found.label) if found is not None else entity


def after_status_change(
    lists: list[Any], *, published: str | None, archived: str | None, today: date
) -> str | None:
    """What the price lists page says after a list was published or archived: whether it is
    current, and which list the pages price with now (QA: archiving the current list made a
    back-dated one current without a word, and a back-dated list published into nothing)."""
    changed = published or archived
    if not changed or not changed.isdigit():
        return None
    done = next((pl for pl in lists if pl.id == int(changed)), None)
    if done is None:
        return None
    current = next((pl for pl in lists if pl.is_current), None)
    values = {
        "name": done.name,
        "date": fmt_date(done.effective_date),
        "current": current.name if current else "",
        "current_date": fmt_date(current.effective_date) if current else "",
    }
    if published:
        if done.is_current:
            return (
                _(
                    "“%(name)s” is published and current: new estimates and quotes are priced with it."
                )
                % values
            )
        if done.effective_date > today:
            return _("“%(name)s” is published and becomes current on %(date)s.") % values
        return (
            _(
                "“%(name)s” is published, but it will not become current: “%(current)s”, effective "
                "%(current_date)s, is later and stays current."
            )
            % values
        )
    if current is None:
        return (
            _(
                "“%(name)s” is archived. No published list is in effect: the pages price with the "
                "shipped catalog until one is."
            )
            % values
        )
    return (
        _("“%(name)s” is archived. The current list is “%(current)s”, effective %(current_date)s.")
        % values
    )


# The summaries the service writes (English, stored as written: service/price_lists.py,
# service/imports.py), read back so the trail says them in the page's language.
_COPIED = re.compile(r"copied (\d+) rows from (['\"])(.*)\2")
_IMPORTED = re.compile(
    r"import \((\w+)\): (\d+) added, (\d+) changed, (\d+) removed, (\d+) unchanged"
)
_SHIPPED = re.compile(r"shipped catalog (load|reload)ed: (.*)")
_SHIPPED_PART = re.compile(r"(\d+) (GPU|offer|cloud instance|server|energy price|FX rate)s?")
# (singular, plural): the singular marked for extraction, the pair translated by ngettext
_SHIPPED_WORDS: Final = {
    "GPU": (N_("%(num)s GPU model"), "%(num)s GPU models"),
    "offer": (N_("%(num)s rental offer"), "%(num)s rental offers"),
    "cloud instance": (N_("%(num)s cloud instance"), "%(num)s cloud instances"),
    "server": (N_("%(num)s server model"), "%(num)s server models"),
    "energy price": (N_("%(num)s energy price"), "%(num)s energy prices"),
    "FX rate": (N_("%(num)s FX rate"), "%(num)s FX rates"),
}


def audit_summary(summary: str) -> tuple[str, bool]:
    """(the summary as the page says it, whether it is in the page's language): the three
    shapes the service writes are translated; anything else (an entry cut at its length,
    one written by an older version) is shown as stored, in English."""
    text = summary.strip()
    if m := _COPIED.fullmatch(text):
        n = int(m[1])
        try:  # the name as Python's repr wrote it: escapes and all (QA: "Back\\slash")
            name = ast.literal_eval(m[2] + m[3] + m[2])
        except (SyntaxError, ValueError):
            return summary, False
        return i18n.ngettext(
            "Copied %(num)s row from “%(name)s”", "Copied %(num)s rows from “%(name)s”", n
        ) % {"num": number(n), "name": name}, True
    if m := _IMPORTED.fullmatch(text):
        return _(
            "Imported from %(format)s: %(added)s added, %(changed)s changed, %(removed)s "
            "removed, %(unchanged)s unchanged"
        ) % {
            "format": m[1].upper(),
            "added": number(int(m[2])),
            "changed": number(int(m[3])),
            "removed": number(int(m[4])),
            "unchanged": number(int(m[5])),
        }, True
    if m := _SHIPPED.fullmatch(text):
        parts = m[2].split(", ")
        said = []
        for part in parts:
            p = _SHIPPED_PART.fullmatch(part)
            if p is None:
                return summary, False
            n = int(p[1])
            one, many = _SHIPPED_WORDS[p[2]]
            said.append(i18n.ngettext(one, many, n) % {"num": number(n)})
        lead = _("Shipped catalog loaded") if m[1] == "load" else _("Shipped catalog reloaded")
        return lead + i18n.colon() + i18n.listing(said), True
    return summary, False


def audit_changes(entry: Any) -> list[tuple[str, str, str]]:
    """(field, before, after) of an audit entry's changed fields, as the page says them: a
    column by its label, a status by its name, a number written as a number ("55,000", not
    "55000.0"), in the page's language (QA: `monthly_price`, `draft` → `published` and
    "50000.0 → 55000.0" on a 中文 page). A created or deleted row lists every field."""
    before, after = entry.before or {}, entry.after or {}
    both = bool(entry.before and entry.after)
    out = []
    for k in dict.fromkeys([*before, *after]):
        b, a = before.get(k), after.get(k)
        if both and b == a:
            continue
        label = _(COLUMN_LABELS[k]) if k in COLUMN_LABELS else _(AUDIT_FIELDS.get(k, k))
        out.append((label, _audit_value(k, b, k in before), _audit_value(k, a, k in after)))
    return out


#: Fields of a price list's audit entries that no table column names.
AUDIT_FIELDS: Final = {
    "status": N_("Status"),
    "effective_date": N_("Effective date"),
    "copied_from": N_("Copied from"),
    "notes": N_("Notes"),
    "revision": N_("Revision"),
    # an import's entry: the rows it added, changed and removed, and the file
    "added": N_("Added"),
    "changed": N_("Changed"),
    "removed": N_("Removed"),
    "upload": N_("File"),
}
#: Items of a list an audit entry shows before saying how many more there are.
AUDIT_LIST_SHOWN: Final = 10


def _audit_value(field: str, value: Any, present: bool) -> str:
    if not present or value is None or value == "" or value == []:
        return "—"
    if isinstance(value, list):
        # an import of 19,847 rows printed every key, and the page grew to 427 KB (QA)
        shown = ", ".join(str(v) for v in value[:AUDIT_LIST_SHOWN])
        more = len(value) - AUDIT_LIST_SHOWN
        return shown if more <= 0 else shown + " … " + _("and %(n)s more") % {"n": number(more)}
    if field == "status" and value in STATUS_LABELS:
        return _(STATUS_LABELS[value])
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, int | float) and math.isfinite(value):
        # grouped, as many decimals as it has (a price list's figures have at most four)
        return format_decimal(value, format="#,##0.####", locale=i18n.babel_locale())
    return str(value)


#: A kind's rows counted in a sentence ("14 rental offers"): (singular, plural) by kind, the
#: singular marked for extraction, the pair translated by ngettext.
_ROWS_OF_KIND: Final = {
    "gpu_prices": (N_("%(num)s GPU purchase price"), "%(num)s GPU purchase prices"),
    "servers": (N_("%(num)s server"), "%(num)s servers"),
    "offers": (N_("%(num)s rental offer"), "%(num)s rental offers"),
    "cloud": (N_("%(num)s cloud instance"), "%(num)s cloud instances"),
}


def gpu_in_use(gpu_id: str, used: Mapping[str, int]) -> str:
    """Why a GPU cannot be deleted, in the page's language: the rows that use it, in every
    price list, counted by kind ("14 rental offers"), and the way on."""
    rows = listing(
        ngettext(*_ROWS_OF_KIND[name], n) % {"num": number(n)} for name, n in used.items()
    )
    return _(
        "“%(gpu)s” cannot be deleted: %(rows)s use it (counted over every price list, "
        "published ones included). A GPU stays in the catalog while any list prices it."
    ) % {"gpu": gpu_id, "rows": rows}
