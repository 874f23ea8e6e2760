"""No space between two Chinese neighbours where a placeholder's value is Chinese.

The translations put a space on both sides of a placeholder, as Chinese text does around a
Latin word or a number (「每月 730 小時」, 「比 H100 便宜」). A value that is itself Chinese
read 「自此起，自購 比 時租 便宜」 on the plan page, the share page and the quote PDF (noted
in the closing notes since 2026-12-06). Filled from Python (`i18n.gettext(...) % values`)
or a template (`_()`, `ngettext`), the space goes where both sides are Chinese; the value's
own spaces and everything in English stay as they are.
"""

from __future__ import annotations

import pytest

from app import i18n
from app.web.templating import templates

BREAK_EVEN = "%(a)s stops being cheaper than %(b)s"  # msgstr 「自此起，%(b)s 比 %(a)s 便宜」


@pytest.fixture(autouse=True)
def _english_after() -> object:
    yield
    i18n.activate("en")


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        ("時租", "自購", "自此起，自購比時租便宜"),  # both names Chinese
        ("H100 月租", "自購", "自此起，自購比 H100 月租便宜"),  # Latin at one edge keeps its space
        ("AWS p5.48xlarge", "Buy 8×H100", "自此起，Buy 8×H100 比 AWS p5.48xlarge 便宜"),
        ("「時租」", "自購", "自此起，自購比「時租」便宜"),  # full-width punctuation is Chinese
        ("自 購", "時租", "自此起，時租比自 購便宜"),  # the value's own space is kept
    ],
)
def test_python_fills_without_a_gap_between_chinese_neighbours(a: str, b: str, want: str) -> None:
    i18n.activate("zh-TW")
    assert i18n.gettext(BREAK_EVEN) % {"a": a, "b": b} == want


def test_numbers_beside_chinese_keep_their_space() -> None:
    i18n.activate("zh-TW")
    assert i18n.gettext("%(h)s busy hours a month") % {"h": "730"} == "每月 730 小時運算"


def test_english_is_untouched() -> None:
    i18n.activate("en")
    assert (
        i18n.gettext(BREAK_EVEN) % {"a": "時租", "b": "自購"}
        == "時租 stops being cheaper than 自購"
    )


@pytest.mark.parametrize(
    ("source", "want"),
    [
        ("{{ _(msg, a=a, b=b) }}", "自此起，自購比時租便宜"),
        ("{% trans a=a, b=b %}{{ a }} stops being cheaper than {{ b }}{% endtrans %}", "自此起，自購比時租便宜"),
    ],
)  # fmt: skip
def test_templates_fill_the_same_way(source: str, want: str) -> None:
    i18n.activate("zh-TW")
    got = templates.env.from_string(source).render(msg=BREAK_EVEN, a="時租", b="自購")
    assert got == want


def test_a_template_still_escapes_the_values() -> None:
    i18n.activate("zh-TW")
    got = templates.env.from_string("{{ _(msg, a=a, b=b) }}").render(
        msg=BREAK_EVEN, a="<b>時租</b>", b="自購"
    )
    assert got == "自此起，自購比 &lt;b&gt;時租&lt;/b&gt; 便宜"
