"""sent customer: the buyer as a quote was sent (name, 統一編號, contact, e-mail, address,
language, currency, export), kept on the plan when it is sent, so that the documents of the
sent revision print the buyer the customer received — editing the customer record afterwards
rewrote an already-sent quote's PDF (QA of stop 49: a renamed customer and a new 統一編號 on
a quote sent days before, while the plan's own `customer` text still said the old name).

Quotes sent before this migration have none and print the customer record as it is, as they
did.

Revision ID: 0014_sent_customer
Revises: 0013_catalog_bounds
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_sent_customer"
down_revision: str | None = "0013_catalog_bounds"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("plan") as batch:
        batch.add_column(sa.Column("sent_customer", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("plan") as batch:
        batch.drop_column("sent_customer")
