"""catalog bounds: server `nics` at most 200 characters, and the values an import could store
before its checks were complete (QA of stop 32) made valid, so that no page that lists them
answers 500:

* a price list named with a control or text-direction character (an import's `name`
  parameter was not checked; "\\u202eabc" made every price-list listing answer 500, since
  the API's output model refuses what the import wrote): the character is removed; a name
  left empty becomes "Price list <id>", one that another list has gets " (<id>)";
* server `nics` with such a character or longer than 200 characters (the one catalog text
  field without the checks): the characters removed, the text cut to 200 ("…" at the end);
* whole numbers past the bounds the models now have (GPUs per node, server or instance
  1–1,024; CPU cores 1–4,096; RAM 1–1,048,576 GB; MIG instances 0–64): set to the bound.
  Values past 2^63 never reached the database (it refused them), but 2^31…2^63 did.

Revision ID: 0013_catalog_bounds
Revises: 0012_price_list_ids_not_reused
"""

import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_catalog_bounds"
down_revision: str | None = "0012_price_list_ids_not_reused"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NICS_MAX = 200
#: (table, column, lowest, highest): app/catalog/models.py GpuCount, CpuCores, RamGb,
#: MigInstances.
BOUNDS = (
    ("gpu", "gpus_per_node", 1, 1_024),
    ("gpu", "mig_max", 0, 64),
    ("server_sku", "gpu_count", 1, 1_024),
    ("server_sku", "cpu_cores", 1, 4_096),
    ("server_sku", "ram_gb", 1, 1_048_576),
    ("cloud_instance", "gpu_count", 1, 1_024),
)
#: The characters app/text.py refuses in one-line text (kept here: a migration must not
#: change when the app's code does).
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029")


def _clean(value: str) -> str:
    return "".join(
        ch
        for ch in value
        if ch == "\t" or (ch not in _BIDI and unicodedata.category(ch) != "Cc")
    ).strip()


def _clean_price_list_names(conn: sa.Connection) -> None:
    rows = conn.execute(sa.text("SELECT id, name FROM price_list ORDER BY id")).all()
    taken = {name for _id, name in rows}
    for pl_id, name in rows:
        clean = _clean(name)
        if clean == name:
            continue
        clean = clean or f"Price list {pl_id}"
        if clean in taken:
            clean = f"{clean} ({pl_id})"
        taken.add(clean)
        conn.execute(
            sa.text("UPDATE price_list SET name = :name WHERE id = :id"),
            {"name": clean[:100], "id": pl_id},
        )


def _clean_nics(conn: sa.Connection) -> None:
    rows = conn.execute(sa.text("SELECT row_id, nics FROM server_sku")).all()
    for row_id, nics in rows:
        clean = _clean(nics)
        if len(clean) > NICS_MAX:
            clean = clean[: NICS_MAX - 1] + "…"
        if clean != nics:
            conn.execute(
                sa.text("UPDATE server_sku SET nics = :nics WHERE row_id = :id"),
                {"nics": clean, "id": row_id},
            )


def upgrade() -> None:
    conn = op.get_bind()
    _clean_price_list_names(conn)
    _clean_nics(conn)
    for table, column, low, high in BOUNDS:
        op.execute(f"UPDATE {table} SET {column} = {high} WHERE {column} > {high}")
        op.execute(f"UPDATE {table} SET {column} = {low} WHERE {column} < {low}")
    with op.batch_alter_table("server_sku") as batch:
        batch.alter_column(
            "nics",
            type_=sa.String(length=NICS_MAX),
            existing_type=sa.String(),
            existing_nullable=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("server_sku") as batch:
        batch.alter_column(
            "nics",
            type_=sa.String(),
            existing_type=sa.String(length=NICS_MAX),
            existing_nullable=False,
        )
