"""The cost engine's explanations as a page shows them, in the page's language: every figure
of /tco's Explain panel and the cost figures of the planner's (/plan, /plans/{id}).

The engine writes a cost figure's formula in English with its ids ("Monthly rent — 24×
h100-sxm-80gb as 16 + 8 GPUs (Stratagem Taipei): …") and its source as seed rules and price
list entries. Here the formula is said in the page's language where `app.costs.wording` has
its pattern (else the engine's words, ids removed, marked English), the source in words, the
value as a reader says it. The sizing engine's own figures (dotted keys such as
`training.days`) are said by `app.planner.formula_wording`: in the page's language where it
says every word of the formula, else as the engine wrote them, marked English.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from app import i18n
from app.costs import presenters as costs_view
from app.costs import wording
from app.engine.explain import Explanation
from app.engine.price_book import PriceBook
from app.i18n import N_
from app.i18n import gettext as _
from app.planner import formula_wording
from app.web.templating import date, figure, hours_text, money, months_text

#: Cost figures /tco can show that the planner's FIGURE_NAMES do not name.
EXTRA_FIGURE_NAMES: Final = {
    "Storage + network share of the budget": N_("Storage + network share of the budget"),
}
#: A figure of the sizing engine: a dotted key ("training.days", "infra.power_kw", "tier");
#: the cost engine names its figures in words ("Cheapest option", "Break-even utilisation: …").
_ENGINE_KEY: Final = re.compile(r"[a-z_]+(\.[a-z_]+)*")


def is_cost_figure(figure_key: str) -> bool:
    """Whether the cost engine wrote this figure (else the sizing engine did)."""
    return _ENGINE_KEY.fullmatch(figure_key) is None


def word(
    items: list[dict[str, Any]],
    raw: Sequence[Explanation],
    cost: Mapping[str, Any],
    book: PriceBook | None,
) -> None:
    """Say each cost figure of `items` (explain entries, `raw` the explanations they were
    made from, in order) in the page's language: its name without catalog ids, its value
    (`text`), its formula (`formula`, with `formula_lang` "en" where it stays the engine's
    English) and its source in words. A sizing figure's formula and source are said by
    `formula_wording`, each marked English (`formula_lang`, `source_lang`) where it stays
    the engine's."""
    for item, e in zip(items, raw, strict=True):
        if not is_cost_figure(e.figure):
            item["formula"], item["formula_lang"] = formula_said(e.figure, e.formula, book)
            source, said = formula_wording.source_text(e.source)
            item["source"], item["source_lang"] = source, None if said else "en"
            continue
        item["source_lang"] = None  # said in words in the page's language
        if not item["name"] and not item["translated_name"] and e.figure in EXTRA_FIGURE_NAMES:
            item["name"] = EXTRA_FIGURE_NAMES[e.figure]
        if item["translated_name"]:
            item["translated_name"] = wording.scrub(item["translated_name"], book)
        item["text"] = value_text(e.value, e.unit, item["unit"])
        if e.figure == "Cheapest option":
            item["formula"], item["formula_lang"] = cheapest_formula(cost, book, e.value)
            # The amount says what it is, as the cost table's totals do (QA read a bare
            # "NT$10,080,000 (excl. tax)" beside per-month figures).
            item["text"] = _("%(amount)s, total for %(period)s (excl. tax)") % {
                "amount": costs_view.figure_text(e.value, e.unit) or figure(e.value),
                "period": _period(_cheapest(cost), cost),
            }
        else:
            item["formula"], item["formula_lang"] = formula_said(e.figure, e.formula, book)
        item["source"] = wording.source_text(e.figure, e.source, book, date)


def formula_said(figure_key: str, formula: str, book: PriceBook | None) -> tuple[str, str | None]:
    """(a figure's formula as the page shows it, its language where that is not the page's:
    "en" for the engine's English): a sizing figure's by `formula_wording`, a cost figure's
    by `wording` (ids removed)."""
    if is_cost_figure(figure_key):
        text, said = wording.formula_text(formula, book, costs_view.PART_NAMES)
    else:
        text, said = formula_wording.formula_text(formula)
    return text, None if said else "en"


def cheapest_formula(
    cost: Mapping[str, Any], book: PriceBook | None, total: float
) -> tuple[str, None]:
    """The cheapest option's figure as the cost table names the option: "12 個月合約 (8×
    H100 SXM5 80GB · NVLink · Stratagem Taipei): NT$10,080,000, total for 36 months"."""
    option = _cheapest(cost)
    ccy = str(option.get("currency") or cost.get("currency") or "TWD")
    what = costs_view.option_name(option)
    detail = costs_view.option_detail(option, book)
    if detail:
        what = what + i18n.paren(detail)
    return _("%(option)s: %(total)s, total for %(period)s (excl. tax)") % {
        "option": what,
        "total": money(total, ccy),
        "period": _period(option, cost),
    }, None


def _cheapest(cost: Mapping[str, Any]) -> Mapping[str, Any]:
    """The cost block's cheapest option ({} without one)."""
    return next((o for o in cost.get("options") or [] if o.get("key") == cost.get("cheapest")), {})


def _period(option: Mapping[str, Any], cost: Mapping[str, Any]) -> str:
    """What an option's total pays for: its billed hours, else its months."""
    billed = option.get("billed") or {}
    if billed.get("unit") == "hour":
        return hours_text(billed.get("quantity") or 0)
    return months_text(billed.get("quantity") or cost.get("rent_months") or 0)


def value_text(value: float, unit: str, unit_name: str) -> str:
    """A cost figure's value in words (`presenters.figure_text`), else the number and its
    unit; an amount says that it is excluding tax."""
    text = costs_view.figure_text(value, unit)
    if text is None:
        return f"{figure(value)} {unit_name}".strip()
    if unit.partition("/")[0] in ("TWD", "USD") and unit.partition("/")[2] in (
        "",
        "month",
        "h",
        "1M tokens",
    ):
        return _("%(amount)s (excl. tax)") % {"amount": text}
    return text
