"""login_attempt.checked: a sign-in is counted before its password is checked, so attempts
sent together see each other (stop 29). Ten correct sign-ins sent at once were then refused
for 15 minutes by each other's uncounted rows (QA of stop 30). `checked` tells the rows still
being checked (a second's wait) from the failures (the 15-minute block). Existing rows were
failures.

Revision ID: 0011_login_attempt_checked
Revises: 0010_customer_version
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_login_attempt_checked"
down_revision: str | None = "0010_customer_version"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("login_attempt") as batch:
        batch.add_column(
            sa.Column("checked", sa.Boolean(), nullable=False, server_default=sa.true())
        )


def downgrade() -> None:
    with op.batch_alter_table("login_attempt") as batch:
        batch.drop_column("checked")
