"""rate limits: one row per counted request to a limited route (quote requests, share links).

Revision ID: 0008_rate_limits
Revises: 0007_text_limits
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0008_rate_limits"
down_revision: str | None = "0007_text_limits"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rate_hit",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bucket", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_rate_hit_bucket_key_at", "rate_hit", ["bucket", "key", "at"])


def downgrade() -> None:
    op.drop_index("ix_rate_hit_bucket_key_at", table_name="rate_hit")
    op.drop_table("rate_hit")
