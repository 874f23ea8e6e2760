"""Catalog page timing: /catalog/offers with 1,000 rental offers in the current price list.

Run: .venv/bin/pytest benchmarks/bench_catalog.py --benchmark-only -q
Target: median < 100 ms server time (issue 3). Timings are reported, never asserted; the
assertions only check the work was done (1,000 rows rendered, the search fragment filtered).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, delete

from app.bootstrap import prepare_database
from app.catalog import service
from app.catalog.models import RentalOffer
from app.main import create_app
from app.settings import Settings

OFFERS = 1_000


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path: Path = tmp_path_factory.mktemp("bench") / "catalog.db"
    settings = Settings(DATABASE_URL=f"sqlite:///{path}", STRATAGEM_SECRET_KEY="bench")
    prepare_database(settings, echo=lambda _: None)
    app = create_app(settings)
    with Session(app.state.engine) as session:
        pl = service.current_price_list(session=session)
        assert pl is not None and pl.id is not None
        session.exec(delete(RentalOffer).where(RentalOffer.price_list_id == pl.id))  # type: ignore[call-overload]
        providers = ("Stratagem Taipei", "RunPod", "Lambda", "CoreWeave")
        gpus = ("h100-sxm-80gb", "h200-sxm-141gb", "a100-sxm-80gb", "l40s-48gb")
        for i in range(OFFERS):
            count = (0.25, 1, 2, 4, 8)[i % 5]
            session.add(
                RentalOffer(
                    id=f"offer-{i:04d}", provider=providers[i % 4], gpu_id=gpus[i % 4],
                    gpu_count=count, monthly_price=50_000 * count + i, hourly_price=120 * count,
                    currency="TWD", term_discounts={1: 0.0, 3: 0.0, 6: 0.1, 12: 0.2},
                    lead_time_hours=2, includes_power=True, interconnect="nvlink",
                    source=f"benchmark row {i}: seed 003 T8 price list scaled", price_list_id=pl.id,
                )
            )  # fmt: skip
        pl.revision += 1
        session.add(pl)
        session.commit()
    with TestClient(app) as c:
        c.headers["Accept-Language"] = "en"
        c.get("/catalog/offers")  # warm: templates compiled, price book cached
        yield c


def _rows(html: str) -> int:
    return len(BeautifulSoup(html, "html.parser").select("#catalog-table tbody tr"))


def _run(benchmark: Any, client: TestClient, url: str, **kw: Any) -> Any:
    """25 timed rounds after 2 warm-up ones: enough for a stable median on a busy machine."""
    return benchmark.pedantic(client.get, args=(url,), kwargs=kw, rounds=25, warmup_rounds=2)


def test_offers_page_1000_rows(benchmark: Any, client: TestClient) -> None:
    r = _run(benchmark, client, "/catalog/offers")
    assert r.status_code == 200 and _rows(r.text) == OFFERS


def test_offers_page_1000_rows_sorted_by_price(benchmark: Any, client: TestClient) -> None:
    url = "/catalog/offers?sort=monthly_price&dir=desc"
    r = _run(benchmark, client, url)
    assert r.status_code == 200 and _rows(r.text) == OFFERS


def test_offers_search_fragment(benchmark: Any, client: TestClient) -> None:
    headers = {"HX-Request": "true"}
    r = _run(benchmark, client, "/catalog/offers?q=runpod", headers=headers)
    assert r.status_code == 200 and _rows(r.text) == OFFERS // 4


def test_offers_api_1000_rows(benchmark: Any, client: TestClient) -> None:
    r = _run(benchmark, client, "/api/v1/offers")
    assert r.status_code == 200 and len(r.json()) == OFFERS
