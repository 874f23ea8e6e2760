"""One reading of a typed number on every page (app.web.forms.parse_number).

QA: "1,5" in /tco's months was priced as 15 months, and "1,5" as a model size on /assess sized
a 15B model; a decimal comma is a European habit, and here it was silently read as a
thousands separator. A comma now only separates thousands (1,500); anything else is refused
in the page's language. Full-width digits, point and comma (a Chinese input method types
them) read as their ASCII forms: "１２" was accepted and "１．５" refused.
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.web.forms import FieldError, parse_number


@pytest.mark.parametrize(
    ("typed", "value"),
    [
        ("1,500", 1500),
        ("12,345,678.9", 12_345_678.9),
        ("-1,000", -1000),
        ("1,000k", 1_000_000),
        ("１２", 12),
        ("１．５", 1.5),
        ("１，５００", 1500),
        ("－３", -3),
        ("2e9", 2e9),
        ("1.5B", 1.5e9),
        ("1_000", 1000),
    ],
)
def test_numbers_read_as_written(typed: str, value: float) -> None:
    assert parse_number("months", typed) == value


@pytest.mark.parametrize("typed", ["1,5", "1,00", "１,5", "12,34,567", "1,5000", ",5"])
def test_a_comma_that_does_not_separate_thousands_is_refused(typed: str) -> None:
    with pytest.raises(FieldError) as err:
        parse_number("months", typed)
    assert err.value.field == "months"
    assert "comma only separates thousands" in str(err.value) or "Enter a number" in str(err.value)


def test_a_superscript_is_not_a_digit() -> None:
    # NFKC would read "²" as 2: the full-width map is explicit instead.
    with pytest.raises(FieldError):
        parse_number("months", "²")


@pytest.mark.parametrize(
    ("lang", "words"),
    [("zh-TW", "小數請用小數點（1.5）"), ("en", "Use a point for decimals (1.5)")],
)
def test_the_planner_refuses_a_decimal_comma_beside_the_field(
    client: TestClient, lang: str, words: str
) -> None:
    url = "/plan?model_source=preset&preset=llama-2-7b&task=full_finetune&deadline_days=1,5"
    r = client.get(url, headers={"Accept-Language": lang})
    assert r.status_code == 200
    err = BeautifulSoup(r.text, "html.parser").select_one("#err-deadline_days")
    assert err is not None and words in err.get_text(), err
