"""The buy option's printed figures add up as printed (QA: a bank's 36-month plan printed
"NT$13,565,952 + NT$678,298 + NT$2,034,893 = NT$16,279,142", parts summing to NT$25,512,073
beside a total of NT$25,512,071, and power "NT$75,353/month" beside NT$2,712,700 for 36
months). Each money figure is rounded once, half up, to the currency's unit where it is
computed and every sum and product is taken from the rounded figures
(app.engine.costs.ownership, docstring "Rounding")."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest

from app.catalog.shipped import shipped_price_book
from app.engine.costs import Usage, compare_costs
from app.engine.costs.model import CostOption
from app.engine.estimate import estimate
from app.engine.plan_costs import latest_cloud_prices
from app.engine.schemas import EstimateRequest

BOOK = shipped_price_book()
#: "NT$1,234", "−US$5.60": every amount a formula prints, signed.
AMOUNT = re.compile(r"(−?)(?:NT|US)\$([\d,]+(?:\.\d+)?)")
BANK = {"model": {"preset": "llama-3.1-70b"}, "task": "inference", "users": 200,
        "slo": {"ttft_s": 1, "tokens_per_s_per_user": 20}, "rent_months": 36}  # fmt: skip


def amounts(text: str) -> list[Decimal]:
    return [Decimal(n.replace(",", "")) * (-1 if s else 1) for s, n in AMOUNT.findall(text)]


def _buy(options: list[Any]) -> CostOption:
    return next(o for o in options if o.kind == "buy")


def test_the_qa_bank_plan_by_hand() -> None:
    # The QA's figures: 12 H100 served all month for 36 months on the shipped list, bought as
    # 3 × the 4-GPU server (US$141,312 × 32 = NT$4,521,984, 5.1 kW rated), Taiwan energy
    # (NT$4.27/kWh, PUE 1.58, NT$6,238.40/kW-month). Each figure rounded once, half up:
    #   servers      3 × 4,521,984                 = 13,565,952
    #   installation 5 % × 13,565,952 = 678,297.6   → 678,298
    #   network      15 % × 13,565,952 = 2,034,892.8 → 2,034,893
    #   up front     13,565,952 + 678,298 + 2,034,893 = 16,279,143 (was printed 16,279,142)
    #   hardware     13,565,952 + 2,034,893 = 15,600,845
    #   power        15.3 kW × 730 h × 1.58 × 4.27 = 75,352.78 → 75,353 × 36 = 2,712,708
    #   colocation   15.3 kW × 6,238.40 = 95,447.52 → 95,448 × 36 = 3,436,128
    #   maintenance  8 % × 15,600,845 / 12 = 104,005.63 → 104,006 × 36 = 3,744,216
    #   staff        25,000 × 36 = 900,000
    #   resale       10 % × 15,600,845 = 1,560,084.5 → 1,560,085 (straight line, 36 of 36)
    #   total        16,279,143 + 2,712,708 + 3,436,128 + 3,744,216 + 900,000 − 1,560,085
    #                = 25,512,110
    usage = Usage("h100-sxm-80gb", 12, 730.0, 36, power_kw=11.6, gpus_per_node=8)
    cmp = compare_costs(usage, latest_cloud_prices(BOOK), horizon_months=36,
                        pricing_mode="capacity")  # fmt: skip
    buy = _buy(cmp.options)
    value = {e.figure: e.value for e in buy.explain}
    assert value["Installation and integration"] == 678_298
    assert value["Network + storage capex"] == 2_034_893
    assert value["Upfront capex"] == buy.upfront == 16_279_143
    assert value["Electricity per month"] == 75_353
    assert value["Colocation (rack, cooling) per month"] == 95_448
    assert value["Maintenance per month"] == 104_006
    assert value["Resale at the end (residual)"] == -1_560_085
    assert buy.breakdown == {
        "capex": 13_565_952 + 678_298,
        "storage_network": 2_034_893,
        "power": 2_712_708,
        "facility": 3_436_128,
        "maintenance": 3_744_216,
        "staff": 900_000,
        "residual": -1_560_085,
    }
    assert buy.total == 25_512_110
    assert buy.cumulative[-1] == pytest.approx(buy.total, abs=1e-6)


def _plans() -> list[tuple[str, list[Any], float]]:
    """(name, cost options, months held) of a few plans: the QA's bank plan in both
    currencies, an image-generation service, a job held a part of a month."""
    out = []
    for name, body in (
        ("bank TWD", BANK),
        ("bank USD", {**BANK, "currency": "USD"}),
        ("image service", {"model": {"preset": "sdxl"}, "task": "image", "gpu": "h100-sxm-80gb",
                           "images_per_hour": 5000, "rent_months": 24}),
        ("lora job", {"model": {"preset": "llama-3.1-70b"}, "task": "lora", "tokens": 2e8,
                      "rent_months": 7}),
    ):  # fmt: skip
        r = estimate(EstimateRequest(**body), prices=BOOK, search_all=False)
        assert r.cost is not None, name
        out.append((name, r.cost["options"], float(body["rent_months"])))
    return out


PLANS = _plans()


@pytest.mark.parametrize(("name", "options", "held"), PLANS, ids=[p[0] for p in PLANS])
def test_the_buy_breakdown_re_adds_as_printed(name: str, options: list[Any], held: float) -> None:
    buy = next(o for o in options if o["kind"] == "buy")
    by = {e["figure"].removeprefix(buy["label"] + ": "): e for e in buy["explain"]}
    # Sums: the parts printed before "=" add up to the amount printed after it.
    for figure in ("Upfront capex", "Amortised cost per month", "total"):
        *parts, result = amounts(by[figure]["formula"])
        assert sum(parts) == result, (figure, by[figure]["formula"])
    # Products: each cost per month × the months held is the period total printed (staff's
    # own "(over 36 months: …)" too), where the servers are held whole months.
    assert held == int(held)
    total_parts = dict(zip(buy["breakdown"], amounts(by["total"]["formula"])[:-1], strict=True))
    monthly = {"facility": "Colocation (rack, cooling) per month",
               "maintenance": "Maintenance per month", "staff": "Operations staff per month"}  # fmt: skip
    if name != "lora job":  # a service pays power every month held; a job for its hours
        monthly["power"] = "Electricity per month"
    for part, figure in monthly.items():
        per_month = amounts(by[figure]["formula"])[-1 if part != "staff" else 0]
        assert per_month * int(held) == total_parts[part], (part, by[figure]["formula"])
    staff, over = amounts(by["Operations staff per month"]["formula"])
    assert staff * int(held) == over
    # The resale printed is the part the total takes off.
    assert -amounts(by["Resale at the end (residual)"]["formula"])[-1] == total_parts["residual"]
    # The total printed is the option's total, the cost per month the one the table shows.
    assert amounts(by["total"]["formula"])[-1] == Decimal(str(buy["total"]))
    assert amounts(by["Amortised cost per month"]["formula"])[-1] == Decimal(
        str(buy["monthly_rate"])
    )
