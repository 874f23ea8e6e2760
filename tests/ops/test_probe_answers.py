"""What the probes (/healthz, /readyz, /metrics) tell whom, and what they leave in the log.

* /readyz is anonymous: its public answer is whether the process is ready and which checks
  fail, by name. Why (a database's host and port, the driver's message) is for the log and
  for those who may read /metrics (an allowed address or the metrics token).
* A probe answering 2xx writes no access line (they come every few seconds); any other
  answer does, so a process the load balancer took out of rotation says so in its log.
* No probe sets a cookie: the CSRF token is for pages with forms.
"""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.bootstrap import prepare_database
from app.main import create_app
from app.settings import Settings

OPERATOR = ("127.0.0.1", 50000)  # in STRATAGEM_METRICS_ALLOW by default
STRANGER = ("203.0.113.9", 40000)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def port() -> int:
    return _closed_port()


@pytest.fixture(scope="module")
def down_app(port: int) -> FastAPI:
    """An app whose PostgreSQL server does not answer: /readyz fails `database`."""
    url = f"postgresql+psycopg://nobody@127.0.0.1:{port}/none"
    return create_app(
        Settings(
            DATABASE_URL=url, STRATAGEM_SECRET_KEY="probe-secret", STRATAGEM_METRICS_TOKEN="t0k"
        )
    )


# ------------------------------------------------------------------------- /readyz


def test_anyone_learns_which_checks_fail_but_not_why(down_app: FastAPI, port: int) -> None:
    r = TestClient(down_app, client=STRANGER).get("/readyz")
    assert r.status_code == 503
    body = r.json()
    assert body["status"] == "not ready"
    assert {"database", "migrations"} <= set(body["failing"])
    assert {name for name, c in body["checks"].items() if not c["ok"]} == set(body["failing"])
    assert all(set(c) == {"ok", "ms"} for c in body["checks"].values())
    for secret in (str(port), "127.0.0.1", "OperationalError", "psycopg", "refused"):
        assert secret not in r.text


@pytest.mark.parametrize(
    ("client", "headers"),
    [
        (OPERATOR, {}),  # from an address allowed to read /metrics
        (STRANGER, {"Authorization": "Bearer t0k"}),  # with the metrics token, from anywhere
    ],
)
def test_operators_also_read_why(
    down_app: FastAPI, port: int, client: tuple[str, int], headers: dict[str, str]
) -> None:
    r = TestClient(down_app, client=client).get("/readyz", headers=headers)
    assert r.status_code == 503
    database = r.json()["checks"]["database"]
    assert database["ok"] is False
    assert database["error"].startswith("OperationalError") and str(port) in database["error"]


def test_a_wrong_token_reads_no_more_than_anyone(down_app: FastAPI) -> None:
    r = TestClient(down_app, client=STRANGER).get(
        "/readyz", headers={"Authorization": "Bearer wrong"}
    )
    assert "error" not in r.json()["checks"]["database"]


def test_the_log_says_why_once_until_the_reason_changes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An unmigrated database: the reason is logged at the first probe, not again at each
    of the next, and the recovery is logged when the migrations ran."""
    (tmp_path / "new.db").touch()  # an empty database: the app opens its file, never makes it
    settings = Settings(DATABASE_URL=f"sqlite:///{tmp_path / 'new.db'}", STRATAGEM_SECRET_KEY="k")
    client = TestClient(create_app(settings))
    with caplog.at_level(logging.INFO, logger="stratagem.readiness"):
        for _ in range(3):
            r = client.get("/readyz")
            assert r.status_code == 503 and r.json()["failing"] == ["migrations"]
        prepare_database(settings, echo=lambda _: None)
        for _ in range(2):
            assert client.get("/readyz").status_code == 200
    lines = [
        (r.levelname, r.getMessage()) for r in caplog.records if r.name == "stratagem.readiness"
    ]
    assert len(lines) == 2, lines
    (level, failing), (back_level, back) = lines
    assert level == "WARNING" and failing.startswith("readiness check migrations fails: ")
    assert "no revision" in failing  # the detail the public answer leaves out
    assert (back_level, back) == ("INFO", "readiness check migrations passes again")


# --------------------------------------------------------------------- the access log


def _access(caplog: pytest.LogCaptureFixture) -> list[tuple[str, int]]:
    return [
        (r.__dict__["route"], r.__dict__["status"])
        for r in caplog.records
        if r.name == "stratagem.access"
    ]


def test_probes_answering_2xx_write_no_access_line(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="stratagem.access"):
        assert client.get("/healthz").status_code == 200
        assert client.get("/readyz").status_code == 200
        assert TestClient(client.app, client=OPERATOR).get("/metrics").status_code == 200
    assert _access(caplog) == []


def test_a_failing_probe_writes_its_access_line(
    down_app: FastAPI, client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="stratagem.access"):
        assert TestClient(down_app).get("/readyz").status_code == 503
        assert client.get("/metrics").status_code == 403  # not an allowed address
    assert _access(caplog) == [("/readyz", 503), ("/metrics", 403)]


# ------------------------------------------------------------------------- cookies


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/metrics"])
def test_probes_set_no_cookie(client: TestClient, path: str) -> None:
    r = TestClient(client.app, client=OPERATOR).get(path)  # a client without cookies yet
    assert r.status_code == 200
    assert "set-cookie" not in r.headers


def test_pages_still_hand_out_the_csrf_cookie(client: TestClient) -> None:
    r = TestClient(client.app).get("/")
    assert r.headers["set-cookie"].startswith("csrf=")
