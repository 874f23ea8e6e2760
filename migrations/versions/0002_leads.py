"""leads: 'request a quote' submissions from the self-assessment (sales queue).

Revision ID: 0002_leads
Revises: 0001_catalog
Create Date: 2026-11-30 04:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0002_leads"
down_revision: str | None = "0001_catalog"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "lead",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("company", sqlmodel.sql.sqltypes.AutoString(length=160), nullable=False),
        sa.Column("email", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("notes", sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=False),
        sa.Column("lang", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column("tier", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.Column("answers", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("lead", schema=None) as batch_op:
        batch_op.create_index("ix_lead_status_created", ["status", "created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("lead", schema=None) as batch_op:
        batch_op.drop_index("ix_lead_status_created")
    op.drop_table("lead")
