"""Customer service: create, list, read, change (the only place customer rows commit).

Every signed-in user (sales or admin) may read and change customers: a customer belongs to
the company, not to one sales engineer.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import func, or_
from sqlmodel import Session, col, select

from app import errors
from app.customers.models import Customer, CustomerCreate, CustomerUpdate, utcnow

MAX_LIST: Final = 500


class CustomerNotFound(errors.NotFound):
    pass


def create_customer(*, session: Session, data: CustomerCreate) -> Customer:
    """Store a validated customer."""
    customer = Customer.model_validate(data.model_dump())
    session.add(customer)
    session.commit()
    session.refresh(customer)
    return customer


def get_customer(*, session: Session, customer_id: int) -> Customer:
    customer = session.get(Customer, customer_id)
    if customer is None:
        raise CustomerNotFound("no customer %(id)s", id=customer_id)
    return customer


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def list_customers(
    *, session: Session, search: str | None = None, limit: int = MAX_LIST
) -> list[Customer]:
    """Customers by name; `search` matches name, 統一編號 or contact anywhere."""
    stmt = select(Customer)
    if search and search.strip():
        pattern = _like(search.strip())
        stmt = stmt.where(
            or_(
                col(Customer.name).ilike(pattern, escape="\\"),
                col(Customer.tax_id).ilike(pattern, escape="\\"),
                col(Customer.contact).ilike(pattern, escape="\\"),
            )
        )
    stmt = stmt.order_by(func.lower(col(Customer.name)), col(Customer.id)).limit(
        min(limit, MAX_LIST)
    )
    return list(session.exec(stmt))


def update_customer(*, session: Session, customer_id: int, data: CustomerUpdate) -> Customer:
    """Change the fields `data` sets."""
    customer = get_customer(session=session, customer_id=customer_id)
    changes = data.model_dump(exclude_none=True)
    for key, value in changes.items():
        setattr(customer, key, value)
    if changes:
        customer.updated_at = utcnow()
        session.add(customer)
        session.commit()
        session.refresh(customer)
    return customer


def find_or_create(*, session: Session, data: CustomerCreate) -> Customer:
    """The customer with this 統一編號 (or, without one, this exact name), else a new one.

    Used when a lead converts: the same company asking twice gets one customer record."""
    stmt = select(Customer)
    if data.tax_id:
        stmt = stmt.where(col(Customer.tax_id) == data.tax_id)
    else:
        stmt = stmt.where(col(Customer.name) == data.name)
    existing = session.exec(stmt.order_by(col(Customer.id))).first()
    return existing if existing is not None else create_customer(session=session, data=data)
