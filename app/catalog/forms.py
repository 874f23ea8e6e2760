"""Reading the catalog pages' posted forms: strings only, validated models, the uploaded file."""

from __future__ import annotations

from collections.abc import Mapping
from types import UnionType
from typing import Annotated, Any, NamedTuple, Union, get_args, get_origin

from pydantic import ValidationError
from starlette.datastructures import UploadFile

from app.catalog import io, service
from app.catalog.kinds import Kind
from app.catalog.models import PriceListCreate, PriceListUpdate
from app.catalog.service import InvalidRow
from app.i18n import gettext as _
from app.web.forms import FieldError, number_text, parse_id


def form_strings(form: Mapping[str, Any]) -> dict[str, str]:
    return {k: v for k, v in form.items() if isinstance(v, str) and k != "csrf_token"}


def typed_numbers(k: Kind, values: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(the posted row with its number fields as typed by people read as numbers, {field:
    message} for those that cannot be): '1,200' is 1200 and full-width digits are ASCII, as
    on /tco and /assess; '1,5' is a decimal comma, not 15. Text fields are left as posted;
    a field in error is left out of the row."""
    out = dict(values)
    errors: dict[str, str] = {}
    for name, info in k.create.model_fields.items():
        raw = out.get(name)
        if not raw or not _is_number(info.annotation):
            continue
        try:
            out[name] = number_text(name, raw)
        except FieldError as e:
            errors[name] = str(e)
            del out[name]
    return out, errors


def validated_row(k: Kind, values: Mapping[str, str]) -> Any:
    """The posted row through the kind's model (`service.validate_row`), its numbers read
    by `typed_numbers`; InvalidRow names every field in error at once (a decimal comma had
    been reported alone, and a missing source only on the next submit)."""
    row, numbers = typed_numbers(k, values)
    try:
        data = service.validate_row(kind_name=k.name, values=row)
    except InvalidRow as e:
        if not numbers:
            raise
        raise InvalidRow({**e.errors, **numbers}) from None  # not "required": unreadable
    if numbers:
        raise InvalidRow(numbers)
    return data


def _is_number(annotation: Any) -> bool:
    """float or int, optional (a union with None) or constrained (Annotated); never bool, and
    never a container of numbers (term_discounts, dict[int, float], is text: '3:0.05;6:0.1'
    or JSON, read by io.parse_terms)."""
    if annotation is bool:
        return False
    if annotation in (float, int):
        return True
    if get_origin(annotation) in (Union, UnionType, Annotated):
        return any(_is_number(a) for a in get_args(annotation))
    return False


def validated(model: Any, values: Mapping[str, str], fields: tuple[str, ...]) -> Any:
    try:
        return model.model_validate({f: values.get(f, "") for f in fields})
    except ValidationError as e:
        raise InvalidRow(io.field_errors(e), exc=e) from None


def price_list_create(values: Mapping[str, str]) -> tuple[PriceListCreate, int | None]:
    """A new list's head (currency TWD unless chosen) and the list to copy rows from, if any."""
    data: PriceListCreate = validated(
        PriceListCreate,
        {**values, "currency": values.get("currency") or "TWD"},
        ("name", "effective_date", "currency", "notes", "source"),
    )
    return data, _list_choice("source_list", values.get("source_list"), empty=("",))


def price_list_update(values: Mapping[str, str]) -> PriceListUpdate:
    fields = ("name", "effective_date", "notes", "source")
    data: PriceListUpdate = validated(PriceListUpdate, values, fields)
    return data


class Upload(NamedTuple):
    """An import form's file: its bytes, format, and the kind of a CSV's rows (None: JSON)."""

    data: bytes
    format: io.Format
    kind: str | None


def read_upload(form: Mapping[str, Any], values: Mapping[str, str]) -> Upload:
    """The uploaded file (or pasted text), its format and a CSV's kind, each chosen or read
    from the file's name (`stratagem-price-list-2-gpus.csv` as an export names it: QA
    uploaded an export and the form's default kind, offers, refused its columns).

    Called from a route in the threadpool: the upload is read from its spooled file there
    (`app.web.forms.posted_form`)."""
    upload = form.get("file")
    data = b""
    name = ""
    if isinstance(upload, UploadFile):
        upload.file.seek(0)
        data = upload.file.read()
        name = (upload.filename or "").lower()
    if not data and values.get("text", "").strip():
        data = values["text"].encode("utf-8")
    if not data:
        message = (
            _("The file %(name)s is empty.") % {"name": upload.filename}
            if isinstance(upload, UploadFile) and upload.filename
            else _("Choose a file to import (or paste its text).")
        )
        raise InvalidRow({"file": message})
    fmt: io.Format
    chosen = values.get("format", "")
    if chosen in ("csv", "json"):
        fmt = chosen  # type: ignore[assignment]
    elif name.endswith(".csv"):
        fmt = "csv"
    elif name.endswith(".json") or data.lstrip()[:1] in (b"{", b"["):
        fmt = "json"
    else:
        fmt = "csv"
    if fmt == "json":
        return Upload(data, fmt, None)
    kind = values.get("kind", "") or io.kind_from_name(name)
    if not kind:
        raise InvalidRow(
            {
                "kind": _(
                    "The file's name does not say what its rows are (an export's name ends "
                    "with it: …-offers.csv, …-gpus.csv): choose the kind."
                )
            }
        )
    return Upload(data, fmt, kind)


def import_target(value: str | None) -> int | None:
    """The list to import into (None: a new draft); a value that is not a list id is an error
    beside the field, not a silent import into a new list."""
    return _list_choice("target", value, empty=("", "new"))


def _list_choice(field: str, value: str | None, *, empty: tuple[str, ...]) -> int | None:
    """A price-list <select>'s id, None for its `empty` choices, else InvalidRow on `field`
    ('²' and 5,000 digits raised in int(); past 2^63 overflowed SQLite: QA S1.3)."""
    text = (value or "").strip()
    if text in empty:
        return None
    list_id = parse_id(text)
    if list_id is None:
        raise InvalidRow({field: _("Choose one of the listed options.")})
    return list_id


def import_mode(value: str | None) -> io.Mode:
    return "upsert" if value == "upsert" else "sync"
