"""The cost block's shape for the OpenAPI document: what an integrator reads, with units.

The cost engine hands its answer on as plain JSON (`plan_costs.comparison_dict` and the
blocks `price_plan` adds), which pages, PDFs and stored plans read as dicts; typing it as
models would mean converting it at every reader. These models only *describe* it: the
estimate's `cost` and `POST /api/v1/costs` publish their JSON schema (`cost_block_schema`),
inlined, so `/openapi.json` says what `options[].monthly_rate` is and in which currency (QA:
both were `{"type": "object", "additionalProperties": true}`). tests/api/test_cost_schema.py
checks real answers against the schema, so the description cannot drift from the data.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Money = float
Currency = Literal["TWD", "USD"]
OptionKind = Literal[
    "rent_hourly", "rent_monthly", "rent_term", "mig", "buy", "cloud", "cloud_reserved"
]


class _Doc(BaseModel):
    # Fields the description does not list are allowed: the schema documents, it does not
    # forbid (a new field must not break clients that validate against it).
    model_config = ConfigDict(extra="allow")


class BilledDoc(_Doc):
    """What an option's total pays for."""

    unit: Literal["hour", "month"] = Field(description="Hours of use, or months.")
    quantity: float = Field(description="Hours (unit hour) or months (unit month) billed.")
    gpus: float = Field(
        description="GPUs paid for: whole machines or instances, so at least the GPUs needed."
    )
    nodes: int = Field(description="Machines (servers, cloud instances) paid for.")


class ExplanationDoc(_Doc):
    """One figure with the formula, in the request's numbers, that gives it."""

    figure: str = Field(description="What the figure is (English).")
    value: float = Field(description="The figure, in `unit`.")
    unit: str = Field(description='Its unit, e.g. "TWD", "TWD/month", "USD/h", "×".')
    formula: str = Field(description="The arithmetic with the request's numbers (English).")
    source: str = Field(description="Where each input comes from (price list, datasheet).")


class NoticeDoc(_Doc):
    """A sentence as a gettext template (English, %(name)s placeholders) and its values."""

    template: str
    params: dict[str, str]


class CostOptionDoc(_Doc):
    """One way to pay for the configuration. Money is in `currency`, excluding tax."""

    key: str = Field(
        description='"<kind>:<catalog entry id>", stable: a quote line\'s `option_key`.'
    )
    kind: OptionKind = Field(
        description="rent_hourly, rent_monthly, rent_term (a contract), mig (a MIG slice's "
        "monthly rent), buy, cloud (on demand), cloud_reserved (1-year reserved)."
    )
    label: str = Field(
        description="The engine's English label, with catalog ids: for logs and joins."
    )
    name: str | None = Field(
        None,
        description="The option as the pages name it, in the request's language "
        '(Accept-Language), without catalog ids: "Monthly rent (8× H100 SXM · NVLink · '
        'Stratagem Taipei)". On `options`, not on `tco_options`.',
    )
    provider: str = Field(description="Who rents or sells it (a marketplace, a cloud).")
    billed: BilledDoc | None
    monthly_rate: Money | None = Field(
        description="Per month, in `currency`, excl. tax; null for an option billed by the "
        "hour for a job."
    )
    hourly_rate: Money | None = Field(
        description="Per hour of use of everything rented, in `currency`, excl. tax; null "
        "where the option is not billed by the hour."
    )
    period_months: float = Field(description="Months the total covers (the rental period).")
    held_months: float | None = Field(
        None, description="buy: months the hardware is held before its resale."
    )
    contract_months: int | None = Field(None, description="rent_term: the contract, months.")
    amortisation_months: float | None = Field(
        None, description="buy: months the purchase is amortised over."
    )
    total: Money = Field(
        description="Total for `period_months`, in `currency`, excl. tax. buy: up front − "
        "resale at the end + running costs."
    )
    upfront: Money = Field(description="Paid before use (a purchase's capex), excl. tax.")
    economical: bool = Field(
        description="buy: held long enough to cost less than renting the same months."
    )
    currency: Currency
    breakdown: dict[str, Money] = Field(
        description="The total by part (rent, cloud, capex, storage_network, power, facility, "
        "maintenance, staff, residual — negative: the resale), in `currency`; the parts add "
        "up to `total`."
    )
    cumulative: list[Money] = Field(
        description="Cumulative cost at the end of months 0…horizon_months (index 0: up "
        "front), in `currency`."
    )
    lead_time_days: float = Field(description="Days before it can run (a purchase's delivery).")
    source_ids: list[str] = Field(description="The catalog entries priced.")
    feasible: bool = Field(
        description="Whether it can run the plan: its machines hold the plan's GPU group "
        "(a tensor-parallel group or a training node) on one NVLink."
    )
    note: str = Field(description="What the total assumes, in English.")
    note_notices: list[NoticeDoc] = Field(description="`note` as templates, to translate.")
    fixed_monthly: Money = Field(description="Per month whatever the use, in `currency`.")
    metered_monthly_full: Money = Field(
        description="Per month of use-billed cost at 730 busy hours, in `currency`."
    )
    explain: list[ExplanationDoc] = Field(description="The option's own figures.")


class BreakEvenDoc(_Doc):
    """Where option `a`'s cumulative cost stops being lower than option `b`'s."""

    a: str = Field(description="Option key, cheaper before the month.")
    b: str = Field(description="Option key, cheaper from the month.")
    month: float | None = Field(description="Months from the start; null: they never cross.")
    note: str = Field(description='"resale": they cross only through a purchase\'s resale.')


class UtilisationBreakEvenDoc(_Doc):
    """The utilisation at which two options cost the same per month."""

    a: str = Field(description="Option key.")
    b: str = Field(description="Option key.")
    utilization: float = Field(description="Share of the month's 730 hours, 0–1.")
    hours_per_month: float = Field(description="The same, in busy hours a month.")


class TcoRowDoc(_Doc):
    """An option's net cost at the end of years 1–5, by part (keys as in `breakdown`)."""

    key: str
    kind: OptionKind
    label: str
    years: list[dict[str, float]] = Field(
        description='One object a year: "year", each part in `currency`, and "total".'
    )


class PriceListDoc(_Doc):
    name: str
    effective_date: str = Field(description="ISO date the list's prices hold from.")
    currency: Currency = Field(description="The list's own currency.")


class ComparisonDoc(_Doc):
    """Every option for the configuration, cheapest named, with where they cross."""

    currency: Currency = Field(description="Currency of every amount in this block.")
    horizon_months: int = Field(description="Months each option's `cumulative` spans.")
    utilization: float = Field(description="Share of each month's 730 hours the GPUs work.")
    hours_per_month: float = Field(description="Busy hours a month: 730 × utilization.")
    pricing_mode: Literal["job", "capacity"] = Field(
        description="job: priced for its duration; capacity: a service priced by the month."
    )
    rent_months: float = Field(description="The rental period the totals cover, months.")
    cheapest: str | None = Field(
        description="Key of the cheapest option that can run it; null when none can (every "
        "`feasible` false): no option is named the cheapest then, a warning says so and "
        "each option's `note` says what it lacks (GPUs in one machine, memory)."
    )
    storage_network_share: float | None = Field(
        description="Storage and network's share of the cheapest total (seed rule: ≥ 15 %)."
    )
    options: list[CostOptionDoc]
    break_even: list[BreakEvenDoc]


class _PricedDoc(ComparisonDoc):
    """What both answers add to the comparison: the price list, the five-year view's years
    and the utilisations at which two options cost the same."""

    price_list: PriceListDoc
    tco: list[TcoRowDoc] = Field(description="Years 1–5 of the five-year view.")
    break_even_utilization: list[UtilisationBreakEvenDoc]


class EstimateCostDoc(_PricedDoc):
    """The estimate's prices: the job or service (`options`), and the same configuration kept
    busy for five years (`tco_options`, `tco`)."""

    months: float = Field(description="Months the plan runs (a job's duration, or a service's).")
    tco_options: ComparisonDoc = Field(description="The five-year view's options (60 months).")
    cost_per_million_tokens: Money | None = Field(
        description="Serving: the cheapest option's monthly cost per 1M output tokens at the "
        "plan's rate, in `currency`, excl. tax; null otherwise."
    )
    cost_per_image: Money | None = Field(
        description="Image generation: the cheapest option's cost per image, in `currency`, "
        "excl. tax; null otherwise."
    )
    cost_of_images: Money | None = Field(
        None,
        description="Image generation: `cost_per_image` × the request's `images`, in "
        "`currency`, excl. tax; absent otherwise.",
    )


class CostsAnswerDoc(_PricedDoc):
    """`POST /api/v1/costs`: the options for the configuration, and its five-year view."""

    power_kw: float = Field(description="IT power the configuration draws, kW.")
    warnings: list[str]
    notices: list[NoticeDoc]
    explain: list[ExplanationDoc] = Field(description="The figures shared by every option.")


def inline_schema(model: type[BaseModel]) -> dict[str, Any]:
    """`model`'s JSON schema with every `$ref` replaced by its definition: a schema that can
    sit inside another document (the OpenAPI one) without its `$defs`."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return resolve({**defs[ref.removeprefix("#/$defs/")], **{
                    k: v for k, v in node.items() if k != "$ref"
                }})  # fmt: skip
            return {k: resolve(v) for k, v in node.items()}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

    out: dict[str, Any] = resolve(schema)
    return out
