"""Prices as the cost engine sees them: one price list, already read from wherever it lives.

The engine never looks prices up itself; the catalog (database) or the shipped data file
builds a `PriceBook` and passes it in. Every money figure carries its currency code
("TWD" or "USD"); conversion uses the price list's own FX rate, never a live one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from app.engine.hardware import GpuSpec


@dataclass(frozen=True, slots=True)
class RentalOffer:
    """A bare-metal rental SKU (seed 003 T8: 1×H100 NT$50,000/month, hourly ≈NT$120)."""

    id: str
    provider: str
    gpu_id: str  # GpuSpec.id
    gpu_count: float  # GPUs in the offer; 0.25 for a MIG 1/4 slice
    monthly_price: float  # list price per month, `currency`
    hourly_price: float | None  # per offer-hour; None when not rented by the hour
    currency: str
    # contract months -> fraction off the monthly list price, e.g. {3: 0.0, 6: 0.10, 12: 0.20}
    term_discounts: dict[int, float] = field(default_factory=dict)
    lead_time_hours: float = 2.0  # order to usable (T13: rental 2 h)
    includes_power: bool = True  # T8: rent includes power and bandwidth
    interconnect: str = "pcie"  # "pcie" | "nvlink" | "infiniband"
    source: str = ""


@dataclass(frozen=True, slots=True)
class CloudInstance:
    """A public-cloud GPU instance (T10: AWS p5.48xlarge)."""

    id: str
    provider: str
    name: str  # "p5.48xlarge"
    region: str
    gpu_id: str
    gpu_count: int
    on_demand_hourly: float  # per instance-hour, `currency`
    reserved_hourly: float | None  # 1-year reserved / committed, per instance-hour
    currency: str
    price_date: date
    source: str = ""


@dataclass(frozen=True, slots=True)
class ServerSku:
    """A server one can buy (T9: 8-GPU HGX H100 ≥ NT$12M)."""

    id: str
    name: str
    gpu_id: str
    gpu_count: int
    cpu_cores: int
    ram_gb: int
    nvme_tb: float
    nics: str
    power_kw: float  # planned maximum draw of the whole server, kW
    price: float  # purchase price per server, `currency`
    currency: str
    lead_time_weeks: float = 10.0  # T9/T13: 8–12 weeks
    source: str = ""


@dataclass(frozen=True, slots=True)
class EnergyPrice:
    """Electricity and facility prices for one site."""

    id: str
    region: str
    tariff_per_kwh: float  # `currency` per kWh
    pue: float  # facility power / IT power
    colo_per_kw_month: float  # rack space + cooling per IT kW per month, `currency`
    currency: str
    source: str = ""


@dataclass(frozen=True, slots=True)
class BuyParameters:
    """How a purchase is paid off (T9: 3-year amortisation)."""

    amortisation_years: float = 3.0
    maintenance_pct_per_year: float = 0.08  # of hardware capex
    staff_per_month: float = 0.0  # operations staff cost attributable, `currency`
    residual_pct: float = 0.10  # resale value at the end of amortisation, of capex
    install_pct: float = 0.05  # installation and integration, of server capex
    network_storage_pct: float = 0.15  # network + storage capex, of server capex (T13)
    currency: str = "TWD"
    source: str = ""


@dataclass(frozen=True, slots=True)
class FxRate:
    """Units of `quote` per one `base` (e.g. base USD, quote TWD, rate 32.0)."""

    base: str
    quote: str
    rate: float
    as_of: date
    source: str = ""


@dataclass(frozen=True, slots=True)
class PriceBook:
    """One versioned price list: everything the cost engine needs, dated."""

    name: str
    effective_date: date
    currency: str  # the list's home currency
    offers: tuple[RentalOffer, ...] = ()
    cloud: tuple[CloudInstance, ...] = ()
    servers: tuple[ServerSku, ...] = ()
    energy: tuple[EnergyPrice, ...] = ()
    buy: BuyParameters = field(default_factory=BuyParameters)
    fx: tuple[FxRate, ...] = ()
    # The catalog's GPU specs when the list was read (empty: the shipped app/data/gpus.yaml).
    gpus: tuple[GpuSpec, ...] = ()

    @property
    def house_provider(self) -> str:
        """The list's own provider, who sells from it: the provider with the most offers in
        the list's home currency (seed 003's tier table is the provider's own list; the
        marketplaces' rates beside it are references in US$), ties to the first by name; ""
        when no offer is in the home currency."""
        counts: dict[str, int] = {}
        for o in self.offers:
            if o.currency == self.currency:
                counts[o.provider] = counts.get(o.provider, 0) + 1
        if not counts:
            return ""
        return min(counts, key=lambda p: (-counts[p], p))

    def convert(self, amount: float, from_ccy: str, to_ccy: str) -> float:
        """Convert with this list's own FX rates (direct or inverse pair)."""
        if from_ccy == to_ccy:
            return amount
        for r in self.fx:
            if r.base == from_ccy and r.quote == to_ccy:
                return amount * r.rate
            if r.base == to_ccy and r.quote == from_ccy:
                return amount / r.rate
        raise KeyError(f"no FX rate {from_ccy}->{to_ccy} in price list {self.name!r}")
