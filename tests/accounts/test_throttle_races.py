"""Password guesses sent together cannot get past the sign-in throttle.

When the throttle checked before the attempt was counted, guesses arriving at once all
passed a check that saw no failure: a guesser with 16 connections had 16 passwords verified
against a limit of 5 per account and address (app/accounts/auth.py). Each attempt is now
counted before its check, so the last of them to check sees the others. Shown on SQLite and
the live PostgreSQL, 16 threads released together by a barrier.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from sqlmodel import Session, func, select

from app.accounts import auth, service
from app.accounts.models import LoginAttempt
from app.bootstrap import prepare_database
from app.db import make_engine
from app.settings import Settings
from tests.accounts.helpers import PASSWORD
from tests.scratch_db import BACKENDS, scratch_databases

THREADS = 16
EMAIL = "owner@example.com.tw"


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated database with one account, on each backend."""
    with scratch_databases(request.param, tmp_path) as create:
        url = create()
        prepare_database(
            Settings(
                DATABASE_URL=url, STRATAGEM_SECRET_KEY="throttle", STRATAGEM_LOAD_CATALOG=False
            ),
            echo=lambda _: None,
        )
        engine = make_engine(url)
        with Session(engine) as s:
            service.create_user(session=s, email=EMAIL, password=PASSWORD, role="sales")
        engine.dispose()
        yield url


def test_guesses_sent_together_are_verified_no_more_than_the_limit(database: str) -> None:
    engine = make_engine(database, concurrent_requests=THREADS)
    start = threading.Barrier(THREADS)
    verified: list[bool] = []
    throttled: list[int] = []
    errors: list[BaseException] = []

    def guess(i: int) -> None:
        start.wait()
        try:
            with Session(engine) as s:
                user = auth.sign_in(session=s, email=EMAIL, password=f"wrong {i}", ip="203.0.113.9")
            verified.append(user is not None)
        except auth.Throttled as t:
            throttled.append(t.retry_after)
        except BaseException as e:  # surfaced below
            errors.append(e)

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert verified.count(True) == 0
    # Passwords actually checked: at most the limit. Attempts racing each other may all be
    # refused (each saw the others' counts before they were taken back), never the reverse.
    assert len(verified) <= auth.MAX_PER_PAIR
    assert len(throttled) == THREADS - len(verified)
    assert all(1 <= w <= 15 * 60 for w in throttled)
    with Session(engine) as s:
        failures = s.exec(select(func.count()).select_from(LoginAttempt)).one()
        # the refused attempts are not counted: the owner's limit holds the checked ones
        assert failures == len(verified)
        # and the owner, from another address, still signs in (clearing the failures)
        assert auth.sign_in(session=s, email=EMAIL, password=PASSWORD, ip="198.51.100.7")
        assert s.exec(select(func.count()).select_from(LoginAttempt)).one() == 0
    engine.dispose()
