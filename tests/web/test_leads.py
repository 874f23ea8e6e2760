"""The Lead table and service: validation, all-or-nothing saves, the migration."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect
from sqlmodel import Session

from app.db import downgrade, make_engine, migrate
from app.i18n import activate
from app.leads.models import Lead
from app.leads.service import create_lead
from app.leads.views import parse_lead


@pytest.fixture(autouse=True)
def _english() -> None:
    activate("en")


def test_parse_and_create(settings) -> None:  # type: ignore[no-untyped-def]
    data, errors = parse_lead(
        {"name": " Ann ", "company": "ACME", "email": "Ann@Acme.COM.tw", "notes": ""},
        lang="en",
        tier="multi_gpu",
        answers={"task": "lora"},
    )
    assert errors == {} and data is not None
    engine = make_engine(settings.database_url)
    with Session(engine) as s:
        lead = create_lead(session=s, data=data)
        assert lead.id and lead.status == "new" and lead.email == "ann@acme.com.tw"
        assert lead.name == "Ann" and lead.answers == {"task": "lora"}
        assert lead.created_at is not None
        assert s.get(Lead, lead.id) is not None


@pytest.mark.parametrize(
    "form, field, message",
    [
        ({"name": "", "company": "c", "email": "a@b.tw"}, "name", "This field is required."),
        ({"name": "n", "company": "c", "email": "a@b"}, "email", "Enter an e-mail address"),
        ({"name": "n", "company": "c", "email": "a b@c.tw"}, "email", "Enter an e-mail address"),
        ({"name": "n", "company": "c" * 161, "email": "a@b.tw"}, "company", "at most 160"),
    ],
)
def test_validation(form: dict[str, str], field: str, message: str) -> None:
    data, errors = parse_lead(form, lang="en", tier="", answers={})
    assert data is None and message in errors[field]


def test_migration_up_and_down(tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path / 'leads.db'}"
    migrate(url)
    engine = make_engine(url)
    cols = {c["name"] for c in inspect(engine).get_columns("lead")}
    assert cols == {
        "id",
        "created_at",
        "name",
        "company",
        "email",
        "notes",
        "tax_id",  # 0015_lead_tax_id
        "lang",
        "tier",
        "answers",
        "status",
    }
    engine.dispose()
    downgrade(url, "0001_catalog")
    engine = make_engine(url)
    assert "lead" not in inspect(engine).get_table_names()
    engine.dispose()
