"""A limit in a form error is written as a person writes it, in the units the form asks for."""

from __future__ import annotations

from decimal import Decimal

from app.web.forms import message_for


def test_a_decimal_limit_is_grouped_not_in_scientific_notation() -> None:
    # A quote line's unit price is a Decimal bounded by 1E+12; str() printed "1E+12".
    err = {"type": "less_than_equal", "ctx": {"le": Decimal("1E+12")}}
    assert message_for(err) == "Must be at most 1,000,000,000,000."
    err = {"type": "greater_than_equal", "ctx": {"ge": Decimal("0.01")}}
    assert message_for(err) == "Must be at least 0.01."


def test_a_percent_field_states_its_fraction_limit_in_percent() -> None:
    # mfu is a fraction 0.01–0.9 in the request and a percent on the form: 0.9 × 100 = 90.
    assert message_for({"type": "less_than_equal", "ctx": {"le": 0.9}}, 100.0) == (
        "Must be at most 90."
    )
