"""What the plans API refuses, and how (QA of stop 22): a list filter naming a status or
tier that does not exist was a 200 with no plans (reads as "none in that state"); a
`customer_id` naming no customer was a 404 (as if the URL were wrong) in English on a
中文 request; an archived plan's quote could be sent."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account
from tests.quotes.test_quote_life import TERM, WORKLOAD, _customer, _plan, _quote


@pytest.mark.parametrize(("param", "value"), [("status", "bogus"), ("tier", "gpu_farm")])
def test_a_list_filter_of_no_such_value_is_a_422_naming_it(
    client: TestClient, param: str, value: str
) -> None:
    a = make_account(client, "sales")
    r = client.get("/api/v1/plans", params={param: value}, headers=a.headers)
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["query", param]
    # the real values still filter
    ok = "sent" if param == "status" else "multi_gpu"
    assert client.get("/api/v1/plans", params={param: ok}, headers=a.headers).status_code == 200


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_customer_id_of_nobody_is_a_422_on_that_field(client: TestClient, lang: str) -> None:
    a = make_account(client, "sales")
    h = {**a.headers, "Accept-Language": lang}
    r = client.post(
        "/api/v1/plans",
        json={"name": f"Nobody's plan {lang}", "workload": WORKLOAD, "customer_id": 987_654},
        headers=h,
    )
    assert r.status_code == 422
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "customer_id"]
    expected = {
        "en": "no customer 987654: choose one from GET /api/v1/customers",
        "zh-TW": "找不到客戶 987654：請從 GET /api/v1/customers 列出的客戶中選擇",
    }
    assert detail["msg"] == expected[lang]
    listed = client.get("/api/v1/plans", params={"search": f"Nobody's plan {lang}"}, headers=h)
    assert listed.json()["total"] == 0
    # a save moving an existing plan to nobody: the same, and nothing changes
    plan = client.post(
        "/api/v1/plans", json={"name": "Lab", "workload": WORKLOAD}, headers=a.headers
    ).json()
    r = client.put(
        f"/api/v1/plans/{plan['id']}", json={"version": 1, "customer_id": 987_654}, headers=h
    )
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "customer_id"]
    assert client.get(f"/api/v1/plans/{plan['id']}", headers=a.headers).json()["version"] == 1


def test_an_archived_plans_quote_is_not_sent(client: TestClient) -> None:
    a = make_account(client, "sales")
    p = _plan(client, a, _customer(client, a)["id"], _quote("0"))
    assert p["quote"]["lines"][0]["option_key"] == TERM
    assert client.post(f"/api/v1/plans/{p['id']}/archive", headers=a.headers).status_code == 200
    r = client.post(
        f"/api/v1/plans/{p['id']}/send", headers={**a.headers, "Accept-Language": "zh-TW"}
    )
    assert r.status_code == 409
    assert "此方案已封存" in str(r.json()["detail"])
    got = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert got["status"] == "draft" and got["archived"] is True
    # restored, it sends
    assert client.post(f"/api/v1/plans/{p['id']}/restore", headers=a.headers).status_code == 200
    assert client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers).status_code == 200


def test_archive_restore_and_duplicate_take_what_they_document(client: TestClient) -> None:
    """QA: archive took {"foo": 1}, {"version": true} and a stale {"version": 1} without a
    word, and duplicate ignored {"name": …}. Archive and restore check an optional version
    (409 when the plan changed since), duplicate takes an optional name, anything else is a
    422 naming it; no body stays as it was."""
    a = make_account(client, "sales")
    made = client.post(
        "/api/v1/plans", json={"name": "Archivable", "workload": WORKLOAD}, headers=a.headers
    ).json()
    pid = made["id"]
    for body, field in (({"foo": 1}, "foo"), ({"version": True}, "version")):
        r = client.post(f"/api/v1/plans/{pid}/archive", json=body, headers=a.headers)
        assert r.status_code == 422 and r.json()["detail"][0]["loc"][-1] == field
    renamed = client.put(
        f"/api/v1/plans/{pid}", json={"version": 1, "name": "Archivable v2"}, headers=a.headers
    )
    assert renamed.status_code == 200 and renamed.json()["version"] == 2
    stale = client.post(f"/api/v1/plans/{pid}/archive", json={"version": 1}, headers=a.headers)
    assert stale.status_code == 409
    assert client.get(f"/api/v1/plans/{pid}", headers=a.headers).json()["archived"] is False
    done = client.post(f"/api/v1/plans/{pid}/archive", json={"version": 2}, headers=a.headers)
    assert done.status_code == 200 and done.json()["archived"] is True
    back = client.post(f"/api/v1/plans/{pid}/restore", headers=a.headers)
    assert back.status_code == 200 and back.json()["archived"] is False
    copy = client.post(f"/api/v1/plans/{pid}/duplicate", json={"name": "dup"}, headers=a.headers)
    assert copy.status_code == 201 and copy.json()["name"] == "dup"
    plain = client.post(f"/api/v1/plans/{pid}/duplicate", headers=a.headers)
    assert plain.status_code == 201 and plain.json()["name"] != "dup"
    bad = client.post(f"/api/v1/plans/{pid}/duplicate", json={"nmae": "x"}, headers=a.headers)
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"][-1] == "nmae"
