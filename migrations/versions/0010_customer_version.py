"""customer version: every save of a customer counts up its `version`, and a save based on an
older version is refused (409) instead of silently overwriting a colleague's edit (QA of
stop 22: two people editing one customer lost one edit without a word). Existing customers
start at version 1.

Revision ID: 0010_customer_version
Revises: 0009_bounded_notes
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_customer_version"
down_revision: str | None = "0009_bounded_notes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("customer") as batch:
        batch.add_column(sa.Column("version", sa.Integer(), nullable=False, server_default="1"))


def downgrade() -> None:
    with op.batch_alter_table("customer") as batch:
        batch.drop_column("version")
