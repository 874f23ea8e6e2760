"""Numbers are numbers: a JSON `true` is not 1.

Pydantic's lax mode takes `true`/`false` for an int, float or Decimal field (as 1 and 0), so
`{"tokens": true}` would plan one token and `{"gpu_count": true}` one GPU without a word.
`NumbersNotBooleans` is a mixin for every input model (pydantic or SQLModel): a boolean given
to a numeric field is a 422 naming the field. Strict mode would do it too, but it also
refuses the numeric strings ("8000") that money fields take on purpose.

The other way round too, in a model that sets `STRICT_BOOLEANS = True` (a JSON body's): a
yes/no field takes only `true`/`false` (QA: `{"export": "yes"}` and `{"export": 1}` made an
export customer, pydantic reading "yes", "on", "t" and 1 as true). Not in the catalog's rows,
whose CSV cells are text ("true"), nor where a form's tick box is read by the model.
"""

from __future__ import annotations

from decimal import Decimal
from types import NoneType, UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

_NUMBERS = (int, float, Decimal)


def is_numeric(annotation: Any) -> bool:
    """True for int, float, Decimal, a Literal of ints, an `Annotated` one of those (a
    bounded id, a price), and optional/unions of those."""
    if annotation in _NUMBERS:
        return True
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is Annotated:
        # QA: `customer_id: DbId | None` took `true` as customer 1, the Annotated member
        # inside the union having been read as not a number.
        return is_numeric(args[0])
    if origin is Literal:
        return all(isinstance(a, int) and not isinstance(a, bool) for a in args)
    if origin in (Union, UnionType):
        members = [a for a in args if a is not NoneType]
        return bool not in members and any(is_numeric(a) for a in members)
    return False


def is_boolean(annotation: Any) -> bool:
    """True for bool and an optional bool."""
    if annotation is bool:
        return True
    if get_origin(annotation) in (Union, UnionType):
        members = [a for a in get_args(annotation) if a is not NoneType]
        return members == [bool]
    return False


def has_numeric_values(annotation: Any) -> bool:
    """True for a dict (or an optional one) whose values are numbers."""
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is dict:
        return len(args) == 2 and is_numeric(args[1])
    if origin in (Union, UnionType):
        return any(has_numeric_values(a) for a in args if a is not NoneType)
    return False


class NumbersNotBooleans:
    """Refuse `true`/`false` in any numeric field of the model it is mixed into."""

    @field_validator("*", mode="before")
    @classmethod
    def _refuse_booleans(cls, value: Any, info: ValidationInfo) -> Any:
        if info.field_name is None:
            return value
        field = cls.model_fields.get(info.field_name)  # type: ignore[attr-defined]
        if field is None:
            return value
        if isinstance(value, bool) and is_numeric(field.annotation):
            raise PydanticCustomError("number_type", "Input should be a number, not true or false")
        if (
            getattr(cls, "STRICT_BOOLEANS", False)
            and value is not None
            and not isinstance(value, bool)
            and is_boolean(field.annotation)
        ):
            raise PydanticCustomError("bool_type", "Input should be true or false")
        if isinstance(value, dict) and has_numeric_values(field.annotation):
            # A map of numbers (contract months → discount): `{"12": false}` is not 0% off.
            for key, item in value.items():
                if isinstance(item, bool):
                    raise PydanticCustomError(
                        "number_type",
                        "Input should be a number, not true or false (at {key})",
                        {"key": str(key)},
                    )
        return value
