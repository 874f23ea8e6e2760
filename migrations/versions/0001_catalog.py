"""catalog: versioned price lists, GPUs, servers, rental offers, cloud, energy, FX, audit.

Every price row belongs to a price list (FK ON DELETE CASCADE) and is unique by its catalog
key within it; GPU specifications are global and referenced by the price rows.

Revision ID: 0001_catalog
Revises:
Create Date: 2026-11-30 03:25:29.850361
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '0001_catalog'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('audit_entry',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('actor', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('action', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('entity', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('entity_key', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('price_list_id', sa.Integer(), nullable=True),
    sa.Column('before', sa.JSON(), nullable=True),
    sa.Column('after', sa.JSON(), nullable=True),
    sa.Column('summary', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('audit_entry', schema=None) as batch_op:
        batch_op.create_index('ix_audit_entry_at', ['at'], unique=False)

    op.create_table('gpu',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('vendor', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('generation', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('memory_gb', sa.Float(), nullable=False),
    sa.Column('bandwidth_gbs', sa.Float(), nullable=False),
    sa.Column('bf16_tflops', sa.Float(), nullable=False),
    sa.Column('fp8_tflops', sa.Float(), nullable=True),
    sa.Column('int8_tops', sa.Float(), nullable=True),
    sa.Column('fp32_tflops', sa.Float(), nullable=False),
    sa.Column('tdp_w', sa.Float(), nullable=False),
    sa.Column('form_factor', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('nvlink_gbs', sa.Float(), nullable=False),
    sa.Column('pcie_gbs', sa.Float(), nullable=False),
    sa.Column('gpus_per_node', sa.Integer(), nullable=False),
    sa.Column('mig_max', sa.Integer(), nullable=False),
    sa.Column('launch_year', sa.Integer(), nullable=False),
    sa.Column('source', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('notes', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('price_list',
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('effective_date', sa.Date(), nullable=False),
    sa.Column('currency', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('notes', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('source', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('created_by', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('revision', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name', name='uq_price_list_name')
    )
    with op.batch_alter_table('price_list', schema=None) as batch_op:
        batch_op.create_index('ix_price_list_status_date', ['status', 'effective_date'], unique=False)

    op.create_table('buy_parameters',
    sa.Column('amortisation_years', sa.Float(), nullable=False),
    sa.Column('maintenance_pct_per_year', sa.Float(), nullable=False),
    sa.Column('staff_per_month', sa.Float(), nullable=False),
    sa.Column('residual_pct', sa.Float(), nullable=False),
    sa.Column('install_pct', sa.Float(), nullable=False),
    sa.Column('network_storage_pct', sa.Float(), nullable=False),
    sa.Column('currency', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('source', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('row_id', sa.Integer(), nullable=False),
    sa.Column('price_list_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['price_list_id'], ['price_list.id'], name='fk_buy_parameters_price_list', ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('row_id'),
    sa.UniqueConstraint('price_list_id', name='uq_buy_parameters_key')
    )
    op.create_table('cloud_instance',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('provider', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('region', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('gpu_id', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('gpu_count', sa.Integer(), nullable=False),
    sa.Column('on_demand_hourly', sa.Float(), nullable=False),
    sa.Column('reserved_hourly', sa.Float(), nullable=True),
    sa.Column('currency', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('price_date', sa.Date(), nullable=False),
    sa.Column('source', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('row_id', sa.Integer(), nullable=False),
    sa.Column('price_list_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['gpu_id'], ['gpu.id'], name='fk_cloud_instance_gpu'),
    sa.ForeignKeyConstraint(['price_list_id'], ['price_list.id'], name='fk_cloud_instance_price_list', ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('row_id'),
    sa.UniqueConstraint('price_list_id', 'id', name='uq_cloud_instance_key')
    )
    with op.batch_alter_table('cloud_instance', schema=None) as batch_op:
        batch_op.create_index('ix_cloud_instance_gpu_id', ['gpu_id'], unique=False)

    op.create_table('energy_price',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('region', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('tariff_per_kwh', sa.Float(), nullable=False),
    sa.Column('pue', sa.Float(), nullable=False),
    sa.Column('colo_per_kw_month', sa.Float(), nullable=False),
    sa.Column('currency', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('source', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('row_id', sa.Integer(), nullable=False),
    sa.Column('price_list_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['price_list_id'], ['price_list.id'], name='fk_energy_price_price_list', ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('row_id'),
    sa.UniqueConstraint('price_list_id', 'id', name='uq_energy_price_key')
    )
    op.create_table('fx_rate',
    sa.Column('base', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('quote', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('rate', sa.Float(), nullable=False),
    sa.Column('as_of', sa.Date(), nullable=False),
    sa.Column('source', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('row_id', sa.Integer(), nullable=False),
    sa.Column('price_list_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['price_list_id'], ['price_list.id'], name='fk_fx_rate_price_list', ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('row_id'),
    sa.UniqueConstraint('price_list_id', 'base', 'quote', name='uq_fx_rate_key')
    )
    op.create_table('gpu_price',
    sa.Column('gpu_id', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('price_usd', sa.Float(), nullable=False),
    sa.Column('source', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('row_id', sa.Integer(), nullable=False),
    sa.Column('price_list_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['gpu_id'], ['gpu.id'], name='fk_gpu_price_gpu'),
    sa.ForeignKeyConstraint(['price_list_id'], ['price_list.id'], name='fk_gpu_price_price_list', ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('row_id'),
    sa.UniqueConstraint('price_list_id', 'gpu_id', name='uq_gpu_price_key')
    )
    with op.batch_alter_table('gpu_price', schema=None) as batch_op:
        batch_op.create_index('ix_gpu_price_gpu_id', ['gpu_id'], unique=False)

    op.create_table('rental_offer',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('provider', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('gpu_id', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('gpu_count', sa.Float(), nullable=False),
    sa.Column('monthly_price', sa.Float(), nullable=False),
    sa.Column('hourly_price', sa.Float(), nullable=True),
    sa.Column('currency', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('term_discounts', sa.JSON(), nullable=False),
    sa.Column('lead_time_hours', sa.Float(), nullable=False),
    sa.Column('includes_power', sa.Boolean(), nullable=False),
    sa.Column('interconnect', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('source', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('row_id', sa.Integer(), nullable=False),
    sa.Column('price_list_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['gpu_id'], ['gpu.id'], name='fk_rental_offer_gpu'),
    sa.ForeignKeyConstraint(['price_list_id'], ['price_list.id'], name='fk_rental_offer_price_list', ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('row_id'),
    sa.UniqueConstraint('price_list_id', 'id', name='uq_rental_offer_key')
    )
    with op.batch_alter_table('rental_offer', schema=None) as batch_op:
        batch_op.create_index('ix_rental_offer_gpu_id', ['gpu_id'], unique=False)

    op.create_table('server_sku',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('gpu_id', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('gpu_count', sa.Integer(), nullable=False),
    sa.Column('cpu_cores', sa.Integer(), nullable=False),
    sa.Column('ram_gb', sa.Integer(), nullable=False),
    sa.Column('nvme_tb', sa.Float(), nullable=False),
    sa.Column('nics', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('power_kw', sa.Float(), nullable=False),
    sa.Column('price', sa.Float(), nullable=False),
    sa.Column('currency', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('lead_time_weeks', sa.Float(), nullable=False),
    sa.Column('source', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('row_id', sa.Integer(), nullable=False),
    sa.Column('price_list_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['gpu_id'], ['gpu.id'], name='fk_server_sku_gpu'),
    sa.ForeignKeyConstraint(['price_list_id'], ['price_list.id'], name='fk_server_sku_price_list', ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('row_id'),
    sa.UniqueConstraint('price_list_id', 'id', name='uq_server_sku_key')
    )
    with op.batch_alter_table('server_sku', schema=None) as batch_op:
        batch_op.create_index('ix_server_sku_gpu_id', ['gpu_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('server_sku', schema=None) as batch_op:
        batch_op.drop_index('ix_server_sku_gpu_id')

    op.drop_table('server_sku')
    with op.batch_alter_table('rental_offer', schema=None) as batch_op:
        batch_op.drop_index('ix_rental_offer_gpu_id')

    op.drop_table('rental_offer')
    with op.batch_alter_table('gpu_price', schema=None) as batch_op:
        batch_op.drop_index('ix_gpu_price_gpu_id')

    op.drop_table('gpu_price')
    op.drop_table('fx_rate')
    op.drop_table('energy_price')
    with op.batch_alter_table('cloud_instance', schema=None) as batch_op:
        batch_op.drop_index('ix_cloud_instance_gpu_id')

    op.drop_table('cloud_instance')
    op.drop_table('buy_parameters')
    with op.batch_alter_table('price_list', schema=None) as batch_op:
        batch_op.drop_index('ix_price_list_status_date')

    op.drop_table('price_list')
    op.drop_table('gpu')
    with op.batch_alter_table('audit_entry', schema=None) as batch_op:
        batch_op.drop_index('ix_audit_entry_at')

    op.drop_table('audit_entry')
