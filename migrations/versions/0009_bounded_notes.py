"""bounded notes: plan and revision notes, revision summaries and the audit trail's columns get
lengths (issue 13: "length limits on every free-text field, in the models and the
migrations"); and `import_upload`, where a catalog import waits between its preview and its
confirmation (the 10 MB file is sent once; "Apply" sends a token).

Lengths, the same as the models': plan / revision `notes` 20,000 characters (what the API and
the plan page have refused beyond since issue 3), `change_summary` 2,000; audit `actor` 254
(an e-mail address), `action` and `entity` 32, `entity_key` 200, `summary` 2,000.

Existing values past a limit:
* notes are what a person wrote: the upgrade stops with an error naming the plans (shorten
  them, then upgrade again) rather than cut a customer's text;
* summaries and audit columns are written by the app: cut to the limit, the last character
  replaced by "…" (the same as `audit.record` does for new entries).

Revision ID: 0009_bounded_notes
Revises: 0008_rate_limits
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0009_bounded_notes"
down_revision: str | None = "0008_rate_limits"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NOTES = 20_000
#: (table, column, length) the app writes itself: over-long values are cut.
WRITTEN_BY_THE_APP = (
    ("plan_revision", "change_summary", 2_000),
    ("audit_entry", "actor", 254),
    ("audit_entry", "action", 32),
    ("audit_entry", "entity", 32),
    ("audit_entry", "entity_key", 200),
    ("audit_entry", "summary", 2_000),
)


def _refuse_long_notes() -> None:
    conn = op.get_bind()
    long = []
    for table, who in (("plan", "id"), ("plan_revision", "plan_id")):
        rows = conn.execute(
            sa.text(f"SELECT DISTINCT {who} FROM {table} WHERE length(notes) > :n ORDER BY 1"),
            {"n": NOTES},
        )
        long.extend(r[0] for r in rows)
    if long:
        ids = ", ".join(str(i) for i in sorted(set(long)))
        raise RuntimeError(
            f"0009_bounded_notes: plans {ids} have notes longer than {NOTES:,} characters "
            "(in the plan or one of its revisions). Shorten them, then run the upgrade again."
        )


def _cut_app_text() -> None:
    for table, column, n in WRITTEN_BY_THE_APP:
        op.execute(
            sa.text(
                f"UPDATE {table} SET {column} = substr({column}, 1, {n - 1}) || :ell "
                f"WHERE length({column}) > {n}"
            ).bindparams(ell="…")
        )


def upgrade() -> None:
    _refuse_long_notes()
    _cut_app_text()
    with op.batch_alter_table("plan") as batch:
        batch.alter_column(
            "notes", type_=sa.String(length=NOTES), existing_type=sa.String(), existing_nullable=False
        )
    with op.batch_alter_table("plan_revision") as batch:
        batch.alter_column(
            "notes", type_=sa.String(length=NOTES), existing_type=sa.String(), existing_nullable=False
        )
        batch.alter_column(
            "change_summary",
            type_=sa.String(length=2_000),
            existing_type=sa.String(),
            existing_nullable=False,
        )
    with op.batch_alter_table("audit_entry") as batch:
        for _table, column, n in WRITTEN_BY_THE_APP[1:]:
            batch.alter_column(
                column, type_=sa.String(length=n), existing_type=sa.String(), existing_nullable=False
            )
    op.create_table(
        "import_upload",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_by", sa.String(length=254), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("format", sa.String(length=8), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=True),
        sa.Column("target_price_list_id", sa.Integer(), nullable=True),
        sa.Column("mode", sa.String(length=8), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash", name="uq_import_upload_token_hash"),
    )
    op.create_index("ix_import_upload_created_at", "import_upload", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_import_upload_created_at", table_name="import_upload")
    op.drop_table("import_upload")
    with op.batch_alter_table("audit_entry") as batch:
        for _table, column, n in WRITTEN_BY_THE_APP[1:]:
            batch.alter_column(
                column, type_=sa.String(), existing_type=sa.String(length=n), existing_nullable=False
            )
    with op.batch_alter_table("plan_revision") as batch:
        batch.alter_column(
            "change_summary",
            type_=sa.String(),
            existing_type=sa.String(length=2_000),
            existing_nullable=False,
        )
        batch.alter_column(
            "notes", type_=sa.String(), existing_type=sa.String(length=NOTES), existing_nullable=False
        )
    with op.batch_alter_table("plan") as batch:
        batch.alter_column(
            "notes", type_=sa.String(), existing_type=sa.String(length=NOTES), existing_nullable=False
        )
