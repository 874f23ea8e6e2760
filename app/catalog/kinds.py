"""The kinds of catalog row, described once for the service, import/export, API and pages.

A kind names its table, its validating `Create` model (whose fields are the CSV columns and
JSON keys, in order), the fields that form its key within a price list, and what the pages
list and search. `gpus` is the only kind that is not scoped to a price list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from sqlmodel import SQLModel

from app.catalog import models as m


def N_(message: str) -> str:
    """Mark a label for translation; the pages translate it when shown."""
    return message


@dataclass(frozen=True, slots=True)
class Kind:
    name: str  # URL segment, CSV `kind`, JSON document key
    label: str  # English msgid, translated when shown
    table: type[SQLModel]
    create: type[SQLModel]
    key_fields: tuple[str, ...]
    list_columns: tuple[str, ...]  # columns of the page table, in order
    search_fields: tuple[str, ...]  # text columns the search box matches
    scoped: bool = True  # rows belong to a price list
    single: bool = False  # one row per price list (buy parameters)

    @property
    def columns(self) -> tuple[str, ...]:
        """CSV columns / JSON keys, in the Create model's order."""
        return tuple(self.create.model_fields)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(n for n, f in self.create.model_fields.items() if f.is_required())

    def key_of(self, row: Any) -> str:
        """The row's key within its list: its id, 'USD/TWD' for FX, 'buy' for buy parameters."""
        if not self.key_fields:
            return "buy"
        get = row.get if isinstance(row, dict) else lambda f: getattr(row, f)
        return "/".join(str(get(f)) for f in self.key_fields)

    def key_filter(self, key: str) -> dict[str, str]:
        """Column values that select the row with `key` (inverse of `key_of`)."""
        if not self.key_fields:
            return {}
        parts = key.split("/") if len(self.key_fields) > 1 else [key]
        if len(parts) != len(self.key_fields):
            return {f: "" for f in self.key_fields}
        return dict(zip(self.key_fields, parts, strict=True))


KINDS: Final[dict[str, Kind]] = {
    k.name: k
    for k in (
        Kind(
            "gpus",
            N_("GPUs"),
            m.Gpu,
            m.GpuCreate,
            ("id",),
            (
                "id",
                "name",
                "memory_gb",
                "bandwidth_gbs",
                "bf16_tflops",
                "fp8_tflops",
                "tdp_w",
                "form_factor",
                "nvlink_gbs",
                "mig_max",
            ),
            ("id", "name", "vendor", "generation"),
            scoped=False,
        ),
        Kind(
            "gpu_prices",
            N_("GPU purchase prices"),
            m.GpuPrice,
            m.GpuPriceCreate,
            ("gpu_id",),
            # the page adds every kind's Source column itself (QA: it was shown twice here)
            ("gpu_id", "price_usd"),
            ("gpu_id", "source"),
        ),
        Kind(
            "servers",
            N_("Servers"),
            m.ServerSku,
            m.ServerSkuCreate,
            ("id",),
            (
                "id",
                "name",
                "gpu_id",
                "gpu_count",
                "cpu_cores",
                "ram_gb",
                "nvme_tb",
                "power_kw",
                "price",
                "lead_time_weeks",
            ),
            ("id", "name", "gpu_id", "nics"),
        ),
        Kind(
            "offers",
            N_("Rental offers"),
            m.RentalOffer,
            m.RentalOfferCreate,
            ("id",),
            (
                "id",
                "provider",
                "gpu_id",
                "gpu_count",
                "monthly_price",
                "hourly_price",
                "term_discounts",
                "interconnect",
                "lead_time_hours",
            ),
            ("id", "provider", "gpu_id", "interconnect"),
        ),
        Kind(
            "cloud",
            N_("Cloud instances"),
            m.CloudInstance,
            m.CloudInstanceCreate,
            ("id",),
            (
                "id",
                "provider",
                "name",
                "region",
                "gpu_id",
                "gpu_count",
                "on_demand_hourly",
                "reserved_hourly",
                "price_date",
            ),
            ("id", "provider", "name", "region", "gpu_id"),
        ),
        Kind(
            "energy",
            N_("Energy and colocation"),
            m.EnergyPrice,
            m.EnergyPriceCreate,
            ("id",),
            ("id", "region", "tariff_per_kwh", "pue", "colo_per_kw_month"),
            ("id", "region"),
        ),
        Kind(
            "buy",
            N_("Buying parameters"),
            m.BuyParameters,
            m.BuyParametersCreate,
            (),
            (
                "amortisation_years",
                "maintenance_pct_per_year",
                "staff_per_month",
                "residual_pct",
                "install_pct",
                "network_storage_pct",
            ),
            ("source",),
            single=True,
        ),
        Kind(
            "fx",
            N_("FX rates"),
            m.FxRate,
            m.FxRateCreate,
            ("base", "quote"),
            ("base", "quote", "rate", "as_of"),
            ("base", "quote", "source"),
        ),
    )
}

#: The order kinds are applied in (GPU specs first: other rows reference them).
ORDER: Final = tuple(KINDS)
#: Kinds whose rows reference a GPU id.
GPU_REFERENCING: Final = ("gpu_prices", "servers", "offers", "cloud")


def kind(name: str) -> Kind:
    """The kind called `name`; KeyError lists the allowed names."""
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"unknown kind {name!r}; allowed: {', '.join(KINDS)}") from None
