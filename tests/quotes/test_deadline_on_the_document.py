"""The customer's document says plainly whether the plan finishes within the customer's own
deadline (QA: Llama 3.1 70B LoRA on 8 pinned H100 with a 7-day deadline printed "Time to
finish 14.5 days" and "Deadline (days) 7" with no word that the plan misses it, while the
planner said "Misses the 7-day deadline").

The verdict is the estimate's own (`training.meets_deadline`, `training.deadline_margin`);
the figures are the engine's for this workload: 14.49 days on 8 × H100 SXM5 (40 GB of data),
so 14.5 − 7 = 7.5 days late; with 30 days it meets the deadline even 13.8% slower (the
fine-tuning error band: 14.49 × 1.138 = 16.5 days)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session

from app import i18n
from app.plans.models import Plan
from app.quotes import document
from app.quotes.pdf import quote_html
from tests.accounts.helpers import Account, make_account
from tests.quotes.test_document_by_task import _pdf_text
from tests.quotes.test_quote_life import _customer

PINNED_LORA: dict[str, Any] = {
    "model": {"preset": "llama-3.1-70b"},
    "task": "lora",
    "gpu": "h100-sxm-80gb",
    "gpu_count": 8,
    "dataset_gb": 40,
}
MISSED = {
    "en": "Misses your deadline: finishes in 14.5 days, 7.5 days after the 7-day deadline you "
    "gave.",
    "zh-TW": "無法如期完成：需 14.5 天，比您指定的 7 天期限晚 7.5 天。",
}
MET = {"en": "Within your 30-day deadline.", "zh-TW": "可在您指定的 30 天期限內完成。"}


def _quoted_plan(client: TestClient, a: Account, deadline: int) -> dict[str, Any]:
    """The QA steps: plan the workload, save it for a customer, quote its cheapest option."""
    c = _customer(client, a, name=f"Deadline {deadline} Co", language="en")
    body = {"name": "LoRA 70B", "workload": {**PINNED_LORA, "deadline_days": deadline},
            "customer_id": c["id"]}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    p = r.json()
    quote = {"lines": [{"option_key": p["result"]["cost"]["cheapest"]}]}
    r = client.put(f"/api/v1/plans/{p['id']}", json={"quote": quote, "version": p["version"]},
                   headers=a.headers)  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


@pytest.fixture(scope="module")
def plans(client: TestClient) -> tuple[Account, dict[int, dict[str, Any]]]:
    a = make_account(client, "sales")
    return a, {d: _quoted_plan(client, a, d) for d in (7, 30)}


def _time_to_finish(client: TestClient, plan_id: int, lang: str) -> BeautifulSoup:
    """The summary's "Time to finish" cell of the document's HTML (what WeasyPrint prints)."""
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, plan_id)
        assert plan is not None
        soup = BeautifulSoup(quote_html(plan, lang=lang, session=s), "html.parser")
    head = i18n.translations(lang).gettext("Time to finish")
    row = next(tr for tr in soup.select("table.meta tr") if tr.th and tr.th.get_text() == head)
    assert row.td is not None
    return row.td


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_plan_that_misses_the_deadline_says_so_beside_its_finish_time(
    client: TestClient, plans: tuple[Account, dict[int, dict[str, Any]]], lang: str
) -> None:
    _, by_deadline = plans
    training = by_deadline[7]["result"]["training"]
    assert training["meets_deadline"] is False and round(training["days"], 1) == 14.5
    cell = _time_to_finish(client, by_deadline[7]["id"], lang)
    note = cell.select_one(".deadline-missed")
    assert note is not None and note.get_text() == MISSED[lang]
    assert not cell.select(".deadline-met, .deadline-tight")


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_plan_that_meets_the_deadline_says_it_is_within_it(
    client: TestClient, plans: tuple[Account, dict[int, dict[str, Any]]], lang: str
) -> None:
    _, by_deadline = plans
    training = by_deadline[30]["result"]["training"]
    assert training["meets_deadline"] is True and training["deadline_margin"] is True
    cell = _time_to_finish(client, by_deadline[30]["id"], lang)
    note = cell.select_one(".deadline-met")
    assert note is not None and note.get_text() == MET[lang]
    assert not cell.select(".deadline-missed")


def test_the_pdf_states_the_missed_deadline_in_both_languages(
    client: TestClient, plans: tuple[Account, dict[int, dict[str, Any]]], tmp_path: Path
) -> None:
    a, by_deadline = plans
    en = _pdf_text(client, a, by_deadline[7]["id"], "en", tmp_path)
    assert MISSED["en"] in en
    zh = _pdf_text(client, a, by_deadline[7]["id"], "zh-TW", tmp_path)
    # A table cell wraps Chinese anywhere: compare without the line breaks' spaces.
    assert MISSED["zh-TW"].replace(" ", "") in zh.replace(" ", "")
    for text in (en, zh):
        for internal in ("meets_deadline", "deadline_margin", "False", "deadline_days"):
            assert internal not in text


@pytest.mark.parametrize(
    ("training", "deadline", "kind", "en"),
    [
        # 7.02 days against 7: "0.0 days after" would read as on time
        ({"days": 7.02, "meets_deadline": False}, 7, "missed",
         "Misses your deadline: finishes in 7.0 days, just after the 7-day deadline you gave."),
        # met, but not at the slow end of the error band (deadline_margin false)
        ({"days": 14.49, "meets_deadline": True, "deadline_margin": False}, 15, "tight",
         "Within your 15-day deadline, with no room to spare: a run as slow as the error band "
         "below allows would finish after it."),
        ({"days": 2.0, "meets_deadline": True}, 2.5, "met", "Within your 2.5-day deadline."),
    ],
)  # fmt: skip
def test_deadline_note_cases(training: dict[str, Any], deadline: float, kind: str, en: str) -> None:
    i18n.activate("en")
    assert document.deadline_note(training, {"deadline_days": deadline}) == (kind, en)


@pytest.mark.parametrize(
    ("training", "workload"),
    [
        ({"days": 3.0, "meets_deadline": None}, {}),  # no deadline given
        ({"days": 3.0, "meets_deadline": None}, {"deadline_days": 7}),  # no verdict
        # does not fit in memory: its days are of a layout that cannot run
        ({"days": 30.0, "meets_deadline": False, "fits": False}, {"deadline_days": 7}),
        (None, {"deadline_days": 7}),  # serving and image plans have no finish time
    ],
)
def test_no_deadline_note_without_a_deadline_and_a_verdict(
    training: dict[str, Any] | None, workload: dict[str, Any]
) -> None:
    assert document.deadline_note(training, workload) is None


def test_the_shared_quote_page_says_it_too(
    client: TestClient, plans: tuple[Account, dict[int, dict[str, Any]]]
) -> None:
    # The read-only link the customer opens shows the same sentence beside the finish time
    # (the customer's language, English here).
    a, by_deadline = plans
    r = client.post(f"/api/v1/plans/{by_deadline[7]['id']}/share", headers=a.headers)
    assert r.status_code == 201, r.text
    anon = TestClient(client.app)
    page = anon.get(
        r.json()["url"].replace("http://testserver", ""), headers={"Accept-Language": "en"}
    )
    note = BeautifulSoup(page.text, "html.parser").select_one(".deadline-missed")
    assert note is not None and note.get_text() == MISSED["en"]
