"""Web benchmarks (pytest-benchmark): server time of the planner's HTMX fragment and of each
full page, and the bytes a first and a repeat visit to /plan transfer.

Budgets (issue 4): fragment p95 < 30 ms, each full page median < 150 ms, first visit to /plan
< 1.5 MB compressed, repeat visit < 50 KB. The fragment benchmark edits one field per call, as
a user typing does (cycling through values, so caches see realistic repeats).
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.bootstrap import prepare_database
from app.main import create_app
from app.settings import Settings

PAGES = [
    "/",
    "/assess",
    "/assess?task=lora&size=13&data=10&deadline=30",
    "/plan",
    "/tco",
    "/architectures",
]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db: Path = tmp_path_factory.mktemp("bench") / "bench.db"
    settings = Settings(DATABASE_URL=f"sqlite:///{db}", STRATAGEM_SECRET_KEY="bench")
    prepare_database(settings, echo=lambda _: None)
    with TestClient(create_app(settings)) as c:
        for path in PAGES:  # warm imports, templates and the static compression cache
            c.get(path)
        yield c


def _p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1]


def test_planner_fragment(benchmark, client: TestClient) -> None:  # type: ignore[no-untyped-def]
    """One field edited per request: sequence length, data size, deadline, epochs."""
    edits = itertools.cycle(
        [f"seq_len={s}" for s in (1024, 2048, 4096, 8192)]
        + [f"dataset_gb={d}" for d in (2, 5, 10, 20)]
        + [f"deadline_days={d}" for d in (3, 7, 14, 30)]
        + [f"epochs={e}" for e in (1, 2, 3)]
    )
    headers = {"HX-Request": "true", "Accept-Language": "zh-TW"}

    def one() -> None:
        r = client.get(f"/plan?{next(edits)}", headers=headers)
        assert r.status_code == 200 and "<html" not in r.text

    benchmark.pedantic(one, rounds=200, iterations=1, warmup_rounds=15)
    p95 = _p95(list(benchmark.stats.stats.data))
    benchmark.extra_info["p95_ms"] = round(p95 * 1000, 2)
    assert p95 < 0.030, f"fragment p95 {p95 * 1000:.1f} ms"


@pytest.mark.parametrize("path", PAGES)
def test_full_page(benchmark, client: TestClient, path: str) -> None:  # type: ignore[no-untyped-def]
    headers = {"Accept-Language": "en"}

    def one() -> None:
        assert client.get(path, headers=headers).status_code == 200

    benchmark.pedantic(one, rounds=40, iterations=1, warmup_rounds=3)
    assert benchmark.stats.stats.median < 0.150


def _get_raw(
    client: TestClient, url: str, headers: dict[str, str]
) -> tuple[bytes, bytes, dict[str, str]]:
    """(bytes as sent on the wire, decoded body, headers) of one GET."""
    with client.stream("GET", url, headers=headers) as r:
        assert r.status_code == 200, url
        raw = b"".join(r.iter_raw())
        hdrs = dict(r.headers)
    decoded = client.get(url, headers=headers).content
    return raw, decoded, hdrs


def _visit(client: TestClient, cache: dict[str, str] | None) -> tuple[int, dict[str, str]]:
    """Bytes on the wire for /plan and every asset it loads (br/gzip). With `cache` (URL →
    ETag from a first visit) the browser reuses versioned assets without asking (immutable)."""
    enc = {"Accept-Encoding": "br, gzip", "Accept-Language": "zh-TW"}
    raw, body, _ = _get_raw(client, "/plan", enc)
    total = len(raw)
    soup = BeautifulSoup(body, "html.parser")
    urls = [s["src"] for s in soup.select("script[src]")] + [
        link["href"] for link in soup.select("link[rel=stylesheet], link[rel=icon]")
    ]
    seen: dict[str, str] = {}
    for url in urls:
        if cache is not None and url in cache:
            continue  # Cache-Control: immutable, a year: no request at all
        raw, _body, hdrs = _get_raw(client, url, enc)
        total += len(raw)
        seen[url] = hdrs.get("etag", "")
    return total, seen


def test_bytes_first_and_repeat_visit(client: TestClient, record_property) -> None:  # type: ignore[no-untyped-def]
    first, cache = _visit(client, None)
    repeat, _ = _visit(client, cache)
    record_property("first_visit_bytes", first)
    record_property("repeat_visit_bytes", repeat)
    print(f"\n/plan first visit {first / 1024:.0f} KiB, repeat visit {repeat / 1024:.1f} KiB")
    assert first < 1.5 * 1024 * 1024
    assert repeat < 50 * 1024


def test_timing_summary(client: TestClient) -> None:
    """Plain timings (also when pytest-benchmark is disabled): fragment p95, page medians."""
    headers = {"HX-Request": "true"}
    samples = []
    for i in range(60):
        t = time.perf_counter()
        client.get(f"/plan?seq_len={1024 * (1 + i % 4)}", headers=headers)
        samples.append(time.perf_counter() - t)
    print(f"\nfragment p95 {_p95(samples) * 1000:.1f} ms")
