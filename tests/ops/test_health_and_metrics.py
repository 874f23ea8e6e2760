"""/healthz, /readyz, /metrics, request ids and JSON logs, on an app built in-process."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from app.bootstrap import prepare_database
from app.main import create_app
from app.ops.logs import REQUEST_ID, JsonFormatter, RequestIdFilter
from app.ops.metrics import address_allowed, parse_networks
from app.settings import Settings

ESTIMATE = {"model": {"preset": "llama-3.1-8b"}, "task": "lora"}


@pytest.fixture
def local(settings: Settings) -> Iterator[TestClient]:
    """The shared app, seen from 127.0.0.1 (an allowed /metrics address by default)."""
    with TestClient(create_app(settings), client=("127.0.0.1", 50000)) as c:
        yield c


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for fam in text_string_to_metric_families(text)
        for s in fam.samples
    }


def test_healthz_is_200_json(client: TestClient) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok"}


def test_readyz_passes_every_check_on_a_migrated_database(client: TestClient) -> None:
    r = client.get("/readyz")
    body = r.json()
    assert r.status_code == 200, body
    assert body["status"] == "ready" and body["failing"] == []
    assert set(body["checks"]) == {"database", "migrations", "fonts", "chromium"}
    assert all(c["ok"] for c in body["checks"].values())


def test_readyz_is_503_naming_migrations_on_an_unmigrated_database(tmp_path: Path) -> None:
    (tmp_path / "empty.db").touch()  # an empty SQLite database (the app never makes one)
    s = Settings(DATABASE_URL=f"sqlite:///{tmp_path / 'empty.db'}", STRATAGEM_SECRET_KEY="k")
    r = TestClient(create_app(s), client=("127.0.0.1", 50000)).get("/readyz")  # an operator
    assert r.status_code == 503
    body = r.json()
    assert body["failing"] == ["migrations"]
    assert "no revision" in body["checks"]["migrations"]["error"]
    assert body["checks"]["database"]["ok"] is True


def test_readyz_is_503_when_the_database_is_unreachable() -> None:
    with socket.socket() as sock:  # a port nobody listens on: connection refused at once
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    s = Settings(
        DATABASE_URL=f"postgresql+psycopg://nobody@127.0.0.1:{port}/none",
        STRATAGEM_SECRET_KEY="k",
    )
    r = TestClient(create_app(s), client=("127.0.0.1", 50000)).get("/readyz")  # an operator
    assert r.status_code == 503
    assert {"database", "migrations"} <= set(r.json()["failing"])
    assert "OperationalError" in r.json()["checks"]["database"]["error"]


def test_request_id_is_kept_echoed_and_in_error_bodies(client: TestClient) -> None:
    r = client.post(
        "/api/v1/estimate",
        json={"model": {"preset": "no-such-model"}, "task": "lora"},
        headers={"X-Request-ID": "req-42.a:b"},
    )
    assert r.status_code == 422
    assert r.headers["x-request-id"] == "req-42.a:b"
    assert r.json()["request_id"] == "req-42.a:b"
    assert r.json()["detail"][0]["loc"][-1] == "preset"  # the rest of the body is untouched
    assert int(r.headers["content-length"]) == len(r.content)


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/api/v1/plans/1", 401),  # bearer token required (HTTP error of a dependency)
        ("POST", "/api/v1/estimate", 422),  # FastAPI's own request validation
        ("GET", "/api/v1/price-lists/999999", 404),  # a domain error (app/web/errors.py)
    ],
)
def test_every_json_error_carries_the_generated_request_id(
    client: TestClient, method: str, path: str, status: int
) -> None:
    r = client.request(method, path, json={} if method == "POST" else None)
    assert r.status_code == status
    rid = r.headers["x-request-id"]
    assert len(rid) == 32 and r.json()["request_id"] == rid


def test_a_forged_request_id_is_replaced(client: TestClient) -> None:
    r = client.get("/healthz", headers={"X-Request-ID": 'x" \n{"level": "fake"}'})
    assert r.headers["x-request-id"] != 'x" \n{"level": "fake"}'
    assert len(r.headers["x-request-id"]) == 32


def test_an_unhandled_error_is_a_json_500_with_the_request_id(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(settings)

    def boom() -> None:
        raise RuntimeError("kaput")

    app.add_api_route("/api/v1/boom", boom)
    with caplog.at_level(logging.ERROR, logger="stratagem.errors"):
        r = TestClient(app).get("/api/v1/boom", headers={"X-Request-ID": "boom-1"})
    assert r.status_code == 500
    assert r.json() == {
        "detail": "Internal server error; quote the request id when reporting it.",
        "request_id": "boom-1",
    }
    record = next(rec for rec in caplog.records if rec.name == "stratagem.errors")
    assert record.exc_info is not None and "kaput" in str(record.exc_info[1])


def test_access_log_line_is_json_with_request_id_route_and_status(
    client: TestClient,
) -> None:
    lines: list[str] = []
    handler = logging.Handler()
    formatter = JsonFormatter()
    handler.emit = lambda rec: lines.append(formatter.format(rec))  # type: ignore[method-assign]
    handler.addFilter(RequestIdFilter())
    access = logging.getLogger("stratagem.access")
    access.addHandler(handler)
    old_level = access.level
    access.setLevel(logging.INFO)
    try:
        client.get("/api/v1/plans/12345", headers={"X-Request-ID": "log-me"})
    finally:
        access.removeHandler(handler)
        access.setLevel(old_level)
    entry = json.loads(lines[-1])
    assert entry["request_id"] == "log-me"
    assert entry["route"] == "/api/v1/plans/{plan_id}" and entry["path"] == "/api/v1/plans/12345"
    assert entry["status"] == 401 and entry["level"] == "info" and entry["duration_ms"] >= 0


def test_log_lines_written_inside_a_request_carry_its_id() -> None:
    token = REQUEST_ID.set("inside")
    try:
        record = logging.LogRecord(
            "stratagem.x", logging.WARNING, __file__, 1, "hi %s", ("x",), None
        )
        RequestIdFilter().filter(record)
        out = json.loads(JsonFormatter().format(record))
    finally:
        REQUEST_ID.reset(token)
    assert out["request_id"] == "inside" and out["message"] == "hi x" and out["level"] == "warning"


def test_metrics_are_refused_from_other_addresses_and_with_a_wrong_token(
    client: TestClient,
) -> None:
    assert client.get("/metrics").status_code == 403  # the test client's peer is "testclient"
    assert client.get("/metrics", headers={"Authorization": "Bearer x"}).status_code == 403


def test_metrics_open_with_the_token_from_anywhere(settings: Settings) -> None:
    s = settings.model_copy(update={"metrics_token": "s3cret-token"})
    c = TestClient(create_app(s), client=("203.0.113.9", 1234))
    assert c.get("/metrics").status_code == 403
    r = c.get("/metrics", headers={"Authorization": "Bearer s3cret-token"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")


def test_metrics_count_requests_by_route_template_latency_estimates_and_caches(
    local: TestClient,
) -> None:
    before = _samples(local.get("/metrics").text)
    for _ in range(3):
        assert local.post("/api/v1/estimate", json=ESTIMATE).status_code == 200
    local.get("/api/v1/plans/777")  # 401 without a token
    after = _samples(local.get("/metrics").text)

    def delta(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    ok = {"method": "POST", "route": "/api/v1/estimate"}
    assert delta("stratagem_http_requests_total", **ok, status="200") == 3
    assert (
        delta(
            "stratagem_http_requests_total",
            method="GET",
            route="/api/v1/plans/{plan_id}",
            status="401",
        )
        == 1
    )
    assert delta("stratagem_http_request_duration_seconds_count", **ok) == 3
    assert delta("stratagem_estimate_duration_seconds_count", route="/api/v1/estimate") == 3
    # The same workload three times: the planner's memo answers the second and third.
    assert delta("stratagem_cache_lookups_total", cache="planner_walk", result="hit") > 0
    assert not any(
        name == "stratagem_http_requests_total" and ("route", "/metrics") in lbl
        for name, lbl in after
    )


@pytest.mark.parametrize(
    ("host", "spec", "allowed"),
    [
        ("127.0.0.1", "127.0.0.1,::1", True),
        ("::1", "127.0.0.1,::1", True),
        ("10.1.2.3", "10.0.0.0/8", True),
        ("::ffff:10.1.2.3", "10.0.0.0/8", True),  # IPv4-mapped IPv6, as dual-stack sockets give
        ("10.1.2.3", "127.0.0.1", False),
        ("testclient", "127.0.0.1", False),
        (None, "127.0.0.1", False),
    ],
)
def test_metrics_address_rules(host: str | None, spec: str, allowed: bool) -> None:
    assert address_allowed(host, parse_networks(spec)) is allowed


def test_readyz_names_the_database_when_its_sqlite_file_is_missing(tmp_path: Path) -> None:
    """The app opens its SQLite file and never makes one (QA: a new empty database appeared
    where the file had been moved from): with no file, the database check fails."""
    s = Settings(DATABASE_URL=f"sqlite:///{tmp_path / 'gone.db'}", STRATAGEM_SECRET_KEY="k")
    r = TestClient(create_app(s), client=("127.0.0.1", 50000)).get("/readyz")
    assert r.status_code == 503 and "database" in r.json()["failing"]
    assert not (tmp_path / "gone.db").exists()


@contextlib.contextmanager
def _read_only(path: Path) -> Iterator[None]:
    """`path` cannot be written while the block runs: chmod 444, or for root (whom file
    modes do not stop) the immutable attribute.

    chattr is Debian's e2fsprogs, a required package, so it is always there. The one skip is
    for root on a file system without the immutable attribute (tmpfs, some overlays): root
    then has no way to make a file unwritable. CI (root, ext4) runs the test."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
    if made.returncode:
        pytest.skip(
            f"root ignores file modes, and this file system refuses chattr +i: {made.stderr.strip()}"
        )
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_readyz_names_the_database_while_its_sqlite_file_cannot_be_written(
    tmp_path: Path,
) -> None:
    """QA: with the file made read-only under a running app, /readyz answered 200 while
    every write failed. Its pooled connection (opened before) can still write, so the probe
    opens its own; the answer recovers when the file is writable again."""
    url = f"sqlite:///{tmp_path / 'app.db'}"
    s = Settings(DATABASE_URL=url, STRATAGEM_SECRET_KEY="k", STRATAGEM_LOAD_CATALOG="false")
    prepare_database(s, echo=lambda _: None)
    with TestClient(create_app(s), client=("127.0.0.1", 50000)) as c:  # an operator
        assert c.get("/readyz").status_code == 200  # the pool now holds a connection
        with _read_only(tmp_path / "app.db"):
            r = c.get("/readyz")
            assert r.status_code == 503, r.json()
            body = r.json()
            assert body["status"] == "not ready" and body["failing"] == ["database"]
            assert body["checks"]["database"]["error"].startswith(
                "not writable: this process may not write"
            )
            stranger = TestClient(c.app, client=("203.0.113.9", 50000)).get("/readyz")
            assert stranger.json()["failing"] == ["database"]
            assert "error" not in stranger.json()["checks"]["database"]
        assert c.get("/readyz").status_code == 200


def test_readyz_passes_while_another_connection_writes(tmp_path: Path) -> None:
    """A write lock held elsewhere (a long import) means the file is written: no wait for
    the busy timeout, and no failure."""
    url = f"sqlite:///{tmp_path / 'app.db'}"
    s = Settings(DATABASE_URL=url, STRATAGEM_SECRET_KEY="k", STRATAGEM_LOAD_CATALOG="false")
    prepare_database(s, echo=lambda _: None)
    writer = sqlite3.connect(tmp_path / "app.db", isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        r = TestClient(create_app(s), client=("127.0.0.1", 50000)).get("/readyz")
        assert r.status_code == 200, r.json()
    finally:
        writer.execute("ROLLBACK")
        writer.close()
