"""Form parsing shared by the pages: the posted form (read before the route runs), numbers
with suffixes, and translated validation errors."""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Collection, Mapping
from decimal import Decimal
from typing import Annotated, Any, Final

from fastapi import Depends, Request
from pydantic import ValidationError
from starlette.datastructures import FormData

from app.engine.notices import Notice
from app.errors import Invalid
from app.i18n import N_, current_language
from app.i18n import gettext as _
from app.ids import DB_ID_MAX

_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
_NUMBER = re.compile(r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?)\s*([kmbgt]?)\s*$", re.I)


_ID = re.compile(r"[0-9]{1,10}")


#: A field sent more than once to a form that takes one value for it.
REPEATED: Final = N_("“%(name)s” was sent %(n)s times: this field takes one value.")


class Posted(dict[str, str]):
    """A posted form's text fields, each once. `repeated`: {name: times} of the fields sent
    more than once; the dict holds none of their values (which one was meant is unknown)."""

    repeated: dict[str, int]

    def __init__(self, fields: dict[str, str], repeated: dict[str, int]) -> None:
        super().__init__({k: v for k, v in fields.items() if k not in repeated})
        self.repeated = repeated


def read_once(form: FormData) -> Posted:
    """The text fields of `form` (files left out), each sent once, and those sent more.

    Starlette keeps the last of `name=a&name=b` without a word (QA saved a customer named
    "b"). No page's POST form sends a field twice (checked against templates/: the quote and
    phase builders number their lines, `line-0-quantity`; the only repeated fields are
    /compare's `ids` tick boxes, a GET form read with `getlist`), so a second value is a
    crafted or damaged form."""
    counts: dict[str, int] = {}
    for key, _value in form.multi_items():
        counts[key] = counts.get(key, 0) + 1
    repeated = {k: n for k, n in counts.items() if n > 1}
    return Posted({k: v for k, v in form.items() if isinstance(v, str)}, repeated)


def repeated_message(form: Posted, name: str) -> str:
    """REPEATED for the field `name` of `form`, in the active language."""
    return _(REPEATED) % {"name": name, "n": form.repeated[name]}


def repeated_errors(form: Posted, shown: Collection[str]) -> dict[str, str]:
    """{field: message} for each repeated field of `form` a page shows beside its input
    (`shown`), the first other one under "form" (a hidden field, a field the page has not)."""
    out: dict[str, str] = {}
    for name in form.repeated:
        out.setdefault(name if name in shown else "form", repeated_message(form, name))
    return out


def require_once(form: FormData) -> Posted:
    """`read_once`, with a repeated field refused: 422 naming it (the error page, or JSON)."""
    posted = read_once(form)
    if posted.repeated:
        name, times = next(iter(posted.repeated.items()))
        raise Invalid(REPEATED, field=name, name=name, n=times)
    return posted


async def posted_form(request: Request) -> FormData:
    """The posted form, files included, read by a dependency so that the route can be a
    plain `def`; a field sent twice is refused (`require_once`).

    FastAPI runs a `def` route in its threadpool; an `async def` route runs on the event
    loop, so while it waits on the database (a plan's row lock, SQLite's write lock for up
    to its 30 s busy timeout) every other request of the process waits too (race QA: a
    health check took 3.2 s behind one waiting Accept). Only reading the body needs `await`,
    and that happens here."""
    form = await request.form()
    require_once(form)
    return form


async def posted_text(request: Request) -> Posted:
    """The posted form's text fields (files left out), each sent once: a field sent twice
    is a 422 naming it (`require_once`); see `posted_form`."""
    return require_once(await request.form())


async def posted_fields(request: Request) -> Posted:
    """As `posted_text`, for a form that says a repeated field beside its input: nothing
    refused here, `Posted.repeated` names them (`repeated_errors`)."""
    return read_once(await request.form())


PostedForm = Annotated[FormData, Depends(posted_form)]
#: Each field once, or a 422 naming the repeated one on the error page.
PostedText = Annotated[Posted, Depends(posted_text)]
#: Each field once, or `repeated` for the page's form to say inline.
PostedFields = Annotated[Posted, Depends(posted_fields)]


def parse_id(raw: str | None, *, minimum: int = 1) -> int | None:
    """A posted id, version, count or index: ASCII digits only, `minimum` … DB_ID_MAX; else
    None ('', '²', '-1', '1.0', 5,000 digits, 2^63).

    `int()` takes '²'-style digits `str.isdigit()` lets through only to raise, refuses more
    than 4,300 digits, and a number past 2^63 overflows SQLite: each was a 500 (QA S1.3).
    Callers treat None like any other unknown id or stale version."""
    text = (raw or "").strip()
    if not _ID.fullmatch(text):
        return None
    value = int(text)
    return value if minimum <= value <= DB_ID_MAX else None


def posted_version(raw: str | None, current: int) -> int | None:
    """The version a page's form was loaded at, for a record now at version `current`: the
    posted one (`parse_id`), `current` when the form sends none; None when it names a version
    the record does not have (not a version, or ahead of it)."""
    if not raw:
        return current
    version = parse_id(raw)
    return version if version is not None and version <= current else None


class FieldError(ValueError):
    """A value that cannot be read; `field` names the form input."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


# Full-width digits, point, comma and signs (a Chinese input method types them) read as their
# ASCII forms: "１２" and "１．５" are 12 and 1.5. Not NFKC, which would also read "²" as 2.
_FULL_WIDTH = str.maketrans(
    {**{chr(0xFF10 + d): str(d) for d in range(10)}, "．": ".", "，": ",", "－": "-",
     "＋": "+", "\u3000": " "}
)  # fmt: skip
# A comma only separates thousands: 1,000 or 12,345,678.9 — never "1,5" (a decimal comma, read
# as 15 — QA) or "1,00".
_GROUPED = re.compile(r"[-+]?\d{1,3}(,\d{3})+(\.\d*)?([eE][-+]?\d+)?\s*[kmbgtKMBGT]?")


def number_text(field: str, raw: str) -> str:
    """A typed number as plain ASCII: full-width digits read as ASCII, thousands commas
    dropped ('1,200' → '1200'); a comma that does not separate thousands ('1,5') →
    FieldError; a number past a float's range as the largest float of its sign
    (`past_floats`). Anything else is left for the caller's own parsing."""
    text = raw.translate(_FULL_WIDTH).strip()
    if "," in text:
        if not _GROUPED.fullmatch(text.replace("_", "")):
            raise FieldError(
                field,
                _("Use a point for decimals (1.5); a comma only separates thousands (1,500)."),
            )
        text = text.replace(",", "")
    if _PLAIN_NUMBER.fullmatch(text) and math.isinf(float(text)):
        return repr(past_floats(float(text)))
    return text


_PLAIN_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")


def past_floats(value: float) -> float:
    """A typed number too large for a float ('1e400', 5,000 nines: ±inf once read) as the
    largest float of its sign: larger than any field allows, so the field's own bound says
    the allowed range ("Must be at most 100,000,000."), where "Enter a number" said it was
    no number (QA). Every form field that takes a number has an upper bound."""
    return math.copysign(sys.float_info.max, value) if math.isinf(value) else value


#: An example of each number a form asks for, said when it cannot read one (QA: every field
#: said "e.g. 4096", a sequence length, beside users, months or GPUs); others get `_EXAMPLE`.
EXAMPLES: Final = {
    "seq_len": "4096",
    "users": "200",
    "concurrency": "200",
    "gpu_count": "8",
    "term_months": "12",
    "rent_months": "12",
    "months": "12",
    "deadline_days": "14",
    "tokens": "2e9",
    "dataset_gb": "20",
    "images": "5,000",
    "images_per_hour": "500",
    "params_b": "70",
    "size_other": "32",
}
_EXAMPLE: Final = "12"


def number_example(field: str) -> str:
    """The example a number field's error gives ("e.g. 200" for users)."""
    return EXAMPLES.get(field.rsplit(".", 1)[-1], _EXAMPLE)


def parse_number(field: str, raw: str | None, *, integer: bool = False) -> float | int | None:
    """'4096', '1,000', '2e9', '1.5B', '１．５' → a number; '' → None; anything else (a comma
    that does not separate thousands: '1,5') → FieldError."""
    if raw is None or not raw.strip():
        return None
    m = _NUMBER.match(number_text(field, raw).replace("_", ""))
    example = {"example": number_example(field)}
    if not m:
        raise FieldError(field, _("Enter a number, e.g. %(example)s.") % example)
    value = past_floats(float(m.group(1)) * _SUFFIX.get(m.group(2).lower(), 1.0))
    if integer:
        if value != int(value):
            raise FieldError(field, _("Enter a whole number."))
        return int(value)
    return value


def validation_messages(
    exc: ValidationError,
    aliases: Mapping[str, str] | None = None,
    scales: Mapping[str, float] | None = None,
) -> dict[str, str]:
    """Pydantic errors as {form field: translated message}; '' is the whole form.

    `scales` names the form fields that show a model field in other units (a percent field
    of a fraction: 100), so that a limit is stated in the units the user typed."""
    out: dict[str, str] = {}
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ()) if not isinstance(p, int)]
        key = ".".join(loc)
        field = (aliases or {}).get(key, loc[-1] if loc else "")
        out.setdefault(
            field, message_for(err, (scales or {}).get(field, 1.0), number_example(field))
        )
    return out


def message_for(err: Mapping[str, Any], scale: float = 1.0, example: str | None = None) -> str:
    """One pydantic error in the page's language; a limit is multiplied by `scale`; a number
    that could not be read gets `example` (by default `number_example` of the error's field)."""
    names = [str(p) for p in err.get("loc", ()) if isinstance(p, str)]
    if example is None:
        example = number_example(names[-1]) if names else _EXAMPLE
    kind = str(err.get("type", ""))
    ctx = err.get("ctx") or {}
    # A year is written 1990, not 1,990 (QA: a GPU's launch year "至少須為 1,990").
    year = bool(names) and names[-1].endswith("year")

    def limit(key: str) -> str:
        value = ctx.get(key)
        if scale != 1.0 and isinstance(value, int | float):
            value = round(value * scale, 9)
        return str(value) if year and isinstance(value, int) else limit_text(value)

    if kind in ("greater_than_equal",):
        return _("Must be at least %(limit)s.") % {"limit": limit("ge")}
    if kind in ("greater_than",):
        return _("Must be more than %(limit)s.") % {"limit": limit("gt")}
    if kind in ("less_than_equal",):
        return _("Must be at most %(limit)s.") % {"limit": limit("le")}
    if kind in ("less_than",):
        return _("Must be less than %(limit)s.") % {"limit": limit("lt")}
    if kind in ("literal_error", "enum"):
        return _("Choose one of the listed options.")
    if kind in (
        "int_parsing",
        "int_from_float",
        "float_parsing",
        "int_type",
        "float_type",
        "finite_number",
    ):  # finite_number: inf, NaN, 1e309
        return _("Enter a number, e.g. %(example)s.") % {"example": example}
    if kind == "decimal_max_places":
        return _("At most %(n)s decimal places.") % {"n": ctx.get("decimal_places")}
    if kind in ("decimal_parsing", "decimal_type", "number_type"):
        return _("Enter a number, e.g. %(example)s.") % {"example": example}
    if kind in ("missing",):
        return _("This field is required.")
    if kind == "string_type":
        return _("Must be text (a JSON string).")
    if kind == "too_long" and ctx.get("field_type") and not isinstance(err.get("input"), str):
        # A list, not text: 51 tags read "at most 50 characters" (QA). Text whose length is
        # checked after a validator is a "too_long" of field_type "Value" too: characters.
        return _("Too many: at most %(limit)s.") % {"limit": limit_text(ctx.get("max_length"))}
    if kind == "too_short" and ctx.get("field_type") and (ctx.get("min_length") or 0) > 1:
        return _("Too few: at least %(limit)s.") % {"limit": limit_text(ctx.get("min_length"))}
    if kind == "too_short" and ctx.get("field_type"):
        return _("Give at least one.")
    if kind in ("string_too_long", "too_long"):
        return _("Too long: at most %(limit)s characters.") % {
            "limit": limit_text(ctx.get("max_length"))
        }
    if kind in ("string_too_short", "too_short"):
        return _("This field is required.")
    if kind.startswith("date_") or kind.startswith("datetime_"):
        return _("Enter a date, e.g. %(example)s.") % {"example": "2027-01-31"}
    if kind in ("bool_parsing", "bool_type"):
        return _("Choose yes or no.")
    if kind == "extra_forbidden":  # pydantic's English "Extra inputs are not permitted" (QA)
        return _("Not a field this form takes.")
    # A validator's own message: an engine Notice (its template translated, then filled),
    # already in the page's language (it calls gettext), or a msgid (N_) translated here.
    # Pydantic's prefix is never shown.
    error = ctx.get("error")
    notice = error.args[0] if isinstance(error, Exception) and error.args else None
    if isinstance(notice, Notice):
        said = _(notice.template)
        return said % notice.params if notice.params else said.replace("%%", "%")
    msg = str(err.get("msg", "")).removeprefix("Value error, ")
    return _(msg) if msg else msg


def limit_text(value: Any) -> str:
    """A limit as a person writes it: 1,000,000,000,000, never 1E+12 (a Decimal bound)."""
    if isinstance(value, Decimal):
        value = int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


_CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


def as_sentence(text: str) -> str:
    """A refusal worded for the API ("the quote was already accepted", "at most 200
    characters") as a page shows it to a reader: a capital first letter and a closing full
    stop ("。" after a Chinese character, and after a Chinese sentence's closing number:
    "找不到價目表 9" ends "。", not "."). Text that already ends a sentence is kept."""
    text = text.strip()
    if not text:
        return text
    if text[0].isascii() and text[0].islower():
        text = text[0].upper() + text[1:]
    if text[-1] in ".。!?！？:：":
        return text
    chinese = _CJK.match(text[-1]) or (current_language() == "zh-TW" and _CJK.search(text))
    return text + ("。" if chinese else ".")
