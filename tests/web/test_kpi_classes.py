"""Every `fit-N` class `kpi_value` can give has its rule in the stylesheet."""

from __future__ import annotations

import re

from app.settings import REPO_ROOT
from app.web.templating import KPI_FIT_CHARS, kpi_value


def test_every_length_class_kpi_value_gives_has_its_rule() -> None:
    css = (REPO_ROOT / "static" / "css" / "app.css").read_text(encoding="utf-8")
    ruled = {int(n) for n, chars in re.findall(r"\.fit-(\d+) \{ --chars: (\d+); \}", css)
             if n == chars}  # fmt: skip
    assert ruled == set(KPI_FIT_CHARS)


def test_the_class_rounds_the_length_up_counting_cjk_as_wide() -> None:
    assert 'class="v fit-6"' in kpi_value("16,384")
    assert 'class="v long fit-10"' in kpi_value("NT$160,000")  # 10 characters
    assert 'class="v long fit-12"' in kpi_value("NT$1,920,000")
    # 「第 27.2 個月」: 6 narrow characters and 3 wide ones at 1.4 each = 10.2, rounded up to 11
    assert "fit-11" in kpi_value("第 27.2 個月")
    assert "fit-32" in kpi_value("9" * 40)  # past the last bound: the last class
