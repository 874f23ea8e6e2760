"""Optimistic concurrency under real contention: no save is lost, none lands twice."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from app.plans import service
from app.plans.models import PlanRevision
from tests.accounts.helpers import MakeAccount

WORKLOAD: dict[str, Any] = {"model": {"preset": "llama-2-13b"}, "task": "lora"}
SAVES = 100


def _revisions(client: TestClient, plan_id: int) -> int:
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        stmt = select(func.count()).select_from(PlanRevision).where(PlanRevision.plan_id == plan_id)
        return s.exec(stmt).one()


def test_two_clients_saving_100_times_lose_nothing(
    client: TestClient, account: MakeAccount
) -> None:
    owner = account("sales")
    r = client.post(
        "/api/v1/plans", json={"name": "race", "workload": WORKLOAD}, headers=owner.headers
    )
    plan_id = r.json()["id"]
    url = f"/api/v1/plans/{plan_id}"
    outcomes: dict[str, Counter[int]] = {"a": Counter(), "b": Counter()}
    saved: dict[str, list[str]] = {"a": [], "b": []}
    start = threading.Barrier(2)

    def writer(who: str) -> None:
        c = TestClient(client.app)
        start.wait()
        for i in range(SAVES):
            version = c.get(url, headers=owner.headers).json()["version"]
            note = f"{who}-{i}"
            res = c.put(url, json={"version": version, "notes": note}, headers=owner.headers)
            outcomes[who][res.status_code] += 1
            if res.status_code == 200:
                saved[who].append(note)
            else:
                assert res.json()["changed_fields"] == ["notes"]

    threads = [threading.Thread(target=writer, args=(w,)) for w in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    total = outcomes["a"] + outcomes["b"]
    assert set(total) <= {200, 409}, total
    assert total[200] + total[409] == 2 * SAVES
    assert _revisions(client, plan_id) == total[200] + 1
    final = client.get(url, headers=owner.headers).json()
    assert final["version"] == total[200] + 1
    revs = client.get(f"{url}/revisions", headers=owner.headers).json()
    assert [x["version"] for x in revs] == list(range(1, total[200] + 2))
    landed = {x["notes"] for x in revs[1:]}
    assert landed == set(saved["a"]) | set(saved["b"])


def test_same_version_saved_at_once_only_one_wins(
    client: TestClient, account: MakeAccount, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both writers pass the version check before either writes; the conditional UPDATE
    still lets exactly one through."""
    owner = account("sales")
    r = client.post(
        "/api/v1/plans", json={"name": "race2", "workload": WORKLOAD}, headers=owner.headers
    )
    plan_id = r.json()["id"]
    engine = client.app.state.engine  # type: ignore[attr-defined]
    gate = threading.Barrier(2)
    results: list[str] = []
    real_save = service._save

    def slow_save(*args: Any, **kwargs: Any) -> Any:
        gate.wait(timeout=10)  # both have read version 1 and passed the check
        return real_save(*args, **kwargs)

    def writer(note: str) -> None:
        with Session(engine) as s:
            try:
                service.update_plan(
                    session=s,
                    plan_id=plan_id,
                    expected_version=1,
                    changes={"notes": note},
                    actor=owner.user,
                )
                results.append("saved")
            except service.Conflict as e:
                assert e.current_version == 2 and e.changed_fields == ["notes"]
                results.append("conflict")

    monkeypatch.setattr(service, "_save", slow_save)
    threads = [threading.Thread(target=writer, args=(n,)) for n in ("x", "y")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["conflict", "saved"]
    assert _revisions(client, plan_id) == 2
