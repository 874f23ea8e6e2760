"""customers and quotes: the customer table, plans linked to it, a quote and its life.

Plans keep their free-text `customer` column (plans saved before customers existed); the
new columns hold the quote (JSON, also on every revision), its derived totals and validity,
the revision sent, the discount approval and the customer's decision.

Revision ID: 0006_customers_quotes
Revises: 0005_share_links
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '0006_customers_quotes'
down_revision: str | None = '0005_share_links'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('customer',
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('tax_id', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
    sa.Column('contact', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('address', sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
    sa.Column('language', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
    sa.Column('currency', sqlmodel.sql.sqltypes.AutoString(length=3), nullable=False),
    sa.Column('export', sa.Boolean(), nullable=False),
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('customer', schema=None) as batch_op:
        batch_op.create_index('ix_customer_name', ['name'], unique=False)
        batch_op.create_index('ix_customer_tax_id', ['tax_id'], unique=False)

    with op.batch_alter_table('plan', schema=None) as batch_op:
        batch_op.add_column(sa.Column('customer_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('quote', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('quote_totals', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('valid_until', sa.Date(), nullable=True))
        batch_op.add_column(sa.Column('sent_version', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('sent_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('discount_approved_by', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('discount_approved_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('discount_approved_pct', sa.Numeric(precision=5, scale=2), nullable=True))
        batch_op.add_column(sa.Column('decided_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('decision_name', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False, server_default=''))
        batch_op.add_column(sa.Column('decision_title', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False, server_default=''))
        batch_op.add_column(sa.Column('decision_ip', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False, server_default=''))
        batch_op.add_column(sa.Column('decision_version', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('decline_reason', sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=False, server_default=''))
        batch_op.create_index('ix_plan_customer_id', ['customer_id'], unique=False)
        batch_op.create_foreign_key('fk_plan_discount_approved_by', 'app_user', ['discount_approved_by'], ['id'])
        batch_op.create_foreign_key('fk_plan_customer', 'customer', ['customer_id'], ['id'], ondelete='SET NULL')

    with op.batch_alter_table('plan_revision', schema=None) as batch_op:
        batch_op.add_column(sa.Column('customer_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('quote', sa.JSON(), nullable=True))



def downgrade() -> None:
    with op.batch_alter_table('plan_revision', schema=None) as batch_op:
        batch_op.drop_column('quote')
        batch_op.drop_column('customer_id')

    with op.batch_alter_table('plan', schema=None) as batch_op:
        batch_op.drop_constraint('fk_plan_customer', type_='foreignkey')
        batch_op.drop_constraint('fk_plan_discount_approved_by', type_='foreignkey')
        batch_op.drop_index('ix_plan_customer_id')
        batch_op.drop_column('decline_reason')
        batch_op.drop_column('decision_version')
        batch_op.drop_column('decision_ip')
        batch_op.drop_column('decision_title')
        batch_op.drop_column('decision_name')
        batch_op.drop_column('decided_at')
        batch_op.drop_column('discount_approved_pct')
        batch_op.drop_column('discount_approved_at')
        batch_op.drop_column('discount_approved_by')
        batch_op.drop_column('sent_at')
        batch_op.drop_column('sent_version')
        batch_op.drop_column('valid_until')
        batch_op.drop_column('quote_totals')
        batch_op.drop_column('quote')
        batch_op.drop_column('customer_id')

    with op.batch_alter_table('customer', schema=None) as batch_op:
        batch_op.drop_index('ix_customer_tax_id')
        batch_op.drop_index('ix_customer_name')

    op.drop_table('customer')
