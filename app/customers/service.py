"""Customer service: create, list, read, change (the only place customer rows commit).

Every signed-in user (sales or admin) may read and change customers: a customer belongs to
the company, not to one sales engineer.
"""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy import func, or_, update
from sqlmodel import Session, col, select

from app import errors
from app.customers.models import Customer, CustomerCreate, CustomerUpdate, utcnow
from app.i18n import N_

MAX_LIST: Final = 500


class CustomerNotFound(errors.NotFound):
    pass


class CustomerConflict(errors.Conflict):
    """The save was based on an older version of the customer (409 with the current one)."""

    def __init__(self, current_version: int) -> None:
        super().__init__(
            N_(
                "the customer was changed by someone else since you loaded it: reload and "
                "reapply your changes (now at version %(version)s)"
            ),
            version=current_version,
        )
        self.current_version = current_version

    def json_body(self) -> dict[str, Any]:
        return {"detail": self.message, "current_version": self.current_version}


def create_customer(*, session: Session, data: CustomerCreate, commit: bool = True) -> Customer:
    """Store a validated customer (`commit=False`: flushed, for a caller's transaction)."""
    customer = Customer.model_validate(data.model_dump())
    session.add(customer)
    if not commit:
        session.flush()
        return customer
    session.commit()
    session.refresh(customer)
    return customer


def get_customer(*, session: Session, customer_id: int) -> Customer:
    customer = session.get(Customer, customer_id)
    if customer is None:
        # Named where it was sent, as a plan's or a price list's 404 is (QA: a bare string
        # here, a list with `loc` there); a body's customer_id is the caller's to re-raise.
        raise CustomerNotFound(
            "no customer %(id)s", field="customer_id", where="path", id=customer_id
        )
    return customer


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def sharing_tax_id_count(*, session: Session, customer: Customer) -> int:
    """How many other customers have the same 統一編號 (the page lists at most 20 by name)."""
    if not customer.tax_id:
        return 0
    stmt = select(func.count()).where(
        col(Customer.tax_id) == customer.tax_id, col(Customer.id) != customer.id
    )
    return int(session.exec(stmt).one())


def sharing_tax_id(*, session: Session, customer: Customer, limit: int = 20) -> list[Customer]:
    """Other customers with the same 統一編號 (stored normalised: 8 ASCII digits), by name.

    One number is one business (PRODUCT.md §6): two records with it are most likely the same
    company entered twice (QA stored four under 22099131 without a word). They are allowed —
    a branch may be its own record — but the customer's page names them."""
    if not customer.tax_id:
        return []
    stmt = (
        select(Customer)
        .where(col(Customer.tax_id) == customer.tax_id, col(Customer.id) != customer.id)
        .order_by(func.lower(col(Customer.name)), col(Customer.id))
        .limit(limit)
    )
    return list(session.exec(stmt))


def sharing_name(*, session: Session, customer: Customer, limit: int = 20) -> list[Customer]:
    """Other customers of the same name (case and outer spaces aside), by id: two "Acme Corp"
    were saved without a word and could not be told apart when quoting (QA). Allowed — two
    companies can share a name — but the customer's page names them."""
    name = customer.name.strip().lower()
    if not name:
        return []
    stmt = (
        select(Customer)
        .where(func.lower(func.trim(col(Customer.name))) == name, col(Customer.id) != customer.id)
        .order_by(col(Customer.id))
        .limit(limit)
    )
    return list(session.exec(stmt))


def _matching(search: str | None) -> Any:
    """Customers whose name, 統一編號 or contact holds `search` anywhere (all without one)."""
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
    return stmt


def list_customers(
    *, session: Session, search: str | None = None, limit: int = MAX_LIST, offset: int = 0
) -> list[Customer]:
    """Customers by name (then id, so pages never repeat or skip one), `limit` from
    `offset`; `search` matches name, 統一編號 or contact anywhere."""
    stmt = (
        _matching(search)
        .order_by(func.lower(col(Customer.name)), col(Customer.id))
        .offset(max(0, offset))
        .limit(min(limit, MAX_LIST))
    )
    return list(session.exec(stmt))


def count_customers(*, session: Session, search: str | None = None) -> int:
    """How many customers `list_customers` pages through for `search`."""
    inner = _matching(search).with_only_columns(col(Customer.id)).subquery()
    return int(session.exec(select(func.count()).select_from(inner)).one())


def update_customer(*, session: Session, customer_id: int, data: CustomerUpdate) -> Customer:
    """Change the fields `data` sets, as a new version of the customer.

    `data.version`, when given, is the version the change was based on: an older one is a
    CustomerConflict (409), and nothing changes. The version is compared and counted up in
    one UPDATE, so of two saves based on the same version exactly one goes through. A save
    that changes nothing writes nothing."""
    customer = get_customer(session=session, customer_id=customer_id)
    if data.version is not None and data.version != customer.version:
        raise CustomerConflict(customer.version)
    changes = {
        k: v
        for k, v in data.model_dump(exclude_none=True, exclude={"version"}).items()
        if getattr(customer, k) != v
    }
    if not changes:
        return customer
    based_on = customer.version
    stmt = (
        update(Customer)
        .where(col(Customer.id) == customer_id, col(Customer.version) == based_on)
        .values(**changes, version=based_on + 1, updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    if session.execute(stmt).rowcount != 1:  # type: ignore[attr-defined]
        session.rollback()  # saved by someone else between the read and this write
        session.refresh(customer)
        raise CustomerConflict(customer.version)
    session.commit()
    session.refresh(customer)
    return customer


def find_or_create(*, session: Session, data: CustomerCreate, commit: bool = True) -> Customer:
    """The customer with this 統一編號 (or, without one, this exact name), else a new one
    (`commit` as in `create_customer`).

    Used when a lead converts: the same company asking twice gets one customer record."""
    stmt = select(Customer)
    if data.tax_id:
        stmt = stmt.where(col(Customer.tax_id) == data.tax_id)
    else:
        stmt = stmt.where(col(Customer.name) == data.name)
    existing = session.exec(stmt.order_by(col(Customer.id))).first()
    if existing is not None:
        return existing
    return create_customer(session=session, data=data, commit=commit)
