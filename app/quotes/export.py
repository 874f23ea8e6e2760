"""Plan export (JSON, re-importable) and import (a new plan from an export)."""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import ConfigDict, field_validator
from sqlmodel import Field, Session, SQLModel

from app.accounts.models import User
from app.catalog.models import PriceList
from app.ids import DbId
from app.plans import service as plans
from app.plans.models import TAGS_MAX, Plan, Tag, clean_tags

FORMAT: Final = "stratagem.plan/1"


class PlanExport(SQLModel):
    """A plan as a file: what it asked, what it computed, and the prices it used."""

    model_config = ConfigDict(extra="ignore")  # type: ignore[assignment]

    format: Literal["stratagem.plan/1"] = FORMAT
    quote_number: str = ""
    name: str = Field(min_length=1, max_length=200)
    customer: str = Field(default="", max_length=200)
    status: str = "draft"
    notes: str = Field(default="", max_length=20_000)
    tags: list[str] = Field(default_factory=list)
    version: int = 1
    price_list_id: int | None = None
    workload: dict[str, Any]
    result: dict[str, Any] = Field(default_factory=dict)


class PlanImport(PlanExport):
    # The same bounds as PlanCreate: an import is a new plan (the export itself stays as
    # lenient as what is stored, so an old plan always exports).
    tags: list[Tag] = Field(default_factory=list, max_length=TAGS_MAX)
    price_list_id: DbId | None = None
    reprice: bool = Field(
        default=True,
        description="Price with the current list (true) or the export's own `price_list_id`.",
    )

    @field_validator("tags")
    @classmethod
    def _tags(cls, v: list[str]) -> list[str]:
        return clean_tags(v)


def export_plan(plan: Plan) -> PlanExport:
    return PlanExport(
        quote_number=plan.quote_number,
        name=plan.name,
        customer=plan.customer,
        status=plan.status,
        notes=plan.notes,
        tags=list(plan.tags),
        version=plan.version,
        price_list_id=plan.price_list_id,
        workload=dict(plan.workload),
        result=dict(plan.result),
    )


def import_plan(*, session: Session, owner: User, data: PlanImport) -> Plan:
    """A new draft plan owned by `owner` from an export: re-priced with the current list, or
    (reprice=false) priced with the export's own price list, which must still exist."""
    keep = data.price_list_id
    # Checked before the plan is created: a 422 must not leave a half-imported plan behind.
    if not data.reprice and keep is not None and session.get(PriceList, keep) is None:
        raise plans.Invalid("price_list_id", f"no price list {keep}")
    plan = plans.create_plan(
        session=session,
        owner=owner,
        name=data.name,
        customer=data.customer,
        workload=data.workload,
        notes=data.notes,
        tags=list(data.tags),
    )
    if not data.reprice and keep is not None and keep != plan.price_list_id:
        assert plan.id is not None
        plan = plans.reprice_plan(
            session=session, plan_id=plan.id, actor=owner, price_list_id=keep
        ).plan
    return plan
