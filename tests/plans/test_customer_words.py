"""The plan pages in the customer's words (QA round 2): the worked example's names, the compare
page's inputs, rates and charts, the revision diff's cost options, the customer a typed name
links, the actions an answered quote no longer offers, plan names as typed.

Every page in both languages: readable names, never a rule number, key, enum value or id.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session

from app import i18n
from app.accounts.models import User
from app.customers.models import Customer
from app.plans import service
from app.plans.models import Plan
from tests.accounts.helpers import Account, MakeAccount, make_account, sign_in
from tests.plan_quotes import WORKLOAD as QUOTED_WORKLOAD

LANGS = ("zh-TW", "en")
H100 = "h100-sxm-80gb"
#: One H100 for a LoRA run of a few days: the cheapest option is hourly rent.
LORA: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "task": "lora",
    "dataset_gb": 1,
    "deadline_days": 14,
    "gpu": H100,
    "gpu_count": 1,
    "utilization": 1,
}
SERVICE: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "task": "inference",
    "users": 200,
    "utilization": 1,
}
#: What a customer must never read: keys, enum values, ids, rule numbers.
RAW = (
    "gpu_search",
    "fleet",
    "gpu_memory_utilization",
    "lora_targets",
    "all_linear",
    "flash_attention",
    "adamw",
    "llama-3.1-8b",
    H100,
    "T16",
    "%%",
    "single_gpu",
)


def soup(r: Any) -> BeautifulSoup:
    return BeautifulSoup(r.text, "html.parser")


def zh(msgid: str) -> str:
    text = i18n.zh_translations().gettext(msgid)
    assert text != msgid or msgid in ("GPU",), f"untranslated: {msgid}"
    return text


def say(lang: str, msgid: str) -> str:
    return zh(msgid) if lang == "zh-TW" else msgid


def signed_in(pages: TestClient, account: MakeAccount) -> Account:
    a = account("sales")
    sign_in(pages, a.user)
    return a


def make_plan(pages: TestClient, user: User, workload: dict[str, Any], **extra: Any) -> Plan:
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        owner = s.get(User, user.id)
        assert owner is not None
        plan = service.create_plan(
            session=s, owner=owner, name=extra.pop("name", "Plan"), workload=workload, **extra
        )
        s.expunge(plan)
    return plan


def csrf(pages: TestClient, path: str) -> str:
    return str(soup(pages.get(path)).select_one("input[name=csrf_token]")["value"])


def rows_of(page: BeautifulSoup, rows: str = "tr") -> dict[str, list[str]]:
    """The compare table's rows (`rows`: a selector): label → the scenarios' cells, as text."""
    return {
        tr.th.get_text(" ", strip=True).replace(" (differs)", "").replace(" (不同)", ""): [
            td.get_text(" ", strip=True) for td in tr.select("td")
        ]
        for tr in page.select(f"table.compare-table tbody {rows}")
        if tr.th is not None and tr.select("td")
    }


# ------------------------------------------------------------------- 1. the worked example


@pytest.mark.parametrize("lang", LANGS)
def test_the_worked_example_is_named_in_the_customers_words(
    pages: TestClient, account: MakeAccount, lang: str
) -> None:
    """The plans' names become the quote's title: no rule number, the page's language."""
    signed_in(pages, account)
    headers = {"Accept-Language": lang}
    page = soup(pages.get("/compare", headers=headers))
    token = page.select_one("form[action='/compare/t16'] input[name=csrf_token]")["value"]
    r = pages.post("/compare/t16", data={"csrf_token": token}, headers=headers)
    ids = [int(i) for i in r.headers["location"].split("=", 1)[1].split(",")]
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        plans = [s.get(Plan, i) for i in ids]
    names = [p.name for p in plans if p is not None]
    assert names == [
        say(lang, "Phased: 1×H100 LoRA → 4×H100 full fine-tune → 1×H100 serving"),
        say(lang, "4×H100 from day one"),
    ]
    assert all(p is not None and "T16" not in f"{p.customer} {p.tags}" for p in plans)
    assert {p.customer for p in plans if p is not None} == {say(lang, "Example customer")}
    compare = soup(pages.get(r.headers["location"], headers=headers))
    text = compare.select_one("table.compare-table").get_text(" ")
    assert "T16" not in text and "llama-2-13b" not in text and "Llama 2 13B" in text
    # The Time chart names every phase (it read "1× · " with nothing after the dot).
    island = compare.select_one("script.plotly-figure[data-target=chart-compare-time]")
    texts = [bar["text"][0] for bar in json.loads(island.string)["data"]]
    tasks = ["LoRA fine-tuning", "Full fine-tuning", "Inference (serving)", "Capacity"]
    assert texts == [f"{n}× · {say(lang, t)}" for n, t in zip((1, 4, 1, 4), tasks, strict=True)]
    # The legend's names fit, and say where they were cut.
    island = compare.select_one("script.plotly-figure[data-target=chart-compare-cumulative]")
    legend = [trace.get("name", "") for trace in json.loads(island.string)["data"]]
    assert any(n.startswith("A: ") and n.endswith("…") for n in legend), legend


# ------------------------------------------------------------------- 2. the compare table


@pytest.mark.parametrize("lang", LANGS)
def test_compare_shows_names_percentages_and_one_users_row(
    pages: TestClient, account: MakeAccount, lang: str
) -> None:
    a = signed_in(pages, account)
    lora = make_plan(pages, a.user, LORA, name="LoRA")
    serve = make_plan(pages, a.user, SERVICE, name="Service")
    page = soup(pages.get(f"/compare?ids={lora.id},{serve.id}", headers={"Accept-Language": lang}))
    table = page.select_one("table.compare-table")
    text = table.get_text(" ")
    for raw in RAW:
        assert raw not in text, raw
    rows = rows_of(page, "tr.input-row")
    utilisation = say(lang, "Utilisation (%% of the month’s hours)").replace("%%", "%")
    assert rows[utilisation] == ["100%", "100%"]
    assert rows[say(lang, "Model")] == ["Llama 3.1 8B", "Llama 3.1 8B"]
    assert rows[say(lang, "GPU")] == ["NVIDIA H100 SXM5 80GB", say(lang, "Automatic")]
    assert rows[say(lang, "Optimizer")] == ["AdamW", "—"]  # a service has no optimizer
    assert rows[say(lang, "LoRA adapters on")] == [say(lang, "All linear layers"), "—"]
    assert rows[say(lang, "GPU memory the serving engine may use")] == ["—", "90%"]
    # One "users served at once", the service's 200 (not the form's old `concurrency`).
    assert rows[say(lang, "Users served at once")] == ["—", "200"]
    assert say(lang, "Concurrent users") not in rows
    # A field only one task has is not "different": the task row says they differ.
    differs = {tr.th.mark.get_text() for tr in table.select("tr.input-row.differs")}
    assert say(lang, "Task") in differs and say(lang, "Optimizer") not in differs


@pytest.mark.parametrize("lang", LANGS)
def test_compare_rates_say_their_unit_and_totals_their_period(
    pages: TestClient, account: MakeAccount, lang: str
) -> None:
    """An hourly option's price is per hour, in a row that does not say "per month"."""
    a = signed_in(pages, account)
    lora = make_plan(pages, a.user, LORA, name="LoRA")
    serve = make_plan(pages, a.user, SERVICE, name="Service")
    page = soup(pages.get(f"/compare?ids={lora.id},{serve.id}", headers={"Accept-Language": lang}))
    rows = rows_of(page)
    assert say(lang, "Per month") not in rows
    hourly, monthly = rows[say(lang, "Rate (excl. tax)")]
    # The LoRA job's cheapest rent is RunPod's H100 pod by the hour: US$2.99 × 32 NT$/US$
    # (the shipped list's FX) = NT$95.68, below Stratagem's NT$120 (every provider rents).
    per_hour = say(lang, "%(price)s per hour") % {"price": "NT$95.68"}
    assert hourly.startswith(per_hour) and say(lang, "Hourly rent") in hourly
    assert re.search(
        re.escape(say(lang, "%(price)s per month")).replace(r"%\(price\)s", "NT\\$[\\d,]+"), monthly
    )
    period = page.select_one("table.compare-table td.total .period").get_text()
    hours = re.fullmatch(
        r"\d+ (小時|hours)", period.removeprefix("total for ").removesuffix("合計")
    )
    assert hours is not None, period
    assert say(lang, "Total for the period (excl. tax)") in rows
    # The price list's stored name, labelled in the page's language.
    priced = rows[say(lang, "Priced with")][0]
    assert priced.startswith("價目表" if lang == "zh-TW" else "Price list ")
    # A service has no time to finish: said in the table, and why it has no bar.
    assert rows[say(lang, "Time")][1] == say(lang, "Serving: no finish date")
    note = page.select_one(".untimed-note").get_text()
    assert note.startswith("未列入圖表" if lang == "zh-TW" else "Not on the chart: B")


def test_compare_legend_names_end_in_an_ellipsis_not_mid_word() -> None:
    from app.plans.views import short_name

    long = "Phased: 1×H100 LoRA → 4×H100 full fine-tune → 1×H100 serving"
    assert short_name(long) == "Phased: 1×H100 LoRA → 4×H100 full…"
    assert short_name("A" * 40) == "A" * 33 + "…"  # one long word: cut inside it
    assert short_name("4×H100 from day one") == "4×H100 from day one"
    cjk = "分階段：1×H100 LoRA → 4×H100 全參數微調 → 1×H100 推論服務"
    cut = short_name(cjk)
    assert cut.endswith("…") and cjk.startswith(cut[:-1])


# ------------------------------------------------------------------- 4. the revision diff


@pytest.mark.parametrize("lang", LANGS)
def test_diff_names_options_as_the_quote_does(
    pages: TestClient, account: MakeAccount, lang: str
) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user, LORA, name="8B LoRA 1 GPU")
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        actor = s.get(User, a.user.id)
        assert actor is not None and plan.id is not None
        service.update_plan(
            session=s,
            plan_id=plan.id,
            expected_version=1,
            changes={"workload": {**LORA, "gpu_count": 2, "interconnect": "nvlink"}},
            actor=actor,
        )
    page = soup(pages.get(f"/plans/{plan.id}/diff", headers={"Accept-Language": lang}))
    options = [
        th.get_text(" ", strip=True) for th in page.select("table.totals-table th[scope=row]")
    ]
    hourly = say(lang, "Hourly rent") + " · 1 × NVIDIA H100 SXM5 80GB"
    assert any(o.startswith(hourly) for o in options), options
    # each total says the period it covers (QA: hours, a month and a year in one column)
    assert len(page.select("table.totals-table .option-period")) == len(options) - 1
    text = page.select_one("main, body").get_text(" ")
    for raw in (*RAW, "Stratagem Taipei", "seed 003", "stratagem-tpe", "PCIe"):
        assert raw not in text, raw
    if lang == "zh-TW":
        assert "Hourly rent" not in text and "Buy —" not in text
    changed = {
        tr.th.get_text(): [td.get_text() for td in tr.select("td")]
        for tr in page.select("table.diff-table tbody tr")
    }
    assert changed[say(lang, "Interconnect")] == [say(lang, "Automatic"), "NVLink"]
    assert changed[say(lang, "Tier")] == [say(lang, "Single GPU"), say(lang, "Multi-GPU")]


def test_the_plan_name_is_never_in_the_upper_cased_eyebrow(
    pages: TestClient, account: MakeAccount
) -> None:
    """CSS upper-cases the eyebrow: "LoRA" would read "LORA"."""
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user, LORA, name="8B LoRA 1 GPU")
    token = csrf(pages, f"/plans/{plan.id}")
    r = pages.post(f"/plans/{plan.id}/reprice", data={"csrf_token": token})
    for path in (r.headers["location"], f"/plans/{plan.id}", f"/plans/{plan.id}/edit"):
        page = soup(pages.get(path))
        assert "LoRA" not in page.select_one(".page-head .eyebrow").get_text(), path
    diff = soup(pages.get(r.headers["location"]))
    assert diff.select_one(".page-head .lead a.plan-name").get_text() == "8B LoRA 1 GPU"


# ------------------------------------------------------------------- 5. the customer linked


def _save(pages: TestClient, customer: str) -> Plan:
    form = soup(pages.get("/plan?example=8b-lora")).select_one("form[action='/plans/new']")
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    data.update(name="Saved", customer=customer)
    r = pages.post("/plans/new", data=data)
    assert r.status_code == 303
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, int(r.headers["location"].rsplit("/", 1)[1]))
        assert plan is not None
        s.expunge(plan)
    return plan


def _customer(pages: TestClient, name: str) -> Customer:
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        c = Customer(name=name)
        s.add(c)
        s.commit()
        s.refresh(c)
        s.expunge(c)
    return c


def test_a_typed_customer_name_links_the_record_of_that_exact_name(
    pages: TestClient, account: MakeAccount
) -> None:
    signed_in(pages, account)
    tag = uuid.uuid4().hex[:6]
    formosa = _customer(pages, f"Formosa Robotics {tag} Co.")
    linked = _save(pages, f"  formosa ROBOTICS {tag} co. ")
    assert (linked.customer_id, linked.customer) == (formosa.id, formosa.name)
    # The quote builder's customer is the record, as the heading says.
    page = soup(pages.get(f"/plans/{linked.id}"))
    chosen = page.select_one("select[name=customer_id] option[selected]")
    assert chosen is not None and chosen["value"] == str(formosa.id)
    # A part of the name is not the name: nothing is guessed.
    partial = _save(pages, f"Formosa Robotics {tag}")
    assert (partial.customer_id, partial.customer) == (None, f"Formosa Robotics {tag}")


def test_two_records_of_one_name_link_neither(pages: TestClient, account: MakeAccount) -> None:
    signed_in(pages, account)
    name = f"Twin {uuid.uuid4().hex[:6]} Ltd"
    _customer(pages, name)
    _customer(pages, name.upper())
    plan = _save(pages, name)
    assert (plan.customer_id, plan.customer) == (None, name)


# ------------------------------------------------------------------- 6. an answered quote


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("status", ["accepted", "declined"])
def test_an_answered_quote_offers_no_reprice_and_says_why(
    pages: TestClient, account: MakeAccount, lang: str, status: str
) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user, LORA, name="Answered")
    draft = soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": lang}))
    assert draft.select_one(f"form[action='/plans/{plan.id}/reprice']") is not None
    assert draft.select_one(".decided-note") is None
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        row = s.get(Plan, plan.id)
        assert row is not None
        row.status, row.decided_at = status, datetime(2026, 12, 2, 17, 58, tzinfo=UTC)
        s.add(row)
        s.commit()
    page = soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": lang}))
    assert page.select_one(f"form[action='/plans/{plan.id}/reprice']") is None
    assert page.select_one(".edit-in-planner") is None
    assert page.select_one("#phase-builder") is None
    # What it can still do: notes and tags, a copy to revise, compare, archive.
    for action in ("duplicate", "archive"):
        assert page.select_one(f"form[action='/plans/{plan.id}/{action}']") is not None
    note = page.select_one(".decided-note").get_text()
    words = {
        "accepted": "The customer accepted this quote, so its workload and prices stay as "
        "accepted: no re-pricing or workload changes. Duplicate the plan to make a new offer.",
        "declined": "The customer declined this quote, so its workload and prices stay as "
        "declined: no re-pricing or workload changes. Duplicate the plan to make a new offer.",
    }
    assert note == say(lang, words[status])


def test_the_compare_box_keeps_every_plan_ticked_on_the_list(
    pages: TestClient, account: MakeAccount
) -> None:
    """QA: ticking Q3 and Q4 on the plans list opened /compare?ids=3&ids=4, whose box then
    read "4" only — pressing Compare again compared one plan."""
    a = signed_in(pages, account)
    lora = make_plan(pages, a.user, LORA, name="LoRA")
    serve = make_plan(pages, a.user, SERVICE, name="Service")
    page = soup(pages.get(f"/compare?ids={lora.id}&ids={serve.id}"))
    box = page.select_one("#f-ids")
    assert box is not None and box["value"] == f"{lora.id},{serve.id}"


def test_compare_shows_what_each_plans_quote_asks(client: TestClient, pages: TestClient) -> None:
    """QA: three plans of one workload quoting a 12-month contract, buying and the cloud read
    alike on /compare — each column showed its plan's cheapest option only. A row now gives
    each quote's total with tax and the option it quotes. By hand (tests/plan_quotes.py's
    4-GPU job, seed 003 T8): 6-month contract NT$200,000 × (1 − 0.1) × 6 = NT$1,080,000,
    + 5 % = NT$1,134,000; buying: the server's up-front price + 5 %."""
    who = make_account(client, "sales")
    ids = []
    for lines in ([{"option_key": "rent_term:stratagem-tpe-h100-x4"}],
                  [{"option_key": "buy:h100-4gpu-nvlink-server"}], []):  # fmt: skip
        r = client.post("/api/v1/plans", json={"name": "Alt", "workload": QUOTED_WORKLOAD,
                        "quote": {"lines": lines}}, headers=who.headers)  # fmt: skip
        assert r.status_code == 201, r.text
        ids.append(r.json())
    buy = next(o for o in ids[1]["result"]["cost"]["options"] if o["kind"] == "buy")
    sign_in(pages, who.user)
    page = soup(pages.get("/compare?ids=" + ",".join(str(p["id"]) for p in ids),
                          headers={"Accept-Language": "en"}))  # fmt: skip
    row = page.select_one("table.compare-table tr.quote-row")
    assert row is not None
    cells = [td.get_text(" ", strip=True) for td in row.select("td")]
    assert cells[0].startswith("NT$1,134,000") and "6-month contract" in cells[0]
    upfront = Decimal(round(buy["upfront"]))
    with_tax = upfront + (upfront * Decimal("0.05")).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    assert cells[1].startswith(f"NT${with_tax:,}")
    assert "Buy" in cells[1]
    assert cells[2] == "No quote lines yet"
