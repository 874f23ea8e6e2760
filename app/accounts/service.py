"""Account service: users, passwords and API tokens. The only place account rows commit."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata
from datetime import UTC, datetime, timedelta
from typing import Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import update
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, select

from app import text
from app.accounts.models import ROLES, ApiToken, User, utcnow
from app.db import brief_lock_wait
from app.i18n import N_

TOKEN_PREFIX: Final = "stg_"
PREFIX_CHARS: Final = 12  # "stg_" and 8 characters of the secret: enough to tell tokens apart
MIN_PASSWORD: Final = 10
# NIST SP 800-63B §5.1.1.2 asks verifiers to allow at least 64 characters; 1,024 leaves any
# passphrase room and refuses a 100 kB 'password' (QA fuzz set one through the account page).
MAX_PASSWORD: Final = 1024
# Writing last_used_at on every request would turn every API read into a write.
LAST_USED_RESOLUTION: Final = timedelta(minutes=1)

_hasher = PasswordHasher()
# Verified against when the e-mail is unknown, so a miss costs as long as a wrong password.
_DUMMY_HASH: Final = _hasher.hash(secrets.token_urlsafe(16))


def password_problem(password: str) -> str | None:
    """Why `password` cannot be one beyond its length (a msgid), else None: a control
    character (NUL, ESC: no keyboard types it back reliably) or nothing visible at all
    (QA set a password of 12 spaces and one of 10 zero-width spaces)."""
    if any(unicodedata.category(ch) == "Cc" for ch in password):
        return N_("A password cannot contain control characters (such as NUL or ESC).")
    if not text.trim(password):
        return N_("A password needs characters you can see, not only spaces.")
    return None


class AccountError(ValueError):
    """A value the account service refuses; `field` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def normalize_email(email: str) -> str:
    email = email.strip().lower()
    if not text.is_email_address(email):
        raise AccountError("email", f"not an e-mail address: {email!r}")
    return email


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def create_user(*, session: Session, email: str, password: str, role: str, name: str = "") -> User:
    """A new active user; the e-mail is stored lower-case and must be unused."""
    email = normalize_email(email)
    if (ch := text.bad_character(name)) is not None:
        raise AccountError(
            "name", f"must not contain control or text-direction characters ({text.code_point(ch)})"
        )
    if role not in ROLES:
        raise AccountError("role", f"must be one of {', '.join(ROLES)} (got {role!r})")
    if len(password) < MIN_PASSWORD:
        raise AccountError("password", f"must be at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise AccountError("password", f"must be at most {MAX_PASSWORD:,} characters")
    if (bad := password_problem(password)) is not None:
        raise AccountError("password", bad)
    if session.exec(select(User).where(User.email == email)).first() is not None:
        raise AccountError("email", f"a user with e-mail {email} already exists")
    user = User(email=email, name=name.strip(), role=role, password_hash=hash_password(password))
    session.add(user)
    session.commit()
    session.refresh(user)
    return user


def get_user_by_email(*, session: Session, email: str) -> User | None:
    return session.exec(select(User).where(User.email == email.strip().lower())).first()


def authenticate(*, session: Session, email: str, password: str) -> User | None:
    """The active user with this e-mail and password, else None (same cost either way).

    Argon2 verification is constant-time in the password; an unknown e-mail is verified
    against a dummy hash so timing does not reveal which e-mails exist. A hash made with
    older parameters is upgraded on a successful sign-in.
    """
    user = get_user_by_email(session=session, email=email)
    try:
        _hasher.verify(user.password_hash if user else _DUMMY_HASH, password)
    except (VerificationError, InvalidHashError):
        return None
    if user is None or not user.is_active:
        return None
    if _hasher.check_needs_rehash(user.password_hash):
        # Only over the hash just verified: a password changed meanwhile is not put back to
        # this (old) one.
        session.execute(
            update(User)
            .where(col(User.id) == user.id, col(User.password_hash) == user.password_hash)
            .values(password_hash=hash_password(password))
            .execution_options(synchronize_session=False)
        )
        session.commit()
        session.refresh(user)
    return user


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_token(*, session: Session, user: User, name: str) -> tuple[ApiToken, str]:
    """A new API token for `user`; the plaintext is returned here once and never stored."""
    name = text.trim(name)
    if not name:
        raise AccountError("name", "a token needs a name")
    if (ch := text.bad_character(name)) is not None:
        # Shown on the account page and in logs: no terminal escapes, no reordered text.
        raise AccountError(
            "name", f"must not contain control or text-direction characters ({text.code_point(ch)})"
        )
    assert user.id is not None
    plaintext = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(
        user_id=user.id, name=name, token_hash=_digest(plaintext), prefix=plaintext[:PREFIX_CHARS]
    )
    session.add(token)
    session.commit()
    session.refresh(token)
    return token, plaintext


def revoke_token(*, session: Session, token_id: int) -> ApiToken:
    """Revoke a token (idempotent: the first revocation time is kept)."""
    token = session.get(ApiToken, token_id)
    if token is None:
        raise AccountError("id", f"no token {token_id}")
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        session.add(token)
        session.commit()
        session.refresh(token)
    return token


def list_tokens(*, session: Session, user: User) -> list[ApiToken]:
    return list(session.exec(select(ApiToken).where(ApiToken.user_id == user.id)))


def user_for_token(*, session: Session, token: str) -> User | None:
    """The active user a live token belongs to, else None."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    digest = _digest(token)
    row = session.exec(select(ApiToken).where(ApiToken.token_hash == digest)).first()
    if row is None or row.revoked_at is not None:
        return None
    if not hmac.compare_digest(row.token_hash, digest):
        return None
    user = session.get(User, row.user_id)
    if user is None or not user.is_active:
        return None
    now = utcnow()
    last = row.last_used_at
    if last is not None and last.tzinfo is None:
        last = last.replace(tzinfo=UTC)  # SQLite hands back naive UTC
    if last is None or now - last > LAST_USED_RESOLUTION:
        _stamp_last_used(session, row, now)
    return user


def _stamp_last_used(session: Session, row: ApiToken, now: datetime) -> None:
    """Record when the token was used, if the database can take it at once.

    The stamp is bookkeeping: a read must not wait on another writer for it, nor fail. On
    SQLite a large catalog import holds the write lock for up to a minute, and a plain API
    GET waited 31 s for its stamp, then answered 503 (race QA). On its own connection, with
    `brief_lock_wait`; a busy database skips it until a later request."""
    with session.get_bind().engine.connect() as conn:
        try:
            with brief_lock_wait(conn):
                conn.execute(
                    update(ApiToken).where(col(ApiToken.id) == row.id).values(last_used_at=now)
                )
                conn.commit()
        except OperationalError:
            conn.rollback()
