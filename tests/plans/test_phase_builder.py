"""The phase builder on /plans/{id}: HTMX add / edit / reorder / remove, inline errors in the
page's language, per-phase costs and the plan total, save → a revision whose diff names the
phase; compare of a phased plan with a plain one.

Prices: the shipped price list (seed 003 T8): 1×H100 NT$50,000/month, 4×H100 NT$200,000/month.
"""

from __future__ import annotations

import json
import re

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.accounts.models import User
from app.plans import schedule, service
from app.plans.models import Plan
from tests.accounts.helpers import MakeAccount
from tests.plans.test_pages import WORKLOAD, make_plan, signed_in, soup

LANGS = ("zh-TW", "en")
HX = {"HX-Request": "true", "Accept-Language": "en"}


def t16(pages: TestClient, user: User) -> Plan:
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        owner = s.get(User, user.id)
        assert owner is not None
        phased, _day_one = service.create_t16_example(session=s, owner=owner)
        s.refresh(phased)
        s.expunge(phased)
    return phased


def form_of(page: BeautifulSoup) -> dict[str, str]:
    """The builder form's fields as the browser would post them."""
    form = page.select_one("#phase-builder form")
    assert form is not None
    data: dict[str, str] = {}
    for el in form.select("input[name]"):
        data[el["name"]] = el.get("value", "")
    for sel in form.select("select[name]"):
        opt = sel.select_one("option[selected]") or sel.select_one("option")
        data[sel["name"]] = opt.get("value", "") if opt else ""
    return data


def money(text: str) -> int:
    return int(re.sub(r"[^\d]", "", text))


def totals(page: BeautifulSoup) -> list[int]:
    return [money(x.get_text()) for x in page.select("#phase-builder .phase-total")]


@pytest.mark.parametrize("lang", LANGS)
def test_t16_plan_page_shows_its_phases_costs_and_total(
    pages: TestClient, account: MakeAccount, lang: str
) -> None:
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    page = soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": lang}))
    rows = page.select("#phase-builder li.phase-row")
    assert [r["data-kind"] for r in rows] == ["workload"] * 3
    # 2 × 50,000; 1 × 200,000; 1 × 50,000 — and 350,000 in all
    assert totals(page) == [100_000, 200_000, 50_000]
    assert money(page.select_one(".phase-plan-total strong").get_text()) == 350_000
    # the plan's total says what it is: the phases' list prices over 4 months, before tax
    said = page.select_one(".phase-plan-total").get_text(" ", strip=True)
    assert said.endswith({"en": "over 4 months, excl. tax", "zh-TW": "共 4 個月（未稅）"}[lang])
    names = [r.select_one(".phase-name").get_text() for r in rows]
    expected = {
        "en": ["LoRA fine-tuning", "Full fine-tuning", "Inference (serving)"],
        "zh-TW": None,
    }[lang]
    if expected:
        assert names == expected
    else:
        assert all(not re.search("[A-Za-z]{4,}", n.replace("LoRA", "")) for n in names), names


def test_add_edit_reorder_remove_are_not_saved_until_save(
    pages: TestClient, account: MakeAccount
) -> None:
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    page = soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": "en"}))
    data = form_of(page)

    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "add-capacity"}, headers=HX)
    assert r.status_code == 200
    frag = soup(r)
    assert frag.select_one("section#phase-builder") is not None
    assert len(frag.select("li.phase-row")) == 4
    # The new line copies the last phase's GPU: 1 × H100 for 1 month = 50,000
    assert totals(frag) == [100_000, 200_000, 50_000, 50_000]
    assert money(frag.select_one(".phase-plan-total strong").get_text()) == 400_000
    assert "not saved" in frag.select_one(".phase-plan-total").get_text()

    # Move the capacity line up, then remove it: back to the three T16 phases.
    data4 = form_of(frag)
    r = pages.post(f"/plans/{plan.id}/phases", data={**data4, "action": "up-3"}, headers=HX)
    kinds = [li["data-kind"] for li in soup(r).select("li.phase-row")]
    assert kinds == ["workload", "workload", "capacity", "workload"]
    r = pages.post(
        f"/plans/{plan.id}/phases", data={**form_of(soup(r)), "action": "remove-2"}, headers=HX
    )
    assert [li["data-kind"] for li in soup(r).select("li.phase-row")] == ["workload"] * 3

    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        assert service.get_plan(session=s, plan_id=plan.id).version == 1  # nothing saved


def test_save_makes_a_revision_whose_diff_names_the_phase(
    pages: TestClient, account: MakeAccount
) -> None:
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    data = form_of(soup(pages.get(f"/plans/{plan.id}")))
    data["phase-2-months"] = "3"  # inference for 3 months instead of 1
    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "save"})
    assert r.status_code == 303 and r.headers["location"] == f"/plans/{plan.id}/diff?a=1&b=2"
    diff = soup(pages.get(r.headers["location"], headers={"Accept-Language": "en"}))
    text = diff.get_text(" ", strip=True)
    assert "Phase 3 · Months" in text
    # 350,000 − 50,000 + 3 × 50,000 = 450,000
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        saved = service.get_plan(session=s, plan_id=plan.id)
        assert saved.version == 2 and saved.result["schedule"]["total"] == 450_000
    # Over HTMX a save answers with HX-Redirect to the same diff.
    data = form_of(soup(pages.get(f"/plans/{plan.id}")))
    data["phase-0-months"] = "1"
    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "save"}, headers=HX)
    assert r.status_code == 204 and r.headers["HX-Redirect"] == f"/plans/{plan.id}/diff?a=2&b=3"


@pytest.mark.parametrize(
    ("lang", "field", "value", "key", "label"),
    [
        ("en", "phase-1-months", "0", "phase-1-months", "Months"),
        ("zh-TW", "phase-1-months", "0", "phase-1-months", "月"),
        ("en", "phase-0-months", "200", "phase-0-months", "Months"),
        ("en", "phase-2-dataset_gb", "-1", "phase-2-dataset_gb", "Dataset (GB)"),
        ("en", "phase-1-wgpu_count", "2.5", "phase-1-wgpu_count", "GPU count"),
    ],
)
def test_bad_values_get_an_inline_error_naming_the_field(
    pages: TestClient,
    account: MakeAccount,
    lang: str,
    field: str,
    value: str,
    key: str,
    label: str,
) -> None:
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    data = form_of(soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": lang})))
    if field == "phase-2-dataset_gb":  # inference has no dataset input: make it a LoRA
        data["phase-2-task"] = "lora"
    data[field] = value
    r = pages.post(
        f"/plans/{plan.id}/phases",
        data={**data, "action": "save"},
        headers={**HX, "Accept-Language": lang},
    )
    assert r.status_code == 422, r.text[:300]
    err = soup(r).select_one(f"#err-{key}")
    assert err is not None and err.get_text().startswith(label), soup(r).select(".error")


@pytest.mark.parametrize("lang", LANGS)
def test_capacity_line_of_an_unknown_gpu_is_a_field_error(
    pages: TestClient, account: MakeAccount, lang: str
) -> None:
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    data = form_of(soup(pages.get(f"/plans/{plan.id}")))
    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "add-capacity"}, headers=HX)
    data = form_of(soup(r))
    data["phase-3-gpu"] = "no-such-gpu"
    r = pages.post(
        f"/plans/{plan.id}/phases",
        data={**data, "action": "save"},
        headers={**HX, "Accept-Language": lang},
    )
    assert r.status_code == 422
    err = soup(r).select_one("#err-phase-3-gpu").get_text()
    assert err.startswith({"zh-TW": "GPU：", "en": "GPU: "}[lang])
    if lang == "zh-TW":
        assert "價目表" in err


def test_the_last_phase_cannot_be_removed(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    page = soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": "en"}))
    data = form_of(page)
    assert data["phases"] == "1" and data["phase-0-kind"] == "workload"
    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "remove-0"}, headers=HX)
    assert len(soup(r).select("li.phase-row")) == 1
    assert "at least one phase" in soup(r).select_one("#err-phases").get_text()


def test_a_plain_plan_becomes_phased(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    data = form_of(soup(pages.get(f"/plans/{plan.id}")))
    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "add-capacity"}, headers=HX)
    data = form_of(soup(r))
    data["phase-1-months"] = "12"
    data["phase-1-option"] = "contract"
    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "save"})
    assert r.status_code == 303
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        saved = service.get_plan(session=s, plan_id=plan.id)
        phases = saved.result["schedule"]["phases"]
        assert [p["kind"] for p in phases] == ["workload", "capacity"]
        assert saved.workload["schedule"]["phases"][0]["workload"]["task"] == WORKLOAD["task"]
        # 12-month contract: 50,000 × 0.8 × 12 = 480,000 (T8's 12-month tier)
        assert phases[1]["total"] == 480_000


@pytest.mark.parametrize("lang", LANGS)
def test_compare_a_phased_plan_with_a_plain_one(
    pages: TestClient, account: MakeAccount, lang: str
) -> None:
    a = signed_in(pages, account)
    phased = t16(pages, a.user)
    plain = make_plan(pages, a.user)
    r = pages.get(f"/compare?ids={phased.id},{plain.id}", headers={"Accept-Language": lang})
    assert r.status_code == 200
    page = soup(r)
    assert len(page.select("table.compare-table thead th.scenario")) == 2
    totals_ = [money(td.strong.get_text()) for td in page.select("table.compare-table td.total")]
    assert totals_[0] == 350_000


@pytest.mark.parametrize(
    ("lang", "says", "not_says"),
    [
        ("en", "all phases, in sequence", "the cheapest option"),
        ("zh-TW", "各階段依序合計", "最便宜的方案"),
    ],
)
def test_a_phased_plans_total_says_it_sums_its_phases(
    pages: TestClient, account: MakeAccount, lang: str, says: str, not_says: str
) -> None:
    # The total of T16 is 2 × 50,000 + 200,000 + 50,000 = 350,000: the phases added in order,
    # not one option that happened to be cheapest.
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    page = soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": lang}))
    kpis = page.select(".kpi")
    total = next(k for k in kpis if k.select_one(".v") and "350,000" in k.get_text())
    assert says in total.get_text()
    assert not_says not in total.get_text()


# ------------------------------------------------------- what the form cannot read (QA S1.3, S2.8)

LONG = "9" * 5000  # past int()'s 4,300-digit limit
HUGE = "9" * 25  # past 2^63: overflowed SQLite


def _phases_posted(data: dict[str, str], n: int) -> dict[str, str]:
    """The form with `n` phases: the first phase's fields copied to the new ones."""
    out = dict(data, phases=str(n))
    first = {k.split("-", 2)[2]: v for k, v in data.items() if k.startswith("phase-0-")}
    for i in range(int(data["phases"]), n):
        out |= {f"phase-{i}-{f}": v for f, v in first.items()}
    return out


@pytest.mark.parametrize(
    ("lang", "message"), [("en", "At most 24 phases."), ("zh-TW", "最多 24 個階段。")]
)
def test_more_phases_than_the_api_takes_is_an_error_not_the_first_24(
    pages: TestClient, account: MakeAccount, lang: str, message: str
) -> None:
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    data = _phases_posted(form_of(soup(pages.get(f"/plans/{plan.id}"))), 30)
    h = {"Accept-Language": lang}
    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "save"}, headers=h)
    assert r.status_code == 422
    page = soup(r)
    assert page.select_one("#err-phases").get_text() == message
    assert len(page.select("#phase-builder li.phase-row")) == 30, "every posted phase is kept"
    # Removing one from the re-rendered form works, and says it is still too many.
    r = pages.post(
        f"/plans/{plan.id}/phases", data={**form_of(page), "action": "remove-0"}, headers=h
    )
    assert len(soup(r).select("#phase-builder li.phase-row")) == 29
    assert soup(r).select_one("#err-phases").get_text() == message
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        assert service.get_plan(session=s, plan_id=plan.id).version == 1  # nothing saved


@pytest.mark.parametrize("count", ["²", "abc", "", "-1", LONG])
def test_a_phase_count_that_is_not_a_count_saves_nothing(
    pages: TestClient, account: MakeAccount, count: str
) -> None:
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    data = {**form_of(soup(pages.get(f"/plans/{plan.id}"))), "phases": count, "action": "save"}
    r = pages.post(f"/plans/{plan.id}/phases", data=data, headers={"Accept-Language": "zh-TW"})
    assert r.status_code == 422
    page = soup(r)
    assert (
        page.select_one("#err-phases").get_text() == "階段數遺失或不是數字：請檢查各階段後再儲存。"
    )
    assert len(page.select("#phase-builder li.phase-row")) == 3, "the posted phases are kept"
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        assert service.get_plan(session=s, plan_id=plan.id).version == 1


@pytest.mark.parametrize("version", ["²", "abc", "0", HUGE, LONG])
def test_a_version_that_is_not_one_is_stale_like_any_other(
    pages: TestClient, account: MakeAccount, version: str
) -> None:
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    data = {**form_of(soup(pages.get(f"/plans/{plan.id}"))), "version": version}
    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "save"})
    assert r.status_code == 409
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        assert service.get_plan(session=s, plan_id=plan.id).version == 1


@pytest.mark.parametrize("action", ["remove-²", "up-²", f"down-{LONG}", "remove--1"])
def test_moving_a_phase_that_is_not_one_changes_nothing(
    pages: TestClient, account: MakeAccount, action: str
) -> None:
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    page = soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": "en"}))
    before = [li.select_one(".phase-name").get_text() for li in page.select("li.phase-row")]
    r = pages.post(f"/plans/{plan.id}/phases", data={**form_of(page), "action": action}, headers=HX)
    assert r.status_code == 200
    after = [li.select_one(".phase-name").get_text() for li in soup(r).select("li.phase-row")]
    assert after == before


@pytest.mark.parametrize(
    ("lang", "label", "basis"),
    [
        ("en", "Cheapest option's total", "excl. tax, before the quote's discounts"),
        ("zh-TW", "最便宜方案總額", "未稅，未計報價折扣"),
    ],
)
def test_a_plans_summary_total_is_not_called_the_quotes_total(
    pages: TestClient, account: MakeAccount, lang: str, label: str, basis: str
) -> None:
    # QA: the summary card's "總計 NT$267,840 · 最便宜的方案" sat on the page with the quote's
    # "總計(含稅) NT$2,068,050": two totals of one name. The card's is the cheapest option,
    # before tax and the quote's discounts, and says so.
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    page = soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": lang}))
    card = next(k for k in page.select(".kpi") if label in k.get_text())
    assert basis in card.get_text()


def test_a_workload_sized_by_tokens_shows_no_zero_gb_dataset_and_keeps_its_tokens(
    pages: TestClient, account: MakeAccount
) -> None:
    """QA (stop 29): a plan saved with `tokens` (its dataset_gb the API's default 0, "not
    given") showed "Dataset (GB) 0" in the builder, as if it trained on nothing."""
    a = signed_in(pages, account)
    by_tokens = {"model": {"preset": "llama-3.1-8b"}, "task": "lora", "tokens": 2e8}
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        owner = s.get(User, a.user.id)
        assert owner is not None
        plan = service.create_plan(session=s, owner=owner, workload=by_tokens, name="Tokens")
        s.expunge(plan)
    page = soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": "en"}))
    field = page.select_one("#phase-builder input[name=phase-0-dataset_gb]")
    assert field is not None and field.get("value", "") == ""
    assert "Empty: as saved with the workload." in field.find_parent(class_="field").get_text()
    # saved as shown, the phase still trains the plan's 2×10^8 tokens
    r = pages.post(f"/plans/{plan.id}/phases", data={**form_of(page), "action": "save"})
    assert r.status_code == 303
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        saved = service.get_plan(session=s, plan_id=plan.id)
        phase = saved.workload["schedule"]["phases"][0]["workload"]
        assert phase["tokens"] == 2e8 and not phase.get("dataset_gb")


def test_a_quoted_plain_plan_becomes_phased_with_a_line_per_phase(
    pages: TestClient, account: MakeAccount
) -> None:
    # QA: a plain plan quoted with NT$1,000 off lost its one option line on becoming phased
    # (its option is gone) and every phase save was refused: "is more than the lines come
    # to after their discounts". Its quote is now a line per phase, the amount off kept.
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    got = pages.get(f"/api/v1/plans/{plan.id}", headers=a.headers).json()
    first = got["result"]["cost"]["cheapest"]
    quote = {"lines": [{"option_key": first}], "discount_amount": "10"}
    r = pages.put(f"/api/v1/plans/{plan.id}", json={"version": got["version"], "quote": quote},
                  headers=a.headers)  # fmt: skip
    assert r.status_code == 200, r.text
    data = form_of(soup(pages.get(f"/plans/{plan.id}")))
    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "add-capacity"}, headers=HX)
    data = {**form_of(soup(r)), "phase-1-months": "12", "phase-1-option": "contract"}
    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "save"})
    assert r.status_code == 303, soup(r).select_one(".notice.error")
    saved = pages.get(f"/api/v1/plans/{plan.id}", headers=a.headers).json()
    assert [ln["option_key"] for ln in saved["quote"]["lines"]] == ["phase-1", "phase-2"]
    assert saved["quote"]["discount_amount"] == "10"


def test_a_phase_save_refused_on_the_quote_names_the_quote_field() -> None:
    # What a phase save can still be refused on in the quote it carries is said with the
    # field's name above the phases, as the plan's history names it.
    from app import i18n
    from app.plans import builder

    i18n.activate("zh-TW")
    try:
        assert builder.service_error_key("quote.discount_amount") == ("phases", "報價折抵金額")
        assert builder.service_error_key("quote.valid_until") == ("phases", "有效期限")
        # one the history has no name for is the quote's
        assert builder.service_error_key("quote.unheard_of") == ("phases", "報價單")
    finally:
        i18n.activate("en")
    assert builder.service_error_key("quote.discount_amount") == (
        "phases",
        "Amount off the quote",
    )


def test_a_value_the_phase_no_longer_shows_is_not_saved_with_it(
    pages: TestClient, account: MakeAccount
) -> None:
    """QA: busy hours typed for hourly rent, then the phase switched to monthly rent (the
    hours now ride in a hidden input, so that switching back restores them). Monthly rent
    has no busy hours: the save goes through without them (a value that is no number of
    busy hours at all is refused, as where the input shows: the next test). The same for a
    serving phase's concurrency once the phase is switched to fine-tuning."""
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    data = form_of(soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": "en"})))
    assert data["phase-1-option"] == "monthly"
    data["phase-1-hours_per_month"] = "200"  # typed for hourly rent
    inference = next(i for i in range(3) if data[f"phase-{i}-task"] == "inference")
    assert data[f"phase-{inference}-concurrency"]
    data[f"phase-{inference}-task"] = "lora"  # its concurrency stays in the (hidden) input
    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "save"}, headers=HX)
    assert r.status_code == 204, soup(r).get_text(" ", strip=True)[:300]
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        phases = service.get_plan(session=s, plan_id=plan.id).phases or []
    assert phases[1]["hours_per_month"] == schedule.HOURS_PER_MONTH  # the default, not 200
    assert phases[inference]["workload"]["task"] == "lora"
    # the request's default (EstimateRequest.concurrency = 1), not the serving phase's 16
    assert phases[inference]["workload"].get("concurrency", 1) == 1


def test_an_error_keyed_to_an_input_the_page_does_not_draw_is_said_at_its_phase() -> None:
    """Whatever still answers with an error on a field the phase does not show (a service
    refusal, say) is placed at the head of the phase, naming the field: before, the page
    showed no message anywhere (QA)."""
    from app.plans import builder

    values = [{"kind": "workload", "task": "lora", "option": "monthly"}]
    errors = {"phase-0-hours_per_month": "Busy hours: at most 730.", "phase-0-months": "x"}
    placed = builder.placed_errors(values, errors)
    assert placed == {"phase-0": "Busy hours: at most 730.", "phase-0-months": "x"}


def test_a_workload_field_without_an_input_is_named_in_words(
    pages: TestClient, account: MakeAccount
) -> None:
    """A phase's saved workload refused on a field the builder has no input for is named as
    the plan's history names it, not by its key ("workload.seq_len")."""
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    data = form_of(soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": "en"})))
    base = json.loads(data["phase-1-base"])
    data["phase-1-base"] = json.dumps({**base, "seq_len": 8})
    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "save"}, headers=HX)
    assert r.status_code == 422
    assert soup(r).select_one("#err-phase-1").get_text() == (
        "Sequence length (tokens): Must be at least 16."
    )


def test_a_field_the_form_does_not_take_is_said_in_the_page_language(
    pages: TestClient, account: MakeAccount
) -> None:
    """QA: a phase workload with a key the engine does not take read "bogus：Extra inputs are
    not permitted" — pydantic's English — on the Chinese page."""
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    zh = {"Accept-Language": "zh-TW"}
    data = form_of(soup(pages.get(f"/plans/{plan.id}", headers=zh)))
    data["phase-1-base"] = json.dumps({**json.loads(data["phase-1-base"]), "bogus": 1})
    r = pages.post(
        f"/plans/{plan.id}/phases", data={**data, "action": "save"}, headers={**HX, **zh}
    )
    assert r.status_code == 422
    assert soup(r).select_one("#err-phase-1").get_text() == "bogus：不是這份表單可接受的欄位。"


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "1 × NVIDIA H100 SXM5 80GB · 12-month contract · NT$40,000/month × 12 months"),
        ("zh-TW", "1 × NVIDIA H100 SXM5 80GB · 12 個月合約 · NT$40,000/月 × 12 個月"),
    ],
)
def test_a_contract_phase_is_named_by_its_length_once(
    pages: TestClient, account: MakeAccount, lang: str, said: str
) -> None:
    """QA: "Term contract (12-month contract)" said it twice. T16's serving phase on a
    12-month contract at the shipped NT$40,000 a month (seed T8)."""
    a = signed_in(pages, account)
    phases = [dict(p) for p in schedule.T16_PHASES]
    phases[2] = {**phases[2], "option": "contract", "months": 12}
    r = pages.post("/api/v1/plans", json={"name": "Contract", "phases": phases}, headers=a.headers)
    assert r.status_code == 201, r.text
    page = soup(pages.get(f"/plans/{r.json()['id']}", headers={"Accept-Language": lang}))
    cost = " ".join(page.select("#phase-builder .phase-cost")[2].get_text(" ", strip=True).split())
    assert said in cost, cost
    assert "Term contract" not in cost and "長約" not in cost


SERVICE_70B = {"model": {"preset": "llama-3.1-70b"}, "task": "inference", "concurrency": 64}


def test_a_quoted_service_saved_as_phases_untouched_keeps_its_contract_and_discount(
    pages: TestClient, account: MakeAccount
) -> None:
    # QA (2026-12-07): a 12-month service quoted on its 12-month contract with 10% off opened
    # in the builder as 1 month of the cheapest way; "Save phases" with nothing touched
    # re-quoted it as one month of monthly rent and dropped the 10%.
    a = signed_in(pages, account)
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        owner = s.get(User, a.user.id)
        assert owner is not None
        plan = service.create_plan(session=s, owner=owner, workload=SERVICE_70B, name="Serve")
        s.expunge(plan)
    got = pages.get(f"/api/v1/plans/{plan.id}", headers=a.headers).json()
    cost = got["result"]["cost"]
    assert cost["months"] == 12  # a service is costed for 12 months
    term = next(o for o in cost["options"] if o["key"] == cost["cheapest"])
    assert term["kind"] == "rent_term"
    quote = {"lines": [{"option_key": term["key"], "discount_pct": "10"}]}
    r = pages.put(f"/api/v1/plans/{plan.id}", json={"version": got["version"], "quote": quote},
                  headers=a.headers)  # fmt: skip
    assert r.status_code == 200, r.text
    page = soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": "en"}))
    warning = page.select_one("#phase-builder .requotes")
    assert warning is not None and "line per phase" in warning.get_text()
    data = form_of(page)
    assert (data["phase-0-months"], data["phase-0-option"]) == ("12", "contract")
    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "save"})
    assert r.status_code == 303, soup(r).select_one(".notice.error")
    saved = pages.get(f"/api/v1/plans/{plan.id}", headers=a.headers).json()
    lines = saved["quote"]["lines"]
    assert [ln["option_key"] for ln in lines] == ["phase-1"]
    assert float(lines[0]["discount_pct"]) == 10
    # 4×H100 on a 12-month contract: NT$200,000 × 0.8 × 12 = NT$1,920,000 (T8's 12-month
    # tier), the same as the contract option the quote had
    assert saved["result"]["schedule"]["phases"][0]["total"] == term["total"] == 1_920_000


def test_a_plain_plan_without_a_quote_has_no_requote_warning(
    pages: TestClient, account: MakeAccount
) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    page = soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": "en"}))
    assert page.select_one("#phase-builder .requotes") is None


def test_a_phase_sized_on_users_shows_and_takes_them(
    pages: TestClient, account: MakeAccount
) -> None:
    """QA: a phase created through the API with `users: 200` showed 1 in "Users served at
    once" (the box read `concurrency`), and 3,000 typed there changed nothing (the engine
    takes `users` first). Saving the phases unchanged then opened "version 2 → version 2"."""
    a = signed_in(pages, account)
    serving = {"model": {"preset": "llama-3.1-8b"}, "task": "inference", "users": 200}
    phases = [{"kind": "workload", "months": 2, "option": "monthly", "workload": serving}]
    r = pages.post("/api/v1/plans", json={"name": "Users", "phases": phases},
                   headers=a.headers)  # fmt: skip
    assert r.status_code == 201, r.text
    plan_id, before = r.json()["id"], r.json()["result"]["schedule"]["phases"][0]["gpu_count"]
    data = form_of(soup(pages.get(f"/plans/{plan_id}")))
    assert data["phase-0-concurrency"] == "200"

    same = pages.post(f"/plans/{plan_id}/phases", data={**data, "action": "save"})
    assert same.status_code == 303
    assert same.headers["location"] == f"/plans/{plan_id}#phase-builder"

    data["phase-0-concurrency"] = "3000"
    r = pages.post(f"/plans/{plan_id}/phases", data={**data, "action": "save"})
    assert r.status_code == 303 and r.headers["location"] == f"/plans/{plan_id}/diff?a=1&b=2"
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        saved = service.get_plan(session=s, plan_id=plan_id)
        (phase,) = saved.result["schedule"]["phases"]
        assert saved.workload["schedule"]["phases"][0]["workload"]["users"] == 3000
        assert phase["gpu_count"] > before  # 15 × the users need more replicas
