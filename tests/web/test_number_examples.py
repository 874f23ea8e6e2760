"""A number that cannot be read is answered with an example of that field's own kind.

QA: every field of the planner and the phase form said "Enter a number, e.g. 4096" — a
sequence length — beside users, months and GPUs.
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient


@pytest.mark.parametrize(
    ("field", "example"),
    [("users", "200"), ("rent_months", "12"), ("gpu_count", "8"), ("images_per_hour", "500")],
)
@pytest.mark.parametrize(
    ("lang", "words"), [("en", "Enter a number, e.g. {}."), ("zh-TW", "請輸入數字，例如 {}。")]
)
def test_the_planner_gives_each_field_its_own_example(
    client: TestClient, field: str, example: str, lang: str, words: str
) -> None:
    r = client.get(
        "/plan",
        params={"task": "image" if field == "images_per_hour" else "inference", field: "abc"},
        headers={"Accept-Language": lang},
    )
    error = BeautifulSoup(r.text, "html.parser").select_one(f"#err-{field}")
    assert error is not None and error.get_text(strip=True) == words.format(example)
