"""The JSON API's 422 messages in the reader's language, each naming what is allowed.

Pydantic writes its own messages in English and states one side of a range: `seq_len: 5`
read "Input should be greater than or equal to 16" (the largest, 1,048,576, was never said),
`1e308` "Unable to parse input string as an integer" (it was no string), an unknown field
"Extra inputs are not permitted" (without the fields that are), and a validator's message
came prefixed "Value error, " — in English beside a Chinese "不得包含控制字元" (QA of stop
32). Here each error of a request body is said again from its `type`, its `ctx` and the
bounds the route's body model declares for that field:

* a number out of range or not a number: the whole range ("Must be at least 16 and at most
  1,048,576.");
* an unknown field: the fields the object takes;
* a body that is not JSON: where it breaks, at `loc` ["body"] (the character offset was
  listed as if it were a field, ["body", 5]);
* a value outside a fixed set, in the body or a query or path parameter: the values it takes;
* anything else: `app.web.forms.message_for`, the messages the pages use.

`type`, `loc` (but for the JSON case) and `ctx` stay pydantic's, for programs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import NoneType, UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from fastapi import Request
from pydantic import BaseModel

from app.i18n import gettext as _
from app.web.forms import limit_text, message_for

_RANGE_TYPES = frozenset({"greater_than_equal", "greater_than", "less_than_equal", "less_than"})
_NUMBER_TYPES = frozenset(
    {
        "int_parsing",
        "int_parsing_size",
        "int_from_float",
        "int_type",
        "float_parsing",
        "float_type",
        "finite_number",
        "number_type",
        "decimal_parsing",
        "decimal_type",
    }
)
#: Most field names an unknown-field message lists.
_MOST_FIELDS = 40


def body_errors(request: Request, errors: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """`errors` with each `msg` in the request's language and what it allows (see above)."""
    model = _body_model(request)
    out = []
    for err in errors:
        item = dict(err)
        loc = tuple(err.get("loc", ()))
        kind = str(err.get("type", ""))
        if kind == "json_invalid":
            item["loc"] = ("body",)
            where = (loc[1] + 1) if len(loc) > 1 and isinstance(loc[1], int) else None
            item["msg"] = (
                _("The body is not valid JSON: look at character %(n)s.") % {"n": f"{where:,}"}
                if where is not None
                else _("The body is not valid JSON.")
            )
        elif loc[:1] == ("body",) and model is not None:
            item["msg"] = _message(err, kind, model, loc[1:])
        else:  # a query or path parameter (`?lang=xx`): its choices named as a body's are
            item["msg"] = _choice_message(err, kind) or message_for(err)
        out.append(item)
    return out


def _message(err: Mapping[str, Any], kind: str, model: Any, path: tuple[Any, ...]) -> str:
    if kind == "extra_forbidden":
        parent = _walk(model, path[:-1])[0]
        if isinstance(parent, type) and issubclass(parent, BaseModel):
            names = [f.alias or n for n, f in parent.model_fields.items()]
            shown = ", ".join(names[:_MOST_FIELDS]) + (", …" if len(names) > _MOST_FIELDS else "")
            return _("Not a field this takes; it takes: %(fields)s.") % {"fields": shown}
        return message_for(err)
    if kind in _RANGE_TYPES or kind in _NUMBER_TYPES:
        bounds = _walk(model, path)[1]
        range_text = _range(bounds)
        if kind in _NUMBER_TYPES and kind != "number_type":
            whole = kind.startswith("int")
            if range_text:
                return (
                    _("Must be a whole number, %(range)s.")
                    if whole
                    else _("Must be a number, %(range)s.")
                ) % {"range": range_text}
            return _("Must be a whole number.") if whole else _("Must be a number.")
        if kind == "number_type":
            return _("Must be a number, not true or false.")
        if range_text:
            return _("Must be %(range)s.") % {"range": range_text}
    if said := _choice_message(err, kind):
        return said
    if kind in ("model_attributes_type", "dict_type", "model_type"):
        return _("Must be an object ({…}).")
    if kind in ("list_type", "tuple_type", "set_type"):
        return _("Must be a list ([…]).")
    return message_for(err)


def _choice_message(err: Mapping[str, Any], kind: str) -> str | None:
    """ "Must be one of 'zh-TW' or 'en'." for a value outside a fixed set, else None."""
    if kind in ("literal_error", "enum"):
        expected = (err.get("ctx") or {}).get("expected")
        if expected:
            return _("Must be one of %(expected)s.") % {"expected": _choices(str(expected))}
    return None


def _choices(expected: str) -> str:
    """pydantic's "'item', 'month' or 'hour'" with the reader's "or" ("或" in Chinese)."""
    head, sep, last = expected.rpartition(" or ")
    if not sep:
        return expected
    return _("%(first)s or %(last)s") % {"first": head, "last": last}


def _range(bounds: Mapping[str, Any]) -> str:
    """'at least 16 and at most 1,048,576' (either side alone when the other is open)."""
    parts = []
    if "ge" in bounds:
        parts.append(_("at least %(limit)s") % {"limit": limit_text(bounds["ge"])})
    elif "gt" in bounds:
        parts.append(_("more than %(limit)s") % {"limit": limit_text(bounds["gt"])})
    if "le" in bounds:
        parts.append(_("at most %(limit)s") % {"limit": limit_text(bounds["le"])})
    elif "lt" in bounds:
        parts.append(_("less than %(limit)s") % {"limit": limit_text(bounds["lt"])})
    if len(parts) == 2:
        return _("%(lower)s and %(upper)s") % {"lower": parts[0], "upper": parts[1]}
    return parts[0] if parts else ""


def _body_model(request: Request) -> Any:
    """The annotation of the route's body (a model), or None."""
    route = request.scope.get("route")
    field = getattr(route, "body_field", None)
    info = getattr(field, "field_info", None)
    return getattr(info, "annotation", None)


def _walk(annotation: Any, path: tuple[Any, ...]) -> tuple[Any, dict[str, Any]]:
    """(the type at `path` inside `annotation`, the ge/gt/le/lt bounds declared for it)."""
    ann, bounds = _unwrap(annotation, {})
    for part in path:
        if isinstance(part, int):
            args = get_args(ann)
            if get_origin(ann) in (list, tuple, set, frozenset) and args:
                ann, bounds = _unwrap(args[0], {})
                continue
            return None, {}
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            field = ann.model_fields.get(part) or next(
                (f for f in ann.model_fields.values() if f.alias == part), None
            )
            if field is None:
                return None, {}
            ann, bounds = _unwrap(field.annotation, _bounds(field.metadata, {}))
            continue
        if get_origin(ann) is dict and len(get_args(ann)) == 2:
            ann, bounds = _unwrap(get_args(ann)[1], {})
            continue
        return None, {}
    return ann, bounds


def _unwrap(ann: Any, bounds: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """`ann` without Optional and Annotated, with the bounds their metadata declare."""
    while True:
        origin = get_origin(ann)
        if origin is Annotated:
            args = get_args(ann)
            bounds = _bounds(args[1:], bounds)
            ann = args[0]
        elif origin in (Union, UnionType):
            members = [a for a in get_args(ann) if a is not NoneType]
            if len(members) != 1:
                return ann, bounds
            ann = members[0]
        else:
            return ann, bounds


def _bounds(metadata: Sequence[Any], bounds: dict[str, Any]) -> dict[str, Any]:
    out = dict(bounds)
    for m in metadata:
        for key in ("ge", "gt", "le", "lt"):
            value = getattr(m, key, None)
            if value is not None and key not in out:
                out[key] = value
    return out


def unreadable_body(cause: BaseException | None) -> dict[str, Any]:
    """The 422 item for a JSON body FastAPI could not parse for a reason other than its
    syntax, which it answers with a bare 400 "There was an error parsing the body" naming
    nothing (QA A7): bytes that are not UTF-8, or an integer past Python's 4,300-digit
    limit on converting text to int (CVE-2020-10735's guard, kept: lifting it lets one
    request spend seconds of CPU)."""
    if isinstance(cause, UnicodeDecodeError):
        msg = _("The body is not UTF-8 text: byte 0x%(byte)s at position %(n)s cannot be read.") % {
            "byte": f"{cause.object[cause.start]:02x}",
            "n": f"{cause.start + 1:,}",
        }
    elif isinstance(cause, ValueError) and "integer string conversion" in str(cause):
        msg = _("A number in the body has more than 4,300 digits; no field takes one so large.")
    else:
        msg = _("The body could not be read as JSON.")
    return {"type": "json_invalid", "loc": ["body"], "msg": msg, "input": None}
