"""PDF quotes rendered in the worker pool: the same document, cached the same way."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.accounts.models import User
from app.plans.models import Plan
from app.quotes import pdf, worker
from tests.accounts.helpers import make_account
from tests.plan_quotes import create_plan


def _text(data: bytes, tmp_path: Path, name: str) -> str:
    path = tmp_path / f"{name}.pdf"
    path.write_bytes(data)
    return subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def plan_id(client: TestClient) -> int:
    return int(create_plan(client, make_account(client, "sales"))["id"])


def test_the_pool_renders_in_another_process_the_same_quote_as_inline(
    client: TestClient, plan_id: int, tmp_path: Path
) -> None:
    assert worker.pool_size() >= 1  # the default settings: a pool of one
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, plan_id)
        assert plan is not None
        pooled = pdf.render_quote_pdf(plan, lang="en", session=s)
        inline = pdf.write_pdf(plan, lang="en", session=s)
    pool = worker._pool
    assert pool is not None
    pids = {p.pid for p in pool._processes.values()}  # type: ignore[attr-defined]
    assert pids and os.getpid() not in pids
    assert pooled.startswith(b"%PDF-")
    assert _text(pooled, tmp_path, "pooled") == _text(inline, tmp_path, "inline")
    assert plan.quote_number in _text(pooled, tmp_path, "pooled")


def test_cached_bytes_come_back_until_the_plan_or_the_seller_changes(
    client: TestClient, plan_id: int, tmp_path: Path
) -> None:
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, plan_id)
        assert plan is not None
        first = pdf.render_quote_pdf(plan, lang="zh-TW", session=s)
        assert pdf.render_quote_pdf(plan, lang="zh-TW", session=s) == first  # cached: same bytes
        owner = s.get(User, plan.owner_id)
        assert owner is not None
        owner.name = "Renamed Seller"
        s.add(owner)
        s.commit()
        s.refresh(plan)
        renamed = pdf.render_quote_pdf(plan, lang="zh-TW", session=s)
    assert "Renamed Seller" in _text(renamed, tmp_path, "renamed")
    assert "Renamed Seller" not in _text(first, tmp_path, "first")


def test_quotes_over_http_come_from_the_pool(client: TestClient) -> None:
    who = make_account(client, "sales")
    plan = create_plan(client, who)
    r = client.get(f"/api/v1/plans/{plan['id']}/pdf?lang=en", headers=who.headers)
    assert r.status_code == 200 and r.content.startswith(b"%PDF-")
    assert r.headers["content-disposition"] == f'attachment; filename="{plan["quote_number"]}.pdf"'


def test_no_pool_renders_inline(client: TestClient, plan_id: int) -> None:
    size = worker.pool_size()
    worker.configure(0)
    try:
        with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
            plan = s.get(Plan, plan_id)
            assert plan is not None
            assert pdf.render_quote_pdf(plan, lang="en", session=s).startswith(b"%PDF-")
        assert worker._pool is None
    finally:
        worker.configure(size)
