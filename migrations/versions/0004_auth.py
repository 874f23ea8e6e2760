"""auth: per-user session nonce and the sign-in throttle's failed attempts.

`app_user.session_nonce` is part of every session cookie; drawing a new one (sign-out,
password change) ends every session of that user. Existing users get a random nonce each.
`login_attempt` keeps failed sign-ins for 15 minutes, indexed by e-mail and by IP.

Revision ID: 0004_auth
Revises: 0003_accounts_plans
Create Date: 2026-12-01 09:00:00
"""

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0004_auth"
down_revision: str | None = "0003_accounts_plans"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("app_user", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "session_nonce",
                sqlmodel.sql.sqltypes.AutoString(length=32),
                nullable=False,
                server_default="",
            )
        )
    conn = op.get_bind()
    user = sa.table("app_user", sa.column("id", sa.Integer), sa.column("session_nonce", sa.String))
    for (user_id,) in conn.execute(sa.select(user.c.id)).all():
        conn.execute(
            user.update()
            .where(user.c.id == user_id)
            .values(session_nonce=secrets.token_urlsafe(16))
        )
    with op.batch_alter_table("app_user", schema=None) as batch_op:
        batch_op.alter_column("session_nonce", server_default=None)

    op.create_table(
        "login_attempt",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("email", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("ip", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("attempted_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("login_attempt", schema=None) as batch_op:
        batch_op.create_index("ix_login_attempt_email_at", ["email", "attempted_at"], unique=False)
        batch_op.create_index("ix_login_attempt_ip_at", ["ip", "attempted_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("login_attempt", schema=None) as batch_op:
        batch_op.drop_index("ix_login_attempt_ip_at")
        batch_op.drop_index("ix_login_attempt_email_at")
    op.drop_table("login_attempt")
    with op.batch_alter_table("app_user", schema=None) as batch_op:
        batch_op.drop_column("session_nonce")
