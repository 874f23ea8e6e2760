"""Two real app processes on one PostgreSQL database see one truth.

Both are `stratagem serve` subprocesses started at the same moment on an empty database, so
they also show the migration lock at work: each migrates and seeds in turn, and the shipped
catalog is loaded once. Then, through different processes: a saved plan is read back, a
stale save is refused with 409, a price list published in one prices the other's next
estimate, and a session cookie, CSRF token and share link made by one work on the other.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator
from datetime import date
from typing import Any

import httpx
import pytest
from bs4 import BeautifulSoup
from sqlmodel import Session, func, select

from app.accounts import service as accounts
from app.catalog.models import PriceList
from app.db import make_engine
from tests.ops.conftest import Proc, wait_ready

pytestmark = pytest.mark.postgres

PASSWORD = "correct horse battery staple"
ESTIMATE = {"model": {"preset": "llama-3.1-8b"}, "task": "lora", "term_months": 6}
WORKLOAD = {"model": {"preset": "llama-2-13b"}, "task": "lora"}


@pytest.fixture
def pair(
    pg_database: Callable[[], str], start_serve: Callable[..., Proc]
) -> Iterator[tuple[Proc, Proc, str]]:
    url = pg_database()
    a, b = start_serve(url), start_serve(url)  # at once, on an unmigrated database
    wait_ready(a)
    wait_ready(b)
    yield a, b, url


def _admin(url: str) -> tuple[str, str]:
    engine = make_engine(url)
    with Session(engine) as s:
        email = "admin@example.com"
        user = accounts.create_user(
            session=s, email=email, password=PASSWORD, role="admin", name="Admin"
        )
        _, token = accounts.create_token(session=s, user=user, name="tests")
    engine.dispose()
    return email, token


def _csrf(client: httpx.Client, url: str) -> str:
    page = client.get(url)
    assert page.status_code == 200, page.text[:500]
    meta = BeautifulSoup(page.text, "html.parser").select_one("meta[name=csrf-token]")
    assert meta is not None
    return str(meta["content"])


def _price_list_name(estimate: dict[str, Any]) -> str:
    return str((estimate["cost"] or {}).get("price_list", {}).get("name"))


def _monthly(estimate: dict[str, Any]) -> dict[str, float]:
    return {o["key"]: o["monthly_rate"] for o in estimate["cost"]["options"] if o["monthly_rate"]}


def test_two_processes_share_one_truth(pair: tuple[Proc, Proc, str]) -> None:
    a, b, url = pair
    engine = make_engine(url)
    with Session(engine) as s:
        # Both migrated and seeded under the lock: the shipped list exists exactly once.
        assert s.exec(select(func.count()).select_from(PriceList)).one() == 1
    assert a.popen.pid != b.popen.pid
    email, token = _admin(url)
    auth = {"Authorization": f"Bearer {token}"}

    with httpx.Client(timeout=60) as api:
        # A plan saved through A is read through B.
        made = api.post(
            f"{a.base}/api/v1/plans",
            json={"name": "Two processes", "workload": WORKLOAD},
            headers=auth,
        )
        assert made.status_code == 201, made.text
        plan = made.json()
        read = api.get(f"{b.base}/api/v1/plans/{plan['id']}", headers=auth)
        assert read.status_code == 200
        assert read.json()["name"] == "Two processes" and read.json()["version"] == 1

        # Optimistic locking across processes: A saves version 1, B's save of version 1 is stale.
        saved = api.put(
            f"{a.base}/api/v1/plans/{plan['id']}",
            json={"version": 1, "notes": "from A"},
            headers=auth,
        )
        assert saved.status_code == 200 and saved.json()["version"] == 2
        stale = api.put(
            f"{b.base}/api/v1/plans/{plan['id']}",
            json={"version": 1, "notes": "from B"},
            headers=auth,
        )
        assert stale.status_code == 409, stale.text
        assert (
            api.get(f"{b.base}/api/v1/plans/{plan['id']}", headers=auth).json()["notes"] == "from A"
        )

        # B prices estimates with the shipped list (and caches its price book) ...
        before = api.post(f"{b.base}/api/v1/estimate", json=ESTIMATE)
        assert before.status_code == 200
        assert _price_list_name(before.json()) == "2026-11 list"

        # ... A imports every rental offer at twice the price into a new draft ...
        offers = api.get(
            f"{a.base}/api/v1/catalog/export", params={"format": "csv", "kind": "offers"}
        )
        assert offers.status_code == 200
        rows = list(csv.DictReader(io.StringIO(offers.text.lstrip("\ufeff"))))
        price_cols = [c for c in rows[0] if re.search(r"price", c)]
        assert price_cols, rows[0].keys()
        for row in rows:
            for col in price_cols:
                if row[col] not in ("", None):
                    row[col] = str(float(row[col]) * 2)
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
        applied = api.post(
            f"{a.base}/api/v1/catalog/import",
            params={
                "dry_run": "false",
                "format": "csv",
                "kind": "offers",
                "mode": "upsert",
                "name": "Doubled list",
                "effective_date": date.today().isoformat(),
            },
            content=out.getvalue().encode("utf-8"),
            headers={**auth, "Content-Type": "text/csv"},
        )
        assert applied.status_code == 201, applied.text
        draft_id = applied.json()["price_list_id"]

    with httpx.Client(timeout=60, follow_redirects=False) as browser:
        # Sessions: sign in on A with the form (CSRF token from A) ...
        csrf = _csrf(browser, f"{a.base}/login")
        signed_in = browser.post(
            f"{a.base}/login",
            data={"email": email, "password": PASSWORD, "next": "/catalog", "csrf_token": csrf},
        )
        assert signed_in.status_code == 303, signed_in.text[:500]
        assert "session" in browser.cookies
        # ... the cookie opens admin pages on B, and a CSRF token B issued is good on A:
        assert browser.get(f"{b.base}/catalog/price-lists").status_code == 200
        csrf_b = _csrf(browser, f"{b.base}/catalog/price-lists")
        published = browser.post(
            f"{a.base}/catalog/price-lists/{draft_id}/publish", data={"csrf_token": csrf_b}
        )
        assert published.status_code == 303, published.text[:500]

    with httpx.Client(timeout=60) as api:
        # B's next estimate is priced with the list A published: new name, doubled rents.
        after = api.post(f"{b.base}/api/v1/estimate", json=ESTIMATE)
        assert _price_list_name(after.json()) == "Doubled list"
        old, new = _monthly(before.json()), _monthly(after.json())
        rents = [k for k in old if k in new and k.startswith("rent")]
        assert rents, old
        for key in rents:
            assert new[key] == pytest.approx(2 * old[key], rel=0.01), key

        # Share links: made through A, opened anonymously through B.
        share = api.post(f"{a.base}/api/v1/plans/{plan['id']}/share", json={}, headers=auth)
        assert share.status_code == 201, share.text
        path = httpx.URL(share.json()["url"]).path
        shared = api.get(f"{b.base}{path}")
        assert shared.status_code == 200
        assert plan["quote_number"] in shared.text
        # Revoked through B, gone on A.
        assert (
            api.delete(f"{b.base}/api/v1/plans/{plan['id']}/share", headers=auth).status_code == 204
        )
        assert api.get(f"{a.base}{path}").status_code in (404, 410)
    engine.dispose()
