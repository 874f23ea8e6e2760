"""Cost engine: seed rules as tables (each case shows its hand calculation), invariants as
hypothesis properties.

The price list is built here, not read from the shipped data files, so these tests pin the
arithmetic to seed 003's own numbers: H100 offers 0.25/1/2/4/8 GPUs at NT$15k/50k/100k/
200k/350k a month, NT$120 per GPU-hour, contract discounts {3: 0, 6: 10 %, 12: 20 %};
an 8-GPU HGX H100 at NT$12,000,000 drawing 10.2 kW; Taiwan industrial power NT$4.27/kWh at
PUE 1.58; colocation US$184.06/kW-month × 32 ≈ NT$5,900; AWS p5.48xlarge US$55.04/h (2026)
and US$98.32/h (before the June 2025 cut); 32 TWD per USD.
"""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.costs import (
    CostComparison,
    CostInputError,
    Phase,
    Usage,
    break_even_month,
    break_even_utilization,
    compare_costs,
    cost_of_delay,
    cost_per_million_tokens,
    cost_per_million_tokens_explained,
    energy_cost,
    energy_cost_explained,
    hourly_vs_monthly_crossover_hours,
    monthly_cost_at_utilization,
    monthly_kwh,
    schedule_cost,
    schedule_ratio_explained,
    select_offers,
    simple_break_even_explained,
    simple_break_even_hours,
    tco_curves,
)
from app.engine.explain import Explanation
from app.engine.price_book import (
    BuyParameters,
    CloudInstance,
    EnergyPrice,
    FxRate,
    PriceBook,
    RentalOffer,
    ServerSku,
)

H100 = "h100-sxm-80gb"
A100 = "a100-sxm-80gb"
FX = 32.0  # TWD per USD
TERMS = {3: 0.0, 6: 0.10, 12: 0.20}  # seed 003 T8
HGX_KW = 10.2  # DGX H100 maximum system power (NVIDIA DGX H100 user guide)


def _offer(oid: str, gpus: float, monthly: float, hourly: bool = True) -> RentalOffer:
    return RentalOffer(
        id=oid,
        provider="Stratagem Taipei",
        gpu_id=H100,
        gpu_count=gpus,
        monthly_price=monthly,
        hourly_price=120.0 * gpus if hourly else None,  # T8: ≈NT$120 per GPU-hour
        currency="TWD",
        term_discounts=dict(TERMS),
        interconnect="nvlink" if gpus >= 2 else "pcie",
        source="seed 003 T8",
    )


P5_2026 = CloudInstance(
    id="aws-p5.48xlarge-2026-01",
    provider="AWS",
    name="p5.48xlarge",
    region="us-east-1",
    gpu_id=H100,
    gpu_count=8,
    on_demand_hourly=55.04,
    reserved_hourly=None,
    currency="USD",
    price_date=date(2026, 1, 21),
    source="instances.vantage.sh via tsaol/aws-gpu, 2026-01-21",
)
P5_PRECUT = dataclasses.replace(
    P5_2026,
    id="aws-p5.48xlarge-2023-07",
    on_demand_hourly=98.32,
    price_date=date(2023, 7, 27),
    source="nextplatform.com 2023-07-27 (before the June 2025 cut)",
)
HGX = ServerSku(
    id="hgx-h100-8",
    name="HGX H100 8-GPU",
    gpu_id=H100,
    gpu_count=8,
    cpu_cores=112,
    ram_gb=2048,
    nvme_tb=30.0,
    nics="8 × 400G InfiniBand",
    power_kw=HGX_KW,
    price=12_000_000.0,  # T9: ≥ NT$12M
    currency="TWD",
    lead_time_weeks=10.0,  # T9: 8–12 weeks
)
TAIWAN = EnergyPrice(
    id="tw-industrial-2025",
    region="Taiwan",
    tariff_per_kwh=4.27,  # Taiwan industrial rate 2025 (Taiwan News)
    pue=1.58,  # Uptime Institute 2023 industry average
    colo_per_kw_month=5900.0,  # CBRE NA H2 2024 US$184.06/kW-month × 32
    currency="TWD",
)


def seed003_book(**changes: object) -> PriceBook:
    """The seed 003 price list (also used by benchmarks/bench_costs.py)."""
    book = PriceBook(
        name="seed 003 test list",
        effective_date=date(2026, 1, 21),
        currency="TWD",
        offers=(
            _offer("h100-mig-1g", 0.25, 15_000.0, hourly=False),
            _offer("h100-1x", 1, 50_000.0),
            _offer("h100-2x", 2, 100_000.0),
            _offer("h100-4x", 4, 200_000.0),
            _offer("h100-8x", 8, 350_000.0),
        ),
        cloud=(P5_2026, P5_PRECUT),
        servers=(HGX,),
        energy=(TAIWAN,),
        buy=BuyParameters(),  # 3 years, 8 %/yr maintenance, 10 % residual, 5 % + 15 % extras
        fx=(FxRate("USD", "TWD", FX, date(2026, 1, 21)),),
    )
    return dataclasses.replace(book, **changes)  # type: ignore[arg-type]


@pytest.fixture
def book() -> PriceBook:
    return seed003_book()


def use(
    gpus: float = 8,
    hours: float = 730,
    months: float = 12,
    power_kw: float = HGX_KW,
    storage: float = 0.0,
    gpu: str = H100,
) -> Usage:
    return Usage(gpu, gpus, hours, months, power_kw, storage)


def by_key(c: CostComparison) -> dict[str, float]:
    return {o.key: o.total for o in c.options}


# ------------------------------------------------------------------------------ purity


def test_engine_imports_no_web_or_db_framework() -> None:
    """STYLE.md: app/engine is pure; importing the cost engine pulls in no framework."""
    code = (
        "import sys, app.engine.costs, app.engine.explain; "
        "bad = [m for m in ('fastapi', 'sqlmodel', 'jinja2', 'plotly', 'sqlalchemy') "
        "if m in sys.modules]; print(','.join(bad))"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


# ---------------------------------------------------------------------------- T8 rent

T8_MONTHLY = [
    # (GPUs, kind, NT$/month, offers used) — seed 003 T8 price list
    pytest.param(0.25, "mig", 15_000, ["h100-mig-1g"], id="T8 MIG 1/4 = NT$15,000"),
    pytest.param(1, "rent_monthly", 50_000, ["h100-1x"], id="T8 1×H100 = NT$50,000"),
    pytest.param(2, "rent_monthly", 100_000, ["h100-2x"], id="T8 2× = NT$100,000"),
    # 3 independent GPUs (no group to keep in one machine): 2× + 1× = NT$100,000 + 50,000
    # = NT$150,000, under the 4-GPU machine's NT$200,000 (a 3-GPU job: the next test)
    pytest.param(3, "rent_monthly", 150_000, ["h100-2x", "h100-1x"], id="T8 3 GPUs = 2× + 1×"),
    pytest.param(4, "rent_monthly", 200_000, ["h100-4x"], id="T8 4× = NT$200,000"),
    pytest.param(8, "rent_monthly", 350_000, ["h100-8x"], id="T8 8× = NT$350,000"),
    # 12 = 8 + 4: NT$350,000 + NT$200,000 = NT$550,000 (fewer GPUs than 2 × 8)
    pytest.param(12, "rent_monthly", 550_000, ["h100-8x", "h100-4x"], id="12 = 8 + 4"),
    # 16 = 2 × 8: 2 × NT$350,000 = NT$700,000 (T1/FAQ: nodes × single-node price)
    pytest.param(16, "rent_monthly", 700_000, ["h100-8x"], id="16 = 2 × 8"),
]


@pytest.mark.parametrize(("gpus", "kind", "monthly", "offers"), T8_MONTHLY)
def test_t8_monthly_rent(
    book: PriceBook, gpus: float, kind: str, monthly: float, offers: list[str]
) -> None:
    c = compare_costs(use(gpus=gpus, months=1), book, horizon_months=1)
    option = c.option(kind)
    assert option.monthly_rate == pytest.approx(monthly)
    assert option.source_ids == offers
    assert option.breakdown == {"rent": pytest.approx(monthly)}


def test_three_gpus_that_share_a_machine_rent_the_four_gpu_one(book: PriceBook) -> None:
    # A 3-GPU training job keeps its GPUs in one NVLink machine (gpus_per_machine_min 3):
    # of T8's offers only the 4× (NT$200,000) and 8× hold it; the 4× is cheaper.
    usage = replace(use(gpus=3, months=1), gpus_per_machine_min=3)
    option = compare_costs(usage, book, horizon_months=1).option("rent_monthly")
    assert option.monthly_rate == pytest.approx(200_000)
    assert option.source_ids == ["h100-4x"]


def test_a_multi_offer_rental_counts_nodes_not_offers_and_groups_its_offers() -> None:
    # The shipped list rents H100 as 16-GPU (2-node) and 8-GPU offers. 16,384 GPUs are
    # 1,024 × 16 = 2,048 nodes of 8; the note said "1024 nodes" and the name listed
    # "16 + 16 + …" 1,024 times. 24 GPUs are 16 + 8: 2 offers, 3 nodes.
    from app.catalog.shipped import shipped_price_book

    prices = shipped_price_book()
    for gpus, name, nodes in (
        (16_384, "16,384× h100-sxm-80gb as 1,024 × 16 GPUs", "2,048 nodes, rented as 1,024 offers"),
        (24, "24× h100-sxm-80gb as 16 + 8 GPUs", "3 nodes, rented as 2 offers"),
    ):
        c = compare_costs(use(gpus=gpus, months=1), prices, horizon_months=1)
        option = c.option("rent_monthly")
        assert name in option.label
        assert option.note.startswith(nodes)


T8_TERM = [
    # (GPUs, contract months, NT$/month) — T8: 3 months list, 6 months −10 %, 12 months −20 %
    pytest.param(8, 12, 280_000, id="T8 8× 12 months: 350,000 × (1 − 0.20) = 280,000"),
    pytest.param(8, 6, 315_000, id="T8 8× 6 months: 350,000 × (1 − 0.10) = 315,000"),
    pytest.param(8, 3, 350_000, id="T8 8× 3 months: list price"),
    pytest.param(8, 24, 280_000, id="24 months: largest tier ≤ 24 is 12 → −20 %"),
    pytest.param(1, 12, 40_000, id="1× 12 months: 50,000 × 0.8 = 40,000"),
]


@pytest.mark.parametrize(("gpus", "term", "monthly"), T8_TERM)
def test_t8_term_rent(book: PriceBook, gpus: float, term: int, monthly: float) -> None:
    c = compare_costs(use(gpus=gpus, months=term), book, horizon_months=term, term_months=term)
    option = c.option("rent_term")
    assert option.monthly_rate == pytest.approx(monthly)
    assert option.total == pytest.approx(monthly * term)


def test_t8_term_formula_substitutes_the_numbers(book: PriceBook) -> None:
    c = compare_costs(use(months=12), book, horizon_months=12)
    formulas = [x.formula for x in c.option("rent_term").explain]
    assert (
        "NT$350,000 (h100-8x) × (1 − 0.2) = NT$280,000/month (12-month tier, 20% off)"
        in (formulas[0])
    )


def test_default_term_is_the_need_and_skipped_without_discount(book: PriceBook) -> None:
    # need 12 months -> 12-month tier (−20 %); need 4 months -> 3-month tier at list: no term
    assert compare_costs(use(months=12), book, horizon_months=12).option("rent_term")
    kinds = {o.kind for o in compare_costs(use(months=4), book, horizon_months=4).options}
    assert "rent_term" not in kinds


def test_term_longer_than_need_is_paid_in_full(book: PriceBook) -> None:
    # 12-month contract for a 4-month need: 12 × 280,000 = 3,360,000 (within a 12-month horizon)
    c = compare_costs(use(months=4), book, horizon_months=12, term_months=12)
    term = c.option("rent_term")
    assert term.total == pytest.approx(12 * 280_000)
    # the rate is the contract's, NT$350,000 × 0.8; the 3,360,000 is the total, not "monthly"
    assert term.monthly_rate == pytest.approx(280_000)
    assert term.billed is not None and (term.billed.unit, term.billed.quantity) == ("month", 12)
    assert "outlasts" in term.note


def test_a_contract_billing_past_the_need_has_no_break_even(book: PriceBook) -> None:
    # QA: a 4-month need on a 12-month contract (280,000 × 12 = 3,360,000) against monthly
    # rent (350,000 × 4 = 1,400,000). The contract's payments pass monthly rent's in month
    # 1,400,000 / 280,000 = 5, after the need has ended: no break-even ("the contract stops
    # being cheaper than monthly rent in month 5" of a contract dearer from the start).
    c = compare_costs(use(months=4), book, horizon_months=12, term_months=12)
    term, monthly = c.option("rent_term"), c.option("rent_monthly")
    assert (term.total, monthly.total) == pytest.approx((3_360_000, 1_400_000))
    be = next(b for b in c.break_even if {b.a, b.b} == {term.key, monthly.key})
    assert be.month is None and not be.note
    # Over a need as long as the horizon the same pair never crosses: the contract stays
    # below monthly rent every month.
    c = compare_costs(use(months=12), book, horizon_months=12, term_months=12)
    assert all(b.month is None for b in c.break_even if "rent_term" in b.a + b.b)


T8_CROSSOVER = [
    # T8: NT$50,000 / NT$120 = 416.67 h ("hourly beats monthly below ≈400 h/month")
    pytest.param("h100-1x", 50_000 / 120, id="T8 1×: 50,000 / 120 = 416.7 h"),
    # the 8-GPU offer carries a volume discount: 350,000 / (8 × 120) = 364.6 h
    pytest.param("h100-8x", 350_000 / 960, id="8×: 350,000 / 960 = 364.6 h"),
]


@pytest.mark.parametrize(("offer_id", "hours"), T8_CROSSOVER)
def test_t8_hourly_vs_monthly_crossover(book: PriceBook, offer_id: str, hours: float) -> None:
    offer = next(o for o in book.offers if o.id == offer_id)
    assert hourly_vs_monthly_crossover_hours(offer) == pytest.approx(hours)


def test_t8_crossover_comes_out_of_the_comparison(book: PriceBook) -> None:
    c = compare_costs(use(gpus=1), book, horizon_months=12)
    hourly, monthly = c.option("rent_hourly"), c.option("rent_monthly")
    # break-even utilisation = 50,000 / (120 × 730) = 50,000 / 87,600 = 0.5708 (≈417 of 730 h)
    u = break_even_utilization(hourly, monthly)
    assert u is not None
    assert u == pytest.approx(50_000 / 87_600)
    assert u * 730 == pytest.approx(416.67, abs=0.01)
    crossover = next(x for x in c.explain if x.figure == "Hourly vs monthly rent crossover")
    assert crossover.value == pytest.approx(416.67, abs=0.01)
    # at 400 h hourly is cheaper (48,000 < 50,000); at 450 h monthly is (54,000 > 50,000)
    assert monthly_cost_at_utilization(hourly, 400 / 730) == pytest.approx(48_000)
    assert monthly_cost_at_utilization(hourly, 450 / 730) == pytest.approx(54_000)


def test_t8_hourly_rent_scales_with_hours(book: PriceBook) -> None:
    # 8 × NT$120 × 365 h = NT$350,400/month
    c = compare_costs(use(), book, horizon_months=12, utilization=0.5, pricing_mode="capacity")
    assert c.hours_per_month == pytest.approx(365)
    assert c.option("rent_hourly").monthly_rate == pytest.approx(350_400)
    assert c.option("rent_monthly").monthly_rate == pytest.approx(350_000)  # flat


def test_mig_slice_has_no_hourly_rent_and_cloud_pays_whole_instance(book: PriceBook) -> None:
    c = compare_costs(use(gpus=0.25, power_kw=0.4), book, horizon_months=12)
    kinds = [o.kind for o in c.options]
    assert "mig" in kinds
    assert "rent_hourly" not in kinds  # the slice is not rented by the hour in this list
    assert "Pays for 8 GPUs to use 0.25" in c.option("cloud").note


def test_multi_node_rent_says_it_is_quoted_per_project(book: PriceBook) -> None:
    c = compare_costs(use(gpus=16, power_kw=20.4), book, horizon_months=12)
    assert "2 nodes" in c.option("rent_monthly").note


# ----------------------------------------------------------------------------- T7 power


def test_t7_energy_7200_kwh() -> None:
    # T7's 7,200 kWh is an 8-GPU machine at 10 kW for 720 h: 10 × 720 = 7,200 kWh
    assert monthly_kwh(10, 720) == 7_200
    # honest figure at the 2025 industrial tariff, IT load only (PUE 1): 7,200 × 4.27 = 30,744
    bill = energy_cost(7_200, 4.27)
    assert bill == pytest.approx(30_744)
    # seed says NT$25,000–30,000 (= 3.47–4.17 NT$/kWh); 30,744 is 2.5 % above its top
    assert 25_000 / 7_200 == pytest.approx(3.47, abs=0.01)
    assert 30_000 / 7_200 == pytest.approx(4.17, abs=0.01)
    assert bill / 30_000 == pytest.approx(1.0248, abs=1e-4)
    assert bill <= 30_000 * 1.03
    # with the facility overhead (PUE 1.58): 7,200 × 1.58 × 4.27 = 48,575.52
    assert energy_cost(7_200, 4.27, pue=1.58) == pytest.approx(48_575.52)


def test_t7_energy_explained() -> None:
    x = energy_cost_explained(7_200, 4.27, "TWD")
    assert (x.figure, x.unit) == ("Electricity", "TWD")
    assert x.value == pytest.approx(30_744)
    assert x.formula == "7,200 kWh × NT$4.27/kWh = NT$30,744"
    assert "T7" in x.source


# ---------------------------------------------------------------------------- T9 buying


def test_t9_three_year_amortised_buy_above_400k_and_above_rent(book: PriceBook) -> None:
    c = compare_costs(use(months=36), book, horizon_months=36)
    buy = c.option("buy")
    # capex: 12,000,000 + 5 % install 600,000 + 15 % network/storage 1,800,000 = 14,400,000
    assert buy.upfront == pytest.approx(14_400_000)
    # Each figure rounded once to whole NT$, half up, and the sums taken from the rounded:
    # power: 10.2 kW × 730 h × 1.58 × 4.27 = 50,235.18 → NT$50,235/month
    # colo: 10.2 kW × 5,900 = 60,180/month
    # maintenance: 8 % × (12,000,000 + 1,800,000) / 12 = 92,000/month
    # residual: 10 % × 13,800,000 = 1,380,000 back after 36 months
    # (14,400,000 − 1,380,000) / 36 = 361,666.67 → 361,667 + 50,235 + 60,180 + 92,000 = 564,082
    assert buy.breakdown["power"] == 36 * 50_235 == 1_808_460
    assert buy.breakdown["facility"] == pytest.approx(36 * 60_180)
    assert buy.breakdown["maintenance"] == pytest.approx(36 * 92_000)
    assert buy.breakdown["residual"] == pytest.approx(-1_380_000)
    assert buy.monthly_rate == pytest.approx(564_082)
    assert buy.fixed_monthly + buy.metered_monthly_full == pytest.approx(564_082)
    assert buy.monthly_rate > 400_000  # T9: "> NT$400,000/month"
    assert buy.monthly_rate > c.option("rent_monthly").monthly_rate == pytest.approx(350_000)
    assert 8 * 7 <= buy.lead_time_days <= 12 * 7  # T9: 8–12 weeks


def test_t9_seed_framing_without_extras(book: PriceBook) -> None:
    # The seed's own arithmetic: 12M / 36 = 333,333.33 → NT$333,333 + power 50,235.18 →
    # NT$50,235 + colo 60,180 = 443,748 (each part rounded once to whole NT$)
    bare = BuyParameters(
        maintenance_pct_per_year=0, residual_pct=0, install_pct=0, network_storage_pct=0
    )
    c = compare_costs(use(months=36), seed003_book(buy=bare), horizon_months=36)
    assert c.option("buy").monthly_rate == 333_333 + 50_235 + 60_180
    assert c.option("buy").monthly_rate > 400_000


def test_t9_staff_is_a_monthly_part(book: PriceBook) -> None:
    staff = dataclasses.replace(book.buy, staff_per_month=30_000)
    c = compare_costs(use(months=36), seed003_book(buy=staff), horizon_months=36)
    assert c.option("buy").breakdown["staff"] == pytest.approx(36 * 30_000)


def test_t9_cost_of_delay_is_in_the_note_not_the_total(book: PriceBook) -> None:
    # 70 days / (365 / 12) = 2.301 months × 350,000 = 805,479
    assert cost_of_delay(70, 350_000) == pytest.approx(805_479.45, abs=0.01)
    c = compare_costs(use(months=36), book, horizon_months=36)
    buy = c.option("buy")
    assert "NT$805,479" in buy.note
    assert "delay" not in buy.breakdown
    x = next(x for x in buy.explain if x.figure.startswith("Cost of delay"))
    assert x.value == 805_479  # the figure as printed, rounded once
    # Printed as it multiplies out: 70 × 350,000 × 12 / 365 = 805,479.45 (QA: "2.3 months ×
    # NT$700,000 = NT$1,610,959" did not, the months being 2.3014 printed to a tenth).
    assert x.formula == "70 days × NT$350,000/month × 12 / 365 days = NT$805,479"
    assert "≈NT$805,479 (70 days at NT$350,000 a month)" in buy.note


def test_buy_colocation_pays_the_rack_not_the_draw(book: PriceBook) -> None:
    # 4 GPUs drawing 5 kW still occupy an 8-GPU server rated 10.2 kW: 10.2 × 5,900 = 60,180
    c = compare_costs(use(gpus=4, power_kw=5), book, horizon_months=12)
    assert c.option("buy").breakdown["facility"] == pytest.approx(12 * 60_180)
    assert "Buys 8 GPUs to cover 4" in c.option("buy").note


def test_buy_resale_before_full_amortisation(book: PriceBook) -> None:
    # after 12 of 36 months: 13,800,000 × (1 − 0.9 × 12 / 36) = 9,660,000 back
    c = compare_costs(use(months=12), book, horizon_months=12)
    assert c.option("buy").breakdown["residual"] == pytest.approx(-9_660_000)


# ----------------------------------------------------------------------------- T10 cloud

T10_CLOUD = [
    # (instance, FX, NT$/month) — 730 h × price × FX
    # PRODUCT.md §4: 55.04 × 730 = 40,179.2 USD × 32 = NT$1,285,734.4
    pytest.param(P5_2026.id, 32.0, 1_285_734.4, id="T10 2026 price: 55.04×730×32 ≈ 1.29M"),
    # T10's NT$2.22M: 98.32 × 730 = 71,773.6 USD × 31 = NT$2,224,981.6
    pytest.param(P5_PRECUT.id, 31.0, 2_224_981.6, id="T10 pre-cut: 98.32×730×31 ≈ 2.22M"),
    # the same pre-cut price at 32 TWD/USD: 71,773.6 × 32 = NT$2,296,755.2
    pytest.param(P5_PRECUT.id, 32.0, 2_296_755.2, id="pre-cut at 32: ≈ 2.30M"),
]


@pytest.mark.parametrize(("instance", "fx", "monthly"), T10_CLOUD)
def test_t10_p5_full_month(instance: str, fx: float, monthly: float) -> None:
    book = seed003_book(fx=(FxRate("USD", "TWD", fx, date(2026, 1, 21)),))
    c = compare_costs(use(months=1), book, horizon_months=1, pricing_mode="capacity")
    assert c.option(f"cloud:{instance}").monthly_rate == pytest.approx(monthly)


def test_t10_seed_figure_implies_31_twd_per_usd() -> None:
    # 2,220,000 / (98.32 × 730) = 2,220,000 / 71,773.6 = 30.93 TWD/USD
    assert 2_220_000 / (98.32 * 730) == pytest.approx(30.93, abs=0.01)


def test_t10_cloud_vs_rent_ratio(book: PriceBook) -> None:
    # PRODUCT.md §4: 1,285,734 / 350,000 = 3.67× the bare-metal rent
    c = compare_costs(use(months=1), book, horizon_months=1, pricing_mode="capacity")
    ratio = c.option(f"cloud:{P5_2026.id}").monthly_rate / c.option("rent_monthly").monthly_rate
    assert ratio == pytest.approx(3.67, abs=0.01)
    x = next(x for x in c.explain if x.figure.endswith("(like for like)") and "2026" in x.figure)
    assert x.value == pytest.approx(ratio)
    # 55.04 × 32 / 8 = NT$220.16 per GPU-hour × 8 × 730 = NT$1,285,734
    assert x.formula == (
        "like for like — the same 8 GPUs for a full month (730 h): NT$220.16/GPU-h × 8 GPUs "
        "× 730 h = NT$1,285,734 vs NT$350,000 rent = 3.67×"
    )


def test_t10_over_400_hours_for_3_months_bare_metal_wins(book: PriceBook) -> None:
    # 400 h × 3 months, 8 GPUs: cloud 55.04 × 400 × 32 = 704,512/month; hourly rent
    # 960 × 400 = 384,000; monthly rent 350,000 -> the monthly rent is cheapest
    c = compare_costs(use(hours=400, months=3), book, horizon_months=3, pricing_mode="capacity")
    assert c.option(f"cloud:{P5_2026.id}").monthly_rate == pytest.approx(704_512)
    assert c.option("rent_hourly").monthly_rate == pytest.approx(384_000)
    assert c.cheapest == "rent_monthly:h100-8x"


def test_old_cloud_price_is_flagged(book: PriceBook) -> None:
    c = compare_costs(use(), book, horizon_months=12)
    assert any("2023-07-27" in w for w in c.warnings)


def test_cloud_reserved_paid_for_every_hour_of_a_year() -> None:
    reserved = dataclasses.replace(P5_2026, reserved_hourly=40.0)
    book = seed003_book(cloud=(reserved,))
    c = compare_costs(use(months=4), book, horizon_months=12, utilization=0.5)
    r = c.option("cloud_reserved")
    # 40 × 730 × 32 = 934,400/month for 12 months (1-year commitment) = 11,212,800
    assert r.total == pytest.approx(11_212_800)
    assert "12-month commitment" in r.note
    # on demand vs reserved per month: 55.04 × 730 u = 40 × 730 -> u = 40 / 55.04 = 0.727
    u = break_even_utilization(c.option("cloud"), r)
    assert u == pytest.approx(40 / 55.04)


# ------------------------------------------------------------------- T13 storage share

T13_CASES = [
    # 1×H100 for 12 months, cheapest = 12-month contract at 40,000/month
    # 5,000 / (40,000 + 5,000) = 11.1 % < 15 % -> warning
    pytest.param(5_000, 5_000 / 45_000, True, id="T13 5k of 45k = 11.1% warns"),
    # 10,000 / (40,000 + 10,000) = 20 % -> no warning
    pytest.param(10_000, 10_000 / 50_000, False, id="T13 10k of 50k = 20% ok"),
]


@pytest.mark.parametrize(("storage", "share", "warns"), T13_CASES)
def test_t13_storage_network_share(
    book: PriceBook, storage: float, share: float, warns: bool
) -> None:
    c = compare_costs(use(gpus=1, power_kw=1.5, storage=storage), book, horizon_months=12)
    assert c.cheapest == "rent_term:h100-1x"
    assert c.storage_network_share == pytest.approx(share)
    assert any("T13" in w for w in c.warnings) is warns


def test_t13_nothing_budgeted_warns(book: PriceBook) -> None:
    c = compare_costs(use(gpus=1, power_kw=1.5), book, horizon_months=12)
    assert c.storage_network_share is None
    # Named: the cheapest option's price holds none (a purchase prices them as capex).
    cheapest = next(o for o in c.options if o.key == c.cheapest)
    assert f"The cheapest option ({cheapest.label}) prices no storage or network" in "".join(
        c.warnings
    )


# -------------------------------------------------------------------- T16 mixed schedule


def test_t16_phased_rental_costs_about_half_of_four_gpus_from_day_one(book: PriceBook) -> None:
    phased = schedule_cost(
        [
            Phase(H100, 1, 2, 730, "LoRA on 1×H100"),  # 2 × 50,000 = 100,000
            Phase(H100, 4, 1, 730, "Full fine-tune on 4×H100"),  # 1 × 200,000 = 200,000
            Phase(H100, 1, 1, 730, "Inference on 1×H100"),  # 1 × 50,000 = 50,000
        ],
        book,
    )
    # 100,000 + 200,000 + 50,000 = 350,000 over 4 months (< NT$400,000, T16)
    assert phased.total == pytest.approx(350_000)
    assert phased.total < 400_000
    assert phased.cumulative == pytest.approx([0, 50_000, 100_000, 300_000, 350_000])
    # 4 GPUs from day one: 4 × 200,000 = 800,000 (the 3-month tier is list price)
    day_one = schedule_cost([Phase(H100, 4, 4, 730, "4×H100 from day one")], book)
    assert day_one.total == pytest.approx(800_000)
    # 800,000 / 350,000 = 2.29 — T16's "nearly twice as much"
    ratio = day_one.total / phased.total
    assert 1.8 <= ratio <= 2.3
    x = schedule_ratio_explained(phased, day_one, "4 GPUs from day one vs phased")
    assert x.formula.startswith("NT$800,000 / NT$350,000 = 2.29×")


def test_schedule_bills_a_light_phase_by_the_hour(book: PriceBook) -> None:
    # 100 h/month on 1 GPU: 120 × 100 = 12,000 < 50,000 -> hourly
    s = schedule_cost([Phase(H100, 1, 3, 100, "evaluation")], book)
    assert s.phases[0].kind == "rent_hourly"
    assert s.total == pytest.approx(36_000)


def test_schedule_long_phase_gets_term_discount(book: PriceBook) -> None:
    # 12 months on 1 GPU: 50,000 × 0.8 × 12 = 480,000
    s = schedule_cost([Phase(H100, 1, 12)], book)
    assert s.phases[0].kind == "rent_term"
    assert s.total == pytest.approx(480_000)


def test_schedule_phase_options_bill_as_chosen(book: PriceBook) -> None:
    """Each phase's pricing option (T8 prices: 1×H100 NT$50,000/month, NT$120/h; 3 months
    list, 6 months −10 %, 12 months −20 %)."""
    # contract, 12 months: 50,000 × (1 − 0.2) = 40,000/month × 12 = 480,000
    c = schedule_cost([Phase(H100, 1, 12, option="contract")], book)
    assert (c.phases[0].kind, c.phases[0].term_months) == ("rent_term", 12)
    assert c.total == pytest.approx(480_000)
    # contract, 3 months: the 3-month tier is list price: 50,000 × 3 = 150,000, still a term
    c3 = schedule_cost([Phase(H100, 1, 3, option="contract")], book)
    assert (c3.phases[0].kind, c3.phases[0].term_months) == ("rent_term", 3)
    assert c3.total == pytest.approx(150_000)
    # monthly, 12 months: no contract, 50,000 × 12 = 600,000
    m = schedule_cost([Phase(H100, 1, 12, option="monthly")], book)
    assert (m.phases[0].kind, m.total) == ("rent_monthly", pytest.approx(600_000))
    # hourly even where monthly is cheaper: 120 × 730 = 87,600/month × 2 = 175,200
    h = schedule_cost([Phase(H100, 1, 2, option="hourly")], book)
    assert h.phases[0].kind == "rent_hourly"
    assert h.total == pytest.approx(175_200)
    assert h.phases[0].hours == pytest.approx(1_460)  # 730 h × 2 months
    # 3 GPUs kept in one machine rent as the 4-GPU one (T8: NT$200,000/month); 3
    # independent ones as 2× + 1× (NT$100,000 + 50,000)
    three = schedule_cost([Phase(H100, 3, 1, option="monthly", gpus_per_machine_min=3)], book)
    assert three.phases[0].gpus == 4 and three.total == pytest.approx(200_000)
    apart = schedule_cost([Phase(H100, 3, 1, option="monthly")], book)
    assert apart.phases[0].gpus == 3 and apart.total == pytest.approx(150_000)


def test_schedule_refuses_a_contract_shorter_than_the_shortest_tier(book: PriceBook) -> None:
    with pytest.raises(CostInputError) as e:
        schedule_cost([Phase(H100, 1, 1), Phase(H100, 1, 2, option="contract")], book)
    assert e.value.field == "phases[1].option"
    with pytest.raises(CostInputError) as e:
        schedule_cost([Phase(H100, 1, 2, option="yearly")], book)
    assert e.value.field == "phases[0].option"


# ---------------------------------------------------------------------- U4 rent vs buy


def test_u4_a100_rent_vs_buy_hand_calculation() -> None:
    # 17,000 / 1.50 = 11,333.3 h; / 730 h = 15.53 months at 100 % use
    hours = simple_break_even_hours(17_000, 1.50)
    assert hours == pytest.approx(11_333.33, abs=0.01)
    assert hours / 730 == pytest.approx(15.53, abs=0.01)
    x = simple_break_even_explained(17_000, 1.50, "USD")
    assert x.formula == "US$17,000 / (US$1.50/h) = 11,333 h = 15.5 months at 730 h/month"


def test_u4_break_even_month_from_the_curves() -> None:
    # Same case through compare_costs: a US$ list with a 1×A100 at US$1.50/h (monthly
    # 1.50 × 730 = 1,095) and a bare US$17,000 purchase (no power, colo, extras, resale):
    # 17,000 / 1,095 = 15.53 months
    offer = RentalOffer("a100-1x", "seed 000", A100, 1, 1_095.0, 1.50, "USD")
    server = ServerSku("a100-card", "A100 80GB", A100, 1, 16, 256, 2, "-", 0.4, 17_000, "USD")
    free = EnergyPrice("free", "none", 0.0, 1.0, 0.0, "USD")
    bare = BuyParameters(
        amortisation_years=3,
        maintenance_pct_per_year=0,
        residual_pct=0,
        install_pct=0,
        network_storage_pct=0,
        currency="USD",
    )
    book = PriceBook("U4", date(2026, 1, 1), "USD", (offer,), (), (server,), (free,), bare)
    usage = use(gpus=1, months=24, power_kw=0.4, gpu=A100)
    c = compare_costs(usage, book, horizon_months=24, currency="USD")
    be = next(b for b in c.break_even if {b.a, b.b} == {"rent_hourly:a100-1x", "buy:a100-card"})
    assert be.a == "rent_hourly:a100-1x"  # renting is cheaper first
    assert be.month == pytest.approx(17_000 / 1_095, abs=1e-6)


# --------------------------------------------------------------- U8 tokens, break-even


def test_u8_cost_per_million_tokens() -> None:
    # NT$50,000 / (2,000 tok/s × 3,600 × 730 × 0.5 / 10^6 = 2,628M tokens) = NT$19.03
    assert cost_per_million_tokens(50_000, 2_000, 0.5) == pytest.approx(19.03, abs=0.01)
    x = cost_per_million_tokens_explained(50_000, 2_000, 0.5, "TWD")
    assert x.formula == (
        "NT$50,000/month / (2,000 tokens/s × 3,600 s × 730 h × 0.5 / 10^6 = 2,628M tokens) = NT$19.03"
    )


def test_u8_on_prem_vs_cloud_break_even(book: PriceBook) -> None:
    # Buy 14,400,000 upfront + 202,415.18/month (power 50,235 + colo 60,180 + maint 92,000)
    # vs p5 on demand at 100 %:
    #   2026: 14,400,000 / (1,285,734.4 − 202,415.18) = 13.29 months
    #   pre-cut at 32: 14,400,000 / (2,296,755.2 − 202,415.18) = 6.88 months — seed 000 U8's
    #   "≈6 months" holds for the old price, not the 2026 one
    c = compare_costs(use(months=60), book, horizon_months=60)
    found = {(b.a, b.b): b.month for b in c.break_even}
    assert found[(f"cloud:{P5_2026.id}", "buy:hgx-h100-8")] == pytest.approx(13.29, abs=0.01)
    assert found[(f"cloud:{P5_PRECUT.id}", "buy:hgx-h100-8")] == pytest.approx(6.88, abs=0.01)
    # buy never catches the 350,000 rent within 5 years (14.4M / 147,585 = 97.6 months)
    assert found[("rent_monthly:h100-8x", "buy:hgx-h100-8")] is None


def test_break_even_caused_by_resale_says_so(book: PriceBook) -> None:
    # 12 months, 8 GPUs: hourly rent 700,800/month; buying costs 14.4M + 12 × 202,415 but
    # gets 9,660,000 back in month 12, so the curves cross only in that month
    c = compare_costs(use(months=12), book, horizon_months=12)
    be = next(b for b in c.break_even if b.b == "buy:hgx-h100-8" and "hourly" in b.a)
    # the month of the sale itself (QA H2), not 11.x interpolated across the one-off sale
    assert be.month == 12
    assert "resold" in be.note


# -------------------------------------------------------------------- TCO, currency, misc


def test_tco_curves_stack_by_year(book: PriceBook) -> None:
    c = compare_costs(use(months=60), book, horizon_months=60)
    curves = {t.key: t for t in tco_curves(c)}
    buy = curves["buy:hgx-h100-8"]
    assert buy.months == [12, 24, 36, 48, 60]
    assert buy.parts["capex"] == pytest.approx([12_600_000] * 5)  # servers + install
    assert buy.parts["operations"][0] == pytest.approx(12 * 92_000)  # maintenance (no staff)
    # Year N is the cost of an N-year need (QA H3): the hardware (13,800,000) sold at book
    # value at the end of year N, straight line to 10 % over 3 years (seed 003 T9):
    # 13.8M × (1 − 0.9 × 12/36) = 9,660,000; × (1 − 0.9 × 24/36) = 5,520,000; then 10 %.
    assert buy.parts["residual"] == pytest.approx(
        [-9_660_000, -5_520_000, -1_380_000, -1_380_000, -1_380_000]
    )
    # Year 5 is the 60-month comparison's own total, its resale in month 60 included.
    assert buy.total[-1] == pytest.approx(c.option("buy").total)
    for t in curves.values():
        assert [sum(p[j] for p in t.parts.values()) for j in range(5)] == pytest.approx(t.total)
    assert curves["rent_monthly:h100-8x"].total == pytest.approx(
        [350_000 * m for m in (12, 24, 36, 48, 60)]
    )
    with pytest.raises(CostInputError, match="years"):
        tco_curves(compare_costs(use(months=36), book, horizon_months=36))


def test_currency_round_trip(book: PriceBook) -> None:
    twd = compare_costs(use(), book, horizon_months=12)
    usd = compare_costs(use(), book, horizon_months=12, currency="USD", pricing_mode="capacity")
    assert {o.currency for o in usd.options} == {"USD"}
    for a, b in zip(twd.options, usd.options, strict=True):
        assert a.key == b.key
        assert book.convert(b.total, "USD", "TWD") == pytest.approx(a.total)
    assert book.convert(book.convert(350_000, "TWD", "USD"), "USD", "TWD") == pytest.approx(350_000)
    # US$55.04/h stays US$55.04/h: 55.04 × 730 = 40,179.20
    assert usd.option(f"cloud:{P5_2026.id}").monthly_rate == pytest.approx(40_179.2)


def test_rent_without_power_adds_electricity(book: PriceBook) -> None:
    dry = tuple(dataclasses.replace(o, includes_power=False) for o in book.offers)
    c = compare_costs(use(months=1), seed003_book(offers=dry), horizon_months=1)
    # 10.2 kW × 730 h × 1.58 × 4.27 = 50,235.18 → NT$50,235 a month, rounded once
    assert c.option("rent_monthly").breakdown["power"] == 50_235


def test_every_option_is_explained(book: PriceBook) -> None:
    c = compare_costs(use(storage=20_000), book, horizon_months=24, utilization=0.7)
    for o in c.options:
        assert o.explain, o.key
        for x in o.explain:
            assert isinstance(x, Explanation)
            assert x.formula and x.source and x.unit
            assert "=" in x.formula
        total = next(x for x in o.explain if x.figure.endswith(": total"))
        assert total.value == pytest.approx(o.total)


VALIDATION = [
    # (usage changes, compare kwargs, field named in the error)
    pytest.param({"gpu_count": 0}, {}, "gpu_count", id="gpu_count > 0"),
    pytest.param({"gpu_count": -1}, {}, "gpu_count", id="gpu_count negative"),
    pytest.param({"months": 0}, {}, "months", id="months > 0"),
    pytest.param({"hours_per_month": 0}, {}, "hours_per_month", id="hours > 0"),
    pytest.param({"hours_per_month": 800}, {}, "hours_per_month", id="hours ≤ 730"),
    pytest.param({"power_kw": -1}, {}, "power_kw", id="power ≥ 0"),
    pytest.param({"gpu_count": math.nan}, {}, "gpu_count", id="NaN"),
    pytest.param({}, {"utilization": 0}, "utilization", id="utilization > 0"),
    pytest.param({}, {"utilization": 1.2}, "utilization", id="utilization ≤ 1"),
    pytest.param({}, {"horizon_months": 0}, "horizon_months", id="horizon ≥ 1"),
    pytest.param({}, {"horizon_months": 121}, "horizon_months", id="horizon ≤ 120"),
    pytest.param({}, {"term_months": 0}, "term_months", id="term ≥ 1"),
    pytest.param({}, {"currency": "EUR"}, "currency", id="unknown currency"),
    pytest.param({}, {"energy_id": "mars"}, "energy_id", id="unknown energy"),
]


@pytest.mark.parametrize(("changes", "kwargs", "field"), VALIDATION)
def test_invalid_input_names_the_field(
    book: PriceBook, changes: dict[str, float], kwargs: dict[str, object], field: str
) -> None:
    usage = dataclasses.replace(use(), **changes)  # type: ignore[arg-type]
    args: dict[str, object] = {"horizon_months": 12, **kwargs}
    with pytest.raises(ValueError, match=field) as err:
        compare_costs(usage, book, **args)  # type: ignore[arg-type]
    assert isinstance(err.value, CostInputError)
    assert err.value.field == field


def test_unknown_gpu_lists_the_priced_ones(book: PriceBook) -> None:
    with pytest.raises(ValueError, match=rf"gpu_id must be one of .*\({H100}\)"):
        compare_costs(use(gpu="b200"), book, horizon_months=12)


def test_schedule_validation_names_the_phase(book: PriceBook) -> None:
    with pytest.raises(CostInputError, match=r"phases\[1\]\.months"):
        schedule_cost([Phase(H100, 1, 1), Phase(H100, 1, 0)], book)
    with pytest.raises(CostInputError, match=r"phases\[0\]\.gpu_id"):
        schedule_cost([Phase("b200", 1, 1)], book)


def test_select_offers_prefers_fewest_gpus(book: PriceBook) -> None:
    # 5 GPUs kept in one machine (a 5-GPU job): 8 covers 5 in one node.
    sel = select_offers(book, H100, 5, group=5)
    assert sel is not None
    assert [(o.id, k) for o, k in sel.parts] == [("h100-8x", 1)]
    # 5 independent GPUs (single-GPU replicas): 4× + 1× = NT$250,000 < the 8×'s 350,000.
    mix = select_offers(book, H100, 5)
    assert mix is not None
    assert [(o.id, k) for o, k in mix.parts] == [("h100-4x", 1), ("h100-1x", 1)]
    assert select_offers(book, "b200", 1) is None


# ---------------------------------------------------------------------------- properties

GPU_COUNTS = st.sampled_from([0.25, 0.5, 1, 2, 3, 4, 6, 8, 12, 16, 24])


@settings(max_examples=60, deadline=None)
@given(
    gpus=GPU_COUNTS,
    h1=st.floats(1, 730),
    h2=st.floats(1, 730),
    months=st.floats(0.5, 60),
)
def test_cost_never_falls_as_hours_rise(gpus: float, h1: float, h2: float, months: float) -> None:
    lo, hi = sorted((h1, h2))
    book = seed003_book()
    a = by_key(compare_costs(use(gpus=gpus, hours=lo, months=months), book, horizon_months=60))
    b = by_key(compare_costs(use(gpus=gpus, hours=hi, months=months), book, horizon_months=60))
    for key, total in a.items():
        assert b[key] >= total - 1e-6 * max(1.0, total), key


@settings(max_examples=60, deadline=None)
@given(
    gpus=GPU_COUNTS,
    hours=st.floats(10, 730),
    months=st.floats(1, 120),
    horizon=st.integers(1, 120),
    storage=st.floats(0, 200_000),
)
def test_totals_equal_breakdown_and_curves(
    gpus: float, hours: float, months: float, horizon: int, storage: float
) -> None:
    c = compare_costs(
        use(gpus=gpus, hours=hours, months=months, storage=storage),
        seed003_book(),
        horizon_months=horizon,
    )
    for o in c.options:
        assert o.total == pytest.approx(sum(o.breakdown.values()), rel=1e-9)
        assert len(o.cumulative) == horizon + 1
        assert o.cumulative[0] == pytest.approx(o.upfront)
        assert o.cumulative[-1] == pytest.approx(o.total, rel=1e-9)
        for part, cum in o.cumulative_parts.items():
            assert cum[-1] == pytest.approx(o.breakdown[part], rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    gpus=GPU_COUNTS,
    hours=st.floats(50, 730),
    months=st.floats(1, 120),
    horizon=st.integers(2, 120),
)
def test_break_even_is_where_the_curves_cross(
    gpus: float, hours: float, months: float, horizon: int
) -> None:
    usage = use(gpus=gpus, hours=hours, months=months)
    c = compare_costs(usage, seed003_book(), horizon_months=horizon)
    curves = {o.key: o.cumulative for o in c.options}
    # The months the options pay for the need, whole months as monthly rent bills them:
    # after them a curve is the payment schedule of a fixed total, and no crossing counts.
    need_end = min(horizon, max(1, math.ceil(min(months, horizon) - 1e-9)))
    for be in c.break_even:
        a, b = curves[be.a], curves[be.b]
        diff = [x - y for x, y in zip(a, b, strict=True)]
        tol = 1e-6 * max(map(abs, (*a, *b)))
        if be.month is None:
            # a is never dearer than b once they differ, while the need lasts
            assert all(d <= tol for d in diff[: need_end + 1]), (be, diff)
            continue
        assert be.month <= need_end + 1e-9
        if be.note:
            # Only the resale at the end of month m makes them cross: a is cheaper up to the
            # month before and not after the sale (the step lies inside month m).
            m = int(be.month)
            assert be.month == m
            assert all(d <= tol for d in diff[:m]) and diff[m] >= -tol
            continue
        before, after = math.floor(be.month), math.ceil(be.month)
        assert diff[max(0, before)] <= tol  # a still cheaper (or equal) just before
        assert diff[after] >= -tol  # a no longer cheaper just after
        assert all(d <= tol for d in diff[: before + 1])


@settings(max_examples=200, deadline=None)
@given(
    up_a=st.floats(0, 1e7),
    per_a=st.floats(0, 1e6),
    up_b=st.floats(0, 1e7),
    per_b=st.floats(0, 1e6),
    n=st.integers(1, 120),
)
def test_break_even_month_of_straight_lines(
    up_a: float, per_a: float, up_b: float, per_b: float, n: int
) -> None:
    a = [up_a + per_a * m for m in range(n + 1)]
    b = [up_b + per_b * m for m in range(n + 1)]
    month = break_even_month(a, b)
    if month is None:
        return
    # for straight lines the crossing is exact: (up_b − up_a) / (per_a − per_b)
    assert per_a != per_b
    assert month == pytest.approx((up_b - up_a) / (per_a - per_b), rel=1e-6, abs=1e-6)
    assert 0 <= month <= n


@settings(max_examples=100, deadline=None)
@given(amount=st.floats(0, 1e9), rate=st.floats(1, 200))
def test_currency_round_trip_property(amount: float, rate: float) -> None:
    book = seed003_book(fx=(FxRate("USD", "TWD", rate, date(2026, 1, 1)),))
    back = book.convert(book.convert(amount, "TWD", "USD"), "USD", "TWD")
    assert back == pytest.approx(amount, rel=1e-12, abs=1e-9)


def test_monthly_rent_is_billed_by_the_whole_month() -> None:
    # T8: a 3-day job on a monthly offer still pays the month (NT$50,000), and its "per month"
    # is that month's cost, not the total scaled up to 30 days.
    from app.catalog.shipped import shipped_price_book
    from app.engine.costs import Usage, compare_costs

    cmp = compare_costs(
        Usage(gpu_id="h100-sxm-80gb", gpu_count=1, hours_per_month=730, months=0.1, power_kw=1.0),
        shipped_price_book(),
        horizon_months=1,
    )
    monthly = cmp.option("rent_monthly")
    assert monthly.total == 50_000 and monthly.monthly_rate == 50_000
    hourly = cmp.option("rent_hourly")
    assert hourly.total == 120 * 73  # 0.1 month × 730 h × NT$120/h


def test_an_instance_larger_than_the_plan_says_why_it_is_the_one_priced() -> None:
    from app.catalog.shipped import shipped_price_book

    # QA: a 2-GPU plan beside an 8-GPU p5.48xlarge (NT$387,420 where 2 × p5.4xlarge would
    # cost a quarter) read as a cloud price inflated 4×. The plan's 2 GPUs must share NVLink
    # in one machine; AWS's p5.4xlarge has 1 GPU (shipped list), so it is listed as not
    # runnable and the 8-GPU instance says why it is the one priced. The other providers
    # are listed with 8-GPU instances only.
    two = dataclasses.replace(use(gpus=2), gpus_per_machine_min=2, nvlink=True)
    c = compare_costs(two, shipped_price_book(), horizon_months=12)
    notes = {o.key: str(o.note) for o in c.options if o.kind == "cloud"}
    assert notes["cloud:aws-p5-48xlarge-use1"] == (
        "Pays for 8 GPUs to use 2: the plan needs 2 GPUs on NVLink in one machine, more than "
        "AWS's smaller instance of this GPU (p5.4xlarge, 1) holds."
    )
    assert notes["cloud:gcp-a3-highgpu-8g"] == (
        "Pays for 8 GPUs to use 2: the smallest instance of this GPU the price list has from "
        "GCP holds 8."
    )
    assert notes["cloud:aws-p5-4xlarge-use1"].startswith("Not runnable")
