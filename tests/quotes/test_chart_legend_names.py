"""The quote's charts name two offers that would read alike by their provider.

A 1-GPU LoRA is rented by the hour from Stratagem Taipei and from RunPod; both read "Hourly
rent · 1 × NVIDIA H100 SXM5 80GB", and the cumulative-cost chart drew two legend entries
with the same name for two different lines. The quote's own table already added the
provider (app.quotes.document.option_labels); the charts now use the same names.
"""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.plans.models import Plan
from app.quotes import pdf
from tests.accounts.helpers import make_account
from tests.plan_quotes import WORKLOAD

ONE_GPU_LORA = {
    "model": {"preset": "llama-2-7b"},
    "task": "lora",
    "seq_len": 2048,
    "tokens": 1e8,
    "gpu_count": 1,
}


def test_two_offers_that_read_alike_get_their_providers_in_the_chart(client: TestClient) -> None:
    who = make_account(client, "sales")
    r = client.post(
        "/api/v1/plans",
        json={"name": "Legend", "customer": "Delta", "workload": ONE_GPU_LORA},
        headers=who.headers,
    )
    assert r.status_code == 201, r.text
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, r.json()["id"])
        assert plan is not None
        cost = pdf.customer_result(plan)["cost"]
    labels = {o["key"]: o["label"] for o in cost["options"]}
    assert labels["rent_hourly:stratagem-tpe-h100-x1"].endswith("· Stratagem Taipei")
    assert labels["rent_hourly:runpod-secure-h100-sxm-x1"].endswith("· RunPod")
    assert len(set(labels.values())) == len(labels)
    tco = [c["label"] for c in cost.get("tco") or []]
    assert len(set(tco)) == len(tco)


def test_the_builder_offers_no_line_the_plan_cannot_run_on(client: TestClient) -> None:
    """The 4-GPU full fine-tune (tests/plan_quotes.py) is timed on 4 NVLink GPUs in one
    machine; RunPod's single-GPU pods are priced (not runnable) but not offered as lines, and
    a save naming one is refused; a line saved before that refusal stays listed (re-saving
    must not lose it), and sending it is refused."""
    from bs4 import BeautifulSoup

    from tests.accounts.helpers import sign_in
    from tests.quotes.test_quote_life import TERM, _customer

    runpod = "rent_hourly:runpod-secure-h100-sxm-x1"
    sales = make_account(client, "sales")
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, sales.user)
    cid = _customer(client, sales)["id"]
    body = {"name": "客服模型", "workload": WORKLOAD, "customer_id": cid}
    refused = client.post(
        "/api/v1/plans", json={**body, "quote": {"lines": [{"option_key": runpod}]}},
        headers=sales.headers,
    )  # fmt: skip
    assert refused.status_code == 422
    assert refused.json()["detail"][0]["loc"] == ["body", "quote", "lines", 0, "option_key"]
    made = client.post(
        "/api/v1/plans", json={**body, "quote": {"lines": [{"option_key": TERM}]}},
        headers=sales.headers,
    )  # fmt: skip
    plan = made.json()
    options = {o["key"]: o for o in plan["result"]["cost"]["options"]}
    assert options[runpod]["feasible"] is False
    page = BeautifulSoup(pages.get(f"/plans/{plan['id']}").text, "html.parser")
    offered = {o.get("value") for o in page.select("#quote-builder select option")}
    assert TERM in offered and runpod not in offered
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        row = s.get(Plan, plan["id"])
        assert row is not None
        row.quote = {**row.quote, "lines": [{**row.quote["lines"][0], "option_key": runpod}]}
        s.add(row)
        s.commit()
    page = BeautifulSoup(pages.get(f"/plans/{plan['id']}").text, "html.parser")
    offered = {o.get("value") for o in page.select("#quote-builder select option")}
    assert runpod in offered
    sent = client.post(f"/api/v1/plans/{plan['id']}/send", headers=sales.headers)
    assert sent.status_code == 422 and "cannot run this plan" in sent.json()["detail"][0]["msg"]


def test_the_quote_charts_leave_out_offers_that_cannot_run_the_plan(client: TestClient) -> None:
    """RunPod's single-GPU pods cannot run the 4-GPU NVLink fine-tune: the customer's table
    leaves them out, and so do the cumulative and TCO charts (the TCO rows name an option
    by key only, and were drawn)."""
    from tests.plan_quotes import create_plan

    who = make_account(client, "sales")
    made = create_plan(client, who)
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, made["id"])
        assert plan is not None
        stored = plan.result["cost"]
        cost = pdf.customer_result(plan)["cost"]
    cannot = {o["key"] for o in stored["options"] if o.get("feasible") is False}
    assert "rent_hourly:runpod-secure-h100-sxm-x1" in cannot
    assert cannot & {c["key"] for c in stored.get("tco") or []}, "the stored TCO has them"
    drawn = {o["key"] for o in cost["options"]} | {c["key"] for c in cost.get("tco") or []}
    assert not drawn & cannot
    assert {c["key"] for c in cost["tco"]}, "the runnable ones are still drawn"


def test_a_contract_only_the_five_year_view_holds_is_named_alike_in_both_charts(
    client: TestClient,
) -> None:
    """A 3-GPU LoRA (Llama 3.1 70B, 2×10^8 tokens, 7 days) rents a 4-GPU server; the
    five-year view adds a 12-month contract the cost options do not hold. QA: its TCO bars
    read "3 × NVIDIA H100" while the cumulative legend read "4 × … (the plan uses 3)", and
    its year-one bar was the 4-GPU price."""
    who = make_account(client, "sales")
    workload = {"model": {"preset": "llama-3.1-70b"}, "task": "lora", "tokens": 2e8,
                "deadline_days": 7}  # fmt: skip
    r = client.post("/api/v1/plans", json={"name": "TCO", "workload": workload},
                    headers=who.headers)  # fmt: skip
    assert r.status_code == 201, r.text
    term = "rent_term:stratagem-tpe-h100-x4"
    stored = r.json()["result"]
    assert stored["gpu"]["count"] == 3
    assert term not in {o["key"] for o in stored["cost"]["options"]}
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, r.json()["id"])
        assert plan is not None
        cost = pdf.customer_result(plan)["cost"]
    legend = {o["key"]: o["label"] for o in cost["tco_options"]["options"]}
    bars = {c["key"]: c["label"] for c in cost["tco"]}
    assert "4 × NVIDIA H100 SXM5 80GB (the plan uses 3)" in legend[term]
    # every option named alike in both charts (a pod that cannot run the plan named
    # providers in the bars only)
    assert bars == {key: legend[key] for key in bars}


def test_a_rental_two_providers_offer_names_each_provider() -> None:
    """QA: "Hourly rent · 5 × H100 on 2 servers" at NT$600/h and "… on 5 servers" at NT$478/h
    read differently, so neither named its provider, and the customer could not ask for the
    cheaper one. A kind only one provider offers stays unnamed; buying names no provider."""
    from app.quotes.document import option_labels

    gpu = {"name": "NVIDIA H100 SXM5 80GB", "count": 5}
    options = [
        {"key": "a", "kind": "rent_hourly", "provider": "Stratagem Taipei",
         "billed": {"gpus": 5, "nodes": 2}},
        {"key": "b", "kind": "rent_hourly", "provider": "RunPod",
         "billed": {"gpus": 5, "nodes": 5}},
        {"key": "c", "kind": "rent_monthly", "provider": "Stratagem Taipei",
         "billed": {"gpus": 5, "nodes": 2}},
        {"key": "d", "kind": "buy", "billed": {"gpus": 8, "nodes": 1}},
    ]  # fmt: skip
    labels = option_labels(options, gpu, 730.0)
    assert labels["a"] == "Hourly rent · 5 × NVIDIA H100 SXM5 80GB on 2 servers · Stratagem Taipei"
    assert labels["b"] == "Hourly rent · 5 × NVIDIA H100 SXM5 80GB on 5 servers · RunPod"
    assert labels["c"] == "Monthly rent · 5 × NVIDIA H100 SXM5 80GB on 2 servers"
    assert labels["d"] == "Buy · 8 × NVIDIA H100 SXM5 80GB (the plan uses 5)"


def test_an_offer_that_cannot_run_the_plan_makes_no_one_name_their_provider() -> None:
    """RunPod's single-GPU pods for a job needing 4 GPUs on NVLink are shown to no customer:
    the one hourly rent that can run it needs no provider beside it."""
    from app.quotes.document import option_labels

    gpu = {"name": "NVIDIA H100 SXM5 80GB", "count": 4}
    options = [
        {"key": "a", "kind": "rent_hourly", "provider": "Stratagem Taipei",
         "billed": {"gpus": 4, "nodes": 1}},
        {"key": "b", "kind": "rent_hourly", "provider": "RunPod", "feasible": False,
         "billed": {"gpus": 4, "nodes": 4}},
    ]  # fmt: skip
    assert option_labels(options, gpu, 730.0)["a"] == "Hourly rent · 4 × NVIDIA H100 SXM5 80GB"
