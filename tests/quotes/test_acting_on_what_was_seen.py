"""Send, approve and answer act on the version their user was looking at (race QA).

A page carries the version it showed (the builder's Send and Approve forms, the customer's
Accept and Decline forms); the API takes it as an optional `version` / `revision`. When the
quote's content changed since, nothing is done and the user is told, in the page's
language; when only its status moved (a double click, the admin's approval in between),
the action stands. Races themselves are in test_quote_races.py.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import Account, make_account, sign_in
from tests.quotes.test_quote_life import _customer, _plan, _quote, _share


def _put_quote(client: TestClient, a: Account, p: dict[str, Any], discount: str) -> dict:
    r = client.put(
        f"/api/v1/plans/{p['id']}",
        json={"version": p["version"], "quote": _quote(discount)},
        headers=a.headers,
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def _history(client: TestClient, a: Account, plan_id: int) -> list[dict[str, Any]]:
    r = client.get(f"/api/v1/plans/{plan_id}/revisions", headers=a.headers)
    assert r.status_code == 200, r.text
    return list(r.json())


def test_a_send_of_a_version_whose_quote_changed_since_is_refused(client: TestClient) -> None:
    a = make_account(client, "sales")
    p = _plan(client, a, _customer(client, a)["id"], _quote("5"))
    _put_quote(client, a, p, "0")  # version 2: someone removed the discount
    r = client.post(f"/api/v1/plans/{p['id']}/send", json={"version": 1}, headers=a.headers)
    assert r.status_code == 409, r.text
    assert r.json()["current_version"] == 2
    assert r.json()["changed_fields"] == ["quote.discount_pct"]
    now = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert now["status"] == "draft" and now["sent_version"] is None
    future = client.post(f"/api/v1/plans/{p['id']}/send", json={"version": 3}, headers=a.headers)
    assert future.status_code == 409 and future.json()["current_version"] == 2


def test_sending_what_was_seen_still_works_after_the_discount_was_approved(
    client: TestClient,
) -> None:
    """The approval is a revision (version 2) that changes no content: the salesperson's
    page, loaded at version 1, sends as it stands (before, an approval was no revision)."""
    sales = make_account(client, "sales")
    admin = make_account(client, "admin")
    p = _plan(client, sales, _customer(client, sales)["id"], _quote("15"))
    approved = client.post(
        f"/api/v1/plans/{p['id']}/approve-discount", json={"version": 1}, headers=admin.headers
    )
    assert approved.status_code == 200, approved.text
    assert approved.json()["version"] == 2
    assert Decimal(approved.json()["discount_approved_pct"]) == Decimal(15)
    history = _history(client, sales, p["id"])  # oldest first
    assert [h["change_summary"] for h in history] == ["created", "discount of 15% approved"]
    assert history[1]["author_id"] == admin.user.id
    sent = client.post(f"/api/v1/plans/{p['id']}/send", json={"version": 1}, headers=sales.headers)
    assert sent.status_code == 200, sent.text
    assert sent.json()["status"] == "sent" and sent.json()["sent_version"] == 3


def test_an_approval_of_an_older_version_is_refused_and_approving_twice_changes_nothing(
    client: TestClient,
) -> None:
    sales = make_account(client, "sales")
    admin = make_account(client, "admin")
    p = _plan(client, sales, _customer(client, sales)["id"], _quote("15"))
    deeper = _put_quote(client, sales, p, "60")  # saved after the admin opened version 1
    url = f"/api/v1/plans/{p['id']}/approve-discount"
    stale = client.post(url, json={"version": 1}, headers=admin.headers)
    assert stale.status_code == 409, stale.text
    assert stale.json()["changed_fields"] == ["quote.discount_pct"]
    assert (
        client.get(f"/api/v1/plans/{p['id']}", headers=admin.headers).json()[
            "discount_approved_pct"
        ]
        is None
    )
    seen = client.post(url, json={"version": deeper["version"]}, headers=admin.headers)
    assert seen.status_code == 200 and Decimal(seen.json()["discount_approved_pct"]) == 60
    again = client.post(url, headers=admin.headers)  # a double click: nothing new to approve
    assert again.status_code == 200 and again.json()["version"] == seen.json()["version"]
    summaries = [h["change_summary"] for h in _history(client, admin, p["id"])]
    assert summaries.count("discount of 60% approved") == 1


@pytest.mark.parametrize("body", [{"version": 0}, {"version": "two"}, {"version": True}, {"v": 1}])
def test_a_bad_version_is_a_422_naming_it(client: TestClient, body: dict[str, Any]) -> None:
    a = make_account(client, "sales")
    p = _plan(client, a, _customer(client, a)["id"], _quote("0"))
    r = client.post(f"/api/v1/plans/{p['id']}/send", json=body, headers=a.headers)
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"][:2] == ["body", next(iter(body))]


@pytest.mark.parametrize(
    ("lang", "sent", "approved"),
    [
        ("en", "nothing was sent", "nothing was approved"),
        ("zh-TW", "尚未送出", "尚未核准"),
    ],
)
def test_the_builder_says_when_its_quote_changed_before_send_or_approve(
    client: TestClient, lang: str, sent: str, approved: str
) -> None:
    sales = make_account(client, "sales")
    admin = make_account(client, "admin")
    p = _plan(client, sales, _customer(client, sales)["id"], _quote("15"))
    h = {"Accept-Language": lang}
    boss = TestClient(client.app, follow_redirects=False)
    sign_in(boss, admin.user)
    page = BeautifulSoup(boss.get(f"/plans/{p['id']}", headers=h).text, "html.parser")
    form = page.select_one("form[action$='/approve-discount']")
    assert form.select_one("input[name=version]")["value"] == "1"
    fields = {i["name"]: i["value"] for i in form.select("input[type=hidden]")}
    _put_quote(client, sales, p, "60")  # while the admin reads
    r = boss.post(f"/plans/{p['id']}/approve-discount", data=fields, headers=h)
    assert r.status_code == 409
    notice = BeautifulSoup(r.text, "html.parser").select_one("#err-send").get_text()
    assert approved in notice and "1" in notice and "2" in notice
    # The builder shown with the message is the current one: approving it now works.
    again = BeautifulSoup(r.text, "html.parser").select_one("form[action$='/approve-discount']")
    fields = {i["name"]: i["value"] for i in again.select("input[type=hidden]")}
    assert fields["version"] == "2"
    assert boss.post(f"/plans/{p['id']}/approve-discount", data=fields).status_code == 303
    seller = TestClient(client.app, follow_redirects=False)
    sign_in(seller, sales.user)
    page = BeautifulSoup(seller.get(f"/plans/{p['id']}", headers=h).text, "html.parser")
    send = page.select_one("form[action$='/send']")
    fields = {i["name"]: i["value"] for i in send.select("input[type=hidden]")}
    assert fields["version"] == "3"
    _put_quote(client, sales, {"id": p["id"], "version": 3}, "10")  # another tab saved
    r = seller.post(f"/plans/{p['id']}/send", data=fields, headers=h)
    assert r.status_code == 409
    assert sent in BeautifulSoup(r.text, "html.parser").select_one("#err-send").get_text()
    plan = client.get(f"/api/v1/plans/{p['id']}", headers=sales.headers).json()
    assert plan["status"] == "draft"


def _sent(client: TestClient, customer: dict[str, Any] | None = None) -> tuple[Account, dict, str]:
    a = make_account(client, "sales")
    c = customer or _customer(client, a)
    p = _plan(client, a, c["id"], _quote("0"))
    link = _share(client, a, p["id"])
    sent = client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers)
    assert sent.status_code == 200
    return a, sent.json(), link


def _resend_changed(client: TestClient, a: Account, p: dict[str, Any]) -> dict[str, Any]:
    """The salesperson changes the sent quote and sends it again (version 4)."""
    changed = _put_quote(client, a, p, "5")
    again = client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers)
    assert again.status_code == 200 and again.json()["sent_version"] == changed["version"] + 1
    return dict(again.json())


def test_an_answer_to_a_version_sent_again_since_is_refused_in_the_customers_language(
    client: TestClient,
) -> None:
    a, p, link = _sent(client)  # a zh-TW customer
    anon = TestClient(client.app)
    page = BeautifulSoup(anon.get(link).text, "html.parser")
    accept = page.select_one("form.accept-form")
    assert accept.select_one("input[name=revision]")["value"] == "2"
    decline_form = page.select_one("form[action*='/decline']")
    assert decline_form.select_one("input[name=revision]")["value"] == "2"
    again = _resend_changed(client, a, p)
    data = {
        **{i["name"]: i["value"] for i in accept.select("input[type=hidden]")},
        "name": "王小明",
        "title": "採購經理",
        "agree": "on",
    }
    r = anon.post(f"{link}/accept", data=data)
    assert r.status_code == 409
    shown = BeautifulSoup(r.text, "html.parser")
    notice = shown.select_one("#decision .notice.error").get_text()
    # The second revision sent is the customer's version 2 (history version
    # {again['sent_version']}: the customer never saw the saves in between).
    assert again["sent_version"] > 2
    assert notice == "您開啟此報價後，報價已修訂：目前提供的是第 2 版。請先閱讀新版本，再重新回覆。"
    # The page now offers the new version, with what the customer typed kept.
    form = shown.select_one("form.accept-form")
    assert form.select_one("input[name=revision]")["value"] == str(again["sent_version"])
    assert form.select_one("input[name=name]")["value"] == "王小明"
    status = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()["status"]
    assert status == "sent"
    ok = anon.post(f"{link}/accept", data={**data, "revision": str(again["sent_version"])})
    assert ok.status_code == 200 and ok.url.path == link  # back on the page, answered
    plan = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert plan["status"] == "accepted" and plan["decision_version"] == again["sent_version"]


def test_a_json_answer_names_the_revision_it_answers(client: TestClient) -> None:
    a, p, link = _sent(client)
    again = _resend_changed(client, a, p)
    anon = TestClient(client.app)
    en = {"Accept-Language": "en"}
    old = anon.post(f"{link}/decline", json={"reason": "Budget", "revision": 2}, headers=en)
    assert old.status_code == 409, old.text
    assert old.json()["detail"][0]["loc"] == ["body", "status", "revised"]
    assert old.json()["detail"][0]["msg"].startswith("This quote was revised after you opened it")
    assert "changed_fields" not in old.json()
    for bad in ("two", True, 0, 2.5):
        r = anon.post(f"{link}/decline", json={"reason": "Budget", "revision": bad}, headers=en)
        assert r.status_code == 422, (bad, r.text)
        assert r.json()["detail"][0]["loc"] == ["body", "revision"]
    ok = anon.post(f"{link}/decline", json={"reason": "Budget", "revision": again["sent_version"]})
    assert ok.status_code == 200 and ok.json()["revision"] == again["sent_version"]


def test_a_form_with_a_damaged_revision_says_so_above_the_form(client: TestClient) -> None:
    """A hidden field that is not a version (a damaged page) is a 422 whose message the
    customer can see and act on, in the customer's language; nothing is recorded."""
    a, p, link = _sent(client)
    anon = TestClient(client.app)
    page = BeautifulSoup(anon.get(link).text, "html.parser")
    accept = page.select_one("form.accept-form")
    data = {
        **{i["name"]: i["value"] for i in accept.select("input[type=hidden]")},
        "revision": "two",
        "name": "王小明",
        "title": "採購經理",
        "agree": "on",
    }
    r = anon.post(f"{link}/accept", data=data)
    assert r.status_code == 422
    notice = BeautifulSoup(r.text, "html.parser").select_one("#decision .notice.error")
    assert notice is not None and notice.get_text() == "此頁面已過期：請重新載入後再回覆。"
    status = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()["status"]
    assert status == "sent"
