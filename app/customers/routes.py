"""JSON API v1: customers. Every route needs a bearer token (sales or admin)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response, status

from app.accounts.deps import ApiUser
from app.customers import service
from app.customers.models import Customer, CustomerCreate, CustomerPublic, CustomerUpdate
from app.deps import SessionDep
from app.ids import DbId

router = APIRouter(
    prefix="/api/v1/customers",
    tags=["customers"],
    responses={401: {"description": "No token, or an invalid or revoked one."}},
)


@router.post("", status_code=status.HTTP_201_CREATED, response_model=CustomerPublic)
def create_customer(body: CustomerCreate, session: SessionDep, _: ApiUser) -> Customer:
    """Create a customer; a 統一編號 that fails the checksum is a 422 on `tax_id`."""
    return service.create_customer(session=session, data=body)


@router.get("", response_model=list[CustomerPublic])
def list_customers(
    response: Response,
    session: SessionDep,
    _: ApiUser,
    search: Annotated[str | None, Query(description="In name, 統一編號, contact.")] = None,
    page: Annotated[int, Query(ge=1, le=1_000_000, description="Page, from 1.")] = 1,
    per_page: Annotated[
        int, Query(ge=1, le=service.MAX_LIST, description="Customers a page (at most 500).")
    ] = service.MAX_LIST,
) -> list[Customer]:
    """Customers by name (then id), optionally searched, a page at a time. The response's
    `X-Total-Count` header gives how many match in all: with more than `per_page`, ask for
    the next `page` (a list cut at 500 without saying so hid every customer after it)."""
    response.headers["X-Total-Count"] = str(service.count_customers(session=session, search=search))
    return service.list_customers(
        session=session, search=search, limit=per_page, offset=(page - 1) * per_page
    )


@router.get("/{customer_id}", response_model=CustomerPublic, responses={404: {}})
def get_customer(customer_id: DbId, session: SessionDep, _: ApiUser) -> Customer:
    """One customer."""
    return service.get_customer(session=session, customer_id=customer_id)


@router.put("/{customer_id}", response_model=CustomerPublic, responses={404: {}})
def update_customer(
    customer_id: DbId, body: CustomerUpdate, session: SessionDep, _: ApiUser
) -> Customer:
    """Change a customer's fields (absent fields are unchanged)."""
    return service.update_customer(session=session, customer_id=customer_id, data=body)
