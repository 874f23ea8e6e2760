"""price_list ids are never handed out twice on SQLite (AUTOINCREMENT).

A rowid table without AUTOINCREMENT gives a new row max(id) + 1: after the newest draft was
deleted, the next list got its id back, and the audit trail (keyed by `price_list_id`) and
the record of where a staged upload was applied mixed two lists (QA of stop 30). The table
is rebuilt with AUTOINCREMENT (env.py turns foreign keys off while migrating, so the rows
that reference it stay), and its sequence starts past every id the audit trail has seen, so
ids deleted before this migration are not reused either. PostgreSQL's sequence never
reused an id: nothing to do there.

Revision ID: 0012_price_list_ids_not_reused
Revises: 0011_login_attempt_checked
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0012_price_list_ids_not_reused"
down_revision: str | None = "0011_login_attempt_checked"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    with op.batch_alter_table(
        "price_list", recreate="always", table_kwargs={"sqlite_autoincrement": True}
    ):
        pass
    highest = (
        "max(coalesce((SELECT max(id) FROM price_list), 0),"
        " coalesce((SELECT max(price_list_id) FROM audit_entry), 0))"
    )
    bind.exec_driver_sql("DELETE FROM sqlite_sequence WHERE name = 'price_list'")
    bind.exec_driver_sql(f"INSERT INTO sqlite_sequence (name, seq) SELECT 'price_list', {highest}")


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    with op.batch_alter_table(
        "price_list", recreate="always", table_kwargs={"sqlite_autoincrement": False}
    ):
        pass
