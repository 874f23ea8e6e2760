"""share links: read-only links to a plan, stored as the SHA-256 of their token.

Revision ID: 0005_share_links
Revises: 0004_auth
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0005_share_links"
down_revision: str | None = "0004_auth"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "share_link",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("plan_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("expires_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("revoked_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["created_by"], ["app_user.id"], name="fk_share_link_created_by"),
        sa.ForeignKeyConstraint(
            ["plan_id"], ["plan.id"], name="fk_share_link_plan", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash", name="uq_share_link_token_hash"),
    )
    with op.batch_alter_table("share_link", schema=None) as batch_op:
        batch_op.create_index("ix_share_link_plan_id", ["plan_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("share_link", schema=None) as batch_op:
        batch_op.drop_index("ix_share_link_plan_id")
    op.drop_table("share_link")
