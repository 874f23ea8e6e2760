"""Password guesses sent together cannot get past the sign-in throttle.

When the throttle checked before the attempt was counted, guesses arriving at once all
passed a check that saw no failure: a guesser with 16 connections had 16 passwords verified
against a limit of 5 per account and address (app/accounts/auth.py). Each attempt is now
counted before its check, so the last of them to check sees the others. Shown on SQLite and
the live PostgreSQL, 16 threads released together by a barrier.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import Session, delete, func, select

from app.accounts import auth, service
from app.accounts.models import LoginAttempt, utcnow
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


def test_correct_sign_ins_sent_together_are_never_blocked_for_minutes(database: str) -> None:
    """Ten correct sign-ins at once (a script's workers, an impatient user). Each counts
    itself before its check, so the later ones see up to nine attempts of the pair not yet
    checked. Before `checked`, those counted as failures: 5 of 10 were told to come back in
    15 minutes, for an account that was never blocked. Now an attempt refused only by
    attempts still being checked tries again after a random pause: all ten sign in (on
    PostgreSQL all ten were counted before any checked, and each refused the others)."""
    engine = make_engine(database, concurrent_requests=10)
    start = threading.Barrier(10)
    signed_in: list[bool] = []
    refused: list[auth.Throttled] = []
    errors: list[BaseException] = []

    def sign_in(_i: int) -> None:
        start.wait()
        try:
            with Session(engine) as s:
                user = auth.sign_in(session=s, email=EMAIL, password=PASSWORD, ip="203.0.113.9")
            signed_in.append(user is not None)
        except auth.Throttled as t:
            refused.append(t)
        except BaseException as e:  # surfaced below
            errors.append(e)

    threads = [threading.Thread(target=sign_in, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert [(t.busy, t.retry_after) for t in refused] == []
    assert signed_in == [True] * 10
    with Session(engine) as s:
        # nothing is left that counts as a failure, and a retry (now) signs in
        assert auth.retry_after(session=s, email=EMAIL, ip="203.0.113.9") is None
        assert auth.sign_in(session=s, email=EMAIL, password=PASSWORD, ip="203.0.113.9")
    engine.dispose()


def test_attempts_being_checked_ask_for_a_moment_failures_block(database: str) -> None:
    """The throttle's two answers, from the rows alone: five attempts of the pair still
    being checked → a 2 s wait marked `busy`; the same five found wrong → the 15-minute
    block (`MAX_PER_PAIR`); five left unchecked past `IN_FLIGHT_S` (their process died)
    → failures too."""
    engine = make_engine(database)
    now = utcnow()
    ip = "203.0.113.9"

    def refusal_with(checked: bool, age_s: float) -> auth.Throttled | None:
        with Session(engine) as s:
            s.exec(delete(LoginAttempt))
            at = now - timedelta(seconds=age_s)
            for _ in range(auth.MAX_PER_PAIR):
                s.add(LoginAttempt(email=EMAIL, ip=ip, attempted_at=at, checked=checked))
            s.commit()
            return auth.refusal(session=s, email=EMAIL, ip=ip, now=now)

    in_flight = refusal_with(checked=False, age_s=1)
    assert in_flight is not None and in_flight.busy
    assert in_flight.retry_after == auth.BUSY_RETRY_S
    failed = refusal_with(checked=True, age_s=1)
    assert failed is not None and not failed.busy
    assert failed.retry_after == 15 * 60 - 1  # the oldest of the five is 1 s old
    abandoned = refusal_with(checked=False, age_s=auth.IN_FLIGHT_S + 1)
    assert abandoned is not None and not abandoned.busy
    assert abandoned.retry_after == 15 * 60 - auth.IN_FLIGHT_S - 1
    engine.dispose()
