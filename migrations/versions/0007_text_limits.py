"""text limits: catalog names, providers and regions at most 200 characters, sources and
notes at most 4,000 (issue 13: a 1 MB provider name and 900 KB notes were accepted). The same
bounds are on the models (app/catalog/models.py TEXT_MAX, SOURCE_MAX, NOTES_MAX), which every
entry point validates with; the longest shipped values are 55, 1,012 and 440 characters.

Revision ID: 0007_text_limits
Revises: 0005_share_links
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_text_limits"
down_revision: str | None = "0006_customers_quotes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("gpu") as batch:
        batch.alter_column("name", type_=sa.String(length=200), existing_type=sa.String(), existing_nullable=False)
        batch.alter_column("vendor", type_=sa.String(length=200), existing_type=sa.String(), existing_nullable=False)
        batch.alter_column("generation", type_=sa.String(length=200), existing_type=sa.String(), existing_nullable=False)
        batch.alter_column("source", type_=sa.String(length=4000), existing_type=sa.String(), existing_nullable=False)
        batch.alter_column("notes", type_=sa.String(length=4000), existing_type=sa.String(), existing_nullable=False)
    with op.batch_alter_table("price_list") as batch:
        batch.alter_column("notes", type_=sa.String(length=4000), existing_type=sa.String(), existing_nullable=False)
        batch.alter_column("source", type_=sa.String(length=4000), existing_type=sa.String(), existing_nullable=False)
    with op.batch_alter_table("buy_parameters") as batch:
        batch.alter_column("source", type_=sa.String(length=4000), existing_type=sa.String(), existing_nullable=False)
    with op.batch_alter_table("cloud_instance") as batch:
        batch.alter_column("provider", type_=sa.String(length=200), existing_type=sa.String(), existing_nullable=False)
        batch.alter_column("name", type_=sa.String(length=200), existing_type=sa.String(), existing_nullable=False)
        batch.alter_column("region", type_=sa.String(length=200), existing_type=sa.String(), existing_nullable=False)
        batch.alter_column("source", type_=sa.String(length=4000), existing_type=sa.String(), existing_nullable=False)
    with op.batch_alter_table("energy_price") as batch:
        batch.alter_column("region", type_=sa.String(length=200), existing_type=sa.String(), existing_nullable=False)
        batch.alter_column("source", type_=sa.String(length=4000), existing_type=sa.String(), existing_nullable=False)
    with op.batch_alter_table("fx_rate") as batch:
        batch.alter_column("source", type_=sa.String(length=4000), existing_type=sa.String(), existing_nullable=False)
    with op.batch_alter_table("gpu_price") as batch:
        batch.alter_column("source", type_=sa.String(length=4000), existing_type=sa.String(), existing_nullable=False)
    with op.batch_alter_table("rental_offer") as batch:
        batch.alter_column("provider", type_=sa.String(length=200), existing_type=sa.String(), existing_nullable=False)
        batch.alter_column("source", type_=sa.String(length=4000), existing_type=sa.String(), existing_nullable=False)
    with op.batch_alter_table("server_sku") as batch:
        batch.alter_column("name", type_=sa.String(length=200), existing_type=sa.String(), existing_nullable=False)
        batch.alter_column("source", type_=sa.String(length=4000), existing_type=sa.String(), existing_nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("gpu") as batch:
        batch.alter_column("name", type_=sa.String(), existing_type=sa.String(length=200), existing_nullable=False)
        batch.alter_column("vendor", type_=sa.String(), existing_type=sa.String(length=200), existing_nullable=False)
        batch.alter_column("generation", type_=sa.String(), existing_type=sa.String(length=200), existing_nullable=False)
        batch.alter_column("source", type_=sa.String(), existing_type=sa.String(length=4000), existing_nullable=False)
        batch.alter_column("notes", type_=sa.String(), existing_type=sa.String(length=4000), existing_nullable=False)
    with op.batch_alter_table("price_list") as batch:
        batch.alter_column("notes", type_=sa.String(), existing_type=sa.String(length=4000), existing_nullable=False)
        batch.alter_column("source", type_=sa.String(), existing_type=sa.String(length=4000), existing_nullable=False)
    with op.batch_alter_table("buy_parameters") as batch:
        batch.alter_column("source", type_=sa.String(), existing_type=sa.String(length=4000), existing_nullable=False)
    with op.batch_alter_table("cloud_instance") as batch:
        batch.alter_column("provider", type_=sa.String(), existing_type=sa.String(length=200), existing_nullable=False)
        batch.alter_column("name", type_=sa.String(), existing_type=sa.String(length=200), existing_nullable=False)
        batch.alter_column("region", type_=sa.String(), existing_type=sa.String(length=200), existing_nullable=False)
        batch.alter_column("source", type_=sa.String(), existing_type=sa.String(length=4000), existing_nullable=False)
    with op.batch_alter_table("energy_price") as batch:
        batch.alter_column("region", type_=sa.String(), existing_type=sa.String(length=200), existing_nullable=False)
        batch.alter_column("source", type_=sa.String(), existing_type=sa.String(length=4000), existing_nullable=False)
    with op.batch_alter_table("fx_rate") as batch:
        batch.alter_column("source", type_=sa.String(), existing_type=sa.String(length=4000), existing_nullable=False)
    with op.batch_alter_table("gpu_price") as batch:
        batch.alter_column("source", type_=sa.String(), existing_type=sa.String(length=4000), existing_nullable=False)
    with op.batch_alter_table("rental_offer") as batch:
        batch.alter_column("provider", type_=sa.String(), existing_type=sa.String(length=200), existing_nullable=False)
        batch.alter_column("source", type_=sa.String(), existing_type=sa.String(length=4000), existing_nullable=False)
    with op.batch_alter_table("server_sku") as batch:
        batch.alter_column("name", type_=sa.String(), existing_type=sa.String(length=200), existing_nullable=False)
        batch.alter_column("source", type_=sa.String(), existing_type=sa.String(length=4000), existing_nullable=False)
