"""Phased plans through the API: `phases` on POST/PUT /api/v1/plans (issue 10, item 5).

Prices are the shipped price list's seed 003 T8 rents: 1×H100 NT$50,000/month, 4×H100
NT$200,000/month, NT$120 per GPU-hour; 3-month contracts at list price, 6 months −10 %,
12 months −20 %.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.plans import schedule
from tests.accounts.helpers import Account, MakeAccount

H100 = "h100-sxm-80gb"
LORA: dict[str, Any] = {"model": {"preset": "llama-2-13b"}, "task": "lora", "dataset_gb": 5}


def _post(client: TestClient, who: Account, **body: Any) -> Any:
    return client.post("/api/v1/plans", json={"name": "Phased", **body}, headers=who.headers)


def _create(client: TestClient, who: Account, phases: list[dict[str, Any]]) -> dict[str, Any]:
    r = _post(client, who, phases=phases)
    assert r.status_code == 201, r.text
    return r.json()


def test_t16_built_from_phases_costs_350000_against_800000_from_day_one(
    client: TestClient, account: MakeAccount
) -> None:
    """Seed 003 T16: 2 months LoRA on 1 GPU, 1 month full fine-tune on 4, back to 1 GPU for
    inference: < NT$400,000; 4 GPUs from day one ≈2×."""
    a = account("sales")
    phased = _create(client, a, [dict(p) for p in schedule.T16_PHASES])
    sched = phased["result"]["schedule"]
    # The engine sizes each workload: LoRA and inference fit one H100, the 13B full
    # fine-tune needs four (weights + gradients + Adam states ≈ 16 B/param × 13 B).
    assert [p["billed_gpus"] for p in sched["phases"]] == [1, 4, 1]
    assert [p["task"] for p in sched["phases"]] == ["lora", "full_finetune", "inference"]
    # 2 × 50,000 + 1 × 200,000 + 1 × 50,000 = 350,000 over 4 months
    assert [p["total"] for p in sched["phases"]] == [100_000, 200_000, 50_000]
    assert sched["total"] == 350_000 and sched["months"] == 4
    assert sched["total"] < 400_000
    assert phased["result"]["cost"]["options"][0]["total"] == 350_000  # the headline
    assert phased["phases"] == phased["workload"]["schedule"]["phases"]

    day_one = _create(client, a, [dict(p) for p in schedule.T16_DAY_ONE])
    # 4 × H100 for 4 months: 4 × 200,000 = 800,000 (the 3-month tier is list price)
    assert day_one["result"]["schedule"]["total"] == 800_000
    # 800,000 / 350,000 = 2.29: "nearly twice as much"
    ratio = day_one["result"]["schedule"]["total"] / sched["total"]
    assert ratio == pytest.approx(2.2857, abs=1e-4)


def test_capacity_options_bill_as_chosen(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    p = _create(
        client,
        a,
        [
            # 12-month contract: 50,000 × 0.8 = 40,000 × 12 = 480,000
            {"kind": "capacity", "gpu": H100, "gpu_count": 1, "months": 12, "option": "contract"},
            # hourly, 100 h/month: 120 × 100 = 12,000 × 2 = 24,000
            {
                "kind": "capacity",
                "gpu": H100,
                "gpu_count": 1,
                "months": 2,
                "option": "hourly",
                "hours_per_month": 100,
            },
            # 3 GPUs of capacity, none kept with another: 2× + 1× = 100,000 + 50,000 (T8),
            # under the 4-GPU machine's 200,000
            {"kind": "capacity", "gpu": H100, "gpu_count": 3, "months": 1, "option": "monthly"},
        ],
    )
    phases = p["result"]["schedule"]["phases"]
    assert [x["billing"] for x in phases] == ["rent_term", "rent_hourly", "rent_monthly"]
    assert [x["total"] for x in phases] == [480_000, 24_000, 150_000]
    assert phases[2]["billed_gpus"] == 3
    assert p["result"]["schedule"]["total"] == 480_000 + 24_000 + 150_000
    assert [x["start_month"] for x in phases] == [0, 12, 14]
    options = {o["key"]: o for o in p["result"]["cost"]["options"]}
    assert options["phase-2"]["billed"] == {"unit": "hour", "quantity": 200, "gpus": 1, "nodes": 1}
    assert options["phase-1"]["monthly_rate"] == 40_000


CAP = {"kind": "capacity", "gpu": H100, "gpu_count": 1, "months": 1}


@pytest.mark.parametrize(
    ("phases", "loc"),
    [
        ([], ["body", "phases"]),
        ([{**CAP, "months": 0}], ["body", "phases", 0, "months"]),
        ([CAP, {**CAP, "months": 121}], ["body", "phases", 1, "months"]),
        ([{**CAP, "gpu_count": 5000}], ["body", "phases", 0, "gpu_count"]),
        ([CAP, {**CAP, "gpu": "no-such-gpu"}], ["body", "phases", 1, "gpu"]),
        ([{**CAP, "gpu_count": 2.5}], ["body", "phases", 0, "gpu_count"]),
        ([{**CAP, "gpu_count": 0.3}], ["body", "phases", 0, "gpu_count"]),
        ([{"kind": "capacity", "months": 1, "gpu_count": 1}], ["body", "phases", 0, "gpu"]),
        # RunPod's H200 is rented by the hour only: no contract tier to apply
        (
            [CAP, {**CAP, "gpu": "h200-sxm-141gb", "option": "contract"}],
            ["body", "phases", 1, "option"],
        ),
        ([{**CAP, "option": "yearly"}], ["body", "phases", 0, "option"]),
        ([{**CAP, "kind": "workload"}], ["body", "phases", 0, "workload"]),
        (
            [{"kind": "workload", "months": 1, "workload": {**LORA, "seq_len": -1}}],
            ["body", "phases", 0, "workload", "seq_len"],
        ),
        (
            [{"kind": "workload", "months": 1, "workload": {**LORA, "gpu": "no-such-gpu"}}],
            ["body", "phases", 0, "workload", "gpu"],
        ),
        ([{"kind": "workload", "months": 1, "workload": LORA, "gpu_count": 2}], None),
    ],
)
def test_bad_phases_are_422_naming_the_field(
    client: TestClient, account: MakeAccount, phases: list[dict[str, Any]], loc: list[Any] | None
) -> None:
    r = _post(client, account("sales"), phases=phases)
    assert r.status_code == 422, r.text
    locs = [e["loc"] for e in r.json()["detail"]]
    assert (loc or ["body", "phases", 0, "gpu_count"]) in locs, locs


def test_workload_or_phases_not_both_nor_neither(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    r = _post(client, a, workload=LORA, phases=[CAP])
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "phases"]
    r = _post(client, a)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "workload"]


def test_put_phases_makes_a_revision_whose_diff_names_the_phase(
    client: TestClient, account: MakeAccount
) -> None:
    a = account("sales")
    r = _post(client, a, workload=LORA)
    plan = r.json()
    # A plan of one workload becomes phased: its workload as phase 1, plus a capacity line.
    phases = [schedule.from_workload(plan["workload"], months=1), {**CAP, "months": 3}]
    r = client.put(
        f"/api/v1/plans/{plan['id']}",
        json={"version": 1, "phases": phases},
        headers=a.headers,
    )
    assert r.status_code == 200, r.text
    v2 = r.json()
    assert v2["version"] == 2 and len(v2["phases"]) == 2
    # 1 month of the LoRA job's GPU (cheapest: 50,000 monthly) + 3 × 50,000
    assert v2["result"]["schedule"]["total"] == 50_000 + 150_000

    changed = [{**p} for p in v2["phases"]]
    changed[1]["months"] = 6
    r = client.put(
        f"/api/v1/plans/{plan['id']}",
        json={"version": 2, "phases": changed},
        headers=a.headers,
    )
    assert r.status_code == 200, r.text
    d = client.get(f"/api/v1/plans/{plan['id']}/diff?from=2&to=3", headers=a.headers).json()
    fields = {c["field"]: (c["before"], c["after"]) for c in d["changes"]}
    assert fields["workload.schedule.phases.2.months"] == (3, 6)
    # 6 months: the 6-month tier, 50,000 × 0.9 × 6 = 270,000; total 50,000 + 270,000
    assert fields["result.cheapest_total"] == (200_000, 320_000)

    r = client.put(
        f"/api/v1/plans/{plan['id']}",
        json={"version": 3, "phases": [changed[0], {**CAP, "gpu": "nope"}]},
        headers=a.headers,
    )
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "phases", 1, "gpu"]


def test_quote_lines_per_phase_follow_the_phases(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    plan = _create(client, a, [dict(p) for p in schedule.T16_PHASES])
    quote = {"lines": [{"option_key": f"phase-{n}"} for n in (1, 2, 3)], "tax_rate": "0.05"}
    r = client.put(
        f"/api/v1/plans/{plan['id']}", json={"version": 1, "quote": quote}, headers=a.headers
    )
    assert r.status_code == 200, r.text
    # Lines 100,000 + 200,000 + 50,000 = 350,000 (未稅); 5 % 營業稅 17,500; 含稅 367,500
    assert r.json()["quote_totals"]["subtotal"] == "350000"
    assert r.json()["quote_totals"]["tax"] == "17500"
    assert r.json()["quote_totals"]["total"] == "367500"
    lines = r.json()["quote"]["lines"]
    assert [(x["unit_price"], x["months"]) for x in lines] == [
        ("50000", "2"),
        ("200000", "1"),
        ("50000", "1"),
    ]
    # Inference for 3 months instead of 1: its line follows (50,000 × 3 = 150,000).
    phases = r.json()["phases"]
    phases[2]["months"] = 3
    r = client.put(
        f"/api/v1/plans/{plan['id']}", json={"version": 2, "phases": phases}, headers=a.headers
    )
    assert r.status_code == 200, r.text
    assert r.json()["quote_totals"]["subtotal"] == "450000"
    assert r.json()["quote_totals"]["total"] == "472500"  # 450,000 × 1.05


def test_a_one_off_line_stays_one_when_the_phases_change(
    client: TestClient, account: MakeAccount
) -> None:
    # Installation NT$50,000 once ("item"): when the phases change and the quote's lines are
    # quoted again, it was read back with its stored months 1 and became a monthly line.
    a = account("sales")
    plan = _create(client, a, [dict(p) for p in schedule.T16_PHASES])
    quote = {"lines": [{"option_key": "phase-1"},
                       {"description": "Installation", "unit_price": "50000"}]}  # fmt: skip
    r = client.put(
        f"/api/v1/plans/{plan['id']}", json={"version": 1, "quote": quote}, headers=a.headers
    )
    assert r.status_code == 200, r.text
    phases = r.json()["phases"]
    phases[2]["months"] = 3
    r = client.put(
        f"/api/v1/plans/{plan['id']}", json={"version": 2, "phases": phases}, headers=a.headers
    )
    assert r.status_code == 200, r.text
    free = r.json()["quote"]["lines"][1]
    assert (free["description"], free["unit"], free["unit_price"]) == (
        "Installation",
        "item",
        "50000",
    )


def test_openapi_documents_phases(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    create = spec["components"]["schemas"]["PlanCreate"]["properties"]
    assert "phases" in create and "not both" in create["phases"]["description"]
    phase = spec["components"]["schemas"]["PhaseIn"]
    assert set(phase["properties"]) >= {"kind", "months", "option", "gpu", "gpu_count", "workload"}
    assert phase["properties"]["months"]["minimum"] == 1


@pytest.mark.parametrize(
    ("lang", "names"),
    [
        ("en", ["Phase 1 · LoRA fine-tuning: 1 × NVIDIA H100 SXM5 80GB",
                "Phase 2 · Full fine-tuning: 4 × NVIDIA H100 SXM5 80GB",
                "Phase 3 · Inference (serving): 1 × NVIDIA H100 SXM5 80GB", "Schedule total"]),
        ("zh-TW", ["第 1 階段 · LoRA 微調：1 × NVIDIA H100 SXM5 80GB",
                   "第 2 階段 · 全參數微調：4 × NVIDIA H100 SXM5 80GB",
                   "第 3 階段 · 推論（服務）：1 × NVIDIA H100 SXM5 80GB", "排程總計"]),
    ],
)  # fmt: skip
def test_the_explain_panel_names_each_phase_in_the_pages_language(
    client: TestClient, account: MakeAccount, lang: str, names: list[str]
) -> None:
    # Seed 003 T16's three phases; the engine's own figure names are English with the GPU's
    # catalog id ("Phase 2: 4× h100-sxm-80gb"), which the page said as they were.
    from bs4 import BeautifulSoup

    from tests.accounts.helpers import sign_in

    a = account("sales")
    plan = _create(client, a, [dict(p) for p in schedule.T16_PHASES])
    pages = TestClient(client.app)
    sign_in(pages, a.user)
    page = pages.get(f"/plans/{plan['id']}", headers={"Accept-Language": lang})
    soup = BeautifulSoup(page.text, "html.parser")
    shown = [s.get_text(strip=True) for s in soup.select("section.explain summary .fig")]
    assert shown == names
    assert not any(s.get("lang") for s in soup.select("section.explain summary .fig"))
    # Each formula is marked English only where it stays the engine's English on a page in
    # another language (it was lang="en" on every page, English ones too).
    formulas = soup.select("section.explain .formula")
    marks = {f.get("lang") for f in formulas}
    assert formulas and marks <= ({None} if lang == "en" else {None, "en"})
    # The phase builder says what its rent multiplies by: 2 months of NT$50,000 (not "× 2").
    first = soup.select_one(".phase-cost")
    assert first is not None
    said = {"en": "NT$50,000/month × 2 months", "zh-TW": "NT$50,000/月 × 2 個月"}[lang]
    assert said in " ".join(first.get_text(" ").split())


def test_a_phase_shorter_than_its_job_is_a_warning_in_the_api(
    client: TestClient, account: MakeAccount
) -> None:
    """QA: a phase whose job takes far longer than the phase carried `fits_in_phase: false`
    and no warning; the plan page marks it, an API reader was told nothing. LoRA of a 13B
    model over 5,000 GB on one pinned H100 for one month (30.4 days)."""
    a = account("sales")
    long_job = {**LORA, "dataset_gb": 5_000, "gpu": H100, "gpu_count": 1}
    p = _create(client, a, [{"kind": "workload", "workload": long_job, "months": 1}])
    phase = p["result"]["schedule"]["phases"][0]
    assert phase["fits_in_phase"] is False and phase["job_days"] > 30.4
    days = f"{phase['job_days']:,.1f}".rstrip("0").rstrip(".")
    said = (
        f"Phase 1: the job takes {days} days, longer than the phase's 30.4 days; lengthen "
        "the phase or add GPUs."
    )
    assert p["result"]["warnings"] == [said]
    assert p["result"]["notices"] == [
        {
            "template": schedule.PHASE_TOO_SHORT,
            "params": {"n": "1", "days": days, "phase_days": "30.4"},
        }
    ]
    # A phase its job fits in says nothing.
    fits = _create(client, a, [{"kind": "workload", "workload": LORA, "months": 2}])
    assert fits["result"]["schedule"]["phases"][0]["fits_in_phase"] is True
    assert fits["result"]["warnings"] == [] and fits["result"]["notices"] == []


def test_a_serving_phase_rents_its_replicas_as_the_cheapest_machines(
    client: TestClient, account: MakeAccount
) -> None:
    """A phase serving Llama 3.1 70B at int4 to 1,000 users runs 26 single-GPU replicas: as
    independent machines they rent as 3 × 8 + 2 GPUs, 3 × NT$350,000 + NT$100,000 =
    NT$1,150,000 a month (seed 003 T8), not as two 16-GPU InfiniBand clusters (2 ×
    NT$700,000 = NT$1,400,000) that a training phase's nodes would need. The single plan's
    cost table rents it so (tests/engine/test_rental_independent.py); the phase did not."""
    a = account("sales")
    serving = {"model": {"preset": "llama-3.1-70b"}, "task": "inference", "precision": "int4",
               "concurrency": 1000}  # fmt: skip
    p = _create(client, a, [{"kind": "workload", "months": 1, "option": "monthly",
                             "workload": serving}])  # fmt: skip
    (phase,) = p["result"]["schedule"]["phases"]
    assert phase["gpu_count"] == 26 and phase["billed_gpus"] == 26
    assert phase["total"] == 1_150_000
