"""The plans API: create, read, list, save with versions, revisions, duplicate, archive,
reprice, permissions."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.accounts.helpers import Account, MakeAccount

WORKLOAD: dict[str, Any] = {"model": {"preset": "llama-2-13b"}, "task": "lora", "seq_len": 2048}


def _create(client: TestClient, who: Account, **extra: Any) -> dict[str, Any]:
    body = {"name": "Lab fine-tune", "customer": "NTU AI Lab", "workload": WORKLOAD, **extra}
    r = client.post("/api/v1/plans", json=body, headers=who.headers)
    assert r.status_code == 201, r.text
    return r.json()


def test_create_returns_quote_number_version_and_result(
    client: TestClient, account: MakeAccount
) -> None:
    a = account("sales")
    p = _create(client, a, tags=["lora", " lora ", "h100"])
    assert p["quote_number"].startswith("Q-20") and len(p["quote_number"].split("-")[2]) == 6
    assert p["version"] == 1 and p["status"] == "draft" and p["owner_id"] == a.user.id
    assert p["tags"] == ["lora", "h100"]
    assert p["result"]["tier"] == p["tier"]
    assert p["result"]["cost"]["options"], "priced with the current price list"
    assert p["price_list_id"] is not None
    assert p["workload"]["seq_len"] == 2048

    r = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers)
    assert r.status_code == 200
    assert r.json()["version"] == 1 and r.json()["result"] == p["result"]


def test_invalid_workload_is_422_naming_the_field(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    bad = {**WORKLOAD, "seq_len": -1}
    r = client.post("/api/v1/plans", json={"name": "x", "workload": bad}, headers=a.headers)
    assert r.status_code == 422
    assert ["body", "workload", "seq_len"] in [e["loc"] for e in r.json()["detail"]]

    r = client.post(
        "/api/v1/plans",
        json={"name": "x", "workload": {**WORKLOAD, "gpu": "no-such-gpu"}},
        headers=a.headers,
    )
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "workload", "gpu"]

    r = client.post("/api/v1/plans", json={"name": "  ", "workload": WORKLOAD}, headers=a.headers)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "name"]


def test_update_bumps_version_and_writes_a_revision(
    client: TestClient, account: MakeAccount
) -> None:
    a = account("sales")
    p = _create(client, a)
    url = f"/api/v1/plans/{p['id']}"
    r = client.put(
        url, json={"version": 1, "notes": "call back Monday", "status": "sent"}, headers=a.headers
    )
    assert r.status_code == 200, r.text
    assert r.json()["version"] == 2 and r.json()["status"] == "sent"
    r = client.put(
        url, json={"version": 2, "workload": {**WORKLOAD, "seq_len": 4096}}, headers=a.headers
    )
    assert r.status_code == 200 and r.json()["version"] == 3
    assert r.json()["workload"]["seq_len"] == 4096

    revs = client.get(f"{url}/revisions", headers=a.headers).json()
    assert [x["version"] for x in revs] == [1, 2, 3]
    assert revs[0]["change_summary"] == "created"
    assert revs[1]["change_summary"] == "status, notes"
    assert "workload.seq_len" in revs[2]["change_summary"]

    d = client.get(f"{url}/diff", params={"from": 1, "to": 3}, headers=a.headers).json()
    fields = {c["field"]: c for c in d["changes"]}
    assert fields["workload.seq_len"]["before"] == 2048
    assert fields["workload.seq_len"]["after"] == 4096
    assert fields["notes"]["after"] == "call back Monday"

    # A save that changes nothing writes nothing.
    r = client.put(url, json={"version": 3, "notes": "call back Monday"}, headers=a.headers)
    assert r.status_code == 200 and r.json()["version"] == 3


def test_stale_version_is_409_with_the_changed_fields(
    client: TestClient, account: MakeAccount
) -> None:
    a = account("sales")
    p = _create(client, a)
    url = f"/api/v1/plans/{p['id']}"
    assert client.put(url, json={"version": 1, "customer": "NTHU"}, headers=a.headers).is_success
    r = client.put(url, json={"version": 1, "notes": "mine"}, headers=a.headers)
    assert r.status_code == 409
    body = r.json()
    assert body["current_version"] == 2
    assert body["changed_fields"] == ["customer"]
    assert "version 2" in body["detail"]
    assert client.get(url, headers=a.headers).json()["notes"] == ""


def test_update_rejects_unknown_fields(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    p = _create(client, a)
    r = client.put(
        f"/api/v1/plans/{p['id']}", json={"version": 1, "owner_id": 1}, headers=a.headers
    )
    assert r.status_code == 422
    r = client.put(
        f"/api/v1/plans/{p['id']}", json={"version": 1, "status": "won"}, headers=a.headers
    )
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "status"]


def test_permissions(client: TestClient, account: MakeAccount) -> None:
    """Sales read every plan and edit their own; admins edit all; anyone can duplicate."""
    owner, other, admin = account("sales"), account("sales"), account("admin")
    p = _create(client, owner)
    url = f"/api/v1/plans/{p['id']}"
    assert client.get(url, headers=other.headers).status_code == 200
    assert client.get(f"{url}/revisions", headers=other.headers).status_code == 200
    for method, path, body in [
        ("PUT", url, {"version": 1, "notes": "x"}),
        ("POST", f"{url}/archive", None),
        ("POST", f"{url}/restore", None),
        ("POST", f"{url}/reprice", None),
    ]:
        r = client.request(method, path, json=body, headers=other.headers)
        assert r.status_code == 403, (method, path)
    r = client.put(url, json={"version": 1, "notes": "admin"}, headers=admin.headers)
    assert r.status_code == 200 and r.json()["owner_id"] == owner.user.id

    dup = client.post(f"{url}/duplicate", headers=other.headers)
    assert dup.status_code == 201
    d = dup.json()
    assert d["owner_id"] == other.user.id and d["id"] != p["id"]
    assert d["quote_number"] != p["quote_number"] and d["name"] == "Lab fine-tune (copy)"
    assert d["version"] == 1 and d["result"] == p["result"] and d["notes"] == "admin"
    assert (
        client.put(
            f"/api/v1/plans/{d['id']}", json={"version": 1, "notes": "mine"}, headers=other.headers
        ).status_code
        == 200
    )


def test_archive_and_restore(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    p = _create(client, a, customer=f"archive-{uuid.uuid4().hex[:6]}")
    url = f"/api/v1/plans/{p['id']}"
    listed = {"customer": p["customer"]}
    r = client.post(f"{url}/archive", headers=a.headers)
    assert r.status_code == 200 and r.json()["archived"] and r.json()["version"] == 2
    assert client.get("/api/v1/plans", params=listed, headers=a.headers).json()["total"] == 0
    arch = client.get("/api/v1/plans", params={**listed, "archived": True}, headers=a.headers)
    assert [x["id"] for x in arch.json()["items"]] == [p["id"]]
    r = client.post(f"{url}/restore", headers=a.headers)
    assert r.status_code == 200 and not r.json()["archived"] and r.json()["version"] == 3
    assert client.get("/api/v1/plans", params=listed, headers=a.headers).json()["total"] == 1
    summaries = [
        x["change_summary"] for x in client.get(f"{url}/revisions", headers=a.headers).json()
    ]
    assert summaries == ["created", "archived", "restored"]


def test_list_search_filter_sort_paginate(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    tag = uuid.uuid4().hex[:8]
    ids = [
        _create(client, a, name=f"{tag} plan {i}", customer=f"Cust {tag}")["id"] for i in range(3)
    ]
    h = a.headers
    r = client.get("/api/v1/plans", params={"search": tag.upper(), "per_page": 2}, headers=h)
    assert r.status_code == 200
    body = r.json()
    assert body["total"] == 3 and body["per_page"] == 2 and len(body["items"]) == 2
    assert "workload" not in body["items"][0] and "result" not in body["items"][0]
    assert [x["id"] for x in body["items"]] == ids[::-1][:2]  # newest first
    r = client.get("/api/v1/plans", params={"search": tag, "per_page": 2, "page": 2}, headers=h)
    assert [x["id"] for x in r.json()["items"]] == [ids[0]]
    r = client.get("/api/v1/plans", params={"search": tag, "sort": "name"}, headers=h)
    assert [x["id"] for x in r.json()["items"]] == ids
    r = client.get("/api/v1/plans", params={"customer": f"Cust {tag}", "status": "sent"}, headers=h)
    assert r.json()["total"] == 0
    r = client.get(
        "/api/v1/plans",
        params={"search": tag, "owner_id": a.user.id, "tier": "single_gpu"},
        headers=h,
    )
    assert r.json()["total"] in (0, 3)
    q = client.get(f"/api/v1/plans/{ids[1]}", headers=h).json()["quote_number"]
    r = client.get("/api/v1/plans", params={"search": q}, headers=h)
    assert [x["id"] for x in r.json()["items"]] == [ids[1]]
    r = client.get("/api/v1/plans", params={"search": "%"}, headers=h)
    assert r.status_code == 200
    r = client.get("/api/v1/plans", params={"sort": "password"}, headers=h)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["query", "sort"]


def test_reprice_reports_the_cost_difference(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    p = _create(client, a)
    r = client.post(f"/api/v1/plans/{p['id']}/reprice", headers=a.headers)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["plan"]["version"] == 2
    assert body["price_list_after"] == p["price_list_id"]
    assert body["options"] and all(o["delta"] == 0 for o in body["options"])
    assert body["cheapest_delta"] == 0
    revs = client.get(f"/api/v1/plans/{p['id']}/revisions", headers=a.headers).json()
    assert revs[-1]["change_summary"].startswith("repriced")
    stale = client.post(f"/api/v1/plans/{p['id']}/reprice", json={"version": 1}, headers=a.headers)
    assert stale.status_code == 409


def test_unknown_plan_is_404(client: TestClient, account: MakeAccount) -> None:
    a = account("admin")
    assert client.get("/api/v1/plans/999999", headers=a.headers).status_code == 404
    r = client.put("/api/v1/plans/999999", json={"version": 1}, headers=a.headers)
    assert r.status_code == 404


def test_script_in_text_comes_back_verbatim_as_json(
    client: TestClient, account: MakeAccount
) -> None:
    """The API returns data, not markup: escaping is the templates' job (pages come later)."""
    a = account("sales")
    evil = '<script>alert("x")</script>'
    p = _create(client, a, name=evil, customer=evil, notes=evil)
    r = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers)
    assert r.headers["content-type"] == "application/json"
    assert (r.json()["name"], r.json()["customer"], r.json()["notes"]) == (evil, evil, evil)


def test_every_plan_route_has_a_docstring(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for path, ops in spec["paths"].items():
        if path.startswith("/api/v1/plans") or path == "/api/v1/me":
            for op in ops.values():
                assert op.get("description"), path


def test_notes_past_the_limit_are_422_naming_notes(
    client: TestClient, account: MakeAccount
) -> None:
    """NOTES_MAX = 20,000 characters, the VARCHAR(20000) of migration 0009_bounded_notes."""
    from app.plans.models import NOTES_MAX

    who = account("sales")
    body = {"name": "Long", "workload": WORKLOAD, "notes": "n" * (NOTES_MAX + 1)}
    r = client.post("/api/v1/plans", json=body, headers=who.headers)
    assert r.status_code == 422
    assert ["body", "notes"] in [d["loc"][:2] for d in r.json()["detail"]]
    plan = _create(client, who, notes="n" * NOTES_MAX)
    r = client.put(
        f"/api/v1/plans/{plan['id']}",
        json={"version": plan["version"], "notes": "n" * (NOTES_MAX + 1)},
        headers=who.headers,
    )
    assert r.status_code == 422
    assert ["body", "notes"] in [d["loc"][:2] for d in r.json()["detail"]]


def _plan_count(client: TestClient) -> int:
    from sqlmodel import Session, func, select

    from app.plans.models import Plan

    with Session(client.app.state.engine) as session:  # type: ignore[attr-defined]
        return session.exec(select(func.count()).select_from(Plan)).one()


def _export(client: TestClient, who: Account) -> dict[str, Any]:
    plan = _create(client, who)
    r = client.get(f"/api/v1/plans/{plan['id']}/export", headers=who.headers)
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize("value", [2**31, 2**63, 10**20])
def test_ids_past_the_database_range_are_422_naming_the_field(
    client: TestClient, account: MakeAccount, value: int
) -> None:
    """customer_id and price_list_id are DbIds (1 … 2^31 − 1) like path ids: past 2^63 they
    overflowed SQLite (a 500); now nothing is saved and the 422 names the field."""
    who = account("sales")
    plan = _create(client, who)
    exported = _export(client, who)
    calls = [
        ("post", "/api/v1/plans", {"name": "x", "workload": WORKLOAD, "customer_id": value}),
        ("put", f"/api/v1/plans/{plan['id']}", {"version": 1, "customer_id": value}),
        ("post", f"/api/v1/plans/{plan['id']}/reprice", {"price_list_id": value}),
        (
            "post",
            "/api/v1/plans/import",
            {**exported, "price_list_id": value, "reprice": False},
        ),
    ]
    before = _plan_count(client)
    for method, url, body in calls:
        r = client.request(method, url, json=body, headers=who.headers)
        assert r.status_code == 422, (url, r.text)
        field = "customer_id" if "customer_id" in body else "price_list_id"
        assert ["body", field] in [d["loc"][:2] for d in r.json()["detail"]], (url, r.text)
    assert _plan_count(client) == before
    r = client.get(f"/api/v1/plans/{plan['id']}", headers=who.headers)
    assert r.json()["version"] == 1


def test_tags_past_the_limits_are_422_naming_tags_never_cut(
    client: TestClient, account: MakeAccount
) -> None:
    """TAG_MAX characters a tag (after trimming), TAGS_MAX tags: create, save and import
    refuse more instead of storing a shortened tag or the first fifty."""
    from app.plans.models import TAG_MAX, TAGS_MAX

    who = account("sales")
    plan = _create(client, who, tags=[" " + "t" * TAG_MAX + " "])
    assert plan["tags"] == ["t" * TAG_MAX], "trimmed, then exactly at the limit"
    exported = _export(client, who)
    too_long = ["ok", "t" * (TAG_MAX + 1)]
    too_many = [f"tag{i}" for i in range(TAGS_MAX + 1)]
    before = _plan_count(client)
    for tags in (too_long, too_many):
        for method, url, body in [
            ("post", "/api/v1/plans", {"name": "x", "workload": WORKLOAD, "tags": tags}),
            ("put", f"/api/v1/plans/{plan['id']}", {"version": 1, "tags": tags}),
            ("post", "/api/v1/plans/import", {**exported, "tags": tags}),
        ]:
            r = client.request(method, url, json=body, headers=who.headers)
            assert r.status_code == 422, (url, r.text)
            assert ["body", "tags"] in [d["loc"][:2] for d in r.json()["detail"]], (url, r.text)
    assert _plan_count(client) == before
    r = client.get(f"/api/v1/plans/{plan['id']}", headers=who.headers)
    assert (r.json()["version"], r.json()["tags"]) == (1, ["t" * TAG_MAX])


def test_import_keeps_tags_within_the_limits(client: TestClient, account: MakeAccount) -> None:
    who = account("sales")
    exported = _export(client, who)
    tags = [" a ", "a", "b", ""] + [f"tag{i}" for i in range(46)]
    r = client.post("/api/v1/plans/import", json={**exported, "tags": tags}, headers=who.headers)
    assert r.status_code == 201, r.text
    assert r.json()["tags"] == ["a", "b", *[f"tag{i}" for i in range(46)]]


def test_import_with_a_price_list_that_is_gone_saves_nothing(
    client: TestClient, account: MakeAccount
) -> None:
    who = account("sales")
    exported = _export(client, who)
    before = _plan_count(client)
    body = {**exported, "price_list_id": 2**31 - 1, "reprice": False}
    r = client.post("/api/v1/plans/import", json=body, headers=who.headers)
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"] == ["body", "price_list_id"]
    assert _plan_count(client) == before, "no half-imported plan left behind"


@pytest.mark.parametrize(
    ("field", "value", "char"),
    [
        ("name", "a\u0000b", "U+0000"),
        ("name", "a\u0007b\u001b[31m", "U+0007"),
        ("name", "\u202eevil", "U+202E"),
        ("name", "two\nlines", "U+000A"),
        ("customer", "NTU\u2066Lab", "U+2066"),
    ],
)
def test_control_characters_in_name_and_customer_are_422(
    client: TestClient, account: MakeAccount, field: str, value: str, char: str
) -> None:
    """QA S3.16: invisible characters would be stored and shown back on every quote."""
    a = account("sales")
    en = {**a.headers, "Accept-Language": "en"}
    body = {"name": "ok", "workload": WORKLOAD, field: value}
    r = client.post("/api/v1/plans", json=body, headers=en)
    assert r.status_code == 422
    detail = r.json()["detail"][0]
    assert detail["loc"] == ["body", field] and char in detail["msg"]
    plan = _create(client, a)
    r = client.put(f"/api/v1/plans/{plan['id']}", json={"version": 1, field: value}, headers=en)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", field]
    assert client.get(f"/api/v1/plans/{plan['id']}", headers=a.headers).json()["version"] == 1


def test_control_characters_in_a_customer_are_422(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    for body, field in (
        ({"name": "台大\u0000"}, "name"),
        ({"name": "NTU", "contact": "\u202eevil"}, "contact"),
        ({"name": "NTU", "address": "\u0000\u0001"}, "address"),
    ):
        r = client.post("/api/v1/customers", json=body, headers=a.headers)
        assert r.status_code == 422, r.text
        assert r.json()["detail"][0]["loc"] == ["body", field]
    # An address may span lines.
    ok = client.post(
        "/api/v1/customers", json={"name": "NTU", "address": "台北市\n大安區"}, headers=a.headers
    )
    assert ok.status_code == 201 and ok.json()["address"] == "台北市\n大安區"


@pytest.mark.parametrize(
    ("lang", "msg"), [("en", "This field is required."), ("zh-TW", "此欄位必填。")]
)
def test_an_imported_workload_is_refused_in_the_readers_words_at_its_field(
    client: TestClient, account: MakeAccount, lang: str, msg: str
) -> None:
    """QA: every error inside an imported plan's workload was pydantic's English ("Field
    required", "Extra inputs are not permitted") whatever the client's language."""
    who = account("sales")
    _create(client, who)
    exported = _export(client, who)
    workload = {k: v for k, v in exported["workload"].items() if k != "task"}
    before = _plan_count(client)
    r = client.post("/api/v1/plans/import", json={**exported, "workload": workload},
                    headers={**who.headers, "Accept-Language": lang})  # fmt: skip
    assert r.status_code == 422, r.text
    (err,) = r.json()["detail"]
    assert err["loc"] == ["body", "workload", "task"] and err["msg"] == msg
    assert _plan_count(client) == before


def test_a_version_ahead_of_the_plan_is_refused_naming_the_field(
    client: TestClient, account: MakeAccount
) -> None:
    """QA: {"version": 99} on a plan at version 1 was a 409 "changed by someone else" with
    no changed field: no one saved version 99."""
    who = account("sales")
    plan = _create(client, who)
    r = client.put(f"/api/v1/plans/{plan['id']}", json={"version": 99, "notes": "x"},
                   headers={**who.headers, "Accept-Language": "en"})  # fmt: skip
    assert r.status_code == 422
    (err,) = r.json()["detail"]
    assert err["loc"] == ["body", "version"]
    assert err["msg"] == "is ahead of the plan, which is at version 1: send the version you read"
    assert client.get(f"/api/v1/plans/{plan['id']}", headers=who.headers).json()["version"] == 1


def test_a_free_text_customer_is_trimmed_as_the_form_trims_it(
    client: TestClient, account: MakeAccount
) -> None:
    # QA: " NTU AI Lab " from the API stayed a different customer from the form's
    # "NTU AI Lab": the list's customer filter and the customer record missed it.
    a = account("sales")
    tag = uuid.uuid4().hex[:6]
    p = _create(client, a, customer=f"  Lab {tag}\u3000")
    assert p["customer"] == f"Lab {tag}"
    url = f"/api/v1/plans/{p['id']}"
    r = client.put(url, json={"version": 1, "customer": f" Other {tag} "}, headers=a.headers)
    assert r.status_code == 200 and r.json()["customer"] == f"Other {tag}"
    listed = client.get("/api/v1/plans", params={"customer": f"Other {tag}"}, headers=a.headers)
    assert [x["id"] for x in listed.json()["items"]] == [p["id"]]
