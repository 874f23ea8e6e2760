"""Numbers are numbers: a JSON `true` is not 1.

Pydantic's lax mode takes `true`/`false` for an int, float or Decimal field (as 1 and 0), so
`{"tokens": true}` would plan one token and `{"gpu_count": true}` one GPU without a word.
`NumbersNotBooleans` is a mixin for every input model (pydantic or SQLModel): a boolean given
to a numeric field is a 422 naming the field. Strict mode would do it too, but it also
refuses the numeric strings ("8000") that money fields take on purpose.
"""

from __future__ import annotations

from decimal import Decimal
from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

_NUMBERS = (int, float, Decimal)


def is_numeric(annotation: Any) -> bool:
    """True for int, float, Decimal, a Literal of ints, and optional/unions of those."""
    if annotation in _NUMBERS:
        return True
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is Literal:
        return all(isinstance(a, int) and not isinstance(a, bool) for a in args)
    if origin in (Union, UnionType):
        members = [a for a in args if a is not NoneType]
        return bool not in members and any(is_numeric(a) for a in members)
    return False


class NumbersNotBooleans:
    """Refuse `true`/`false` in any numeric field of the model it is mixed into."""

    @field_validator("*", mode="before")
    @classmethod
    def _refuse_booleans(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, bool) and info.field_name is not None:
            field = cls.model_fields.get(info.field_name)  # type: ignore[attr-defined]
            if field is not None and is_numeric(field.annotation):
                raise PydanticCustomError(
                    "number_type", "Input should be a number, not true or false"
                )
        return value
