"""A database that cannot be reached answers 503 with Retry-After — JSON under /api/, a short
page in the visitor's language elsewhere — and logs one line per request with a traceback at
most once a minute.

QA took PostgreSQL away behind a TCP proxy: pages answered plain-text 500s, the API JSON 500s,
and every request logged a 12.8 KB traceback, so the outage flooded the log it should show up
in. Here the database goes away for real: PostgreSQL on a port nobody listens on, an SQLite
file replaced under a running app, and a live PostgreSQL behind a proxy that is killed.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import psycopg.errors
import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx import Response
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app.accounts.service import TOKEN_PREFIX
from app.bootstrap import prepare_database
from app.main import create_app
from app.ops import outage
from app.ops.middleware import RequestMiddleware
from app.settings import Settings
from tests.accounts.helpers import make_account, sign_in

#: The answer's first words in each language (templates/errors/unavailable.html, ops.po).
HEADINGS = {
    "en": "This service is temporarily unavailable",
    "zh-TW": "服務暫時無法使用",
}
HTML_LANG = {"en": "en", "zh-TW": "zh-Hant-TW"}
API_DETAIL = "The database is unavailable; try again in a few seconds."
#: A token of the right shape: checking it needs the database.
SOME_TOKEN = f"{TOKEN_PREFIX}not-a-real-token"


def closed_port() -> int:
    """A port nobody listens on: a connection is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(autouse=True)
def fresh_outage_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as a fresh process does: its first failure logs the traceback."""
    monkeypatch.setattr(outage, "REPORTER", outage.OutageLog())


@pytest.fixture(scope="module")
def down_app() -> FastAPI:
    """An app whose PostgreSQL server is not there (as after the proxy in front of it died)."""
    url = f"postgresql+psycopg://nobody@127.0.0.1:{closed_port()}/none"
    return create_app(Settings(DATABASE_URL=url, STRATAGEM_SECRET_KEY="outage-test-secret"))


@pytest.fixture
def down(down_app: FastAPI) -> TestClient:
    return TestClient(down_app)


def _errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "stratagem.errors"]


def assert_unavailable_page(r: Response, lang: str) -> BeautifulSoup:
    assert r.status_code == 503, r.text[:300]
    assert r.headers["retry-after"] == str(outage.RETRY_AFTER_S)
    assert r.headers["cache-control"] == "no-store"
    assert r.headers["content-type"].startswith("text/html")
    soup = BeautifulSoup(r.text, "html.parser")
    html = soup.select_one("html")
    assert html is not None and html["lang"] == HTML_LANG[lang]
    h1 = soup.select_one("h1")
    assert h1 is not None and h1.get_text(strip=True) == HEADINGS[lang]
    assert "Traceback" not in r.text and "psycopg" not in r.text  # nothing internal shown
    return soup


# -------------------------------------------------------------- PostgreSQL not listening


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
@pytest.mark.parametrize("path", ["/", "/plan", "/plans", "/login", "/assess"])
def test_pages_answer_a_503_page_in_the_visitors_language(
    down: TestClient, path: str, lang: str
) -> None:
    r = down.get(path, headers={"Accept-Language": lang})
    soup = assert_unavailable_page(r, lang)
    retry = soup.select_one("a.btn")
    assert retry is not None and retry["href"] == r.url.raw_path.decode()  # this same page
    assert soup.find(string=lambda s: r.headers["x-request-id"] in s)  # to quote to support


@pytest.mark.parametrize("path", ["/api/v1/plans", "/api/v1/gpus", "/api/v1/customers"])
def test_the_api_answers_a_503_json_with_the_request_id(down: TestClient, path: str) -> None:
    r = down.get(path, headers={"Authorization": f"Bearer {SOME_TOKEN}"})
    assert r.status_code == 503, r.text
    assert r.headers["retry-after"] == str(outage.RETRY_AFTER_S)
    assert r.json() == {"detail": API_DETAIL, "request_id": r.headers["x-request-id"]}


def test_the_api_says_it_in_chinese_when_asked(down: TestClient) -> None:
    r = down.get(
        "/api/v1/plans",
        headers={"Authorization": f"Bearer {SOME_TOKEN}", "Accept-Language": "zh-TW"},
    )
    assert r.status_code == 503
    assert r.json()["detail"] == "資料庫暫時無法使用，請於幾秒後再試。"


def test_an_error_page_that_itself_needs_the_database_is_the_same_503(down: TestClient) -> None:
    """/plans/0 is a 404 before any database work (app/web/path_ids.py), but its error page
    reads the price list: that failure happens outside the route, in the 404's handler, and
    the request middleware answers it with the same page."""
    assert_unavailable_page(down.get("/plans/0", headers={"Accept-Language": "en"}), "en")


def test_a_form_sent_during_an_outage_says_it_may_not_have_been_saved(down: TestClient) -> None:
    down.get("/login")  # the 503 page still hands out the CSRF cookie
    token = down.cookies["csrf"]
    r = down.post(
        "/login",
        data={"email": "a@example.com", "password": "whatever", "csrf_token": token},
        headers={"Accept-Language": "en", "Referer": "http://testserver/login"},
    )
    soup = assert_unavailable_page(r, "en")
    assert soup.find(string=lambda s: "may not have been saved" in s)
    retry = soup.select_one("a.btn")
    assert retry is not None and retry["href"] == "/login"  # back to the form, not a POST URL


def test_each_request_logs_one_line_and_only_the_first_its_traceback(
    down: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    paths = ["/", "/plan", "/login", "/assess", "/plans/0"]
    with caplog.at_level(logging.INFO):
        for path in paths:
            assert down.get(path).status_code == 503
        r = down.get("/api/v1/plans", headers={"Authorization": f"Bearer {SOME_TOKEN}"})
        assert r.status_code == 503
    errors = _errors(caplog)
    assert len(errors) == len(paths) + 1  # one line per request, whichever layer answered
    assert [bool(e.exc_info) for e in errors] == [True] + [False] * len(paths)
    for record, path in zip(errors, [*paths, "/api/v1/plans"], strict=True):
        message = record.getMessage()
        assert message.startswith(f"database unavailable: GET {path} answered 503")
        assert "Connection refused" in message and "\n" not in message
        assert record.__dict__["event"] == "database_unavailable"
    written = [logging.Formatter().format(e) for e in errors]  # as a handler writes them
    assert "Traceback (most recent call last)" in written[0]
    assert not any("Traceback" in line or "\n" in line for line in written[1:])
    access = [r for r in caplog.records if r.name == "stratagem.access"]
    assert [a.__dict__["status"] for a in access] == [503] * (len(paths) + 1)


# ---------------------------------------------------------------- an SQLite file gone


def test_an_sqlite_file_gone_under_a_running_app_is_a_503(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "stratagem.db"
    settings = Settings(DATABASE_URL=f"sqlite:///{db}", STRATAGEM_SECRET_KEY="sqlite-outage")
    prepare_database(settings, echo=lambda _: None)
    app = create_app(settings)
    client = TestClient(app)
    account = make_account(client, "sales")
    assert client.get("/").status_code == 200
    assert client.get("/api/v1/plans", headers=account.headers).status_code == 200

    # The file (and its WAL) moved away and a directory in its place: SQLite cannot open it.
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{db}{suffix}")
        if part.exists():
            part.rename(f"{part}.moved")
    db.mkdir()
    app.state.engine.dispose()  # as a new process, or a recycled pool connection, would meet it

    with caplog.at_level(logging.WARNING, logger="stratagem.errors"):
        assert_unavailable_page(client.get("/", headers={"Accept-Language": "zh-TW"}), "zh-TW")
        r = client.get("/api/v1/plans", headers=account.headers)
    assert r.status_code == 503 and r.json()["detail"] == API_DETAIL
    first, second = _errors(caplog)
    assert "sqlite3.OperationalError: unable to open database file" in first.getMessage()
    assert first.exc_info and not second.exc_info


def test_an_sqlite_file_moved_away_is_a_503_and_never_an_empty_new_database(
    tmp_path: Path,
) -> None:
    """QA moved the file away (nothing in its place): each new connection made an empty
    database at the old path and answered 500 "no such table". The app opens its file, never
    creates it: a 503 until the file is back, then the same data."""
    db = tmp_path / "stratagem.db"
    settings = Settings(DATABASE_URL=f"sqlite:///{db}", STRATAGEM_SECRET_KEY="sqlite-moved")
    prepare_database(settings, echo=lambda _: None)
    client = TestClient(create_app(settings))
    account = make_account(client, "sales")
    assert client.get("/api/v1/plans", headers=account.headers).status_code == 200
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{db}{suffix}")
        if part.exists():
            part.rename(f"{part}.moved")
    client.app.state.engine.dispose()  # type: ignore[attr-defined]

    r = client.get("/api/v1/plans", headers=account.headers)
    assert r.status_code == 503 and r.headers["retry-after"]
    assert not db.exists()  # no empty database left at the old path

    for suffix in ("", "-wal", "-shm"):
        moved = Path(f"{db}{suffix}.moved")
        if moved.exists():
            moved.rename(f"{db}{suffix}")
    client.app.state.engine.dispose()  # type: ignore[attr-defined]
    assert client.get("/api/v1/plans", headers=account.headers).status_code == 200


# ------------------------------------------------- live PostgreSQL behind a killed proxy


class TcpProxy:
    """Forwards a local port to a server until `kill()` drops every connection and stops
    listening (what QA did to the proxy in front of PostgreSQL); `start()` again revives it
    on the same port."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = 0
        self._stop = threading.Event()
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def start(self) -> None:
        self._stop.clear()
        listener = socket.create_server(("127.0.0.1", self.port))  # SO_REUSEADDR on POSIX
        listener.settimeout(0.1)
        self.port = listener.getsockname()[1]
        with self._lock:
            self._sockets.append(listener)
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while not self._stop.is_set():
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self._lock:
                self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                dst.shutdown(socket.SHUT_WR)

    def kill(self) -> None:
        self._stop.set()
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()


@pytest.fixture
def proxy_to_postgres(pg_database: Callable[[], str]) -> Iterator[tuple[TcpProxy, str]]:
    """A migrated PostgreSQL database, and its URL through a proxy that tests may kill."""
    url = pg_database()
    prepare_database(Settings(DATABASE_URL=url, STRATAGEM_SECRET_KEY="k"), echo=lambda _: None)
    parsed = make_url(url)
    proxy = TcpProxy(parsed.host or "127.0.0.1", parsed.port or 5432)
    proxy.start()
    yield proxy, parsed.set(port=proxy.port).render_as_string(hide_password=False)
    proxy.kill()


@pytest.mark.postgres
def test_postgres_lost_while_serving_is_a_503_until_it_comes_back(
    proxy_to_postgres: tuple[TcpProxy, str], caplog: pytest.LogCaptureFixture
) -> None:
    proxy, url = proxy_to_postgres
    app = create_app(Settings(DATABASE_URL=url, STRATAGEM_SECRET_KEY="pg-outage-secret"))
    with TestClient(app) as client:
        account = make_account(client, "sales")
        sign_in(client, account.user)
        assert client.get("/plans").status_code == 200  # the pool now holds live connections
        assert client.get("/api/v1/plans", headers=account.headers).status_code == 200

        proxy.kill()  # every connection cut, the port closed
        with caplog.at_level(logging.WARNING, logger="stratagem.errors"):
            for _ in range(3):
                assert_unavailable_page(
                    client.get("/plans", headers={"Accept-Language": "en"}), "en"
                )
            r = client.get("/api/v1/plans", headers=account.headers)
            assert r.status_code == 503 and r.json()["detail"] == API_DETAIL
            ready = client.get("/readyz")
        assert ready.status_code == 503 and "database" in ready.json()["failing"]
        errors = _errors(caplog)
        assert len(errors) == 4 and [bool(e.exc_info) for e in errors] == [True] + [False] * 3

        proxy.start()  # the database is back, on the same address
        assert client.get("/plans").status_code == 200
        assert client.get("/readyz").status_code == 200


# ------------------------------------------------------------ which errors are an outage


def _wrapped(orig: BaseException) -> DBAPIError:
    """As SQLAlchemy raises a driver's error: wrapped, and raised from it."""
    err = OperationalError("SELECT 1", {}, orig)
    err.__cause__ = orig
    return err


def _raised_from(cause: BaseException) -> RuntimeError:
    err = RuntimeError("the service gave up")
    err.__cause__ = cause
    return err


def _during(context: BaseException) -> KeyError:
    err = KeyError("a bug while handling it")
    err.__context__ = context
    return err


@pytest.mark.parametrize(
    ("exc", "unavailable"),
    [
        # psycopg without a SQLSTATE: refused, timed out, closed before any server answered
        (_wrapped(psycopg.OperationalError("connection failed: Connection refused")), True),
        (psycopg.OperationalError("the connection is closed"), True),  # unwrapped
        # server-side: shut down (57P01), crashed (57P02), starting (57P03), full (53300)
        (_wrapped(psycopg.errors.AdminShutdown("terminating connection")), True),
        (_wrapped(psycopg.errors.CannotConnectNow("the database system is starting up")), True),
        (_wrapped(psycopg.errors.TooManyConnections("too many clients")), True),
        (_wrapped(psycopg.errors.ConnectionFailure("connection failure")), True),  # class 08
        # SQLAlchemy found the connection dead mid-request
        (DBAPIError("SELECT 1", {}, Exception("eof"), connection_invalidated=True), True),
        # every pooled connection busy past the pool's timeout (SQLAlchemy's TimeoutError)
        (PoolTimeout("QueuePool limit of size 8 overflow 0 reached, connection timed out"), True),
        # SQLite's file cannot be opened, or stays locked past the busy timeout
        (_wrapped(sqlite3.OperationalError("database is locked")), True),
        (_wrapped(sqlite3.OperationalError("unable to open database file")), True),
        (_wrapped(sqlite3.OperationalError("disk I/O error")), True),
        # a service that gave up on the database says so with `raise … from`
        (_raised_from(_wrapped(sqlite3.OperationalError("database is locked"))), True),
        # answered by the database: bugs and refusals stay 500s with their traceback
        (_wrapped(sqlite3.OperationalError("no such table: plan")), False),
        (_wrapped(psycopg.errors.QueryCanceled("canceling statement due to timeout")), False),
        (IntegrityError("INSERT", {}, sqlite3.IntegrityError("UNIQUE constraint failed")), False),
        # a bug raised while handling an outage is still a bug
        (_during(_wrapped(sqlite3.OperationalError("database is locked"))), False),
        (RuntimeError("kaput"), False),
    ],
)
def test_which_errors_mean_the_database_cannot_be_reached(
    exc: BaseException, unavailable: bool
) -> None:
    assert outage.database_unavailable(exc) is unavailable


def test_other_database_errors_stay_a_logged_500(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(settings)

    def broken_query() -> None:
        orig = sqlite3.OperationalError("no such column: plan.colour")
        raise OperationalError("SELECT plan.colour", {}, orig)

    app.add_api_route("/api/v1/broken", broken_query)
    with caplog.at_level(logging.ERROR, logger="stratagem.errors"):
        r = TestClient(app).get("/api/v1/broken")
    assert r.status_code == 500 and "retry-after" not in r.headers
    (record,) = _errors(caplog)
    assert record.getMessage() == "unhandled error in GET /api/v1/broken" and record.exc_info


def test_a_pool_with_no_free_connection_is_a_503_not_a_500(settings: Settings) -> None:
    # SQLAlchemy raises its TimeoutError when every pooled connection stays busy past
    # pool_timeout: the database is not there *for this request*, as with 53300.
    app = create_app(settings)

    def no_free_connection() -> None:
        raise PoolTimeout("QueuePool limit of size 8 overflow 8 reached, connection timed out")

    app.add_api_route("/api/v1/pool", no_free_connection)
    r = TestClient(app).get("/api/v1/pool")
    assert r.status_code == 503, r.text
    assert r.headers["retry-after"] == str(outage.RETRY_AFTER_S)


# ----------------------------------------------------------------- the log's throttle


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_traceback_at_most_once_a_minute_and_a_line_for_every_request(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    log = outage.OutageLog(interval_s=60, clock=clock)
    exc = _wrapped(psycopg.OperationalError("connection failed: Connection refused"))
    with caplog.at_level(logging.WARNING, logger="stratagem.errors"):
        for at in (0, 10, 59.9, 60, 61, 125):
            clock.now = 1000.0 + at
            log.report(exc, method="GET", path=f"/at/{at}")
    records = _errors(caplog)
    assert [r.levelname for r in records] == [
        "ERROR",
        "WARNING",
        "WARNING",
        "ERROR",
        "WARNING",
        "ERROR",
    ]
    assert [bool(r.exc_info) for r in records] == [True, False, False, True, False, True]
    assert "2 more since the last one" in records[3].getMessage()
    assert "1 more since the last one" in records[5].getMessage()


# --------------------------------------------- the request middleware on its own


def test_without_the_web_layer_the_middleware_answers_a_plain_503() -> None:
    """RequestMiddleware's own answer, for an app without app.web's page (and the fallback
    when that page cannot be drawn)."""
    app = FastAPI()
    app.add_middleware(RequestMiddleware)

    def lost() -> None:
        raise _wrapped(psycopg.OperationalError("server closed the connection unexpectedly"))

    app.add_api_route("/api/v1/lost", lost)
    app.add_api_route("/lost", lost)
    client = TestClient(app)
    r = client.get("/api/v1/lost", headers={"X-Request-ID": "lost-1"})
    assert r.status_code == 503 and r.headers["retry-after"] == str(outage.RETRY_AFTER_S)
    assert r.json() == {"detail": API_DETAIL, "request_id": "lost-1"}
    r = client.get("/lost")
    assert r.status_code == 503 and r.headers["content-type"].startswith("text/plain")
    assert r.headers["x-request-id"] and "try again" in r.text
