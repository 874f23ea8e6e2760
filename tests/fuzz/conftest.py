"""Fuzzing fixtures: one migrated database with the catalog, an admin and a bearer token."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi import FastAPI
from sqlmodel import Session

from app.accounts import service as accounts
from app.bootstrap import prepare_database
from app.db import make_engine
from app.main import create_app
from app.plans import service as plans
from app.settings import Settings


@dataclass
class FuzzTarget:
    app: FastAPI
    admin_token: str


def fuzz_target(path: Path) -> FuzzTarget:
    """An app on a fresh SQLite file with the shipped catalog, one admin and one plan."""
    settings = Settings(DATABASE_URL=f"sqlite:///{path}", STRATAGEM_SECRET_KEY="fuzz")
    prepare_database(settings, echo=lambda _: None)
    engine = make_engine(settings.database_url)
    with Session(engine) as s:
        admin = accounts.create_user(
            session=s, email="fuzz@example.com", password="fuzz fuzz fuzz", role="admin", name="F"
        )
        _, token = accounts.create_token(session=s, user=admin, name="fuzz")
        plans.create_plan(
            session=s,
            owner=admin,
            name="Fuzz plan",
            workload={"model": {"preset": "llama-2-13b"}, "task": "lora", "seq_len": 2048},
        )
    engine.dispose()
    return FuzzTarget(app=create_app(settings), admin_token=token)


@pytest.fixture(scope="session")
def target(tmp_path_factory: pytest.TempPathFactory) -> FuzzTarget:
    return fuzz_target(tmp_path_factory.mktemp("fuzz") / "fuzz.db")
