"""An API read is not held up by the token's last-used stamp while another writer holds the
database (race QA: on SQLite, during a large catalog import holding the write lock for a
minute, a plain GET waited 31 s for its stamp and answered 503)."""

from __future__ import annotations

import uuid

from sqlalchemy import Engine, update
from sqlmodel import Session, col

from app.accounts import service
from app.accounts.models import ApiToken
from tests.races import (
    STUCK_S,
    Background,
    holding,
    race_engine,  # noqa: F401  (the `engine` fixture)
)


def _token(engine: Engine) -> tuple[int, str]:
    with Session(engine) as s:
        user = service.create_user(
            session=s, email=f"{uuid.uuid4().hex[:8]}@example.com", password="x" * 12,
            role="sales", name="U",
        )  # fmt: skip
        row, token = service.create_token(session=s, user=user, name="t")
        assert row.id is not None
        return row.id, token


def _stamp(engine: Engine, token_id: int) -> object:
    with Session(engine) as s:
        row = s.get(ApiToken, token_id)
        assert row is not None
        return row.last_used_at


def test_a_read_answers_while_the_database_is_held_and_skips_the_stamp(engine: Engine) -> None:
    token_id, token = _token(engine)

    def read() -> str | None:
        with Session(engine) as s:
            user = service.user_for_token(session=s, token=token)
            return user.email if user else None

    reads = Background()
    # The token's row on PostgreSQL; the whole database on SQLite (its one write lock).
    hold = update(ApiToken).where(col(ApiToken.id) == token_id).values(name=ApiToken.name)
    with holding(engine, hold):
        reads.start(read)
        reads.threads[0].join(STUCK_S)
        answered_while_held = not reads.threads[0].is_alive()
    assert answered_while_held, "the read waited for the other writer"
    (email,) = reads.results()
    assert email is not None
    assert _stamp(engine, token_id) is None  # skipped, not waited for
    with Session(engine) as s:  # nobody holding the database: stamped
        assert service.user_for_token(session=s, token=token) is not None
    assert _stamp(engine, token_id) is not None
