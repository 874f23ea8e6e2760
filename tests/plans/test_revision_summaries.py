"""A revision's change summary reads in the page's language: the history and the diff of a
中文 page said "變更：sent" and "變更：declined by the customer" (QA, 2026-12-03)."""

from __future__ import annotations

import pytest

from app import i18n
from app.plans.presenters import summary_text

CASES = [
    ("sent", "Quote sent", "已送出報價"),
    ("accepted by the customer: 王小明, 採購經理", "Accepted by the customer: 王小明, 採購經理",
     "客戶已接受：王小明, 採購經理"),
    ("declined by the customer", "Declined by the customer", "客戶已婉拒"),
    ("declined by the customer; the plan is version 3 again, as sent (version 4 was saved "
     "after sending)",
     "Declined by the customer; the plan is version 3 again, as sent (version 4 was saved "
     "after sending)",
     "客戶已婉拒；方案回到送出時的第 3 版（第 4 版是送出後才儲存的）"),
]  # fmt: skip


@pytest.mark.parametrize(("summary", "en", "zh"), CASES)
def test_the_quotes_life_reads_in_the_pages_language(summary: str, en: str, zh: str) -> None:
    i18n.activate("en")
    assert summary_text(summary) == en
    i18n.activate("zh-TW")
    assert summary_text(summary) == zh
    assert "sent" not in summary_text(summary) and "customer" not in summary_text(summary)
