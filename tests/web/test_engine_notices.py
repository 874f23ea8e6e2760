"""Engine warnings reach Chinese pages in Chinese: every Notice template is translated."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app import i18n
from app.engine.notices import Notice
from app.web.notices import notice_text

ROOT = Path(__file__).resolve().parents[2]


def notice_templates() -> set[str]:
    """Every constant template passed to Notice(...) or assigned as one, in app/engine: a
    constant, either constant of a conditional, or both forms of `one_or_many(count, one,
    many)` (a count's singular and plural sentences)."""
    found: set[str] = set()
    for path in (ROOT / "app" / "engine").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        named = _module_strings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Notice":
                found |= _templates(node.args[0])
                if isinstance(node.args[0], ast.Name) and node.args[0].id in named:
                    # a module constant passed by name (`gpus.UNKNOWN_GPU`)
                    found.add(named[node.args[0].id])
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", None) == "one_or_many"
            ):
                # A template chosen once and used by several Notices (`cloud._unused_gpus`).
                found |= _templates(node.value)
            if (
                isinstance(node, ast.Assign)
                and getattr(node.targets[0], "id", None) == "why"
                and isinstance(node.value, ast.Constant)
            ):
                found.add(node.value.value)
            found |= _period_templates(node)
    return found


def _module_strings(tree: ast.Module) -> dict[str, str]:
    """The module's string constants by name (`NAME = "…"` or `NAME: Final = "…"`)."""
    out: dict[str, str] = {}
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if (
            isinstance(target, ast.Name)
            and isinstance(value, ast.Constant)
            and isinstance(value.value, str)
        ):
            out[target.id] = value.value
    return out


def _templates(arg: ast.expr) -> set[str]:
    """The constant templates an argument of Notice(...) can be."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return {arg.value}
    if isinstance(arg, ast.IfExp):
        return _templates(arg.body) | _templates(arg.orelse)
    if isinstance(arg, ast.Call) and getattr(arg.func, "id", None) == "one_or_many":
        return _templates(arg.args[1]) | _templates(arg.args[2])
    return set()


def _period_templates(node: ast.AST) -> set[str]:
    """The sentences of a {"months": …, "days": …, "hours": …} table (with "month", "day"
    and "hour", for exactly one, where it has them) that
    `app.engine.costs.context.period_notice` picks a Notice template from."""
    if not isinstance(node, ast.Dict):
        return set()
    keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
    if (
        not {"months", "days", "hours"}
        <= keys
        <= {"month", "months", "day", "days", "hour", "hours"}
    ):
        return set()
    return {v.value for v in node.values if isinstance(v, ast.Constant)}


def test_every_engine_notice_has_a_zh_tw_translation_with_the_same_placeholders() -> None:
    import re

    i18n.reload()
    trans = i18n.zh_translations()
    templates = notice_templates()
    assert len(templates) >= 20
    for t in templates:
        zh = trans.gettext(t)
        assert zh != t, f"untranslated engine notice: {t}"
        assert set(re.findall(r"%\((\w+)\)s", zh)) == set(re.findall(r"%\((\w+)\)s", t)), t


def test_no_notice_cites_the_teams_own_spec() -> None:
    # "(PRODUCT.md §4)" told a reader to look up a document only the team has; each notice
    # states its correction itself.
    i18n.reload()
    trans = i18n.zh_translations()
    for t in notice_templates():
        assert "PRODUCT.md" not in t and "PRODUCT.md" not in trans.gettext(t), t


def test_planner_warnings_render_in_chinese(client: TestClient) -> None:
    r = client.get(
        "/plan?model_source=preset&preset=llama-2-13b&task=full_finetune&seq_len=2048",
        headers={"Accept-Language": "zh-TW"},
    )
    soup = BeautifulSoup(r.text, "html.parser")
    items = [li.get_text() for li in soup.select("ul.warnings li")]
    assert items, "the 13B full fine-tune raises the RAM-rule warning"
    assert any("記憶體" in t for t in items)
    assert not soup.select("ul.warnings li [lang=en]")


def test_every_term_a_notice_names_by_value_is_translated() -> None:
    """Tasks and recomputation modes reach a notice as `*_term` parameters; a page translates
    them like the template, so a Chinese reader never sees 'full_finetune' or 'none'."""
    from app.engine.notices import TERMS
    from app.web.notices import notice_text

    i18n.reload()
    trans = i18n.zh_translations()
    for phrase in TERMS.values():
        assert trans.gettext(phrase) != phrase, f"untranslated notice term: {phrase}"
    i18n.activate("zh-TW")
    try:
        text = notice_text({
            "template": "What would fit: one sequence per micro-batch, on %(count)s × %(gpu)s "
            "with TP %(tp)s, PP %(pp)s, ZeRO-%(zero)s, %(recompute_term)s, micro-batch "
            "%(micro)s (%(gb)s GB per GPU).",
            "params": {"count": "2", "gpu": "RTX 4090", "tp": "1", "pp": "2", "zero": "0",
                       "recompute_term": "full activation recomputation", "micro": "1",
                       "gb": "20.1"},
        })  # fmt: skip
    finally:
        i18n.activate("en")
    assert "完整重算激活值" in text and "full activation" not in text


def test_a_large_count_in_a_notice_reads_in_words_in_both_languages(client: TestClient) -> None:
    # The engine writes the assumed budget as "1e+08" (formatting.fmt); a reader sees
    # "100 million" / "1億" (CLDR long compact forms). FLOP counts past 10^15 stay scientific.
    n = Notice("No tokens or dataset given: assumed %(tokens)s fine-tuning tokens.",
               tokens="1e+08")  # fmt: skip
    i18n.activate("zh-TW")
    try:
        assert str(notice_text(n)) == "未提供 token 數或資料集：假設微調 1億個 token。"
    finally:
        i18n.activate("en")
    assert (
        str(notice_text(n)) == "No tokens or dataset given: assumed 100 million fine-tuning tokens."
    )
    flops = Notice("%(flops)s FLOP", flops="4.2e+22")
    assert str(notice_text(flops)) == "4.2e+22 FLOP"
    r = client.get("/plan?model_source=preset&preset=llama-3.1-8b&task=lora&dataset_gb=&tokens=",
                   headers={"Accept-Language": "zh-TW"})  # fmt: skip
    items = [li.get_text() for li in BeautifulSoup(r.text, "html.parser").select("ul.warnings li")]
    assert any("假設微調 1億個 token" in t for t in items), items


def test_a_saved_plans_plain_english_notice_is_read_back_and_translated() -> None:
    """A saved result keeps a notice as its English text only (JSON holds no template): the
    plan page showed "NVLink/NVSwitch 900 GB/s per GPU + 10GbE to the warm tier" on a 中文
    page (QA). The text is matched back to its template, values kept, then translated."""
    stored = str(Notice("NVLink/NVSwitch %(gbs)s GB/s per GPU + 10GbE to the warm tier", gbs=900))
    assert not isinstance(stored, Notice)
    i18n.activate("zh-TW")
    try:
        assert str(notice_text(stored)) == "NVLink/NVSwitch 每張 GPU 900 GB/s + 10GbE 連至溫層儲存"
        # Text no template makes stays as it is.
        assert str(notice_text("Racked by the customer")) == "Racked by the customer"
    finally:
        i18n.activate("en")
    assert str(notice_text(stored)) == stored


@pytest.mark.parametrize(
    ("months", "said"),
    [
        (12 / 365, "a rental period of 1 day."),  # one of 365/12 days a month; QA: "1 days"
        (1 / 730, "a rental period of 1 hour."),
        (24 / 365, "a rental period of 2 days."),
        (0.5, "a rental period of 15.2 days."),  # 0.5 × 30.42 days, to one decimal
    ],
)
def test_a_period_of_exactly_one_day_or_hour_is_singular(months: float, said: str) -> None:
    from app.engine.costs.context import period_notice
    from app.engine.costs.rental import WHOLE_MONTHS

    assert str(period_notice(WHOLE_MONTHS, months)).endswith(said)


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_planner_cost_warnings_name_providers_not_catalog_ids(
    client: TestClient, lang: str
) -> None:
    # QA 2026-12-07: the public planner said "No contract tier of 12 months or less for
    # runpod-secure-rtx-4090-x1 (tiers: none)" and "seed 003 T13 says …": a catalog id, an
    # enum-like "none" and a rule number of the team's seed documents. The planner and a
    # saved plan now say the cost notices as the cost page does (`wording.customer_notice`).
    r = client.get(
        "/plan?model_source=preset&preset=llama-3.1-8b&task=qlora&gpu=rtx-4090-24gb"
        "&gpu_count=1&tokens=100M",
        headers={"Accept-Language": lang},
    )
    assert r.status_code == 200
    items = [li.get_text() for li in BeautifulSoup(r.text, "html.parser").select("ul.warnings li")]
    said = " ".join(items)
    assert "RunPod" in said  # the provider, by name
    for internal in ("runpod-secure-rtx-4090-x1", "(tiers:", "seed 003", "T13", "種子文件"):
        assert internal not in said, internal
