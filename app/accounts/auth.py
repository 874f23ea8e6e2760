"""Signing in to the pages: the throttle against password guessing, sign-out, password change.

The throttle counts failed sign-ins in the `login_attempt` table (so it holds across
workers and restarts), within a 15-minute window, in three ways (issue 13):

* **per (account, client)**: 5 failures for one e-mail from one address block that pair
  until the oldest counted failure is 15 minutes old — the guesser is stopped, the owner
  signing in from elsewhere is not;
* **per account**, from all addresses: past 10 failures each further try must wait
  2^(n−10) seconds after the last failure, at most 60 s — a slow-down, never a lockout,
  so a guesser spread over many addresses gets ≈1 try a minute and the owner waits a minute
  at worst;
* **per address**, over all accounts: past 20 failures the same slow-down (a password spray).

The address is the connecting peer, or X-Forwarded-For only when the peer is one of
`STRATAGEM_TRUSTED_PROXIES` (ProxyHeadersMiddleware in create_app), so rotating the header
gets a client nothing. The check runs before the password is verified, so a blocked guesser
learns nothing. A successful sign-in clears the e-mail's failures.

Each attempt is counted as a failure *before* the check, and the count taken back when the
password is right or the attempt is refused: when the check came first, guesses sent
together all passed it before any of them had failed, so a guesser with 100 connections got
100 guesses past a limit of 5. Now the last of them to check sees all the others: no more
than the limits let through are verified, whatever the concurrency.

A row being checked is not yet a failure, though: ten *correct* sign-ins sent together (a
script with ten workers, a double-clicked button times five) counted each other as failures
and five of them were told to come back in 15 minutes, when the account was never blocked.
Each row therefore says whether its password was `checked` (and found wrong). When the limit
is reached only because of attempts still being checked, the attempt takes its row back,
waits a random moment and tries again, for up to `BUSY_WAIT_S` seconds: attempts
that arrived together no longer refuse each other alike, one goes first, and a success clears
the way for the rest. Only if it is still busy is the user asked to retry in `BUSY_RETRY_S`
seconds. Every try is counted before its check, so a guesser gains nothing: by then the
others have failed and the full limit applies. A row left unchecked for `IN_FLIGHT_S` (its
process died) counts as a failure.
"""

from __future__ import annotations

import math
import random
import time
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import delete, true, update
from sqlmodel import Session, col, select

from app.accounts import service
from app.accounts.models import ApiToken, LoginAttempt, User, new_session_nonce, utcnow

WINDOW: Final = timedelta(minutes=15)
MAX_PER_PAIR: Final = 5  # failures of one e-mail from one address: then blocked
SLOW_PER_EMAIL: Final = 10  # failures of one e-mail from anywhere: then slowed down
SLOW_PER_IP: Final = 20  # failures from one address on any e-mail: then slowed down
MAX_DELAY_S: Final = 60
BUSY_RETRY_S: Final = 2  # Argon2 takes tens of milliseconds; a loaded server, a second or so
BUSY_WAIT_S: Final = 3.0  # how long an attempt refused as busy keeps trying, seconds
BUSY_PAUSE_S: Final = (0.05, 0.3)  # random pause between its tries, seconds
IN_FLIGHT_S: Final = 30  # a row still unchecked after this is a failure: its check died


_jitter = random.Random()


class Throttled(Exception):
    """Too many failed sign-ins; try again in `retry_after` seconds.

    `busy`: refused only because other sign-ins to this account or from this address are
    being checked at this moment — not a block, a moment's wait."""

    def __init__(self, retry_after: int, *, busy: bool = False) -> None:
        why = "other sign-ins are being checked" if busy else "too many failed sign-ins"
        super().__init__(f"{why}; retry in {retry_after} s")
        self.retry_after = retry_after
        self.busy = busy


def _retry_after(times: list[datetime], limit: int, now: datetime) -> int | None:
    """Seconds until fewer than `limit` of `times` (ascending) lie within the window."""
    if len(times) < limit:
        return None
    unblocks_at = times[len(times) - limit] + WINDOW
    # at most one window: an attempt racing this one may have counted a moment after `now`
    wait = math.ceil((unblocks_at - now).total_seconds())
    return min(math.ceil(WINDOW.total_seconds()), max(1, wait))


def _slow_down(times: list[datetime], threshold: int, now: datetime) -> int | None:
    """Seconds to wait when `times` (ascending) hold more than `threshold` failures: the
    next try may come 2^(n − threshold) s (at most MAX_DELAY_S) after the latest one."""
    if len(times) < threshold:
        return None
    delay = min(MAX_DELAY_S, 2 ** (len(times) - threshold))
    wait = math.ceil((times[-1] + timedelta(seconds=delay) - now).total_seconds())
    return wait if wait > 0 else None


def _wait(rows: list[tuple[str, str, datetime]], email: str, ip: str, now: datetime) -> int | None:
    """Seconds to wait given these counted attempts (email, ip, when; ascending), or None."""
    pair = [at for e, i, at in rows if e == email and i == ip]
    by_email = [at for e, _i, at in rows if e == email]
    by_ip = [at for _e, i, at in rows if i == ip]
    waits = [
        w
        for w in (
            _retry_after(pair, MAX_PER_PAIR, now),
            _slow_down(by_email, SLOW_PER_EMAIL, now),
            _slow_down(by_ip, SLOW_PER_IP, now),
        )
        if w is not None
    ]
    return max(waits) if waits else None


def refusal(
    *,
    session: Session,
    email: str,
    ip: str,
    now: datetime | None = None,
    besides: int | None = None,
) -> Throttled | None:
    """None when a sign-in may be tried now, else why not and for how long; `besides`: the
    id of this attempt's own row, not counted against it."""
    now = now or utcnow()
    since = now - WINDOW
    stamp = col(LoginAttempt.attempted_at)
    rows = session.exec(
        select(LoginAttempt.email, LoginAttempt.ip, LoginAttempt.attempted_at, LoginAttempt.checked)
        .where(
            (LoginAttempt.email == email) | (LoginAttempt.ip == ip),
            stamp > since,
            col(LoginAttempt.id) != besides if besides is not None else true(),
        )
        .order_by(stamp)
    ).all()
    # SQLite hands back naive UTC; compare like with like.
    now_cmp = now.replace(tzinfo=None) if rows and rows[0][2].tzinfo is None else now
    counted = [(e, i, at) for e, i, at, _c in rows]
    wait = _wait(counted, email, ip, now_cmp)
    if wait is None:
        return None
    stale = now_cmp - timedelta(seconds=IN_FLIGHT_S)
    failures = [(e, i, at) for e, i, at, checked in rows if checked or at <= stale]
    if len(failures) < len(counted) and _wait(failures, email, ip, now_cmp) is None:
        return Throttled(BUSY_RETRY_S, busy=True)
    return Throttled(wait)


def retry_after(
    *,
    session: Session,
    email: str,
    ip: str,
    now: datetime | None = None,
    besides: int | None = None,
) -> int | None:
    """None when a sign-in may be tried now, else the seconds to wait (see `refusal`)."""
    refused = refusal(session=session, email=email, ip=ip, now=now, besides=besides)
    return refused.retry_after if refused else None


def _count_in(session: Session, *, email: str, ip: str) -> int | None:
    """Count this attempt (committed, so every other attempt's check sees it) before its
    check; the id of its row. Rows past the window are no longer counted: dropped here."""
    now = utcnow()
    session.exec(delete(LoginAttempt).where(col(LoginAttempt.attempted_at) <= now - WINDOW))
    attempt = LoginAttempt(email=email, ip=ip, attempted_at=now, checked=False)
    session.add(attempt)
    session.flush()
    own = attempt.id  # read before the commit: a success elsewhere may delete the row at once
    session.commit()
    return own


def sign_in(*, session: Session, email: str, password: str, ip: str) -> User | None:
    """The user these credentials sign in, or None (the failure is counted).

    Raises `Throttled` while the e-mail or the address is blocked, without checking the
    password (and without counting the attempt); with `busy` set when it was refused only
    because other attempts were being checked, for `BUSY_WAIT_S` seconds.
    """
    key = email.strip().lower()[:254]
    ip = ip[:64]
    give_up_at = time.monotonic() + BUSY_WAIT_S
    while True:
        own = _count_in(session, email=key, ip=ip)
        refused = refusal(session=session, email=key, ip=ip, besides=own)
        if refused is None:
            break
        session.exec(delete(LoginAttempt).where(col(LoginAttempt.id) == own))
        session.commit()
        if not refused.busy or time.monotonic() >= give_up_at:
            raise refused
        # Attempts that arrived together refuse each other alike; waiting a random moment
        # lets one of them go first (a success clears the way for the rest).
        time.sleep(_jitter.uniform(*BUSY_PAUSE_S))
    user = service.authenticate(session=session, email=key, password=password)
    if user is not None:
        # The password (or the account) may have changed while this one was checked: read
        # the user again in a new transaction and sign in only with the hash verified. The
        # cookie then carries the nonce read here, which a change committed after this
        # point replaces, so no session made with an old password outlives its change
        # (race QA of stop 30, PostgreSQL, 1 round in 20).
        verified = user.password_hash
        session.commit()
        session.refresh(user)
        if user.password_hash != verified or not user.is_active:
            user = None
    if user is None:
        # the attempt's row stays: now a failure
        session.exec(update(LoginAttempt).where(col(LoginAttempt.id) == own).values(checked=True))
        session.commit()
        return None
    session.exec(delete(LoginAttempt).where(col(LoginAttempt.email) == key))
    session.commit()
    session.refresh(user)
    return user


def end_sessions(*, session: Session, user_id: int) -> None:
    """Sign the user out everywhere: every session cookie issued so far stops working."""
    user = session.get(User, user_id)
    if user is None:
        return
    user.session_nonce = new_session_nonce()
    session.add(user)
    session.commit()


def change_password(*, session: Session, user_id: int, current: str, new: str) -> User:
    """Set a new password after checking the current one; ends every other session.

    Raises `service.AccountError` (field "current_password" or "new_password").
    """
    user = session.get(User, user_id)
    if (
        user is None
        or service.authenticate(session=session, email=user.email, password=current) is None
    ):
        raise service.AccountError("current_password", "the current password is not right")
    if len(new) < service.MIN_PASSWORD:
        raise service.AccountError(
            "new_password", f"must be at least {service.MIN_PASSWORD} characters"
        )
    if len(new) > service.MAX_PASSWORD:
        raise service.AccountError(
            "new_password", f"must be at most {service.MAX_PASSWORD:,} characters"
        )
    if (bad := service.password_problem(new)) is not None:
        raise service.AccountError("new_password", bad)
    checked = user.password_hash  # the hash `current` was just checked against
    # Written only if the password is still the one checked: of two changes sent together
    # from two devices, both had been told "changed" while only one new password worked
    # (race QA, 20 of 20 rounds). The second now reads that its current password is wrong.
    changed = session.execute(
        update(User)
        .where(col(User.id) == user_id, col(User.password_hash) == checked)
        .values(password_hash=service.hash_password(new), session_nonce=new_session_nonce())
        .execution_options(synchronize_session=False)
    )
    if changed.rowcount != 1:  # type: ignore[attr-defined]
        session.rollback()
        raise service.AccountError("current_password", "the current password is not right")
    session.commit()
    user = session.get(User, user_id, populate_existing=True)
    assert user is not None
    return user


def revoke_own_token(*, session: Session, user: User, token_id: int) -> bool:
    """Revoke one of `user`'s tokens; False when the token is not theirs (or not there)."""
    token = session.get(ApiToken, token_id)
    if token is None or token.user_id != user.id:
        return False
    service.revoke_token(session=session, token_id=token_id)
    return True
