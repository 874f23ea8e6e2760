"""Prometheus metrics (prometheus-client), one set per process or shared through files.

With several app processes (`stratagem serve --workers N`) the CLI points
PROMETHEUS_MULTIPROC_DIR at an empty folder before the workers start; each process then
writes its samples there and `/metrics`, whichever process answers it, adds them all up
(prometheus_client's multiprocess mode). Counters and histograms only: they sum correctly
across processes.

Cache hit rates: the PDF cache counts its own lookups (app.quotes.pdf); the planner's memo
is a `functools.lru_cache`, whose hit and miss counts are copied into the counter after each
request (as increments since the last copy, so the sum over processes stays right).
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import threading
from collections.abc import Iterable
from typing import Any, Final

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

MULTIPROC_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE: Final = CONTENT_TYPE_LATEST

#: Seconds; from a cached page (≈1 ms) to a PDF rendered on a busy machine (≈30 s).
LATENCY_BUCKETS: Final = (
    0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
)  # fmt: skip
PDF_BUCKETS: Final = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0)

#: Routes whose answer is an estimate: the JSON API and the planner page/fragment.
ESTIMATE_ROUTES: Final = frozenset({"/api/v1/estimate", "/plan"})

REQUESTS = Counter(
    "stratagem_http_requests",
    "HTTP requests answered, by route template and status.",
    ["method", "route", "status"],
)
LATENCY = Histogram(
    "stratagem_http_request_duration_seconds",
    "Time from request to the end of the response body, by route template.",
    ["method", "route"],
    buckets=LATENCY_BUCKETS,
)
ESTIMATE = Histogram(
    "stratagem_estimate_duration_seconds",
    "Time to answer a request that runs the estimate (POST /api/v1/estimate, /plan).",
    ["route"],
    buckets=LATENCY_BUCKETS,
)
PDF = Histogram(
    "stratagem_pdf_render_seconds",
    "Time to render one PDF quote that was not cached (charts + WeasyPrint), as the "
    "requester waited for it.",
    ["where"],
    buckets=PDF_BUCKETS,
)
CACHE = Counter(
    "stratagem_cache_lookups",
    "Cache lookups by cache and result (hit or miss).",
    ["cache", "result"],
)


def cache_lookup(cache: str, *, hit: bool) -> None:
    CACHE.labels(cache, "hit" if hit else "miss").inc()


class _LruSync:
    """Copies an lru_cache's hit/miss counts into CACHE as increments."""

    def __init__(self, name: str, module: str, attr: str) -> None:
        self.name, self.module, self.attr = name, module, attr
        self.seen = (0, 0)
        self.lock = threading.Lock()

    def sync(self) -> None:
        import sys

        fn = getattr(sys.modules.get(self.module), self.attr, None)
        info = getattr(fn, "cache_info", None)
        if info is None:
            return
        now = info()
        with self.lock:
            hits, misses = now.hits - self.seen[0], now.misses - self.seen[1]
            if hits < 0 or misses < 0:  # cache_clear() reset the counts
                hits, misses = now.hits, now.misses
            self.seen = (now.hits, now.misses)
        if hits:
            CACHE.labels(self.name, "hit").inc(hits)
        if misses:
            CACHE.labels(self.name, "miss").inc(misses)


_LRU_CACHES: Final = (_LruSync("planner_walk", "app.engine.planner", "_walk"),)


def sync_caches() -> None:
    for c in _LRU_CACHES:
        c.sync()


def exposition() -> bytes:
    """The text exposition of every metric (all processes' in multiprocess mode)."""
    sync_caches()
    if os.environ.get(MULTIPROC_ENV):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry)
    return generate_latest(REGISTRY)


def prepare_multiprocess_dir(path: str) -> None:
    """Create `path` and remove samples a previous run left (stale pids would be summed)."""
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(path):
        if name.endswith(".db"):
            os.unlink(os.path.join(path, name))


# --- Who may read /metrics ---------------------------------------------------------------

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(spec: str) -> tuple[Network, ...]:
    """'127.0.0.1, 10.0.0.0/8, ::1' → networks (a bare address is a /32 or /128)."""
    return tuple(
        ipaddress.ip_network(part.strip(), strict=False) for part in spec.split(",") if part.strip()
    )


def address_allowed(host: str | None, networks: Iterable[Network]) -> bool:
    if not host:
        return False
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return any(addr in net for net in networks if addr.version == net.version)


def token_matches(authorization: str | None, token: str) -> bool:
    if not token or not authorization:
        return False
    scheme, _, value = authorization.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(value.strip(), token)


def may_read(*, host: str | None, authorization: str | None, settings: Any) -> bool:
    """From an allowed address, or with the metrics token."""
    if token_matches(authorization, settings.metrics_token):
        return True
    return address_allowed(host, parse_networks(settings.metrics_allow))
