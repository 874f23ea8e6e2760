"""Costs say what they buy (issue 10, item 1): billed quantity, rates, totals for the period.

Each case writes its hand calculation. The seed-003 list of `test_costs` (H100 offers
1/2/4/8 GPUs at NT$50k/100k/200k/350k a month, NT$120 per GPU-hour, 12 months −20 %,
AWS p5.48xlarge US$55.04/h at 32 TWD/USD) pins the arithmetic; the 24-GPU case uses the
shipped list, whose 16-GPU InfiniBand offer is two 8-GPU nodes.
"""

from __future__ import annotations

import json
import math

import pytest
from fastapi.testclient import TestClient

from app.catalog.shipped import shipped_price_book
from app.costs import presenters
from app.costs.service import CostRequest, compare
from app.engine.costs import compare_costs
from app.engine.costs.ownership import economical_holding_months
from app.engine.price_book import PriceBook
from tests.engine.test_costs import P5_2026, book, use  # noqa: F401  (book is a fixture)

H = 730.0

# (case, usage kwargs, compare kwargs, option kind, billed (unit, quantity, gpus, nodes),
#  monthly_rate, hourly_rate, total)
LABELS = [
    pytest.param(
        {"gpus": 8, "months": 12},
        {"horizon_months": 12, "term_months": 12},
        "rent_term",
        ("month", 12, 8, 1),
        280_000.0,  # T8: 350,000 × (1 − 0.20)
        None,
        3_360_000.0,  # 12 × 280,000
        id="T8 8x 12-month = NT$280,000/month, NT$3,360,000 for 12 months",
    ),
    pytest.param(
        {"gpus": 1, "months": 31.88 / 24 / (365 / 12)},
        {"horizon_months": 1},
        "rent_hourly",
        ("hour", 32, 1, 1),  # 31.88 h of work, billed by whole hours
        None,  # a job billed by the hour has no rate per month
        120.0,
        3_840.0,  # NT$120 × 32 h
        id="hourly NT$120 x 32 h for a 31.88 h job",
    ),
    pytest.param(
        {"gpus": 4, "months": 31.88 / 24 / (365 / 12)},
        {"horizon_months": 1},
        "rent_hourly",
        ("hour", 32, 4, 1),
        None,
        480.0,  # 4 × NT$120
        15_360.0,  # NT$480 × 32 h (the "每月 NT$15,303" was this total)
        id="hourly 4x NT$120 x 32 h",
    ),
    pytest.param(
        {"gpus": 4, "months": 31.88 / 24 / (365 / 12)},
        {"horizon_months": 1},
        "rent_monthly",
        ("month", 1, 4, 1),  # a monthly rental bills the whole month
        200_000.0,
        None,
        200_000.0,
        id="monthly 4x for a 1.3-day job = one month",
    ),
    pytest.param(
        {"gpus": 4, "months": 1, "hours": 365},
        {"horizon_months": 1, "pricing_mode": "capacity"},
        "rent_hourly",
        ("hour", 365, 4, 1),
        175_200.0,  # capacity: NT$480 × 365 h a month
        480.0,
        175_200.0,
        id="capacity: hourly 4x at 365 h has a rate per month",
    ),
]


@pytest.mark.parametrize(
    ("usage", "kwargs", "kind", "billed", "monthly_rate", "hourly_rate", "total"), LABELS
)
def test_every_option_says_what_it_bills(
    book: PriceBook,  # noqa: F811
    usage: dict,
    kwargs: dict,
    kind: str,
    billed: tuple,
    monthly_rate: float | None,
    hourly_rate: float | None,
    total: float,
) -> None:
    o = compare_costs(use(**usage), book, **kwargs).option(kind)
    assert o.billed is not None
    assert (o.billed.unit, o.billed.quantity, o.billed.gpus, o.billed.nodes) == billed
    assert o.monthly_rate == (pytest.approx(monthly_rate) if monthly_rate is not None else None)
    assert o.hourly_rate == (pytest.approx(hourly_rate) if hourly_rate is not None else None)
    assert o.total == pytest.approx(total)


def test_rent_for_is_the_rental_period_not_the_compute_time(book: PriceBook) -> None:  # noqa: F811
    # A 1.3-day job rented for 3 months: monthly rent pays 3 × 200,000 = 600,000; hourly rent
    # still bills the 32 h of work (NT$480 × 32 = 15,360).
    job = use(gpus=4, months=31.88 / 24 / (365 / 12))
    c = compare_costs(job, book, horizon_months=3, rent_months=3)
    monthly = c.option("rent_monthly")
    assert monthly.billed is not None and monthly.billed.quantity == 3
    assert monthly.total == pytest.approx(600_000)
    assert c.option("rent_hourly").total == pytest.approx(15_360)
    x = next(x for x in c.explain if x.figure == "Rental period")
    assert x.value == 3 and "as asked" in x.formula


def test_t10_cloud_vs_rent_like_for_like_four_gpus(book: PriceBook) -> None:  # noqa: F811
    # T10 like for like: the same 4 GPUs for a full month. p5.48xlarge per GPU-hour
    # 55.04 × 32 / 8 = NT$220.16; × 4 × 730 = NT$642,867.20 vs NT$200,000 rent = 3.21×,
    # whatever the job's length (here 1.3 days, where the totals would give ≈0.28×).
    c = compare_costs(use(gpus=4, months=31.88 / 24 / (365 / 12)), book, horizon_months=1)
    x = next(
        x
        for x in c.explain
        if x.figure.endswith("(like for like)")
        and x.figure.startswith("AWS p5.48xlarge")
        and P5_2026.price_date.isoformat() in x.figure
    )
    assert x.value == pytest.approx(642_867.2 / 200_000)
    assert x.value == pytest.approx(3.21, abs=0.01)
    assert "the same 4 GPUs for a full month" in x.formula


def test_buy_vs_rent_like_for_like_says_so(book: PriceBook) -> None:  # noqa: F811
    c = compare_costs(use(gpus=8, months=36), book, horizon_months=36)
    buy = c.option("buy")
    x = next(x for x in c.explain if x.figure.startswith("Buy") and "like for like" in x.figure)
    # full-month run-rate of the bought 8 GPUs over the 8-GPU monthly rent (T9: > 1)
    assert x.value == pytest.approx((buy.fixed_monthly + buy.metered_monthly_full) / 350_000)
    assert x.value > 1
    assert "the same 8 GPUs for a full month" in x.formula


def test_buy_states_holding_and_resale_and_is_not_economical_when_short(
    book: PriceBook,  # noqa: F811
) -> None:
    # 10-week lead time = 70 / 30.42 = 2.30 months, + 3 months (T8's shortest contract) = 5.30
    assert economical_holding_months(70) == pytest.approx(70 / (365 / 12) + 3)
    short = compare_costs(use(gpus=8, months=1), book, horizon_months=1).option("buy")
    assert short.economical is False
    assert short.note.startswith("Not economical for this period")
    assert "Held 1 month, then resold at book value" in short.note  # not "1 months"
    long = compare_costs(use(gpus=8, months=36), book, horizon_months=36)
    assert long.option("buy").economical is True
    assert "Held 36 months" in long.option("buy").note
    # an uneconomical purchase is never "cheapest"
    c = compare_costs(use(gpus=8, months=1), book, horizon_months=1)
    assert not c.cheapest.startswith("buy")


def test_24_gpu_plan_billed_three_nodes_and_labelled_so() -> None:
    # Shipped list: 24 = the 16-GPU InfiniBand offer (2 nodes of 8) + the 8-GPU offer = 3
    # nodes; 700,000 + 350,000 = NT$1,050,000 a month.
    prices = shipped_price_book()
    out = compare(CostRequest(gpu_count=24, months=1), prices=prices)
    rent = next(o for o in out["options"] if o["kind"] == "rent_monthly")
    assert rent["billed"] == {"unit": "month", "quantity": 1, "gpus": 24, "nodes": 3}
    assert rent["monthly_rate"] == pytest.approx(1_050_000)
    detail = presenters.option_detail(rent, prices)
    assert detail.startswith("24× H100")
    assert "3 nodes" in detail


def test_sdxl_batch_is_priced_by_its_hours(client: TestClient) -> None:
    # 10,000 SDXL images take hours, not a year: the plan is priced as a job, hourly rent
    # bills the whole hours of work and no option bills 12 months.
    r = client.post(
        "/api/v1/estimate",
        json={"model": {"preset": "sdxl"}, "task": "image", "images": 10_000},
    )
    assert r.status_code == 200, r.text
    body = r.json()
    cost = body["cost"]
    assert cost["pricing_mode"] == "job"
    hours = cost["months"] * 730
    assert hours < 24 * 7  # a batch of hours, not months
    hourly = next(o for o in cost["options"] if o["kind"] == "rent_hourly")
    assert hourly["billed"]["unit"] == "hour"
    assert hourly["billed"]["quantity"] == math.ceil(hours - 1e-6)
    assert hourly["total"] == pytest.approx(hourly["hourly_rate"] * hourly["billed"]["quantity"])
    assert all(
        o["billed"]["quantity"] < 12 or o["billed"]["unit"] == "hour" for o in cost["options"]
    )
    assert all("monthly" not in o for o in cost["options"])


def test_inference_is_capacity_priced_per_month(client: TestClient) -> None:
    r = client.post(
        "/api/v1/estimate",
        json={"model": {"preset": "llama-3.1-8b"}, "task": "inference", "concurrency": 32},
    )
    assert r.status_code == 200, r.text
    cost = r.json()["cost"]
    assert cost["pricing_mode"] == "capacity"
    assert all(o["monthly_rate"] is not None for o in cost["options"])


@pytest.mark.parametrize(
    ("body", "field"),
    [({"rent_months": 0}, "rent_months"), ({"pricing_mode": "forever"}, "pricing_mode")],
)
def test_bad_rental_period_is_422(client: TestClient, body: dict, field: str) -> None:
    r = client.post("/api/v1/costs", json=body)
    assert r.status_code == 422
    assert any(field in d["loc"] for d in r.json()["detail"])


def test_one_break_even_in_hint_chart_and_explain() -> None:
    # /tco defaults: 8× H100, 36 months, 80 %, 12-month contract. Every provider now rents
    # (QA H1), and /tco has no layout, so RunPod's single-GPU pods are an option: 8 × US$2.99
    # × 32 NT$/US$ (the shipped list's FX) = NT$765.44/h, below Stratagem's 8 × 120 =
    # NT$960/h. The chart draws the cheaper hourly rent and marks where the cheapest line
    # changes: RunPod's hourly rent meets the 12-month contract (NT$350,000 × 0.8 = 280,000)
    # at 280,000 / (765.44 × 730) = 0.5011 = 366 h a month. Stratagem's own hourly/contract
    # crossing, 280,000 / (960 × 730) = 0.3995, lies above RunPod's line and is not marked;
    # the hint said 40 % beside a chart that marked 50 %. The old page said 55 % (hint),
    # 40 % (chart) and 0.50 (explain).
    prices = shipped_price_book()
    req = CostRequest(gpu_count=8, months=36, utilization=0.8, term_months=12)
    cost = compare(req, prices=prices)
    view = presenters.view(cost, prices, "TWD", utilization=0.8)
    assert view is not None
    runpod_hourly = 8 * 2.99 * 32
    expected = 280_000 / (runpod_hourly * 730)
    assert view["hint"]["utilization"] == pytest.approx(expected)
    assert view["hint"]["hours"] == pytest.approx(280_000 / runpod_hourly)
    # Two providers' hourly rent are in the table: the hint says whose it is.
    assert (view["hint"]["a"], view["hint"]["b"]) == ("Hourly rent (RunPod)", "12-month contract")
    fig = json.loads(view["charts"]["utilization"])
    marker = next(tr for tr in fig["data"] if (tr.get("meta") or {}).get("role") == "break_even")
    assert expected * 100 in [pytest.approx(x) for x in marker["x"]]
    assert not any(x == pytest.approx(100 * 280_000 / (960 * 730)) for x in marker["x"])
    explained = [
        e["value"]
        for e in cost["explain"]
        if e["figure"].startswith("Break-even utilisation: 12-month contract")
        and "Hourly rent" in e["figure"]
        and "(RunPod)" in e["figure"]
    ]
    assert explained == [pytest.approx(expected)]


def test_three_gpus_are_rented_as_one_four_gpu_machine_not_three_single_ones() -> None:
    """A 3-GPU job is planned inside one NVLink node. The Taipei list rents 4× H100 as one
    machine for NT$200,000/month (seed 003 T8); three single-GPU marketplace machines add up
    to fewer GPUs but cannot hold the job, so the 4-GPU machine is the rental."""
    from app.catalog.shipped import shipped_price_book
    from app.engine.costs.rental import select_offers

    sel = select_offers(shipped_price_book(), "h100-sxm-80gb", 3, group=3)
    assert sel is not None
    assert sel.nodes == 1 and sel.gpus == 4
    assert sel.main.monthly_price == 200_000 and sel.main.currency == "TWD"


@pytest.mark.parametrize(
    ("months", "period"),
    [
        # A 2-hour job: 2 / 730 of a month ("a 0-month rental period" before, QA L6).
        (2 / H, "rental period of 2 hours"),
        # 3 days of a 30.42-day month (365 / 12): 3 / 30.42 = 0.0986 of a month.
        (3 / (365 / 12), "rental period of 3 days"),
    ],
)
def test_a_period_under_a_month_is_said_in_days_or_hours(
    book: PriceBook,  # noqa: F811
    months: float,
    period: str,
) -> None:
    c = compare_costs(use(months=months), book, horizon_months=1, term_months=12)
    monthly = c.option("rent_monthly")
    # Billed one whole month of NT$350,000 (T8 8× H100) for a period under a month.
    assert monthly.total == pytest.approx(350_000)
    assert f"Monthly rent is billed by whole months: one month for a {period}." in monthly.note
    term = c.option("rent_term")
    assert f"The 12-month contract outlasts the {period}: the unused months" in term.note
    assert "0-month" not in monthly.note + term.note


def test_one_month_of_rent_is_said_in_the_singular(book: PriceBook) -> None:  # noqa: F811
    # The same 1.3-day job on monthly rent pays one whole month: "NT$200,000/month × 1 month",
    # never "× 1 months"; a 3-month rental says "3 months as asked".
    c = compare_costs(use(gpus=4, months=31.88 / 24 / (365 / 12)), book, horizon_months=1)
    rent = next(x for x in c.option("rent_monthly").explain if x.figure.endswith(": rent"))
    assert "× 1 month =" in rent.formula and "1 months" not in rent.formula
    three = compare_costs(use(gpus=4, months=0.05), book, horizon_months=3, rent_months=3)
    x = next(x for x in three.explain if x.figure == "Rental period")
    assert x.formula.startswith("3 months as asked")


def test_a_rental_period_under_a_month_is_shown_in_days_or_hours() -> None:
    from app import i18n
    from app.planner.views import _short_period

    # 1.3-day job: 31.88 h / 730 h a month = 0.0437 months = 1.33 days (30.42 a month).
    i18n.activate("en")
    assert _short_period(31.88 / 730, "months") == "1.3 days"
    assert _short_period(5 / 730, "months") == "5 h"  # under a day: hours
    assert _short_period(3, "months") is None  # a month or more keeps its months
    i18n.activate("zh-TW")
    assert _short_period(31.88 / 730, "months") == "1.3 天"
    i18n.activate("en")


def test_min_of_one_option_evaluates() -> None:
    # QA: a comparison with one candidate explained its cheapest as `min(option_1)`, which
    # the evaluator refused ("'float' object is not iterable").
    from app.engine.expression import evaluate

    assert evaluate("min(option_1)", {"option_1": 4_266_099_763.0}) == 4_266_099_763.0
    assert evaluate("max(a)", {"a": 2.0}) == 2.0


def test_when_nothing_can_run_the_plan_the_cheapest_says_so() -> None:
    # Llama 3.1 8B full fine-tune on RTX 4090s is laid out TP4 × PP2 (8 GPUs); the shipped
    # list rents 4090s only as single-GPU pods (no NVLink): neither option can run it. None
    # is then named the cheapest (QA: 「時租 最便宜」 on a pod that cannot run the job); the
    # warning says so, and no "Cheapest option" figure is explained.
    from app.engine.estimate import estimate
    from app.engine.schemas import EstimateRequest

    r = estimate(
        EstimateRequest(model={"preset": "llama-3.1-8b"}, task="full_finetune", seq_len=4096,
                        tokens=1e9, gpu="rtx-4090-24gb"),
        prices=shipped_price_book(),
    )  # fmt: skip
    assert r.cost is not None and not any(o["feasible"] for o in r.cost["options"])
    assert any(str(w).startswith("No priced option can run this plan") for w in r.warnings)
    assert r.cost["cheapest"] is None
    assert not any(x.figure == "Cheapest option" for x in r.explain)
