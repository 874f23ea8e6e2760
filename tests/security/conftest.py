"""Security fixtures: one migrated database with the catalog, a sales user (owning a plan),
an admin and a draft price list, copied fresh for each test that may change it."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.accounts import service as accounts
from app.accounts.models import User
from app.bootstrap import prepare_database
from app.catalog import service as catalog
from app.catalog.kinds import KINDS
from app.catalog.models import RentalOffer
from app.db import make_engine
from app.leads.models import LeadCreate
from app.leads.service import create_lead
from app.main import create_app
from app.plans import service as plans
from app.settings import Settings
from tests.security.route_rules import World

PASSWORD = "correct horse battery"
XSS = "<script>alert(1)</script>"
SECRET = "security-tests"


@dataclass
class Seed:
    path: Path
    world: World
    sales_id: int
    admin_id: int
    sales_token: str
    admin_token: str


@pytest.fixture(scope="session")
def seed(tmp_path_factory: pytest.TempPathFactory) -> Seed:
    path = tmp_path_factory.mktemp("security") / "seed.db"
    settings = Settings(DATABASE_URL=f"sqlite:///{path}", STRATAGEM_SECRET_KEY=SECRET)
    prepare_database(settings, echo=lambda _: None)
    engine = make_engine(settings.database_url)
    with Session(engine) as s:
        sales = accounts.create_user(
            session=s, email="sales@example.com", password=PASSWORD, role="sales", name="Sam"
        )
        admin = accounts.create_user(
            session=s, email="admin@example.com", password=PASSWORD, role="admin", name="Ada"
        )
        sales_tok, sales_token = accounts.create_token(session=s, user=sales, name="matrix")
        _, admin_token = accounts.create_token(session=s, user=admin, name="matrix")
        plan = plans.create_plan(
            session=s,
            owner=sales,
            name="Matrix plan",
            workload={"model": {"preset": "llama-2-13b"}, "task": "lora", "seq_len": 2048},
        )
        current = catalog.current_price_list(session=s)
        assert current is not None and current.id is not None
        draft = catalog.new_price_list_from(
            session=s,
            source_id=current.id,
            name="Matrix draft",
            effective_date=date.today(),
            actor="tests",
        )
        lead = create_lead(
            session=s,
            data=LeadCreate(
                name=XSS, company=f"ACME {XSS}", email="buyer@example.com", notes=XSS, tier="t2"
            ),
        )
        from app.customers import service as customers
        from app.customers.models import CustomerCreate
        from app.sharing import service as sharing

        customer = customers.create_customer(
            session=s, data=CustomerCreate(name=f"Matrix {XSS}", tax_id="22099131")
        )

        link, share_token = sharing.create_link(session=s, plan_id=plan.id or 0, actor=sales)
        offer = s.exec(select(RentalOffer).where(RentalOffer.price_list_id == draft.id)).first()
        assert offer is not None and draft.id is not None and plan.id is not None
        world = World(
            plan_id=plan.id,
            current_price_list_id=current.id,
            draft_price_list_id=draft.id,
            offer_key=KINDS["offers"].key_of(offer),
            extra={
                "sales_token_id": sales_tok.id,
                "lead_id": lead.id,
                "customer_id": customer.id,
                "share_token": share_token,
                "share_link_id": link.id,
            },
        )
        assert sales.id is not None and admin.id is not None
        ids = sales.id, admin.id
    engine.dispose()
    return Seed(path, world, ids[0], ids[1], sales_token, admin_token)


@pytest.fixture
def make_client(seed: Seed, tmp_path: Path) -> Iterator[Callable[[], TestClient]]:
    """A factory: each call gives a client of a new app on a fresh copy of the seed database."""
    apps: list[FastAPI] = []

    def make() -> TestClient:
        target = tmp_path / f"db-{uuid.uuid4().hex[:8]}.db"
        shutil.copyfile(seed.path, target)
        settings = Settings(
            DATABASE_URL=f"sqlite:///{target}", STRATAGEM_SECRET_KEY=SECRET, STRATAGEM_LANGUAGE="en"
        )
        app = create_app(settings)
        apps.append(app)
        client = TestClient(app, follow_redirects=False)
        client.headers["Accept-Language"] = "en"
        return client

    yield make
    for app in apps:
        app.state.engine.dispose()


@pytest.fixture(scope="module")
def reset_client(
    seed: Seed, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[], TestClient]]:
    """A factory like `make_client`, its database a fresh copy of the seed at every call, but
    one app for the module: each new app costs FastAPI ~0.1 s to build its routes on the
    first request, and the route matrix asks for 500 of them. The engine's connections are
    closed before the copy, so every call starts on the seed's rows (the outcome a route
    gives one visitor cannot depend on what another case wrote)."""
    target = tmp_path_factory.mktemp("reset") / "app.db"
    shutil.copyfile(seed.path, target)
    settings = Settings(
        DATABASE_URL=f"sqlite:///{target}", STRATAGEM_SECRET_KEY=SECRET, STRATAGEM_LANGUAGE="en"
    )
    app = create_app(settings)

    def make() -> TestClient:
        app.state.engine.dispose()
        for leftover in (target.with_name(target.name + s) for s in ("-wal", "-shm")):
            leftover.unlink(missing_ok=True)
        shutil.copyfile(seed.path, target)
        client = TestClient(app, follow_redirects=False)
        client.headers["Accept-Language"] = "en"
        return client

    yield make
    app.state.engine.dispose()


def user(client: TestClient, user_id: int) -> User:
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        found = s.get(User, user_id)
        assert found is not None
        s.expunge(found)
        return found
