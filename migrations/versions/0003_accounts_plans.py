"""accounts and plans: users, API tokens, saved plans and their revisions.

Plans keep optimistic-concurrency versions (`plan.version`) and a full snapshot per save
(`plan_revision`, unique by plan and version). Indexes serve the plan list: the default
(archived, updated_at) order, owner, status, tier, customer and name.

Revision ID: 0003_accounts_plans
Revises: 0002_leads
Create Date: 2026-11-30 03:28:42.686837
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '0003_accounts_plans'
down_revision: str | None = '0002_leads'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('app_user',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('role', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
    sa.Column('password_hash', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('is_active', sa.Boolean(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('email', name='uq_app_user_email')
    )
    op.create_table('api_token',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('token_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('prefix', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('last_used_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('revoked_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['app_user.id'], name='fk_api_token_user', ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('token_hash', name='uq_api_token_hash')
    )
    with op.batch_alter_table('api_token', schema=None) as batch_op:
        batch_op.create_index('ix_api_token_user_id', ['user_id'], unique=False)

    op.create_table('plan',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('quote_number', sqlmodel.sql.sqltypes.AutoString(length=48), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('customer', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('owner_id', sa.Integer(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
    sa.Column('notes', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('tags', sa.JSON(), nullable=False),
    sa.Column('archived', sa.Boolean(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('price_list_id', sa.Integer(), nullable=True),
    sa.Column('tier', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
    sa.Column('workload', sa.JSON(), nullable=False),
    sa.Column('result', sa.JSON(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['owner_id'], ['app_user.id'], name='fk_plan_owner'),
    sa.ForeignKeyConstraint(['price_list_id'], ['price_list.id'], name='fk_plan_price_list', ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('quote_number', name='uq_plan_quote_number')
    )
    with op.batch_alter_table('plan', schema=None) as batch_op:
        batch_op.create_index('ix_plan_archived_updated_at', ['archived', 'updated_at'], unique=False)
        batch_op.create_index('ix_plan_customer', ['customer'], unique=False)
        batch_op.create_index('ix_plan_name', ['name'], unique=False)
        batch_op.create_index('ix_plan_owner_id', ['owner_id', 'updated_at'], unique=False)
        batch_op.create_index('ix_plan_status', ['status'], unique=False)
        batch_op.create_index('ix_plan_tier', ['tier'], unique=False)

    op.create_table('plan_revision',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('plan_id', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('author_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('customer', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
    sa.Column('notes', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('tags', sa.JSON(), nullable=False),
    sa.Column('archived', sa.Boolean(), nullable=False),
    sa.Column('price_list_id', sa.Integer(), nullable=True),
    sa.Column('workload', sa.JSON(), nullable=False),
    sa.Column('result', sa.JSON(), nullable=False),
    sa.Column('change_summary', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.ForeignKeyConstraint(['author_id'], ['app_user.id'], name='fk_plan_revision_author'),
    sa.ForeignKeyConstraint(['plan_id'], ['plan.id'], name='fk_plan_revision_plan', ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['price_list_id'], ['price_list.id'], name='fk_plan_revision_price_list', ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('plan_id', 'version', name='uq_plan_revision_version')
    )


def downgrade() -> None:
    op.drop_table('plan_revision')
    with op.batch_alter_table('plan', schema=None) as batch_op:
        batch_op.drop_index('ix_plan_tier')
        batch_op.drop_index('ix_plan_status')
        batch_op.drop_index('ix_plan_owner_id')
        batch_op.drop_index('ix_plan_name')
        batch_op.drop_index('ix_plan_customer')
        batch_op.drop_index('ix_plan_archived_updated_at')

    op.drop_table('plan')
    with op.batch_alter_table('api_token', schema=None) as batch_op:
        batch_op.drop_index('ix_api_token_user_id')

    op.drop_table('api_token')
    op.drop_table('app_user')
