"""lead tax id: the company's 統一編號 on a quote request (optional), which the customer a lead
converts into carries — QA of stop 50: a company typed "統編 22099131" into the notes, its
converted customer had none, and sending the quote was refused until sales retyped it.

Earlier leads have none ('').

Revision ID: 0015_lead_tax_id
Revises: 0014_sent_customer
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_lead_tax_id"
down_revision: str | None = "0014_sent_customer"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("lead") as batch:
        batch.add_column(
            sa.Column("tax_id", sa.String(length=8), nullable=False, server_default="")
        )


def downgrade() -> None:
    with op.batch_alter_table("lead") as batch:
        batch.drop_column("tax_id")
