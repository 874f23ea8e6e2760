"""/assess prices on the engine's own rental and opens the planner on the same workload.

QA: 70B (4-bit) for 1,000 users, 26 × H100, read "3 servers of 8 + 1 of 2, NT$920,000 –
NT$1,150,000" here while the plan converted from the lead priced 32 GPUs (NT$1,120,000 on
the 12-month contract); for 200 users, 6 × H100, it read "8 × H100, the smallest rental
that holds the 6 GPUs, NT$280,000 – 350,000" while the API, /tco and the plan rent 4 + 2
GPUs for NT$240,000 – 300,000. And "Open this workload in the planner" dropped the 4-bit
weights, so the planner showed BF16 on 32 GPUs.

Figures by hand from seed 003 T8 (Stratagem Taipei: 1 / 2 / 4 / 8 × H100 at NT$50,000 /
100,000 / 200,000 / 350,000 a month, 12-month contract −20 %).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.assess import views
from app.catalog.shipped import shipped_price_book
from app.engine.estimate import estimate
from app.planner import views as planner

ZH = "zh-TW"
TAIPEI = "Stratagem Taipei"


def _text(soup: BeautifulSoup, selector: str) -> str:
    el = soup.select_one(selector)
    assert el is not None, selector
    return el.get_text(" ", strip=True)


@pytest.mark.parametrize(
    ("users", "gpus", "low", "high", "zh", "en"),
    [
        # 6 replicas: 4 + 2 GPUs = 200,000 + 100,000 = 300,000; × 0.8 = 240,000
        (200, 6, 240_000, 300_000, "2 台 H100 伺服器（1 台 4 卡伺服器 + 1 台 2 卡伺服器）",
         "For the 2 H100 servers (1 × 4-GPU server + 1 × 2-GPU server)"),
        # 26 replicas: 3 × 350,000 + 100,000 = 1,150,000; × 0.8 = 920,000
        (1000, 26, 920_000, 1_150_000, "4 台 H100 伺服器（3 台 8 卡伺服器 + 1 台 2 卡伺服器）",
         "For the 4 H100 servers (3 × 8-GPU servers + 1 × 2-GPU server)"),
    ],
)  # fmt: skip
def test_the_card_is_the_planners_rent_for_the_same_gpus(
    get_soup: Callable[..., BeautifulSoup],
    web: TestClient,
    lang: str,
    users: int,
    gpus: int,
    low: int,
    high: int,
    zh: str,
    en: str,
) -> None:
    soup = get_soup(f"/assess?task=inference&size=70&users={users}")
    assert _text(soup, ".price-range") == f"NT${low:,} – NT${high:,}"
    assert _text(soup, ".price-range + p").startswith(zh if lang == ZH else en)
    # The same workload through the API: the house provider's monthly and 12-month rents.
    body = {"model": {"preset": "llama-3.1-70b"}, "task": "inference", "precision": "int4",
            "concurrency": users}  # fmt: skip
    r = web.post("/api/v1/estimate", json=body)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["gpu"]["count"] == gpus
    taipei = {o["kind"]: o for o in out["cost"]["options"] if o.get("provider") == TAIPEI}
    assert taipei["rent_monthly"]["monthly_rate"] == pytest.approx(high)
    assert taipei["rent_term"]["monthly_rate"] == pytest.approx(low)
    assert taipei["rent_term"]["billed"]["gpus"] == gpus


@pytest.mark.parametrize(
    "query",
    [
        "task=inference&size=70&users=1000",
        "task=inference&size=other&size_other=32&users=50",
        "task=image&size=7",
        "task=lora&size=13&data=10&deadline=30",
        # no deadline, a job past a year: sized to finish within 365 days (the card says so)
        "task=pretrain&size=7&data=10000&deadline=none",
    ],
)
def test_the_planner_link_carries_every_assumption_of_the_card(
    get_soup: Callable[..., BeautifulSoup], query: str
) -> None:
    soup = get_soup(f"/assess?{query}")
    links = [str(a["href"]) for a in soup.select("a[href^='/plan?']")]
    assert len(links) == 1
    # As the browser sends it: every field, blanks included (a blank overrides a default).
    sent = dict(parse_qsl(urlsplit(links[0]).query, keep_blank_values=True))
    req, errors = planner.build_request(planner.form_values(sent), "TWD")
    assert errors == {} and req is not None
    a = views.assess(dict(parse_qsl(query)), currency="TWD", book=shipped_price_book())
    stated = views.planner_request(a)
    assert stated is not None and a.resp is not None
    # The planner's request is the card's, but for `users`, which the form fills from the
    # concurrency (the same number of users at once).
    mine = stated.model_dump(mode="json", exclude={"users"})
    theirs = req.model_dump(mode="json", exclude={"users"})
    assert theirs == mine
    assert estimate(req, prices=shipped_price_book(), search_all=False).gpu.count == (
        a.resp.gpu.count
    )


def test_the_70b_service_opens_as_int4_on_26_gpus(get_soup: Callable[..., BeautifulSoup]) -> None:
    soup = get_soup("/assess?task=inference&size=70&users=1000")
    link = next(str(a["href"]) for a in soup.select("a[href^='/plan?']"))
    sent: dict[str, Any] = dict(parse_qsl(urlsplit(link).query, keep_blank_values=True))
    assert sent["precision"] == "int4" and sent["concurrency"] == "1000"
    req, _errors = planner.build_request(planner.form_values(sent), "TWD")
    assert req is not None
    # 26 single-GPU replicas (67 GB of 80 GB each), as the card: not BF16 on 32.
    assert estimate(req, prices=shipped_price_book(), search_all=False).gpu.count == 26


def test_an_image_card_opens_as_the_monthly_service_it_prices() -> None:
    # SDXL on one H100: the card states its throughput ("about N images an hour") and a
    # monthly price; the planner gets that rate as the service's target, whole images down.
    a = views.assess({"task": "image", "size": "7"}, currency="TWD", book=shipped_price_book())
    req = views.planner_request(a)
    assert req is not None and a.resp is not None and a.resp.inference is not None
    rate = a.resp.inference.images_per_hour
    assert rate is not None
    assert req.images_per_hour == float(int(rate))
    r = estimate(req, prices=shipped_price_book(), search_all=False)
    assert r.gpu.count == 1 and not r.gpu.fraction and r.cost is not None
    assert r.cost["pricing_mode"] == "capacity"
    taipei = {o["kind"]: o for o in r.cost["options"] if o.get("provider") == TAIPEI}
    # 1 × H100: NT$50,000 a month at list, 50,000 × 0.8 = 40,000 on the 12-month contract.
    assert taipei["rent_monthly"]["monthly_rate"] == pytest.approx(50_000)
    assert taipei["rent_term"]["monthly_rate"] == pytest.approx(40_000)
