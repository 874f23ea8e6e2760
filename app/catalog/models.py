"""Catalog tables: versioned price lists and the rows that belong to them.

Layout
------
* ``PriceList`` — one dated, versioned list (draft → published → archived). Plans store its id,
  so a published list is never edited in place: changes go into a new draft copied from it.
* Price rows — ``GpuPrice``, ``ServerSku``, ``RentalOffer``, ``CloudInstance``, ``EnergyPrice``,
  ``FxRate``, ``BuyParameters`` — each carries ``price_list_id`` (ON DELETE CASCADE), a
  ``source`` and a catalog key unique within its list. The catalog key is the column ``id``
  (the same id as the engine dataclasses, the shipped YAML and the CSV files); the database's
  own primary key is ``row_id`` and never leaves the service layer.
* ``Gpu`` — accelerator specifications. Physics does not change with a price list, so specs are
  global; only the purchase price (``GpuPrice.price_usd``) is versioned.
* ``AuditEntry`` — who changed what, when, with the row before and after.

Model families follow the SQLModel "multiple models" pattern: ``XBase`` holds the validated
fields (constraints run in the non-table ``XCreate`` models: forms, imports, the API), the
``table=True`` class adds keys, ``XPublic`` is what the API returns. Datetimes are UTC.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, ClassVar, Final

import annotated_types as at
from pydantic import AfterValidator, AllowInfNan, BeforeValidator, field_validator
from sqlalchemy import JSON, ForeignKeyConstraint, Index, LargeBinary, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.dates import CatalogDate
from app.engine.strict_numbers import NumbersNotBooleans
from app.i18n import gettext as _
from app.text import PlainLine, PlainText, plain_line, plain_text, trim

CURRENCIES: Final = ("TWD", "USD")
INTERCONNECTS: Final = ("pcie", "nvlink", "infiniband")
FORM_FACTORS: Final = ("sxm", "pcie", "oam", "superchip")
STATUSES: Final = ("draft", "published", "archived")
_SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]{0,79}$")


def utcnow() -> datetime:
    """Aware UTC. PostgreSQL keeps the zone (timestamptz); SQLite hands back naive UTC."""
    return datetime.now(UTC)


def _one_of(allowed: tuple[str, ...]) -> Any:
    def check(value: str) -> str:
        if value not in allowed:
            raise ValueError(
                _("must be one of %(allowed)s (got %(value)s)")
                % {"allowed": ", ".join(allowed), "value": repr(value)}
            )
        return value

    return AfterValidator(check)


def _slug(value: str) -> str:
    if not _SLUG.match(value):
        raise ValueError(
            _(
                "must be 1–80 lowercase letters, digits, '.', '-' or '_', starting with a "
                "letter or digit (got %(value)s)"
            )
            % {"value": repr(value)}
        )
    return value


def _text(value: str) -> str:
    value = trim(value)
    if not value:
        raise ValueError(_("must not be empty"))
    # Names reach the planner, quotes and the CSV export: no control or direction character.
    return plain_line(value)


def _lines(value: str) -> str:
    """A citation or a note: may span lines, never holds control or direction characters."""
    value = value.strip()
    if not value:
        raise ValueError(_("must not be empty"))
    return plain_text(value)


Currency = Annotated[str, _one_of(CURRENCIES)]
Interconnect = Annotated[str, _one_of(INTERCONNECTS)]
FormFactor = Annotated[str, _one_of(FORM_FACTORS)]
Slug = Annotated[str, AfterValidator(_slug)]
# Free text is bounded (issue 13: a 1 MB provider name, 900 KB notes were accepted). The
# MaxLen also sizes the column (VARCHAR(n), migration 0007_text_limits). Longest shipped
# values: a name 55, a source 1,012, notes 440 characters.
TEXT_MAX = 200
SOURCE_MAX = 4_000
NOTES_MAX = 4_000
Text = Annotated[str, AfterValidator(_text), at.MaxLen(TEXT_MAX)]
"""A name, provider, region or vendor: 1–200 characters."""
SourceText = Annotated[str, AfterValidator(_lines), at.MaxLen(SOURCE_MAX)]
"""Where a row's figures come from (a citation, URLs): 1–4,000 characters."""
# Prices and quantities are finite and bounded (issue 13): `inf`, `NaN` and 1e309 in an
# import made /plan and /tco answer 500 for everyone once the list was published, and an
# offer of NT$1e30 a month priced nothing sane. The bounds are far above any real row
# (a DGX B200 is ≈NT$15M, an H100 ≈US$30,000, p5.48xlarge ≈US$98/h) and far below what the
# cost arithmetic (×120 months × 100,000 GPUs) could overflow. They show in the OpenAPI
# schema as minimum/maximum and in an import's rejected rows with the row and field.
# And from below: 1e-320 is more than 0, and a bandwidth, a price or a rate that small
# divided into infinity and made every estimate, /plan and /tco answer 500 once it was saved
# (QA). A figure is 0 (none, free) or at least the smallest step its unit is printed in: a
# cent of money, a thousandth of GB/s, TFLOPS, W, kW or a GPU.
SMALLEST = 0.001
SMALLEST_MONEY = 0.01


def _zero_or_at_least(smallest: float) -> AfterValidator:
    def check(value: float) -> float:
        if 0 < value < smallest:
            raise ValueError(
                _("must be 0 or at least %(min)s (got %(got)s)")
                % {"min": f"{smallest:g}", "got": repr(value)}
            )
        return value

    return AfterValidator(check)


def _not_free() -> AfterValidator:
    """A price something is sold or rented at is more than 0: a NT$0 offer became the
    planner's cheapest option and could be quoted (QA imported one; an hourly price left
    empty means "not offered by the hour")."""

    def check(value: float) -> float:
        if value == 0:
            raise ValueError(
                _("must be more than 0: a price of 0 would quote it as free; leave it out instead")
            )
        return value

    return AfterValidator(check)


def _at_most_places(places: int) -> BeforeValidator:
    """A price as typed (a CSV cell, a JSON number) with at most `places` decimals: a price
    is kept as a float, and 50000.123456789012345678901234567890 was saved, without a word,
    as 50000.12345678901 (QA; "money is exact"). More places than the column keeps is an
    error naming them; anything not a number is left to the float check."""

    def check(value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
        elif isinstance(value, float):
            text = repr(value)  # the shortest text that reads back as this float
        else:
            return value
        try:
            amount = Decimal(text)
        except (InvalidOperation, ValueError):
            return value
        if not amount.is_finite():
            return value  # NaN, inf: the float check names them
        if 0 < abs(amount) < Decimal(str(SMALLEST_MONEY)):
            return value  # 1e-320 is told it is less than a cent (`_zero_or_at_least`)
        exponent = amount.as_tuple().exponent
        if isinstance(exponent, int) and -exponent > places:
            got = text if len(text) <= 40 else text[:37] + "…"
            raise ValueError(
                _("must have at most %(n)s decimal places (got %(got)s)")
                % {"n": places, "got": got}
            )
        return value

    return BeforeValidator(check)


MONEY_MAX = 1e9
Money = Annotated[
    float,
    AllowInfNan(False),
    at.Ge(0),
    at.Le(MONEY_MAX),
    _zero_or_at_least(SMALLEST_MONEY),
    _at_most_places(2),
]
"""A price in the row's currency: 0, or 0.01 … 10^9 (a server, a month of rental,
colocation), in cents at most."""
# Cloud hourly prices come to the millionth (the shipped AWS p4d.24xlarge: US$21.957642/h
# on demand, vantage.sh's figure after the 2025 cut); six places keep them as published.
HourlyMoney = Annotated[
    float,
    AllowInfNan(False),
    at.Ge(0),
    at.Le(1e6),
    _zero_or_at_least(SMALLEST_MONEY),
    _at_most_places(6),
]
"""A price per hour: 0, or 0.01 … 10^6 in the row's currency, to six decimal places."""
#: What a server, a rental or a cloud instance is sold at: as `Money` / `HourlyMoney`, never 0.
Price = Annotated[Money, _not_free()]
HourlyPrice = Annotated[HourlyMoney, _not_free()]
GpuPriceUsd = Annotated[
    float,
    AllowInfNan(False),
    at.Ge(0),
    at.Le(1e7),
    _zero_or_at_least(SMALLEST_MONEY),
    _at_most_places(2),
    _not_free(),
]
"""Street price of one GPU: US$0.01 … US$10^7, in cents at most (never 0)."""
Tariff = Annotated[float, AllowInfNan(False), at.Ge(0), at.Le(1_000), _zero_or_at_least(SMALLEST)]
"""Electricity per kWh: 0, or 0.001 … 1,000 in the row's currency."""
Positive = Annotated[float, AllowInfNan(False), at.Ge(SMALLEST), at.Le(1e9)]
"""More than nothing: 0.001 … 10^9 in the field's unit."""
NonNegative = Annotated[
    float, AllowInfNan(False), at.Ge(0), at.Le(1e9), _zero_or_at_least(SMALLEST)
]
"""0 (none), or 0.001 … 10^9 in the field's unit."""
# Whole numbers are bounded too (QA: a server of 2^63 GB RAM passed the preview, then the
# database refused it with a 500; 2^31 and up would not fit PostgreSQL's INTEGER columns).
# Far above any real machine (the shipped catalog's largest: 8 GPUs, 128 cores, 2,048 GB, 8
# MIG instances; an NVL72 rack is 72 GPUs) and far below what a column holds.
GpuCount = Annotated[int, at.Ge(1), at.Le(1_024)]
"""GPUs in one node, server or instance: 1–1,024."""
CpuCores = Annotated[int, at.Ge(1), at.Le(4_096)]
"""CPU cores of one server: 1–4,096."""
RamGb = Annotated[int, at.Ge(1), at.Le(1_048_576)]
"""Memory of one server: 1–1,048,576 GB (1 PB)."""
MigInstances = Annotated[int, at.Ge(0), at.Le(64)]
"""MIG instances one GPU can be split into: 0 (none) – 64."""
Fraction = Annotated[float, AllowInfNan(False), at.Ge(0), at.Le(1)]


def _row_table_args(table: str, *, key: tuple[str, ...] = ("id",), gpu: bool = False) -> Any:
    """FK to the price list (cascade), the unique catalog key, and the GPU FK when present."""
    args: list[Any] = [
        ForeignKeyConstraint(
            ["price_list_id"],
            ["price_list.id"],
            ondelete="CASCADE",
            name=f"fk_{table}_price_list",
        ),
        UniqueConstraint("price_list_id", *key, name=f"uq_{table}_key"),
    ]
    if gpu:
        args.append(ForeignKeyConstraint(["gpu_id"], ["gpu.id"], name=f"fk_{table}_gpu"))
        args.append(Index(f"ix_{table}_gpu_id", "gpu_id"))
    return tuple(args)


# --------------------------------------------------------------------------------------------
# Price lists
# --------------------------------------------------------------------------------------------


class PriceListBase(NumbersNotBooleans, SQLModel):
    name: Text = Field(max_length=100, description="Unique name, e.g. '2026-11 list'.")
    effective_date: CatalogDate = Field(description="Prices apply from this day.")
    currency: Currency = Field(default="TWD", description="Home currency of the list.")
    notes: PlainText = Field(
        default="", max_length=NOTES_MAX, description="Free text: what changed and why."
    )
    source: PlainText = Field(
        default="", max_length=SOURCE_MAX, description="Where the list as a whole comes from."
    )


class PriceList(PriceListBase, table=True):
    __tablename__: ClassVar[Any] = "price_list"
    __table_args__ = (
        UniqueConstraint("name", name="uq_price_list_name"),
        Index("ix_price_list_status_date", "status", "effective_date"),
        # SQLite: an id is never handed out again after its list is deleted (the audit
        # trail is keyed by it). Migration 0012.
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True)
    status: str = Field(default="draft", description="draft | published | archived")
    created_at: datetime = Field(default_factory=utcnow)
    created_by: str = Field(default="")
    updated_at: datetime = Field(default_factory=utcnow)
    # Bumped on every change to the list or its rows: the price-book cache key.
    revision: int = Field(default=0)


class PriceListCreate(PriceListBase):
    pass


class PriceListUpdate(NumbersNotBooleans, SQLModel):
    name: Text | None = Field(default=None, max_length=100)
    effective_date: CatalogDate | None = None
    notes: PlainText | None = Field(default=None, max_length=NOTES_MAX)
    source: PlainText | None = Field(default=None, max_length=SOURCE_MAX)


class PriceListPublic(PriceListBase):
    id: int
    status: str
    is_current: bool = Field(description="The list estimates are priced with today.")
    created_at: datetime
    created_by: str = Field(
        description="Who made the list; empty without a token (staff e-mails stay inside). "
        "Its `notes` are empty without a token as well."
    )
    updated_at: datetime
    revision: int
    counts: dict[str, int] = Field(default_factory=dict, description="Rows per kind.")


# --------------------------------------------------------------------------------------------
# GPUs (specifications are global; the purchase price is in GpuPrice, per list)
# --------------------------------------------------------------------------------------------


class GpuBase(NumbersNotBooleans, SQLModel):
    id: Slug = Field(primary_key=True, max_length=80, description="e.g. h100-sxm-80gb")
    name: Text
    vendor: Text
    generation: Text
    memory_gb: Positive = Field(description="HBM/GDDR capacity, GB (10^9 B)")
    bandwidth_gbs: Positive = Field(description="Memory bandwidth, GB/s")
    bf16_tflops: Positive = Field(description="Dense BF16/FP16 tensor TFLOPS (never sparse)")
    fp8_tflops: NonNegative | None = Field(default=None, description="Dense FP8 TFLOPS")
    int8_tops: NonNegative | None = Field(default=None, description="Dense INT8 TOPS")
    fp32_tflops: NonNegative
    tdp_w: Positive = Field(description="Board power, W")
    form_factor: FormFactor
    nvlink_gbs: NonNegative = Field(description="Per-GPU bidirectional NVLink GB/s; 0 if none")
    # Every GPU sits on a host bus: 0 would divide the TP and all-reduce time by zero.
    pcie_gbs: Positive = Field(description="Per-GPU bidirectional PCIe GB/s (more than 0)")
    gpus_per_node: GpuCount
    mig_max: MigInstances = Field(default=0, description="MIG instances; 0 if none")
    launch_year: Annotated[int, at.Ge(1990), at.Le(2100)]
    source: SourceText
    notes: PlainText = Field(default="", max_length=NOTES_MAX)

    @field_validator("fp8_tflops")
    @classmethod
    def _fp8_dense(cls, v: float | None, info: Any) -> float | None:
        # A dense FP8 figure above 2.5× dense BF16 is a sparsity number typed as dense
        # (PRODUCT.md §4): Hopper/Blackwell dense FP8 is exactly 2× dense BF16.
        bf16 = info.data.get("bf16_tflops")
        if v is not None and bf16 and v > 2.5 * bf16:
            raise ValueError(
                _(
                    "%(v)s is more than 2.5× bf16_tflops (%(bf16)s): enter the dense figure, "
                    "not the with-sparsity headline"
                )
                % {"v": f"{v:g}", "bf16": f"{bf16:g}"}
            )
        return v


class Gpu(GpuBase, table=True):
    __tablename__: ClassVar[Any] = "gpu"


class GpuCreate(GpuBase):
    pass


class GpuPublic(GpuBase):
    price_usd: float | None = Field(default=None, description="In the selected price list.")


class GpuPriceBase(NumbersNotBooleans, SQLModel):
    gpu_id: Slug = Field(max_length=80)
    price_usd: GpuPriceUsd = Field(description="Street price per GPU, USD (0.01–10^7)")
    source: SourceText


class GpuPrice(GpuPriceBase, table=True):
    __tablename__: ClassVar[Any] = "gpu_price"
    __table_args__ = _row_table_args("gpu_price", key=("gpu_id",), gpu=True)

    row_id: int | None = Field(default=None, primary_key=True)
    price_list_id: int


class GpuPriceCreate(GpuPriceBase):
    pass


# --------------------------------------------------------------------------------------------
# Servers, rental offers, cloud instances
# --------------------------------------------------------------------------------------------


class ServerSkuBase(NumbersNotBooleans, SQLModel):
    id: Slug = Field(max_length=80)
    name: Text
    gpu_id: Slug = Field(max_length=80)
    gpu_count: GpuCount
    cpu_cores: CpuCores
    ram_gb: RamGb
    nvme_tb: NonNegative
    nics: PlainLine = Field(default="", max_length=TEXT_MAX, description="Network cards")
    power_kw: Positive = Field(description="Planned maximum draw of the server, kW")
    price: Price = Field(description="Purchase price per server, in `currency` (0.01–10^9)")
    currency: Currency
    lead_time_weeks: NonNegative = 10.0
    source: SourceText


class ServerSku(ServerSkuBase, table=True):
    __tablename__: ClassVar[Any] = "server_sku"
    __table_args__ = _row_table_args("server_sku", gpu=True)

    row_id: int | None = Field(default=None, primary_key=True)
    price_list_id: int


class ServerSkuCreate(ServerSkuBase):
    pass


class ServerSkuPublic(ServerSkuBase):
    price_list_id: int


class RentalOfferBase(NumbersNotBooleans, SQLModel):
    id: Slug = Field(max_length=80)
    provider: Text
    gpu_id: Slug = Field(max_length=80)
    gpu_count: Positive = Field(
        description="GPUs in the offer: a whole number, or a MIG slice 1/2 … 1/8 (0.25 for 1/4)"
    )
    monthly_price: Price = Field(description="List price per month, in `currency` (0.01–10^9)")
    hourly_price: HourlyPrice | None = Field(
        default=None, description="Per offer-hour (0.01–10^6); empty if not offered by the hour"
    )
    currency: Currency
    term_discounts: dict[int, float] = Field(
        default_factory=dict,
        sa_type=JSON,
        description="Contract months → fraction off the monthly list price",
    )
    lead_time_hours: NonNegative = 2.0
    includes_power: bool = True
    interconnect: Interconnect = "pcie"
    source: SourceText

    @field_validator("gpu_count")
    @classmethod
    def _whole_gpus_or_a_slice(cls, v: float) -> float:
        """Whole GPUs, or one MIG slice of 1/2 … 1/8 (1/7 typed as 0.143 counts): a machine
        of 2.5 GPUs does not exist (QA saved one and the list priced it), nor does 0.3 of a
        GPU, which the pricing then dropped without a word (QA)."""
        if v >= 1 and v == int(v):
            return v
        if v < 1 and any(abs(v * k - 1) <= 0.005 for k in range(2, 9)):
            return v
        raise ValueError(
            _("must be a whole number of GPUs, or a MIG slice from 1/2 to 1/8 (got %(n)s)")
            % {"n": f"{v:g}"}
        )

    @field_validator("term_discounts", mode="before")
    @classmethod
    def _each_length_once(cls, v: Any) -> Any:
        """{"1": 0.1, "01": 0.2} is month 1 twice: read as numbers, one of them was dropped
        without a word (QA)."""
        if isinstance(v, dict):
            lengths = []
            for k in v:
                try:
                    lengths.append(int(k))
                except (TypeError, ValueError):
                    return v  # not a number of months: the type check says so
            if len(set(lengths)) < len(lengths):
                raise ValueError(
                    _(
                        "gives one contract length twice: give each number of months once (got %(text)s)"
                    )
                    % {"text": repr(v)}
                )
        return v

    @field_validator("term_discounts")
    @classmethod
    def _terms(cls, v: dict[int, float]) -> dict[int, float]:
        for months, off in v.items():
            if not 1 <= months <= 120:
                raise ValueError(
                    _("contract length must be 1–120 months (got %(months)s)") % {"months": months}
                )
            if not 0 <= off < 1:
                raise ValueError(
                    _("discount for %(months)s months must be in [0, 1) (got %(off)s)")
                    % {"months": months, "off": f"{off:g}"}
                )
        return dict(sorted(v.items()))


class RentalOffer(RentalOfferBase, table=True):
    __tablename__: ClassVar[Any] = "rental_offer"
    __table_args__ = _row_table_args("rental_offer", gpu=True)

    row_id: int | None = Field(default=None, primary_key=True)
    price_list_id: int


class RentalOfferCreate(RentalOfferBase):
    pass


class RentalOfferPublic(SQLModel):
    """A rental offer as the API returns it (`gpu` is the GPU id)."""

    id: str
    price_list_id: int
    provider: str
    gpu: str = Field(description="GPU id (GET /api/v1/gpus)")
    gpu_name: str
    gpu_count: float = Field(description="GPUs in the offer; a fraction for MIG slices")
    monthly_price: float
    hourly_price: float | None
    currency: str
    term_discounts: dict[int, float]
    lead_time_hours: float
    includes_power: bool
    interconnect: str
    source: str


class CloudInstanceBase(NumbersNotBooleans, SQLModel):
    id: Slug = Field(max_length=80)
    provider: Text
    name: Text = Field(description="Instance type, e.g. p5.48xlarge")
    region: Text
    gpu_id: Slug = Field(max_length=80)
    gpu_count: GpuCount
    on_demand_hourly: HourlyPrice = Field(
        description="Per instance-hour, in `currency` (0.01–10^6)"
    )
    reserved_hourly: HourlyPrice | None = Field(
        default=None, description="1-year reserved, per hour (0.01–10^6)"
    )
    currency: Currency
    price_date: CatalogDate = Field(description="When the provider charged this price")
    source: SourceText


class CloudInstance(CloudInstanceBase, table=True):
    __tablename__: ClassVar[Any] = "cloud_instance"
    __table_args__ = _row_table_args("cloud_instance", gpu=True)

    row_id: int | None = Field(default=None, primary_key=True)
    price_list_id: int


class CloudInstanceCreate(CloudInstanceBase):
    pass


class CloudInstancePublic(SQLModel):
    """A cloud instance as the API returns it (`gpu` is the GPU id)."""

    id: str
    price_list_id: int
    provider: str
    name: str
    region: str
    gpu: str
    gpu_name: str
    gpu_count: int
    on_demand_hourly: float
    reserved_hourly: float | None
    currency: str
    price_date: date
    source: str


# --------------------------------------------------------------------------------------------
# Energy, buying, FX
# --------------------------------------------------------------------------------------------


class EnergyPriceBase(NumbersNotBooleans, SQLModel):
    id: Slug = Field(max_length=80)
    region: Text
    tariff_per_kwh: Tariff = Field(description="`currency` per kWh (0–1,000)")
    pue: Annotated[float, AllowInfNan(False), at.Ge(1), at.Le(5)] = Field(
        description="Facility / IT power"
    )
    colo_per_kw_month: Money = Field(description="Rack + cooling per IT kW per month")
    currency: Currency
    source: SourceText


class EnergyPrice(EnergyPriceBase, table=True):
    __tablename__: ClassVar[Any] = "energy_price"
    __table_args__ = _row_table_args("energy_price")

    row_id: int | None = Field(default=None, primary_key=True)
    price_list_id: int


class EnergyPriceCreate(EnergyPriceBase):
    pass


class EnergyPricePublic(EnergyPriceBase):
    price_list_id: int


class BuyParametersBase(NumbersNotBooleans, SQLModel):
    # At least a month: 1e-320 years amortised the hardware into infinity a month (QA).
    amortisation_years: Annotated[float, AllowInfNan(False), at.Ge(0.1), at.Le(20)] = 3.0
    maintenance_pct_per_year: Fraction = 0.08
    staff_per_month: Money = 0.0
    residual_pct: Fraction = 0.10
    install_pct: Fraction = 0.05
    network_storage_pct: Fraction = 0.15
    currency: Currency = "TWD"
    source: SourceText


class BuyParameters(BuyParametersBase, table=True):
    __tablename__: ClassVar[Any] = "buy_parameters"
    __table_args__ = (
        ForeignKeyConstraint(
            ["price_list_id"],
            ["price_list.id"],
            ondelete="CASCADE",
            name="fk_buy_parameters_price_list",
        ),
        UniqueConstraint("price_list_id", name="uq_buy_parameters_key"),
    )

    row_id: int | None = Field(default=None, primary_key=True)
    price_list_id: int


class BuyParametersCreate(BuyParametersBase):
    pass


class BuyParametersPublic(BuyParametersBase):
    price_list_id: int


class FxRateBase(NumbersNotBooleans, SQLModel):
    base: Currency
    quote: Currency
    # 0.0001: far below any pair quoted (1 JPY ≈ 0.0067 USD); 1e-320 printed "inf" (QA).
    rate: Annotated[float, AllowInfNan(False), at.Ge(0.0001), at.Le(1e6)] = Field(
        description="Units of `quote` per one `base` (above 0, at most 10^6)"
    )
    as_of: CatalogDate
    source: SourceText

    @field_validator("quote")
    @classmethod
    def _different(cls, v: str, info: Any) -> str:
        if v == info.data.get("base"):
            raise ValueError(_("must differ from base (both %(v)s)") % {"v": v})
        return v


class FxRate(FxRateBase, table=True):
    __tablename__: ClassVar[Any] = "fx_rate"
    __table_args__ = _row_table_args("fx_rate", key=("base", "quote"))

    row_id: int | None = Field(default=None, primary_key=True)
    price_list_id: int


class FxRateCreate(FxRateBase):
    pass


class FxRatePublic(FxRateBase):
    price_list_id: int


# --------------------------------------------------------------------------------------------
# Audit trail
# --------------------------------------------------------------------------------------------


#: Audit column lengths: an e-mail address (RFC 5321: 254), a verb or kind name, a summary.
AUDIT_ACTOR_MAX = 254
AUDIT_WORD_MAX = 32
AUDIT_SUMMARY_MAX = 2_000


class AuditEntry(SQLModel, table=True):
    """One change. No FK to the price list: the trail outlives what it describes."""

    __tablename__: ClassVar[Any] = "audit_entry"
    __table_args__ = (Index("ix_audit_entry_at", "at"),)

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=utcnow)
    # Bounded like every text column (migration 0009_bounded_notes); the service writes
    # them (`audit.record` cuts anything longer), no request sets them directly.
    actor: str = Field(default="", max_length=AUDIT_ACTOR_MAX)
    action: str = Field(
        max_length=AUDIT_WORD_MAX,
        description="create | update | delete | import | copy | publish | …",
    )
    entity: str = Field(
        max_length=AUDIT_WORD_MAX, description="Kind of row: offers, gpus, price_lists, …"
    )
    entity_key: str = Field(default="", max_length=TEXT_MAX)
    price_list_id: int | None = None
    before: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    after: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    summary: str = Field(default="", max_length=AUDIT_SUMMARY_MAX)


class AuditEntryPublic(SQLModel):
    id: int
    at: datetime
    actor: str
    action: str
    entity: str
    entity_key: str
    price_list_id: int | None
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    summary: str


class PriceListDetail(PriceListPublic):
    """A price list with all its rows."""

    gpus: list[GpuPublic] = Field(default_factory=list)
    servers: list[ServerSkuPublic] = Field(default_factory=list)
    offers: list[RentalOfferPublic] = Field(default_factory=list)
    cloud: list[CloudInstancePublic] = Field(default_factory=list)
    energy: list[EnergyPricePublic] = Field(default_factory=list)
    buy: BuyParametersPublic | None = None
    fx: list[FxRatePublic] = Field(default_factory=list)


class ImportUpload(SQLModel, table=True):
    """An import file between its preview and its confirmation (issue 13).

    The preview stores the upload here and hands the admin a random token; "Apply" sends
    only the token, so a 10 MB file crosses the network once and the preview page stays
    small. Only the token's SHA-256 is stored, so reading the table does not let anyone
    apply someone else's file; a row is good for `IMPORT_UPLOAD_TTL` and for its uploader
    only, and is deleted when applied (older ones are swept when a new one comes in).
    """

    __tablename__: ClassVar[Any] = "import_upload"
    __table_args__ = (
        UniqueConstraint("token_hash", name="uq_import_upload_token_hash"),
        Index("ix_import_upload_created_at", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(max_length=64, description="SHA-256 of the token, hex")
    created_by: str = Field(max_length=AUDIT_ACTOR_MAX)
    created_at: datetime = Field(default_factory=utcnow)
    format: str = Field(max_length=8)
    kind: str | None = Field(default=None, max_length=32)
    target_price_list_id: int | None = None
    mode: str = Field(max_length=8)
    name: str = Field(default="", max_length=TEXT_MAX)
    content: bytes = Field(sa_type=LargeBinary, description="The file, zlib-compressed")
