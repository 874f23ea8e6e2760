"""CSV and JSON import/export of the catalog, with validation and a preview diff.

Nothing here touches the database: the service hands in the rows a list already has and the
GPU ids it knows, and gets back a preview (added / changed / removed / rejected). Applying is
the service's job, all-or-nothing.

Formats
-------
* JSON — a document ``{"price_list": {...}, "gpus": [...], "gpu_prices": [...], "servers":
  [...], "offers": [...], "cloud": [...], "energy": [...], "buy": {...}, "fx": [...]}`` (any
  subset of kinds; the layout of ``app/data/catalog.yaml``), or a bare list of rows of one
  ``kind``. Rows are numbered from 1 within their kind.
* CSV — one kind per file, UTF-8 (a BOM is fine), a header row with the kind's columns.
  Rows are numbered as a spreadsheet shows them: the header is row 1, the first data row is
  row 2. Empty cells mean "not given" (the column's default, or an error when required).
  ``term_discounts`` is written ``1:0;3:0;6:0.1;12:0.2`` (months:fraction) or a JSON object.
"""

from __future__ import annotations

import contextlib
import csv
import difflib
import functools
import gc
import inspect
import io
import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    TypeAdapter,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)
from pydantic import Field as PydField

from app.catalog.kinds import GPU_REFERENCING, KINDS, ORDER, Kind
from app.csv_safety import safe_row, unescape_cell
from app.i18n import N_, ngettext
from app.i18n import gettext as _
from app.text import first_surrogate

Format = Literal["csv", "json"]
Mode = Literal["sync", "upsert"]
MAX_BYTES = 10 * 1024 * 1024


# --------------------------------------------------------------------------------------------
# Preview models (also the API's response)
# --------------------------------------------------------------------------------------------


#: A number that moves by this factor or more between two versions of a row is flagged to
#: check before it is used. The slips it catches move prices far more: a monthly price typed as
#: hourly (×730), NT$ for US$ (×≈32), a missing or extra thousands (×1,000), a decimal point
#: (×10). A genuine change that large is rare, and it is only flagged, never refused.
CHECK_FACTOR: Final = 3.0


class CatalogFieldChange(BaseModel):
    """One field of a catalog row the import changes. Not `FieldChange`: app/plans/models.py
    has one, and a client generator keeps only one of two schemas named alike (issue 13)."""

    field: str
    old: Any = None
    new: Any = None
    factor: float | None = PydField(
        default=None, description="new / old, where both are numbers above 0"
    )
    check: bool = PydField(
        default=False,
        description=(
            "A number that moves ×3 or more, or to or from 0: worth checking before it is used"
        ),
    )


def field_change(field: str, old: Any, new: Any) -> CatalogFieldChange:
    """The change of one field, its factor and whether it is to check (`CHECK_FACTOR`)."""
    factor, check = None, False
    if isinstance(old, Mapping) and isinstance(new, Mapping):  # term discounts {months: share}
        # a discount that moves the price paid ×3 or more: 10 % → 90 % off is ÷9 (QA)
        ratio = term_price_ratio(old, new)
        check = ratio is not None and max(ratio, 1 / ratio) >= CHECK_FACTOR
    elif _is_number(old) and _is_number(new):
        if old > 0 and new > 0:
            factor = new / old
            check = max(factor, 1 / factor) >= CHECK_FACTOR
        else:  # a price to or from 0 prices every plan at nothing, or stops doing so
            check = (old == 0) != (new == 0)
    return CatalogFieldChange(
        field=field, old=_jsonable(old), new=_jsonable(new), factor=factor, check=check
    )


def term_price_ratio(old: Mapping[Any, Any], new: Mapping[Any, Any]) -> float | None:
    """How far the price paid moves on the term whose price moves most, new / old, between
    two sets of term discounts {months: share off} (a term not offered is no discount);
    None when no term is paid for on both sides."""
    ratios = [
        (1.0 - float(new.get(m, 0.0))) / a
        for m in old.keys() | new.keys()
        if (a := 1.0 - float(old.get(m, 0.0))) > 0 and 1.0 - float(new.get(m, 0.0)) > 0
    ]
    return max(ratios, key=lambda r: max(r, 1 / r), default=None)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


class RowChange(BaseModel):
    kind: str
    key: str
    row: int | None = PydField(default=None, description="Row number in the file")
    fields: list[CatalogFieldChange] = PydField(default_factory=list)
    currency: str | None = PydField(
        default=None, description="The row's currency (its amounts are in it), if it has one"
    )
    old_currency: str | None = PydField(
        default=None, description="The currency the old amounts were in, where it changed"
    )
    values: dict[str, Any] | None = PydField(
        default=None,
        description=(
            "The whole row, column by column: an added row as the file gives it, a removed row "
            "as the list has it (its amounts in `currency`), so either can be checked before "
            "it is applied; null for a changed row, whose `fields` say what moved"
        ),
    )


#: Columns that are amounts in their row's currency: the same number in another currency is
#: another price.
AMOUNT_COLUMNS: Final = frozenset(
    {
        "monthly_price",
        "hourly_price",
        "price",
        "price_usd",
        "on_demand_hourly",
        "reserved_hourly",
        "colo_per_kw_month",
        "staff_per_month",
        "tariff_per_kwh",
    }
)


def row_changes(
    kind_name: str, columns: Iterable[str], old: Mapping[str, Any], new: Mapping[str, Any]
) -> tuple[list[CatalogFieldChange], str | None, str | None]:
    """(the fields of a row that differ, its currency, its old currency where it changed).

    Where the currency changed, every amount is listed and to check, with no factor: NT$100,000
    re-typed as US$100,000 is the same number and a ×32 price, and NT$200,000 converted to
    US$6,250 is no ÷32 move (QA); the two cannot be told apart without the rate."""
    currency, before = row_currency(kind_name, new), row_currency(kind_name, old)
    switched = currency != before
    fields = []
    for c in columns:
        o, n = old.get(c), new.get(c)
        if switched and c in AMOUNT_COLUMNS and _is_number(o) and _is_number(n):
            fields.append(CatalogFieldChange(field=c, old=o, new=n, check=True))
        elif not same_value(o, n):
            fields.append(field_change(c, o, n))
    return fields, currency, before if switched else None


def row_currency(kind_name: str, row: Mapping[str, Any]) -> str | None:
    """The currency of a row's amounts: its own, US$ for a GPU purchase price, else None."""
    return row.get("currency") or ("USD" if kind_name == "gpu_prices" else None)


class RejectedRow(BaseModel):
    kind: str
    row: int
    key: str = ""
    messages: list[str]


class ImportPreview(BaseModel):
    """What an import would do (or did, when `applied`)."""

    ok: bool = PydField(description="True when nothing is rejected: the import can be applied")
    format: str
    kinds: list[str] = PydField(default_factory=list)
    mode: str = "sync"
    target_price_list_id: int | None = PydField(
        default=None, description="The draft it goes into; null = a new copy of the current list"
    )
    target_name: str = ""
    added: list[RowChange] = PydField(default_factory=list)
    changed: list[RowChange] = PydField(default_factory=list)
    removed: list[RowChange] = PydField(default_factory=list)
    unchanged: int = 0
    rejected: list[RejectedRow] = PydField(default_factory=list)
    errors: list[str] = PydField(default_factory=list, description="Problems with the whole file")
    messages: list[str] = PydField(
        default_factory=list, description="Every error, row-numbered ('row 4: …')"
    )
    applied: bool = False
    price_list_id: int | None = PydField(default=None, description="Where it was applied")


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class RawRow:
    row: int
    values: dict[str, Any]
    errors: list[str] = field(default_factory=list)  # found while parsing cells


@dataclass(slots=True)
class Parsed:
    format: Format
    rows: dict[str, list[RawRow]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    header: dict[str, Any] = field(default_factory=dict)  # JSON "price_list" block


@dataclass(slots=True)
class ValidRow:
    row: int
    key: str
    data: BaseModel  # the kind's `row_model` (the Create model's fields, validated)


@dataclass(slots=True)
class Validated:
    parsed: Parsed
    valid: dict[str, list[ValidRow]] = field(default_factory=dict)
    rejected: list[RejectedRow] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.parsed.errors and not self.rejected

    def messages(self) -> list[str]:
        many = len(self.parsed.rows) > 1
        out = list(self.parsed.errors)
        for r in self.rejected:
            # Messages are made in the request's language (gettext at creation: an import runs
            # inside the admin's request); so is the row they are on.
            kind = many or self.parsed.format == "json"
            for msg in r.messages:
                params = {"kind": r.kind, "row": f"{r.row:,}", "message": msg}
                out.append(
                    (
                        _("%(kind)s row %(row)s: %(message)s")
                        if kind
                        else _("row %(row)s: %(message)s")
                    )
                    % params
                )
        return out


def decode(data: bytes | str) -> tuple[str | None, str | None]:
    """UTF-8 text (BOM dropped), or an error naming the line of the first undecodable byte."""
    if isinstance(data, str):
        return data.removeprefix("\ufeff"), None
    if len(data) > MAX_BYTES:
        return None, _("the file is %(size)s bytes; the limit is %(limit)s") % {
            "size": f"{len(data):,}",
            "limit": f"{MAX_BYTES:,}",
        }
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        return None, _(
            "row %(row)s: the file is not UTF-8 (byte 0x%(byte)s cannot be decoded; Big5 or "
            "Latin-1 text?). Save it as UTF-8 (Excel: 'CSV UTF-8') and import again"
        ) % {"row": f"{line:,}", "byte": f"{data[e.start]:02x}"}


@contextlib.contextmanager
def bulk() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a file's rows are built.

    Parsing and validating a 10 MB file allocates ~100,000 objects that all stay alive (the
    rows, their values, their validated models), and every few hundred allocations CPython
    walks the younger generations and eventually everything: half of the preview's time was
    the collector finding nothing to collect (issue 13). These objects hold no reference
    cycles, so reference counting frees them as before; the collector runs again afterwards.
    Nested uses are fine; the pause is process-wide, for the ≈1 s a large file takes.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def kind_from_name(filename: str) -> str | None:
    """The kind a CSV file's name ends with: offers.csv, stratagem-price-list-1-offers.csv
    (as `export` names them), my_gpu_prices.csv; None when it names none.

    The longest kind that ends the name after a separator wins, so …-gpu_prices.csv is
    gpu_prices, not a kind called prices."""
    stem = filename.rsplit("/", 1)[-1].rsplit("\\", 1)[-1].lower()
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    for name in sorted(KINDS, key=len, reverse=True):
        if stem == name or (stem.endswith(name) and stem[-len(name) - 1] in "-_. "):
            return name
    return None


def parse(data: bytes | str, *, fmt: Format, kind: str | None = None) -> Parsed:
    """Read a CSV (one `kind`) or JSON upload into raw rows; never raises on bad input."""
    with bulk():
        return _parse(data, fmt=fmt, kind=kind)


def _parse(data: bytes | str, *, fmt: Format, kind: str | None) -> Parsed:
    parsed = Parsed(format=fmt)
    text, err = decode(data)
    if err or text is None:
        parsed.errors.append(err or _("empty file"))
        return parsed
    if fmt == "csv":
        if kind not in KINDS:
            parsed.errors.append(
                _("kind: choose one of %(kinds)s for a CSV file") % {"kinds": ", ".join(KINDS)}
            )
            return parsed
        _parse_csv(text, KINDS[kind], parsed)
    else:
        _parse_json(text, kind, parsed)
    return parsed


def _parse_csv(text: str, k: Kind, parsed: Parsed) -> None:
    reader = csv.reader(io.StringIO(text, newline=""))
    records: list[list[str]] = []
    try:
        records.extend(reader)
    except csv.Error as e:  # a cell past csv's 131,072-character limit, a stray NUL, …
        parsed.errors.append(
            _("row %(row)s: %(error)s; nothing after it was read")
            % {"row": f"{reader.line_num:,}", "error": e}
        )
        if not records:
            return
    if not records or not any(c.strip() for c in records[0]):
        parsed.errors.append(_("row 1: the file has no header row"))
        return
    header = [c.strip() for c in records[0]]
    dupes = sorted({c for c in header if header.count(c) > 1 and c})
    missing = [c for c in k.required if c not in header]
    unknown = [c for c in header if c and c not in k.columns]
    if dupes:
        parsed.errors.append(
            ngettext(
                "row 1: duplicate column: %(names)s",
                "row 1: duplicate columns: %(names)s",
                len(dupes),
            )
            % {"names": ", ".join(dupes)}
        )
    if missing:
        parsed.errors.append(
            ngettext(
                "row 1: missing column: %(names)s",
                "row 1: missing columns: %(names)s",
                len(missing),
            )
            % {"names": ", ".join(missing)}
        )
    if unknown:
        parsed.errors.append(
            ngettext(
                "row 1: unknown column: %(names)s (allowed: %(allowed)s)",
                "row 1: unknown columns: %(names)s (allowed: %(allowed)s)",
                len(unknown),
            )
            % {"names": ", ".join(unknown), "allowed": ", ".join(k.columns)}
        )
    if parsed.errors:
        return
    rows: list[RawRow] = []
    width = len(header)
    columns = [(i, name) for i, name in enumerate(header) if name]
    for n, cells in enumerate(records[1:], start=2):
        if not any(cells) or not any(c.strip() for c in cells):
            continue
        raw = RawRow(row=n, values={})
        if len(cells) > width:
            raw.errors.append(
                _("has %(cells)s cells but the header has %(width)s columns")
                % {"cells": len(cells), "width": width}
            )
        values = raw.values
        for i, name in columns:
            if i >= len(cells):
                break
            value = cells[i].strip()
            if not value:
                continue
            if value[0] == "'":
                value = unescape_cell(value)  # our own export's '=… stays =…
            if name == "term_discounts":
                terms, terr = parse_terms(value)
                if terr:
                    raw.errors.append(f"term_discounts {terr}")  # the field, then its message
                    continue
                values[name] = terms
            else:
                values[name] = value
        rows.append(raw)
    parsed.rows[k.name] = rows


def _surrogate_error(loc: tuple[str | int, ...], kind: str | None) -> str:
    """Where a lone surrogate sits, as the other row errors say it ("offers row 3: provider
    must be …")."""
    if kind and loc and isinstance(loc[0], int):  # a list of one kind's rows
        loc = (kind, *loc)
    if len(loc) >= 3 and isinstance(loc[1], int):
        where = _("%(kind)s row %(row)s: %(field)s") % {
            "kind": loc[0], "row": f"{loc[1] + 1:,}", "field": ".".join(map(str, loc[2:])),
        }  # fmt: skip
    else:
        where = ".".join(map(str, loc)) or _("the file")
    return _(
        "%(where)s must be valid Unicode text; it holds a lone UTF-16 surrogate (half of a pair)"
    ) % {"where": where}


def _parse_json(text: str, kind: str | None, parsed: Parsed) -> None:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        # Where, in the reader's words: the parser's own text is English ("Expecting value"
        # on a Chinese page, QA), as the planner's config.json says it.
        parsed.errors.append(
            _("row %(row)s: not valid JSON (look at character %(column)s)")
            % {"row": f"{e.lineno:,}", "column": f"{e.colno:,}"}
        )
        return
    except RecursionError:  # '[' × 50,000: json.loads gives up (as the planner's config.json)
        parsed.errors.append(_("row 1: the JSON is nested too deeply"))
        return
    found = first_surrogate(doc)
    if found is not None:  # '"\\ud800"': stored, it broke every page that showed the row
        parsed.errors.append(_surrogate_error(found[0], kind))
        return
    if isinstance(doc, list):
        if kind not in KINDS:
            parsed.errors.append(
                _(
                    "kind: a JSON list needs a kind, one of %(kinds)s; or send a document with "
                    "the kinds as keys"
                )
                % {"kinds": ", ".join(KINDS)}
            )
            return
        doc = {kind: doc}
    if not isinstance(doc, dict):
        parsed.errors.append(_("the JSON must be an object with the kinds as keys, or a list"))
        return
    meta = {"price_list", "format", "version"}
    unknown = [key for key in doc if key not in KINDS and key not in meta]
    if unknown:
        parsed.errors.append(
            ngettext(
                "unknown key: %(names)s (allowed: %(allowed)s)",
                "unknown keys: %(names)s (allowed: %(allowed)s)",
                len(unknown),
            )
            % {"names": ", ".join(unknown), "allowed": ", ".join((*KINDS, "price_list"))}
        )
        return
    if isinstance(doc.get("price_list"), dict):
        parsed.header = doc["price_list"]
    for name in ORDER:
        if name not in doc or (kind and kind != name):
            continue
        items = doc[name]
        if name == "buy" and isinstance(items, dict):
            items = [items]
        if not isinstance(items, list):
            parsed.errors.append(_("%(kind)s: expected a list of rows") % {"kind": name})
            continue
        rows: list[RawRow] = []
        for n, item in enumerate(items, start=1):
            if not isinstance(item, dict):
                rows.append(RawRow(row=n, values={}, errors=[_("must be an object")]))
                continue
            extra = [key for key in item if key not in KINDS[name].columns]
            raw = RawRow(row=n, values={k: v for k, v in item.items() if v is not None})
            if extra:
                raw.errors.append(
                    ngettext(
                        "unknown field: %(names)s",
                        "unknown fields: %(names)s",
                        len(extra),
                    )
                    % {"names": ", ".join(map(str, extra))}
                )
            rows.append(raw)
        parsed.rows[name] = rows
    if not parsed.rows and not parsed.errors:
        parsed.errors.append(_("no rows: expected one of %(kinds)s") % {"kinds": ", ".join(KINDS)})


#: Characters of a term_discounts cell its error message repeats.
TERMS_ECHO_CHARS: Final = 80


def parse_terms(text: str) -> tuple[dict[int, float], str | None]:
    """'1:0;3:0;6:0.1;12:0.2' or '{"6": 0.1}' → {months: fraction}, or the error in the
    request's language (the memo below keeps msgids: it serves both languages)."""
    terms, err = _parse_terms(text)
    if err is None:
        return dict(terms), None
    shown = text.strip()
    if len(shown) > TERMS_ECHO_CHARS:  # a 200 KB cell is not repeated in its message
        shown = shown[:TERMS_ECHO_CHARS] + "…"
    return dict(terms), _(err) % {"text": repr(shown)}


@functools.lru_cache(maxsize=256)
def _parse_terms(text: str) -> tuple[tuple[tuple[int, float], ...], str | None]:
    """`parse_terms`, memoised: the rows of a file mostly share a few discount schedules."""
    terms, err = _parse_terms_uncached(text)
    return tuple(terms.items()), err


def _parse_terms_uncached(text: str) -> tuple[dict[int, float], str | None]:
    text = text.strip()
    if not text:
        return {}, None
    pairs: list[tuple[int, float]] = []
    if text.startswith("{"):
        try:
            # pairs, not a dict: {"1": 0.1, "01": 0.2} is month 1 twice
            obj = json.loads(text, object_pairs_hook=list)
            pairs = [(int(k), float(v)) for k, v in obj]
        except (ValueError, TypeError, AttributeError, RecursionError):  # '{' + '[' × 10⁵
            return {}, N_("is not a JSON object of months → fraction (got %(text)s)")
    else:
        for part in text.replace(",", ";").split(";"):
            if not part.strip():
                continue
            months, sep, off = part.partition(":")
            try:
                if not sep:
                    raise ValueError
                pairs.append((int(months.strip()), float(off.strip())))
            except ValueError:
                return {}, N_("must look like 3:0;6:0.1;12:0.2 (months:fraction) (got %(text)s)")
    out = dict(pairs)
    if len(out) < len(pairs):
        # "1:0;1:0.1" kept one of the two without a word (QA): which one was meant?
        return {}, N_(
            "gives one contract length twice: give each number of months once (got %(text)s)"
        )
    return out, None


def format_terms(terms: Mapping[Any, float]) -> str:
    return ";".join(
        f"{int(k)}:{_num(float(v))}" for k, v in sorted(terms.items(), key=lambda t: int(t[0]))
    )


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def _show(value: Any) -> str:
    if isinstance(value, str) and len(value) > 60:  # a 1 MB cell is not echoed whole
        return repr(value[:57] + "...")
    if isinstance(value, str):
        try:
            float(value)
            return value
        except ValueError:
            return repr(value)
    if isinstance(value, float):
        return _num(value)
    return repr(value) if not isinstance(value, int | bool) else str(value)


def describe(err: Mapping[str, Any]) -> tuple[str, str]:
    """(field, message) for one pydantic error, in words an admin can act on."""
    loc = [str(p) for p in err.get("loc", ()) if p != "body"]
    name = loc[0] if loc else ""
    t = err.get("type", "")
    ctx = err.get("ctx") or {}
    got = {"got": _show(err.get("input"))}
    if t == "missing":
        return name, _("is required")
    if t == "greater_than_equal":
        return name, _("must be ≥ %(limit)s (got %(got)s)") % {"limit": _show(ctx.get("ge")), **got}
    if t == "greater_than":
        return name, _("must be > %(limit)s (got %(got)s)") % {"limit": _show(ctx.get("gt")), **got}
    if t == "less_than_equal":
        return name, _("must be ≤ %(limit)s (got %(got)s)") % {"limit": _show(ctx.get("le")), **got}
    if t == "less_than":
        return name, _("must be < %(limit)s (got %(got)s)") % {"limit": _show(ctx.get("lt")), **got}
    if t == "finite_number":
        return name, _("must be a finite number (got %(got)s)") % got
    if t in {"float_parsing", "float_type"}:
        return name, _("must be a number (got %(got)s)") % got
    if t in {"int_parsing", "int_type", "int_from_float"}:
        return name, _("must be a whole number (got %(got)s)") % got
    if t in {"bool_parsing", "bool_type"}:
        return name, _("must be true or false (got %(got)s)") % got
    if t.startswith("date") or t.startswith("datetime"):
        return name, _("must be a date YYYY-MM-DD (got %(got)s)") % got
    if t in ("string_too_long", "too_long"):  # too_long: an annotated MaxLen
        return name, _("must be at most %(limit)s characters") % {"limit": ctx.get("max_length")}
    if t in ("string_too_short", "too_short"):
        return name, _("is required")
    if t == "string_type":  # a JSON row's list or object where text goes
        return name, _("must be text (got %(got)s)") % got
    if t in ("literal_error", "enum"):
        return name, _("must be one of %(allowed)s (got %(got)s)") % {
            "allowed": str(ctx.get("expected", "")).replace("'", ""),
            **got,
        }
    if t == "value_error":
        error = ctx.get("error")
        return name, str(error) if error else str(err.get("msg", ""))
    # Any other check pydantic makes: its own words are English and name its internals
    # ("Input should be a valid dictionary"): the row says what was given instead.
    return name, _("is not valid (got %(got)s)") % got


def field_errors(exc: ValidationError) -> dict[str, str]:
    """{field: message} for inline form errors (the first error per field)."""
    out: dict[str, str] = {}
    for err in exc.errors():
        name, msg = describe(err)
        out.setdefault(name or "__all__", msg)
    return out


def validate(parsed: Parsed, *, known_gpus: Iterable[str]) -> Validated:
    """Validate every row: types and ranges (the Create models), duplicate keys within the
    file, GPU ids that exist (in the catalog or among the file's own `gpus`)."""
    with bulk():
        return _validate(parsed, known_gpus=known_gpus)


def _validate(parsed: Parsed, *, known_gpus: Iterable[str]) -> Validated:
    out = Validated(parsed=parsed)
    gpus = set(known_gpus)
    gpus.update(str(r.values.get("id")) for r in parsed.rows.get("gpus", []) if r.values.get("id"))
    for name in ORDER:
        if name not in parsed.rows:
            continue
        k = KINDS[name]
        seen: dict[str, int] = {}
        valid: list[ValidRow] = []
        if k.single and len(parsed.rows[name]) > 1:
            parsed.errors.append(
                _("%(kind)s: a price list has one row of %(kind)s, the file has %(rows)s")
                % {"kind": name, "rows": len(parsed.rows[name])}
            )
        check = row_model(k).model_validate
        for raw in parsed.rows[name]:
            messages = list(raw.errors)
            data: BaseModel | None = None
            try:
                data = check(raw.values)
            except ValidationError as e:
                messages.extend(f"{f} {msg}" if f else msg for f, msg in map(describe, e.errors()))
            key = _raw_key(k, vars(data)) if data is not None else _raw_key(k, raw.values)
            if k.key_fields and key in seen:
                messages.append(
                    _("duplicate %(fields)s %(key)s (first on row %(row)s)")
                    % {"fields": "/".join(k.key_fields), "key": repr(key), "row": f"{seen[key]:,}"}
                )
            elif k.key_fields:
                seen[key] = raw.row
            gpu_id = raw.values.get("gpu_id")
            if name in GPU_REFERENCING and gpu_id is not None and str(gpu_id) not in gpus:
                close = difflib.get_close_matches(str(gpu_id), sorted(gpus), n=1, cutoff=0.5)
                params = {"id": repr(str(gpu_id)), "close": close[0] if close else ""}
                messages.append(
                    (
                        _("gpu_id %(id)s is not a known GPU; did you mean %(close)s?")
                        if close
                        else _("gpu_id %(id)s is not a known GPU")
                    )
                    % params
                )
            if messages or data is None:
                out.rejected.append(RejectedRow(kind=name, row=raw.row, key=key, messages=messages))
            else:
                valid.append(ValidRow(row=raw.row, key=key, data=data))
        out.valid[name] = valid
    return out


@functools.cache
def row_model(k: Kind) -> type[BaseModel]:
    """A plain Pydantic model with the fields and validators of the kind's Create model.

    An import validates every row (a 10 MB CSV has ~24,000), and a SQLModel instance costs
    about twice the validation itself: SQLModel's `__init__` runs Pydantic's validator again
    from Python, per row (issue 13: the preview took 2–4 s). The mirror carries the very same
    `FieldInfo`s (types, bounds, `MaxLen`, annotated validators) and the same decorated
    validators, so it accepts and refuses exactly what `k.create` does
    (tests/catalog/test_import_speed.py compares them); `model_dump()` gives the same dict.
    """
    src = k.create
    decorators = src.__pydantic_decorators__
    validators: dict[str, Any] = {
        name: field_validator(*d.info.fields, mode=d.info.mode)(_unbound(d.func))
        for name, d in decorators.field_validators.items()
    }
    validators |= {
        name: model_validator(mode=d.info.mode)(_unbound(d.func))
        for name, d in decorators.model_validators.items()
    }
    fields: dict[str, Any] = {n: (f.annotation, f) for n, f in src.model_fields.items()}
    return create_model(
        f"{src.__name__}Row",
        __config__=ConfigDict(extra=src.model_config.get("extra", "ignore")),
        __validators__=validators,
        **fields,
    )


def _unbound(func: Any) -> Any:
    """A validator as it was written in the class body (pydantic hands them out bound)."""
    return classmethod(func.__func__) if inspect.ismethod(func) else func


def _raw_key(k: Kind, values: Mapping[str, Any]) -> str:
    """`k.key_of` of a row's values (a missing key field reads as empty)."""
    fields = k.key_fields
    if not fields:
        return "buy"
    if len(fields) == 1:
        return str(values.get(fields[0], ""))
    return "/".join(str(values.get(f, "")) for f in fields)


# --------------------------------------------------------------------------------------------
# Diff
# --------------------------------------------------------------------------------------------


def comparable(k: Kind, data: Mapping[str, Any]) -> dict[str, Any]:
    """Column values normalised so a database row and a parsed row compare equal."""
    floats = _float_columns(k)
    out: dict[str, Any] = {}
    for c in k.columns:
        v = data.get(c)
        if c == "term_discounts":
            v = {int(m): float(f) for m, f in (v or {}).items()}
        elif c in floats and isinstance(v, int) and not isinstance(v, bool):
            v = float(v)
        out[c] = v
    return out


@functools.cache
def _float_columns(k: Kind) -> frozenset[str]:
    """The kind's columns whose type is (or includes) float."""
    return frozenset(
        c
        for c, f in k.create.model_fields.items()
        if f.annotation is float or "float" in str(f.annotation)
    )


def diff(
    validated: Validated,
    existing: Mapping[str, Mapping[str, Mapping[str, Any]]],
    *,
    mode: Mode = "sync",
) -> ImportPreview:
    """Compare validated rows with `existing` ({kind: {key: comparable row}})."""
    with bulk():
        return _diff(validated, existing, mode=mode)


def _diff(
    validated: Validated,
    existing: Mapping[str, Mapping[str, Mapping[str, Any]]],
    *,
    mode: Mode,
) -> ImportPreview:
    parsed = validated.parsed
    preview = ImportPreview(
        ok=validated.ok,
        format=parsed.format,
        kinds=[n for n in ORDER if n in parsed.rows],
        mode=mode,
        rejected=validated.rejected,
        errors=list(parsed.errors),
        messages=validated.messages(),
    )
    for name in preview.kinds:
        k = KINDS[name]
        have = existing.get(name, {})
        incoming = validated.valid.get(name, [])
        keys = set()
        added: list[dict[str, Any]] = []
        for vr in incoming:
            keys.add(vr.key)
            old = have.get(vr.key)
            new = comparable(k, vars(vr.data))  # the Create model's fields (no nesting)
            if old is None:
                # The new row whole, prices and currency included: the admin checks a new
                # offer's price before applying (QA: only its kind and key were listed).
                added.append(
                    {
                        "kind": name,
                        "key": vr.key,
                        "row": vr.row,
                        "values": row_document(new),
                        "currency": row_currency(name, new),
                    }
                )
                continue
            changes, currency, old_currency = row_changes(name, k.columns, old, new)
            if changes:
                preview.changed.append(
                    RowChange(
                        kind=name,
                        key=vr.key,
                        row=vr.row,
                        fields=changes,
                        currency=currency,
                        old_currency=old_currency,
                    )
                )
            else:
                preview.unchanged += 1
        # One validator call for all added rows, not a model __init__ per row (a 10 MB file
        # adds ~24,000).
        preview.added.extend(_ROW_CHANGES.validate_python(added))
        # Rejected rows are not "removed": their keys are in the file.
        keys.update(r.key for r in validated.rejected if r.kind == name)
        if mode == "sync" and k.scoped and not k.single:
            if not keys and have:
                # A file that lists a kind with no rows at all (a header-only CSV, an empty
                # JSON list) would empty it: almost always a wrong file, never silently.
                preview.ok = False
                msg = _(
                    "%(kind)s: the file has no rows, so syncing would remove all %(n)s of them "
                    "from the list; leave %(kind)s out of the file, or upload its rows"
                ) % {"kind": name, "n": len(have)}
                preview.errors.append(msg)
                preview.messages.append(msg)
                continue
            preview.removed.extend(
                RowChange(
                    kind=name,
                    key=key,
                    values=row_document(have[key]),
                    currency=row_currency(name, have[key]),
                )
                for key in sorted(have)
                if key not in keys
            )
    return preview


_ROW_CHANGES: TypeAdapter[list[RowChange]] = TypeAdapter(list[RowChange])


def same_value(a: Any, b: Any) -> bool:
    """Whether two comparable column values are equal (floats to a part in 10^12)."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return bool(a == b)


def row_document(row: Mapping[str, Any]) -> dict[str, Any]:
    """A comparable row as JSON keeps it: its columns that have a value, dates as ISO text."""
    return {c: _jsonable(v) for c, v in row.items() if v is not None and v != ""}


def _jsonable(v: Any) -> Any:
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, dict):
        return {str(k): x for k, x in v.items()}
    return v


# --------------------------------------------------------------------------------------------
# Export
# --------------------------------------------------------------------------------------------


def _num(v: float) -> str:
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return _num(v)
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, dict):
        return format_terms(v)
    return str(v)


def to_csv(k: Kind, rows: Iterable[Mapping[str, Any]]) -> str:
    """One kind as CSV text (UTF-8 BOM first, so Excel shows the Chinese sources)."""
    buf = io.StringIO(newline="")
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(k.columns)
    for r in rows:
        w.writerow(safe_row(_cell(r.get(c)) for c in k.columns))  # no formulas (csv_safety)
    return "\ufeff" + buf.getvalue()


def to_document(
    header: Mapping[str, Any], rows: Mapping[str, Sequence[Mapping[str, Any]]]
) -> dict[str, Any]:
    """A JSON document: the price list header and each kind's rows (buy as one object)."""
    doc: dict[str, Any] = {"format": "stratagem-catalog", "version": 1}
    doc["price_list"] = {k: _jsonable(v) for k, v in header.items()}
    for name in ORDER:
        if name not in rows:
            continue
        items = [{c: _jsonable(r.get(c)) for c in KINDS[name].columns} for r in rows[name]]
        doc[name] = (items[0] if items else None) if KINDS[name].single else items
    return doc
