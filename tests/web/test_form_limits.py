"""A limit in a form error is written as a person writes it, in the units the form asks for."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

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


def test_no_form_field_cuts_what_is_pasted_into_it() -> None:
    # QA (silent truncation): a browser cuts text pasted into a field with `maxlength` at the
    # limit without a word, and the cut text is saved ("已建立客戶" for a 5,000-character
    # customer name, 200 characters kept). Every saved field is checked by the server,
    # which says the limit beside the field; the catalog's live search box alone keeps one
    # (it saves nothing, and its server refuses a longer search with a 422).
    kept = {("catalog/rows.html", 'name="q"')}
    root = Path(__file__).parents[2] / "templates"
    found = set()
    for path in sorted(root.rglob("*.html")):
        for tag in re.findall(
            r"<(?:input|textarea)\b[^>]*>|\{\{ f\.(?:input|textarea)\(.*?\}\}",
            path.read_text(),
            re.S,
        ):
            if "maxlength" in tag:
                name = re.search(r'name="[^"]+"|\(\s*"[^"]+"', tag)
                found.add((path.relative_to(root).as_posix(), name.group(0) if name else tag))
    assert found == kept
