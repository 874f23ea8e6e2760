"""Plan pages: list, create from the planner, detail, edit (conflicts), history, compare, T16.

Structural assertions on the HTML (BeautifulSoup selectors); key pages in both languages.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.accounts.models import User
from app.plans import service
from app.plans.bulk import insert_plans
from app.plans.models import Plan
from tests.accounts.helpers import Account, MakeAccount, sign_in

LANGS = ("zh-TW", "en")
WORKLOAD: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "task": "lora",
    "dataset_gb": 1,
    "deadline_days": 7,
}
EVIL = '<script>alert("x")</script>'


def soup(r: Any) -> BeautifulSoup:
    return BeautifulSoup(r.text, "html.parser")


def signed_in(pages: TestClient, account: MakeAccount, role: str = "sales") -> Account:
    a = account(role)
    sign_in(pages, a.user)
    return a


def make_plan(pages: TestClient, user: User, **extra: Any) -> Plan:
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        owner = s.get(User, user.id)
        assert owner is not None
        args: dict[str, Any] = {"name": "Lab LoRA", "customer": "NTU AI Lab", **extra}
        plan = service.create_plan(session=s, owner=owner, workload=WORKLOAD, **args)
        s.expunge(plan)
    return plan


def money_text(text: str) -> int:
    return int(re.sub(r"[^\d]", "", text))


# -------------------------------------------------------------------------- access


@pytest.mark.parametrize(
    "path", ["/plans", "/plans/1", "/compare?ids=1,2", "/leads", "/plans/1/edit"]
)
def test_anonymous_visitors_are_sent_to_sign_in(pages: TestClient, path: str) -> None:
    r = pages.get(path)
    assert r.status_code == 303
    assert r.headers["location"].startswith("/login")


def test_posts_need_the_csrf_token(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    r = pages.post(f"/plans/{plan.id}/duplicate")
    assert r.status_code == 403


# -------------------------------------------------------------------------- list


@pytest.mark.parametrize("lang", LANGS)
def test_list_shows_plans_with_filters_and_sort_links(
    pages: TestClient, account: MakeAccount, lang: str
) -> None:
    a = signed_in(pages, account)
    tag = uuid.uuid4().hex[:8]
    make_plan(pages, a.user, name=f"List {tag}", customer=f"Cust {tag}")
    page = soup(pages.get("/plans", params={"q": tag}, headers={"Accept-Language": lang}))
    assert page.select_one("html")["lang"] == ("zh-Hant-TW" if lang == "zh-TW" else "en")
    rows = page.select("#plans-table tbody tr")
    assert len(rows) == 1 and f"List {tag}" in rows[0].get_text()
    form = page.select_one("form[role=search]")
    assert form is not None and form["method"] == "get"
    for name in ("q", "status", "owner", "tier", "customer", "archived"):
        assert form.select_one(f"[name={name}]") is not None, name
    # Sort links are real links (they work without JavaScript) and keep the search.
    sorts = page.select("#plans-table thead a.sort")
    assert len(sorts) == 5
    assert all(s["href"].startswith("/plans?") and f"q={tag}" in s["href"] for s in sorts)


def test_search_fragment_is_only_the_table(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    tag = uuid.uuid4().hex[:8]
    make_plan(pages, a.user, name=f"Frag {tag}")
    r = pages.get("/plans", params={"q": tag}, headers={"HX-Request": "true"})
    assert r.status_code == 200
    frag = soup(r)
    assert frag.select_one("html") is None and frag.select_one("form[role=search]") is None
    assert frag.select_one("#plans-table") is not None
    assert len(frag.select("#plans-table tbody tr")) == 1


def test_filters_status_tier_owner_customer(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    b = account("sales")
    tag = uuid.uuid4().hex[:8]
    make_plan(pages, a.user, name=f"F1 {tag}", customer=f"C1 {tag}", status="sent")
    make_plan(pages, a.user, name=f"F2 {tag}", customer=f"C2 {tag}")
    make_plan(pages, b.user, name=f"F3 {tag}", customer=f"C1 {tag}")

    def names(**params: str) -> set[str]:
        page = soup(pages.get("/plans", params={"q": tag, **params}))
        return {r.select("td")[1].a.get_text() for r in page.select("#plans-table tbody tr") if r.a}

    assert names() == {f"F1 {tag}", f"F2 {tag}", f"F3 {tag}"}
    assert names(status="sent") == {f"F1 {tag}"}
    assert names(owner="me") == {f"F1 {tag}", f"F2 {tag}"}
    assert names(owner=str(b.user.id)) == {f"F3 {tag}"}
    assert names(customer=f"C1 {tag}") == {f"F1 {tag}", f"F3 {tag}"}
    assert names(tier="single_gpu") == {f"F1 {tag}", f"F2 {tag}", f"F3 {tag}"}
    assert names(tier="multi_node") == set()


def test_a_filter_the_list_cannot_apply_is_named_not_quietly_dropped(
    pages: TestClient, account: MakeAccount
) -> None:
    # QA: /plans?status=won showed every plan as if filtered, and said nothing. Each filter
    # the list leaves out is now named beside the table, with what the parameter takes, in
    # the page's language; the rest of the address still applies.
    a = signed_in(pages, account)
    tag = uuid.uuid4().hex[:8]
    make_plan(pages, a.user, name=f"R1 {tag}", status="sent")
    make_plan(pages, a.user, name=f"R2 {tag}")
    en = {"Accept-Language": "en"}
    r = pages.get("/plans", params={"q": tag, "status": "won", "sort": "price"}, headers=en)
    assert r.status_code == 200
    page = soup(r)
    status = page.select_one("#err-status").get_text(strip=True)
    assert status.startswith("Status “won” is not a plan status (draft, sent,")
    assert status.endswith("plans of every status are shown.")
    assert "name, customer, quote_number, status" in page.select_one("#err-sort").get_text()
    assert len(page.select("#plans-table tbody tr")) == 2  # the search still applies
    for params, name in (
        ({"page": "-1"}, "page"), ({"page": "²"}, "page"), ({"page": "9" * 5000}, "page"),
        ({"tier": "huge"}, "tier"), ({"owner": "bob"}, "owner"),
        ({"owner": "9" * 5000}, "owner"), ({"customer_id": "x"}, "customer_id"),
        ({"archived": "yes"}, "archived"),
    ):  # fmt: skip
        got = soup(pages.get("/plans", params={"q": tag, **params}, headers=en))
        assert got.select_one(f"#err-{name}") is not None, params
        assert len(got.select("#plans-table tbody tr")) == 2, params
    fine = soup(pages.get("/plans", params={"q": tag, "status": "sent", "page": "1"}))
    assert fine.select(".notice.error") == []
    zh = soup(pages.get("/plans", params={"status": "won"}, headers={"Accept-Language": "zh-TW"}))
    assert "「won」" in zh.select_one("#err-status").get_text()
    frag = pages.get("/plans", params={"tier": "huge"}, headers={"HX-Request": "true", **en})
    assert soup(frag).select_one("#plans-table #err-tier") is not None  # inside the swapped table


def test_pagination_and_sort(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    prefix = "pg" + uuid.uuid4().hex[:6]
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        assert a.user.id is not None
        insert_plans(session=s, owner_id=a.user.id, count=60, prefix=prefix)
    first = soup(pages.get("/plans", params={"q": prefix}))
    # 60 rows, every 20th archived: 57 live, 25 a page.
    assert "57" in first.select_one("#plans-table caption").get_text()
    assert len(first.select("#plans-table tbody tr")) == 25
    nxt = first.select_one("a[rel=next]")
    assert nxt is not None and first.select_one("a[rel=prev]") is None
    last = soup(pages.get(nxt["href"]))
    assert last.select_one("a[rel=prev]") is not None
    third = soup(pages.get(last.select_one("a[rel=next]")["href"]))
    assert len(third.select("#plans-table tbody tr")) == 7
    by_name = soup(pages.get("/plans", params={"q": prefix, "sort": "name"}))
    got = [r.select("td")[1].a.get_text() for r in by_name.select("#plans-table tbody tr")]
    assert got == sorted(got)
    th = by_name.select_one("th[aria-sort]")
    assert th is not None and th["aria-sort"] == "ascending"


# -------------------------------------------------------------------------- create, detail


def test_save_from_the_planner_creates_the_plan(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    planner = soup(pages.get("/plan?example=8b-lora"))
    form = planner.select_one("form[action='/plans/new']")
    assert form is not None, "the planner shows 'Save as plan' when signed in"
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    data.update(name="Saved from planner", customer="ACME Taiwan")
    r = pages.post("/plans/new", data=data)
    assert r.status_code == 303
    page = soup(pages.get(r.headers["location"]))
    assert page.select_one("h1").get_text() == "Saved from planner"
    assert page.select_one("#tier-heading") is not None  # the planner's result partials
    assert page.select_one("form[action='/plans/new']") is None  # no "save" on a saved plan
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, int(r.headers["location"].rsplit("/", 1)[1]))
        assert plan is not None
        assert plan.owner_id == a.user.id and plan.customer == "ACME Taiwan"
        assert (
            plan.workload["task"] == "lora" and plan.workload["model"]["preset"] == "llama-3.1-8b"
        )


def test_a_name_of_invisible_characters_is_no_name(pages: TestClient, account: MakeAccount) -> None:
    # QA: two zero-width spaces were saved as the plan's name, which showed as nothing (a
    # blank link on the list); plain spaces took the default name. Both are no name now.
    signed_in(pages, account)
    form = soup(pages.get("/plan?example=8b-lora")).select_one("form[action='/plans/new']")
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    data.update(name="\u200b\u200b", customer="\ufeff")
    r = pages.post("/plans/new", data=data)
    assert r.status_code == 303
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, int(r.headers["location"].rsplit("/", 1)[1]))
        assert plan is not None
        assert plan.name.strip() and "\u200b" not in plan.name  # the default "model · task"
        assert plan.customer == ""


@pytest.mark.parametrize(
    ("field", "lang", "words"),
    [
        ("name", "en", "Plan name: At most 200 characters."),
        ("customer", "zh-TW", "客戶：最多 200 個字元。"),
    ],
)
def test_save_from_the_planner_refuses_text_past_200_characters(
    pages: TestClient, account: MakeAccount, field: str, lang: str, words: str
) -> None:
    """The edit form and the API refuse 201 characters too: nothing is saved cut short."""
    a = signed_in(pages, account)
    form = soup(pages.get("/plan?example=8b-lora")).select_one("form[action='/plans/new']")
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    data.update({"name": "Saved", "customer": "ACME", field: "x" * 201})
    r = pages.post("/plans/new", data=data, headers={"Accept-Language": lang})
    assert r.status_code == 422
    assert words in soup(r).get_text()
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        assert s.exec(select(Plan).where(Plan.owner_id == a.user.id)).first() is None


def test_planner_hides_save_for_visitors(pages: TestClient) -> None:
    page = soup(pages.get("/plan?example=8b-lora"))
    assert page.select_one("form[action='/plans/new']") is None


@pytest.mark.parametrize("lang", LANGS)
def test_detail_shows_summary_results_history_and_actions(
    pages: TestClient, account: MakeAccount, lang: str
) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user, notes="Call back Monday", tags=["lora", "ntu"])
    page = soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": lang}))
    assert plan.quote_number in page.select_one(".page-head .eyebrow").get_text()
    facts = {
        tr.th.get_text(strip=True): tr.td.get_text(" ", strip=True)
        for tr in page.select("table.plan-facts tr")
    }
    assert "NTU AI Lab" in facts.values()
    assert any("2026" in v or "20" in v for v in facts.values())
    kpis = page.select("#summary-heading ~ .kpis .kpi .v")
    assert len(kpis) == 4 and kpis[2].get_text().startswith("NT$")
    assert page.select_one("#tier-heading") is not None
    assert page.select_one("script.plotly-figure") is not None
    assert page.select_one(".plan-notes").get_text() == "Call back Monday"
    assert [c.get_text() for c in page.select(".plan-tags .chip")] == ["lora", "ntu"]
    actions = {f["action"] for f in page.select(".plan-actions form")}
    assert {
        f"/plans/{plan.id}/duplicate",
        f"/plans/{plan.id}/reprice",
        f"/plans/{plan.id}/archive",
    } <= actions
    assert all(f.select_one("input[name=csrf_token]") for f in page.select("form[method=post]"))
    assert page.select_one(f".plan-actions a[href='/plans/{plan.id}/edit']") is not None
    assert len(page.select("#history tbody tr")) == 1
    if lang == "zh-TW":
        assert "修訂紀錄" in page.select_one("#history-heading").get_text()


def test_other_sales_cannot_edit_but_can_read_and_duplicate(
    pages: TestClient, account: MakeAccount
) -> None:
    owner = account("sales")
    plan = make_plan(pages, owner.user)
    signed_in(pages, account)
    page = soup(pages.get(f"/plans/{plan.id}"))
    assert page.select_one(".plan-actions a[href$='/edit']") is None
    token = page.select_one("input[name=csrf_token]")["value"]
    r = pages.post(f"/plans/{plan.id}/archive", data={"csrf_token": token})
    assert r.status_code == 403
    r = pages.post(f"/plans/{plan.id}/duplicate", data={"csrf_token": token})
    assert r.status_code == 303


def test_unknown_plan_is_404(pages: TestClient, account: MakeAccount) -> None:
    signed_in(pages, account)
    assert pages.get("/plans/99999999").status_code == 404


# -------------------------------------------------------------------------- edit, conflict


def _csrf(pages: TestClient, path: str) -> str:
    return str(soup(pages.get(path)).select_one("input[name=csrf_token]")["value"])


def test_edit_saves_a_new_revision(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    form = soup(pages.get(f"/plans/{plan.id}/edit")).select_one("form[action$='/edit']")
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    assert data["version"] == "1"
    data.update(name="Lab LoRA v2", tags="a, b", notes="revised", status="sent", customer="NTU")
    r = pages.post(f"/plans/{plan.id}/edit", data=data)
    assert r.status_code == 303
    page = soup(pages.get(f"/plans/{plan.id}"))
    assert page.select_one("h1").get_text() == "Lab LoRA v2"
    history = page.select("#history tbody tr")
    assert len(history) == 2
    assert "v2" in history[0].th.get_text()


@pytest.mark.parametrize(
    ("tags", "lang", "message"),
    [
        ("a, " + "t" * 51, "en", "Each tag has at most 50 characters."),
        ("a, " + "t" * 51, "zh-TW", "每個標籤最多 50 個字元。"),
        (", ".join(f"tag{i}" for i in range(51)), "en", "At most 50 tags."),
        (", ".join(f"tag{i}" for i in range(51)), "zh-TW", "最多 50 個標籤。"),
    ],
)
def test_edit_refuses_tags_past_the_limits_and_keeps_the_input(
    pages: TestClient, account: MakeAccount, tags: str, lang: str, message: str
) -> None:
    """The API's limits (a tag of 50 characters, 50 tags), said beside the field, not cut."""
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    form = soup(pages.get(f"/plans/{plan.id}/edit")).select_one("form[action$='/edit']")
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    data.update(tags=tags)
    r = pages.post(f"/plans/{plan.id}/edit", data=data, headers={"Accept-Language": lang})
    assert r.status_code == 422
    page = soup(r)
    assert page.select_one("#err-tags").get_text() == message
    assert page.select_one("[name=tags]")["value"] == tags
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        saved = s.get(Plan, plan.id)
        assert saved is not None and (saved.version, saved.tags) == (1, [])


def test_edit_keeps_fifty_tags_of_fifty_characters(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    form = soup(pages.get(f"/plans/{plan.id}/edit")).select_one("form[action$='/edit']")
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    data["status"] = form.select_one("select[name=status] option[selected]")["value"]
    tags = [f"{i:02d}" + "t" * 48 for i in range(50)]
    data.update(tags=", ".join(tags + tags[:1]))  # a repeat is dropped, not counted
    assert pages.post(f"/plans/{plan.id}/edit", data=data).status_code == 303
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        saved = s.get(Plan, plan.id)
        assert saved is not None and saved.tags == tags


@pytest.mark.parametrize("lang", LANGS)
def test_stale_edit_keeps_the_input_and_lists_what_changed(
    pages: TestClient, account: MakeAccount, lang: str
) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    token = _csrf(pages, f"/plans/{plan.id}/edit")
    # Someone else saves first (customer changed) …
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        actor = s.get(User, a.user.id)
        assert actor is not None and plan.id is not None
        service.update_plan(
            session=s,
            plan_id=plan.id,
            expected_version=1,
            changes={"customer": "NTHU"},
            actor=actor,
        )
    # … then this user saves on top of version 1.
    mine = {
        "csrf_token": token,
        "version": "1",
        "name": "My new name",
        "customer": "NTU AI Lab",
        "status": "draft",
        "tags": "mine",
        "notes": "my long notes",
    }
    r = pages.post(f"/plans/{plan.id}/edit", data=mine, headers={"Accept-Language": lang})
    assert r.status_code == 409
    page = soup(r)
    alert = page.select_one(".conflict[role=alert]")
    assert alert is not None
    changed = {
        tr.th.get_text(): [td.get_text() for td in tr.select("td")]
        for tr in alert.select("tbody tr")
    }
    label = "客戶" if lang == "zh-TW" else "Customer"
    assert changed[label] == ["NTU AI Lab", "NTHU"]
    form = page.select_one("form[action$='/edit']")
    assert form.select_one("[name=name]")["value"] == "My new name"
    assert form.select_one("[name=tags]")["value"] == "mine"
    assert form.select_one("[name=notes]").get_text() == "my long notes"
    assert form.select_one("[name=version]")["value"] == "2"
    # Saving again (knowingly) keeps the user's version.
    mine["version"] = "2"
    assert pages.post(f"/plans/{plan.id}/edit", data=mine).status_code == 303
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        assert plan.id is not None
        now = service.get_plan(session=s, plan_id=plan.id)
        assert (now.name, now.customer, now.version) == ("My new name", "NTU AI Lab", 3)


def test_edit_requires_a_name(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    token = _csrf(pages, f"/plans/{plan.id}/edit")
    r = pages.post(
        f"/plans/{plan.id}/edit",
        data={"csrf_token": token, "version": "1", "name": " ", "status": "draft"},
    )
    assert r.status_code == 422
    assert soup(r).select_one("#err-name").get_text()


def test_status_change_and_stale_status(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    token = _csrf(pages, f"/plans/{plan.id}")
    r = pages.post(
        f"/plans/{plan.id}/status", data={"csrf_token": token, "version": "1", "status": "sent"}
    )
    assert r.status_code == 303 and r.headers["location"] == f"/plans/{plan.id}"
    r = pages.post(
        f"/plans/{plan.id}/status", data={"csrf_token": token, "version": "1", "status": "lost"}
    )
    assert r.headers["location"] == f"/plans/{plan.id}?conflict=1"
    page = soup(pages.get(r.headers["location"]))
    assert page.select_one(".notice.error[role=alert]") is not None
    assert page.select_one("#f-status option[selected]")["value"] == "sent"


# -------------------------------------------------------------------------- history and actions


def test_revision_diff_between_any_two_versions(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        actor = s.get(User, a.user.id)
        assert actor is not None and plan.id is not None
        service.update_plan(
            session=s, plan_id=plan.id, expected_version=1, changes={"name": "B"}, actor=actor
        )
        service.update_plan(
            session=s,
            plan_id=plan.id,
            expected_version=2,
            changes={"workload": {**WORKLOAD, "dataset_gb": 4}},
            actor=actor,
        )
    detail = soup(pages.get(f"/plans/{plan.id}"))
    form = detail.select_one("#history form")
    assert form["action"] == f"/plans/{plan.id}/diff" and form["method"] == "get"
    assert len(form.select("input[name=a]")) == 3 and len(form.select("input[name=b]")) == 3
    page = soup(
        pages.get(
            f"/plans/{plan.id}/diff", params={"a": 1, "b": 3}, headers={"Accept-Language": "en"}
        )
    )
    rows = {
        tr.th.get_text(): (tr.select("td")[0].get_text(), tr.select("td")[1].get_text())
        for tr in page.select("table.diff-table tbody tr")
    }
    assert rows["Name"] == ("Lab LoRA", "B")
    assert rows["Training data (GB)"] == ("1", "4")
    totals = page.select("table.totals-table tbody tr")
    assert totals and totals[0].select("td")[2].get_text().strip() != "—"


def test_duplicate_archive_restore(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    tag = uuid.uuid4().hex[:8]
    plan = make_plan(pages, a.user, name=f"Dup {tag}")
    token = _csrf(pages, f"/plans/{plan.id}")
    r = pages.post(f"/plans/{plan.id}/duplicate", data={"csrf_token": token})
    assert r.status_code == 303 and r.headers["location"] != f"/plans/{plan.id}"
    copy = soup(pages.get(r.headers["location"]))
    # Named in the language of the page it was duplicated from (zh-TW, the default here).
    assert copy.select_one("h1").get_text() == f"Dup {tag}（副本）"

    assert pages.post(f"/plans/{plan.id}/archive", data={"csrf_token": token}).status_code == 303
    page = soup(pages.get(f"/plans/{plan.id}"))
    assert page.select_one(".notice.warn") is not None
    assert page.select_one(f"form[action='/plans/{plan.id}/restore']") is not None
    live = soup(pages.get("/plans", params={"q": tag}))
    assert len(live.select("#plans-table tbody tr a[href^='/plans/']")) == 2  # the copy only
    archived = soup(pages.get("/plans", params={"q": tag, "archived": "1"}))
    assert [r.select("td")[1].a.get_text() for r in archived.select("#plans-table tbody tr")] == [
        f"Dup {tag}"
    ]

    assert pages.post(f"/plans/{plan.id}/restore", data={"csrf_token": token}).status_code == 303
    assert soup(pages.get(f"/plans/{plan.id}")).select_one(".notice.warn") is None


def test_reprice_shows_the_difference_in_totals(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    token = _csrf(pages, f"/plans/{plan.id}")
    r = pages.post(f"/plans/{plan.id}/reprice", data={"csrf_token": token})
    assert r.status_code == 303
    assert r.headers["location"] == f"/plans/{plan.id}/diff?a=1&b=2"
    page = soup(pages.get(r.headers["location"], headers={"Accept-Language": "en"}))
    assert "Repriced" in page.select_one(".page-head .lead").get_text()
    cheapest = page.select_one("table.totals-table tbody tr.total")
    before, after, delta = (td.get_text(strip=True) for td in cheapest.select("td"))
    assert before.startswith("NT$") and after.startswith("NT$") and delta.endswith("0")


# -------------------------------------------------------------------------- compare, T16


def test_compare_marks_the_inputs_that_differ(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    p1 = make_plan(pages, a.user, name="Small data")
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        owner = s.get(User, a.user.id)
        assert owner is not None
        p2 = service.create_plan(
            session=s, owner=owner, name="Big data", workload={**WORKLOAD, "dataset_gb": 8}
        )
    page = soup(pages.get(f"/compare?ids={p1.id},{p2.id}", headers={"Accept-Language": "en"}))
    table = page.select_one("table.compare-table")
    assert len(table.select("thead th.scenario")) == 2
    differs = {tr.th.mark.get_text() for tr in table.select("tr.input-row.differs")}
    assert differs == {"Training data (GB)"}
    same = {tr.th.get_text(strip=True) for tr in table.select("tr.input-row:not(.differs)")}
    assert "Task" in same
    assert table.select_one("tr.differs mark") is not None
    assert len(page.select("script.plotly-figure")) == 2


def test_compare_revisions_and_bad_input(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        owner = s.get(User, a.user.id)
        assert owner is not None and plan.id is not None
        service.update_plan(
            session=s,
            plan_id=plan.id,
            expected_version=1,
            changes={"workload": {**WORKLOAD, "deadline_days": 3}},
            actor=owner,
        )
    page = soup(pages.get(f"/compare?rev={plan.id}:1&rev={plan.id}:2"))
    assert len(page.select("table.compare-table thead th.scenario")) == 2
    assert page.select("tr.input-row.differs")
    assert pages.get("/compare?ids=1,2,3,4,5").status_code == 422
    assert pages.get("/compare?ids=x").status_code == 422
    # The answer quotes the item that is not a plan, in the page's language (QA: "1,abc,-5"
    # got 「方案編號須為數字：？ids=1,2…」, a full-width "？" and no word of which item).
    for lang, said in (("en", "“abc” is not a plan"), ("zh-TW", "「abc」不是方案")):
        r = pages.get(f"/compare?ids={plan.id},abc,-5", headers={"Accept-Language": lang})
        assert r.status_code == 422 and said in r.text
    r = pages.get(f"/compare?ids={plan.id}&rev={plan.id}:-2", headers={"Accept-Language": "en"})
    assert r.status_code == 422 and f"“{plan.id}:-2” is not a plan" in r.text


@pytest.mark.parametrize("lang", LANGS)
def test_t16_example_shows_350000_vs_800000(
    pages: TestClient, account: MakeAccount, lang: str
) -> None:
    signed_in(pages, account)
    compare = soup(pages.get("/compare", headers={"Accept-Language": lang}))
    form = compare.select_one("form[action='/compare/t16']")
    assert form is not None
    token = form.select_one("input[name=csrf_token]")["value"]
    r = pages.post("/compare/t16", data={"csrf_token": token})
    assert r.status_code == 303 and r.headers["location"].startswith("/compare?ids=")
    page = soup(pages.get(r.headers["location"], headers={"Accept-Language": lang}))
    totals = [
        money_text(td.strong.get_text()) for td in page.select("table.compare-table td.total")
    ]
    # Hand calculation (seed 003 T8 prices): 2 × 50,000 + 200,000 + 50,000 = 350,000
    # vs 4 × 200,000 = 800,000 — "nearly twice" (2.29×).
    assert totals == [2 * 50_000 + 200_000 + 50_000, 4 * 200_000]
    ratio = page.select_one("table.compare-table .ratio").get_text()
    assert "2.29" in ratio
    # The phases differ, and both charts (cumulative cost, time) are there.
    assert page.select("tr.input-row.differs")
    assert len(page.select("script.plotly-figure")) == 2
    # Each scenario opens as a plan with its phases in the phase builder (it was built
    # with it) and on a timeline.
    link = page.select_one("table.compare-table tr.plan-row a")["href"]
    plan = soup(pages.get(link, headers={"Accept-Language": lang}))
    phases = plan.select("#phase-builder li.phase-row")
    assert len(phases) == 3
    assert money_text(plan.select_one(".phase-plan-total strong").get_text()) == 350_000
    assert plan.select_one("#chart-timeline, [id*=timeline]") is not None


# -------------------------------------------------------------------------- escaping


def test_stored_script_is_escaped_everywhere(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user, name=EVIL, customer=EVIL, notes=EVIL, tags=[EVIL])
    other = make_plan(pages, a.user, name="Other")
    for path in (
        f"/plans/{plan.id}",
        f"/plans?q={plan.quote_number}",
        f"/plans/{plan.id}/edit",
        f"/compare?ids={plan.id},{other.id}",
    ):
        r = pages.get(path)
        assert r.status_code == 200, path
        assert EVIL not in r.text, path
        assert "&lt;script&gt;" in r.text, path
        page = soup(r)
        assert all(
            s.get("type") == "application/json" or s.get("src") for s in page.select("script")
        ), path


@pytest.mark.parametrize("lang, message", [("en", "At most 20000 characters."), ("zh-TW", None)])
def test_notes_past_the_limit_are_an_inline_error_in_the_pages_language(
    pages: TestClient, account: MakeAccount, lang: str, message: str | None
) -> None:
    """Plan notes are at most NOTES_MAX (20,000) characters: the column is VARCHAR(20000)
    (migration 0009_bounded_notes); one more is refused by the field, nothing saved."""
    from app.plans.models import NOTES_MAX

    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    form = soup(pages.get(f"/plans/{plan.id}/edit")).select_one("form[action$='/edit']")
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    data.update(name="Too long", notes="n" * (NOTES_MAX + 1))
    r = pages.post(f"/plans/{plan.id}/edit", data=data, headers={"Accept-Language": lang})
    assert r.status_code == 422
    error = soup(r).select_one("#err-notes").get_text(strip=True)
    assert error == (message or i18n_zh("At most %(n)s characters.") % {"n": NOTES_MAX})
    assert soup(pages.get(f"/plans/{plan.id}")).select_one("h1").get_text() != "Too long"


def i18n_zh(msgid: str) -> str:
    from app import i18n

    zh = i18n.zh_translations().gettext(msgid)
    assert zh != msgid, f"untranslated: {msgid}"
    return zh


# ------------------------------------------------------- posted ids that are not ids (QA S1.3)

NOT_VERSIONS = ["²", "abc", "0", "9" * 25, "9" * 5000]


@pytest.mark.parametrize("version", NOT_VERSIONS)
def test_a_posted_version_that_is_not_one_is_stale_like_any_other(
    pages: TestClient, account: MakeAccount, version: str
) -> None:
    """'²' raised in int(), 25 digits overflowed SQLite looking up the revision: each a 500.
    Now each save answers as a stale version does, and nothing is saved."""
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    token = _csrf(pages, f"/plans/{plan.id}/edit")
    edit = {"name": "n", "customer": "", "status": "draft", "tags": "", "notes": ""}
    posts = [
        (f"/plans/{plan.id}/edit", edit, 409),
        (f"/plans/{plan.id}/workload", {"preset": "llama-2-13b", "task": "lora"}, 409),
    ]
    for url, data, status in posts:
        r = pages.post(url, data={**data, "csrf_token": token, "version": version})
        assert r.status_code == status, (url, r.text[:300])
    r = pages.post(
        f"/plans/{plan.id}/status",
        data={"csrf_token": token, "status": "sent", "version": version},
    )
    assert r.status_code == 303
    page = soup(pages.get(r.headers["location"], headers={"Accept-Language": "en"}))
    notices = [p.get_text() for p in page.select(".notice.error[role=alert]")]
    assert any("The status was not changed" in n for n in notices), notices
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        saved = s.get(Plan, plan.id)
        assert saved is not None and (saved.version, saved.status) == (1, "draft")


@pytest.mark.parametrize("value", ["²", "9" * 25, "9" * 5000])
def test_list_filters_that_are_not_ids_are_named_and_match_no_other_id(
    pages: TestClient, account: MakeAccount, value: str
) -> None:
    # '²' once read as user 2 and 5,000 digits as a 500; neither is an id: the filter is
    # left out and named beside the table, and the list is every plan, not user 2's.
    a = signed_in(pages, account)
    tag = uuid.uuid4().hex[:8]
    make_plan(pages, a.user, name=f"Id {tag}")
    for param in ("owner", "customer_id"):
        r = pages.get("/plans", params={param: value, "q": tag})
        assert r.status_code == 200, param
        page = soup(r)
        assert page.select_one(f"#err-{param}") is not None, param
        assert len([tr for tr in page.select("#plans-table tbody tr") if tr.a]) == 1, param


@pytest.mark.parametrize(
    ("lang", "gone", "no_version"),
    [
        ("en", "There is no plan 99999", "has no version 7"),
        ("zh-TW", "找不到方案 99999", "沒有第 7 版"),
    ],
)
def test_compare_names_the_plan_that_is_not_there(
    pages: TestClient, account: MakeAccount, lang: str, gone: str, no_version: str
) -> None:
    """QA: /compare?ids=1,99999 answered the generic 404 "no page at this address"."""
    a = signed_in(pages, account)
    p1 = make_plan(pages, a.user, name="存在的方案")
    headers = {"Accept-Language": lang}
    r = pages.get(f"/compare?ids={p1.id},99999", headers=headers)
    assert r.status_code == 404
    alert = soup(r).select_one(".notice.error").get_text()
    assert gone in alert
    r = pages.get(f"/compare?rev={p1.id}:7,{p1.id}", headers=headers)
    assert r.status_code == 404 and no_version in soup(r).select_one(".notice.error").get_text()


def test_the_status_form_offers_only_what_a_save_may_set(
    pages: TestClient, account: MakeAccount
) -> None:
    """QA of stop 32: the plan page offered 已接受 and 已逾期 and answered both with an
    error page that led only home. The answers (accepted, declined, expired) are set by the
    customer and the validity date; a plan with a quote is "sent" by sending it."""
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    page = soup(pages.get(f"/plans/{plan.id}"))
    offered = [o["value"] for o in page.select("#f-status option")]
    assert offered == ["draft", "sent", "lost"]  # no quote: "sent" is the pipeline marker
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        row = s.get(Plan, plan.id)
        assert row is not None
        row.quote = {"lines": []}
        assert service.settable_statuses(row) == ["draft", "lost"]
        row.status = "sent"
        assert service.settable_statuses(row) == ["draft", "sent", "lost"]  # its own first


def test_a_refused_form_offers_the_way_back(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    token = _csrf(pages, f"/plans/{plan.id}")
    back = f"http://testserver/plans/{plan.id}"
    # A status that is no UTF-8 (a status the plan cannot take is said on the plan page).
    body = f"csrf_token={token}&version=1&status=%FF".encode()
    form = {"content-type": "application/x-www-form-urlencoded"}
    r = pages.post(f"/plans/{plan.id}/status", content=body, headers={**form, "Referer": back})
    assert r.status_code == 422
    links = [x["href"] for x in soup(r).select(".error-page a")]
    assert links == [f"/plans/{plan.id}", "/"]
    # Another site's page, or one that would leave this site, is no way back.
    for referer in (
        "https://evil.example/x",
        "http://testserver//evil.example",
        "http://testserver/\\evil",
    ):
        r = pages.post(
            f"/plans/{plan.id}/status", content=body, headers={**form, "Referer": referer}
        )
        assert [x["href"] for x in soup(r).select(".error-page a")] == ["/"]


def test_a_plan_saved_without_a_name_is_named_for_the_model_as_the_planner_names_it() -> None:
    """QA of stop 32: 'qwen3-235b-a22b · 推論（服務）', the preset's id."""
    from app import i18n
    from app.engine.schemas import EstimateRequest
    from app.plans.forms import default_name

    i18n.activate("zh-TW")
    req = EstimateRequest(model={"preset": "qwen3-235b-a22b"}, task="inference")
    assert default_name(req) == "Qwen3 235B-A22B (MoE) · 推論（服務）"
    assert default_name(EstimateRequest(model={"params_b": 13}, task="lora")).startswith("13B · ")


def test_the_t16_day_one_scenario_is_paid_as_its_one_phase_not_phased(
    pages: TestClient, account: MakeAccount
) -> None:
    """Seed 003 T16: 4 × H100 from day one is one capacity phase rented by the month; the
    comparison's rate row called it 「分階段租用」 like the three-phase scenario (QA)."""
    from app import i18n
    from app.plans.presenters import key_figures

    a = signed_in(pages, account)
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        owner = s.get(User, a.user.id)
        assert owner is not None
        phased, day_one = service.create_t16_example(session=s, owner=owner)
        i18n.activate("en")
        assert key_figures(phased.result).cheapest_kind == "Phased rental"
        assert key_figures(day_one.result).cheapest_kind == "Monthly rent"


def test_the_edit_form_offers_only_the_statuses_a_save_may_set(
    pages: TestClient, account: MakeAccount
) -> None:
    """QA: the edit form listed 已接受 / 已婉拒 / 已逾期, and choosing one answered with an
    error page that lost the typed name and notes (service.settable_statuses)."""
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    form = soup(pages.get(f"/plans/{plan.id}/edit")).select_one("form[action$='/edit']")
    offered = [o["value"] for o in form.select("select[name=status] option")]
    assert offered and not {"accepted", "declined", "expired"} & set(offered)
    token = _csrf(pages, f"/plans/{plan.id}/edit")
    crafted = {"csrf_token": token, "version": "1", "name": "Typed name", "customer": "",
               "status": "accepted", "tags": "", "notes": "typed notes"}  # fmt: skip
    r = pages.post(f"/plans/{plan.id}/edit", data=crafted, headers={"Accept-Language": "en"})
    assert r.status_code == 422
    page = soup(r)
    assert "not by hand" in page.select_one("#err-status").get_text()
    assert page.select_one("[name=name]")["value"] == "Typed name"
    assert page.select_one("[name=notes]").get_text() == "typed notes"
    empty = {**crafted, "status": ""}
    r = pages.post(f"/plans/{plan.id}/edit", data=empty, headers={"Accept-Language": "en"})
    assert r.status_code == 422 and soup(r).select_one("#err-status").get_text()


def test_a_typed_nul_is_refused_and_never_written_into_the_page(
    pages: TestClient, account: MakeAccount
) -> None:
    # QA: the planner shown again with the error wrote the typed NUL into its HTML.
    signed_in(pages, account)
    form = soup(pages.get("/plan?example=8b-lora")).select_one("form[action='/plans/new']")
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    data.update(name="Plan", customer="Acme\x00Corp")
    r = pages.post("/plans/new", data=data, headers={"Accept-Language": "en"})
    assert r.status_code == 422
    assert "\x00" not in r.text
    assert soup(r).select_one("#f-plan-customer")["value"] == "Acme\ufffdCorp"


def test_a_linked_plans_customer_is_its_record_whatever_the_edit_says(
    client: TestClient, pages: TestClient, account: MakeAccount
) -> None:
    """QA: the edit form saved "Someone else" as the customer of a plan linked to a customer
    record; the list showed that name while the quote and the PDF went to the record. The
    form shows the record (a link), and a name that contradicts it is refused by the API."""
    a = signed_in(pages, account)
    customer = client.post(
        "/api/v1/customers", json={"name": f"Hijack {uuid.uuid4().hex[:6]}"}, headers=a.headers
    ).json()
    body = {"name": "linked", "workload": WORKLOAD, "customer_id": customer["id"]}
    plan = client.post("/api/v1/plans", json=body, headers=a.headers).json()
    page = soup(pages.get(f"/plans/{plan['id']}/edit"))
    form = page.select_one("form[action$='/edit']")
    assert form.select_one("input[name=customer]") is None
    assert form.select_one(f"a[href='/customers/{customer['id']}']").get_text() == customer["name"]
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    data.update(status="draft", customer="Someone else", name="renamed")  # a crafted post
    assert pages.post(f"/plans/{plan['id']}/edit", data=data).status_code == 303
    saved = client.get(f"/api/v1/plans/{plan['id']}", headers=a.headers).json()
    assert (saved["name"], saved["customer"]) == ("renamed", customer["name"])
    r = client.put(
        f"/api/v1/plans/{plan['id']}",
        json={"version": saved["version"], "customer": "Someone else"},
        headers=a.headers,
    )
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][-1] == "customer"
    same = client.put(
        f"/api/v1/plans/{plan['id']}",
        json={"version": saved["version"], "customer": customer["name"].upper()},
        headers=a.headers,
    )
    assert same.status_code == 200 and same.json()["customer"] == customer["name"]


def test_a_phased_plan_counts_its_months_without_a_decimal(
    pages: TestClient, account: MakeAccount
) -> None:
    """Seed 003 T16 runs 2 + 1 + 1 = 4 months: the plan page's key figure said "4.0" (QA:
    a count read as a measurement); a fraction of a month keeps its decimal."""
    from app.web.templating import count_number

    a = signed_in(pages, account)
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        owner = s.get(User, a.user.id)
        assert owner is not None
        phased, _ = service.create_t16_example(session=s, owner=owner)
        plan_id = phased.id
    page = soup(pages.get(f"/plans/{plan_id}", headers={"Accept-Language": "en"}))
    kpis = {" ".join(k.get_text(" ", strip=True).split()) for k in page.select(".kpi")}
    assert any(k.endswith("4 months") for k in kpis), kpis
    assert not any("4.0" in k for k in kpis), kpis
    assert (count_number(4.0), count_number(2.5), count_number(0.25, 2)) == ("4", "2.5", "0.25")


def test_compare_says_no_dataset_where_a_plan_gives_tokens(
    pages: TestClient, account: MakeAccount
) -> None:
    """QA: a plan saved through the API with 2 billion tokens read "Training data (GB) 0" in
    the comparison — the request's default, not a dataset of 0 GB."""
    a = signed_in(pages, account)
    p1 = make_plan(pages, a.user, name="By dataset")
    tokens = {k: v for k, v in WORKLOAD.items() if k not in ("dataset_gb", "epochs")}
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        owner = s.get(User, a.user.id)
        assert owner is not None
        p2 = service.create_plan(
            session=s, owner=owner, name="By tokens",
            workload={**tokens, "tokens": 2e9, "dataset_gb": 0},
        )  # fmt: skip
    page = soup(pages.get(f"/compare?ids={p1.id},{p2.id}", headers={"Accept-Language": "en"}))
    row = next(
        tr for tr in page.select("table.compare-table tr.input-row")
        if tr.th.get_text(strip=True).startswith("Training data (GB)")
    )  # fmt: skip
    assert [td.get_text(strip=True) for td in row.select("td")][1] == "—"
