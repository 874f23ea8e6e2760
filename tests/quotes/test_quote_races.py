"""Quote actions that race each other, on SQLite and on the live PostgreSQL (race QA).

Each race is made to happen, not hoped for: a test transaction holds the plan's row (on
SQLite, the database's one write lock), the requests are started and left waiting on it —
each has read the plan and is blocked on its write — and the lock is then released, with or
without a change of its own. On PostgreSQL the waiting is observed in `pg_stat_activity`;
SQLite has no such view, so the test gives the threads a moment to reach their write (if one
is late it reads the released state and the outcome asserted is the same: these tests can
miss a race on a slow machine, never invent one).

What was measured before the fixes:
- two sends of the same draft (a double click): 200 + 409 "changed by someone else" in
  16/20 rounds on SQLite, 17/20 on PostgreSQL;
- a customer's Accept while the salesperson saved the sent quote: 409 with the plan's
  internal `changed_fields` shown to the customer (5/5 on PostgreSQL);
- while an Accept waited on the plan's row, the whole server stopped: /healthz took 3.2 s
  (the handler was `async def` making blocking database calls);
- an Accept could be written after the owner revoked the link (decided 7–16 ms after
  revoked in 7/40 rounds on SQLite, 15/40 on PostgreSQL).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, update
from sqlmodel import Session, col, select

from app.bootstrap import prepare_database
from app.main import create_app
from app.plans import service as plans
from app.plans.models import Plan, PlanRevision
from app.settings import Settings
from app.sharing.models import ShareLink
from tests.accounts.helpers import Account, make_account
from tests.plan_quotes import WORKLOAD
from tests.races import STUCK_S, Background, holding, wait_until_blocked
from tests.scratch_db import BACKENDS, scratch_databases

TERM = "rent_term:stratagem-tpe-h100-x4"
QUOTE = {
    "lines": [
        {"option_key": TERM},
        {"description": "NAS 20 TB", "quantity": "1", "unit_price": "8000", "months": "6"},
    ],
    "discount_pct": "10",
}


@pytest.fixture(scope="module", params=BACKENDS)
def client(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """An app on its own migrated, seeded database, on each backend."""
    tmp: Path = tmp_path_factory.mktemp("races")
    with scratch_databases(request.param, tmp) as create:
        settings = Settings(DATABASE_URL=create(), STRATAGEM_SECRET_KEY="test-secret")
        prepare_database(settings, echo=lambda _: None)
        with TestClient(create_app(settings)) as c:
            yield c
        c.app.state.engine.dispose()  # type: ignore[attr-defined]


def _engine(client: TestClient) -> Engine:
    engine: Engine = client.app.state.engine  # type: ignore[attr-defined]
    return engine


def _plan(client: TestClient, a: Account, *, send: bool = False) -> dict[str, Any]:
    body = {"name": "客服模型", "customer": "台大", "workload": WORKLOAD, "quote": QUOTE}
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    if not send:
        return dict(r.json())
    sent = client.post(f"/api/v1/plans/{r.json()['id']}/send", headers=a.headers)
    assert sent.status_code == 200, sent.text
    return dict(sent.json())


def _share(client: TestClient, a: Account, plan_id: int) -> str:
    r = client.post(f"/api/v1/plans/{plan_id}/share", json={}, headers=a.headers)
    assert r.status_code == 201, r.text
    url = r.json()["url"]
    return str(url[url.index("/s/") :])


def _lock_plan(plan_id: int) -> Any:
    # A no-op UPDATE: it changes nothing but takes the row (PostgreSQL) or the write lock.
    return update(Plan).where(col(Plan.id) == plan_id).values(notes=Plan.notes)


def _revisions(engine: Engine, plan_id: int) -> list[str]:
    with Session(engine) as s:
        rows = s.exec(
            select(PlanRevision)
            .where(PlanRevision.plan_id == plan_id)
            .order_by(col(PlanRevision.version))
        )
        return [r.change_summary for r in rows]


def test_a_double_clicked_send_sends_once_and_answers_both_clicks(client: TestClient) -> None:
    """Both sends read the draft at version 1 and wait; the first writes version 2 as sent,
    the second finds exactly that: the customer has what it meant to send, so it is a 200
    too (before: 409 "changed by someone else", for a change that was its own twin)."""
    engine = _engine(client)
    a = make_account(client, "sales")
    p = _plan(client, a)
    send = f"/api/v1/plans/{p['id']}/send"
    calls = Background()
    with holding(engine, _lock_plan(p["id"])):
        calls.start(lambda: client.post(send, headers=a.headers))
        calls.start(lambda: client.post(send, json={"version": 1}, headers=a.headers))
        wait_until_blocked(engine, 2)
    first, second = calls.results()
    assert (first.status_code, second.status_code) == (200, 200), (first.text, second.text)
    assert first.json()["version"] == second.json()["version"] == 2
    assert first.json()["sent_version"] == second.json()["sent_version"] == 2
    assert _revisions(engine, p["id"]) == ["created", "sent"]


def test_a_send_racing_an_edit_is_refused_and_sends_nothing(client: TestClient) -> None:
    """A save that lands between the send's read and its write changed what the sender saw:
    that send is refused (409), and the quote stays a draft."""
    engine = _engine(client)
    a = make_account(client, "sales")
    p = _plan(client, a)
    calls = Background()
    with holding(engine, _lock_plan(p["id"])) as conn:
        calls.start(lambda: client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers))
        wait_until_blocked(engine, 1)
        with Session(bind=conn) as s:  # the salesperson's save, inside the held transaction
            plans.update_plan(
                session=s,
                plan_id=p["id"],
                expected_version=1,
                changes={"quote": {**QUOTE, "discount_pct": "5"}},
                actor=a.user,
            )
    (sent,) = calls.results()
    assert sent.status_code == 409, sent.text
    assert sent.json()["current_version"] == 2
    assert sent.json()["changed_fields"] == ["quote.discount_pct"]
    now = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert now["status"] == "draft" and now["sent_version"] is None


def test_an_accept_is_not_refused_by_an_edit_saved_while_it_was_written(
    client: TestClient,
) -> None:
    """The customer answers the sent revision; a salesperson's save of the plan meanwhile
    does not change it, so the answer is written again on top of that save (before: 409 with
    the plan's internal field names, shown to the customer)."""
    engine = _engine(client)
    a = make_account(client, "sales")
    p = _plan(client, a, send=True)
    link = _share(client, a, p["id"])
    customer = TestClient(client.app)
    answer = {"name": "王小明", "title": "採購經理", "revision": p["sent_version"]}
    calls = Background()
    with holding(engine, _lock_plan(p["id"])) as conn:
        calls.start(lambda: customer.post(f"{link}/accept", json=answer))
        wait_until_blocked(engine, 1)
        with Session(bind=conn) as s:
            plans.update_plan(
                session=s,
                plan_id=p["id"],
                expected_version=p["version"],
                changes={"notes": "PO expected next week"},
                actor=a.user,
            )
    (accepted,) = calls.results()
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["status"] == "accepted"
    assert accepted.json()["revision"] == p["sent_version"]
    now = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert now["status"] == "accepted" and now["decision_name"] == "王小明"
    # The note saved meanwhile is kept: an answer restores only what the customer saw.
    assert now["notes"] == "PO expected next week"
    *_, edited, answered = _revisions(engine, p["id"])
    assert edited == "notes"
    assert answered.startswith("accepted by the customer: 王小明, 採購經理; the plan is version 2")


def test_an_accept_cannot_land_after_the_link_was_revoked(client: TestClient) -> None:
    """The owner revokes the link while the customer's Accept is being written: either the
    revoke is first and the Accept is refused (410, nothing recorded), or the Accept is first
    and the revoke waits for it — never an answer recorded after the revoke."""
    engine = _engine(client)
    a = make_account(client, "sales")
    p = _plan(client, a, send=True)
    link = _share(client, a, p["id"])
    customer = TestClient(client.app)
    revoke = (
        update(ShareLink).where(col(ShareLink.plan_id) == p["id"]).values(revoked_at=plans.utcnow())
    )
    calls = Background()
    with holding(engine, revoke):
        calls.start(
            lambda: customer.post(f"{link}/accept", json={"name": "王小明", "title": "採購經理"})
        )
        wait_until_blocked(engine, 1)
    (accepted,) = calls.results()
    assert accepted.status_code == 410, accepted.text
    now = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert now["status"] == "sent" and now["decided_at"] is None
    assert _revisions(engine, p["id"]) == ["created", "sent"]


def test_the_server_answers_others_while_an_accept_waits_on_the_database(
    client: TestClient,
) -> None:
    """An answer waiting on the plan's row holds a worker thread, not the event loop: a
    health check is answered while the row is still held (before, it waited for the row)."""
    engine = _engine(client)
    a = make_account(client, "sales")
    p = _plan(client, a, send=True)
    link = _share(client, a, p["id"])
    calls = Background()
    health = Background()
    with holding(engine, _lock_plan(p["id"])):
        # Through the same client, so through the same event loop as the health check.
        calls.start(
            lambda: client.post(f"{link}/decline", json={"reason": "Over budget this year"})
        )
        wait_until_blocked(engine, 1)
        health.start(lambda: client.get("/healthz"))
        for t in health.threads:
            t.join(STUCK_S)
        answered_while_held = not health.threads[0].is_alive()
    assert answered_while_held, "/healthz waited for the customer's answer's row lock"
    (checked,) = health.results()
    assert checked.status_code == 200
    (declined,) = calls.results()
    assert declined.status_code == 200 and declined.json()["status"] == "declined"


def test_an_approval_racing_a_deeper_discount_is_refused(client: TestClient) -> None:
    """The admin approves the 15 % they saw while the salesperson saves 60 %: the approval
    must not cover the 60 % (before: it recorded 60 %, and the quote went out at it)."""
    engine = _engine(client)
    sales = make_account(client, "sales")
    admin = make_account(client, "admin")
    r = client.post(
        "/api/v1/plans",
        json={"name": "折扣", "workload": WORKLOAD, "quote": {**QUOTE, "discount_pct": "15"}},
        headers=sales.headers,
    )
    p = r.json()
    calls = Background()
    approve = f"/api/v1/plans/{p['id']}/approve-discount"
    with holding(engine, _lock_plan(p["id"])) as conn:
        calls.start(lambda: client.post(approve, json={"version": 1}, headers=admin.headers))
        wait_until_blocked(engine, 1)
        with Session(bind=conn) as s:
            plans.update_plan(
                session=s,
                plan_id=p["id"],
                expected_version=1,
                changes={"quote": {**QUOTE, "discount_pct": "60"}},
                actor=sales.user,
            )
    (approved,) = calls.results()
    assert approved.status_code == 409, approved.text
    now = client.get(f"/api/v1/plans/{p['id']}", headers=sales.headers).json()
    assert now["discount_approved_pct"] is None
    sent = client.post(f"/api/v1/plans/{p['id']}/send", headers=sales.headers)
    assert sent.status_code == 409
    assert sent.json()["detail"][0]["loc"] == ["body", "status", "discount_approval_required"]


def test_customers_answering_together_record_one_answer(client: TestClient) -> None:
    """Accept and decline held at the same row: one answer is recorded, the other is told
    the quote was already answered (409 naming the state), whichever came first."""
    engine = _engine(client)
    a = make_account(client, "sales")
    p = _plan(client, a, send=True)
    link = _share(client, a, p["id"])
    customer = TestClient(client.app)
    calls = Background()
    with holding(engine, _lock_plan(p["id"])):
        calls.start(
            lambda: customer.post(f"{link}/accept", json={"name": "王小明", "title": "採購經理"})
        )
        calls.start(lambda: customer.post(f"{link}/decline", json={"reason": "Too late"}))
        wait_until_blocked(engine, 2)
    answers: list[httpx.Response] = calls.results()
    assert sorted(r.status_code for r in answers) == [200, 409]
    won = next(r for r in answers if r.status_code == 200).json()["status"]
    lost = next(r for r in answers if r.status_code == 409).json()
    assert lost["detail"][0]["loc"] == ["body", "status", won]
    assert "changed_fields" not in lost  # nothing internal reaches the customer
