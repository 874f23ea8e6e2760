"""Chart labels wrap by display width: a Chinese character is as wide as two Latin letters.

At 48 characters a zh legend entry ("月租 · 32 × NVIDIA H100 SXM5 80GB(方案使用 26 張)(分布於 4
台伺服器)", 54 characters, 68 columns) ran on one line about twice as wide as its English
one, and the shared page's chart cut it at the edge of a 390 px phone screen.
"""

from __future__ import annotations

from app.charts.theme import _columns, _wrap

ZH = "月租 · 32 × NVIDIA H100 SXM5 80GB(方案使用 26 張)(分布於 4 台伺服器)"


def test_a_chinese_label_wraps_at_the_same_width_as_an_english_one() -> None:
    # Hand count: 14 CJK characters (月租 方案使用 張 分布於 台伺服器) × 2 + 40 others × 1
    # (Latin, digits, spaces, ASCII brackets; "·" and "×" are narrow) = 68 columns.
    assert len(ZH) == 54 and _columns(ZH) == 68
    lines = _wrap(ZH, 48).split("<br>")
    assert len(lines) == 2
    # At most 48 columns, plus the closing bracket kept with the word it closes (")(").
    assert all(_columns(line) <= 48 + 2 for line in lines), lines
    assert "".join(lines).replace(" ", "") == ZH.replace(" ", "")


def test_brackets_stay_with_the_words_they_enclose() -> None:
    lines = _wrap("方案使用二十六張)其餘", 16).split("<br>")
    assert not any(line.startswith(")") for line in lines)
    # 8 columns of "租用方案" then "（" would end the first line at width 10: it opens the next.
    assert _wrap("租用方案（分布於四台）", 10) == "租用方案<br>（分布於四<br>台）"


def test_english_breaks_between_words_and_splits_a_word_longer_than_a_line() -> None:
    assert _wrap("Hourly rent — 4× h100-sxm-80gb NVLink (Stratagem Taipei)", 30) == (
        "Hourly rent — 4× h100-sxm-80gb<br>NVLink (Stratagem Taipei)"
    )
    assert _wrap("abcdefghijklmnopqrstuvwxyz", 10) == "abcdefghij<br>klmnopqrst<br>uvwxyz"
    assert _wrap("", 10) == ""
