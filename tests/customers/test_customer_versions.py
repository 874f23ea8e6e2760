"""Two people editing one customer never lose an edit without a word (QA of stop 22: the
second save silently overwrote the first). Each save counts up the customer's `version`; a
save based on an older one is a 409 (API) or the form again with the typed values beside
what is saved now (page), and nothing changes until it is saved again, knowingly."""

from __future__ import annotations

import threading

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.customers import service
from app.customers.models import CustomerCreate, CustomerUpdate
from tests.accounts.helpers import make_account, sign_in


def _new(client: TestClient, headers: dict[str, str], name: str) -> dict:
    r = client.post("/api/v1/customers", json={"name": name, "contact": "Mei"}, headers=headers)
    assert r.status_code == 201, r.text
    return r.json()


def test_each_save_counts_up_the_version_and_a_stale_one_is_a_409(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _new(client, a.headers, "Version Co")
    assert c["version"] == 1
    url = f"/api/v1/customers/{c['id']}"
    r = client.put(url, json={"version": 1, "contact": "Mei Lin"}, headers=a.headers)
    assert r.status_code == 200 and r.json()["version"] == 2
    # a colleague who read version 1 saves the e-mail: refused, naming the current version
    r = client.put(
        url,
        json={"version": 1, "email": "mei@version.example"},
        headers={**a.headers, "Accept-Language": "zh-TW"},
    )
    assert r.status_code == 409
    assert r.json()["current_version"] == 2
    assert r.json()["detail"].startswith("您載入之後，這個客戶已被其他人修改")
    got = client.get(url, headers=a.headers).json()
    assert (got["version"], got["contact"], got["email"]) == (2, "Mei Lin", "")
    # a save that changes nothing writes nothing; one without a version overwrites (documented)
    assert (
        client.put(url, json={"version": 2, "contact": "Mei Lin"}, headers=a.headers).json()[
            "version"
        ]
        == 2
    )
    assert client.put(url, json={"contact": "Ann"}, headers=a.headers).json()["version"] == 3


def test_of_two_saves_on_one_version_exactly_one_goes_through(client: TestClient) -> None:
    """The version is compared and counted up in one UPDATE: no read-then-write window."""
    engine = client.app.state.engine  # type: ignore[attr-defined]
    with Session(engine) as s:
        c = service.create_customer(session=s, data=CustomerCreate(name="Race Co"))
        cid = c.id
    assert cid is not None
    results: list[str] = []
    barrier = threading.Barrier(2)

    def save(contact: str) -> None:
        with Session(engine) as s:
            barrier.wait()
            try:
                service.update_customer(
                    session=s, customer_id=cid, data=CustomerUpdate(version=1, contact=contact)
                )
                results.append("saved")
            except service.CustomerConflict:
                results.append("conflict")

    threads = [threading.Thread(target=save, args=(n,)) for n in ("A", "B")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["conflict", "saved"]
    with Session(engine) as s:
        assert service.get_customer(session=s, customer_id=cid).version == 2


@pytest.mark.parametrize(
    ("lang", "message", "contact"),
    [
        ("en", "Someone else saved this customer while you were editing", "Contact person"),
        ("zh-TW", "您編輯期間，有其他人儲存了這個客戶", "聯絡人"),
    ],
)
def test_the_page_keeps_the_typed_values_beside_what_is_saved_now(
    client: TestClient, lang: str, message: str, contact: str
) -> None:
    a = make_account(client, "sales")
    c = _new(client, a.headers, f"Page Co {lang}")
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    form = BeautifulSoup(pages.get(f"/customers/{c['id']}").text, "html.parser").select_one(
        "form.customer-form"
    )
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    assert data["version"] == "1"
    data |= {"name": f"Page Co {lang}", "address": "台北市信義區", "language": "zh-TW"}
    data |= {"currency": "TWD"}
    # a colleague changes the contact first
    r = client.put(
        f"/api/v1/customers/{c['id']}", json={"version": 1, "contact": "Chen"}, headers=a.headers
    )
    assert r.status_code == 200
    r = pages.post(f"/customers/{c['id']}", data=data, headers={"Accept-Language": lang})
    assert r.status_code == 409
    page = BeautifulSoup(r.text, "html.parser")
    alert = page.select_one(".conflict[role=alert]")
    assert alert is not None and message in alert.get_text()
    # Only the colleague's change is listed (the address is this user's own edit), and the
    # contact this user left alone now holds the colleague's value.
    saved = {
        tr.th.get_text(strip=True): tr.select_one("td").get_text(strip=True)
        for tr in alert.select("tbody tr")
    }
    assert saved == {contact: "Chen"}
    assert page.select_one("input[name=contact]")["value"] == "Chen"
    assert page.select_one("textarea[name=address]").get_text() == "台北市信義區"  # kept
    assert page.select_one("input[name=version]")["value"] == "2"
    got = client.get(f"/api/v1/customers/{c['id']}", headers=a.headers).json()
    assert (got["version"], got["address"]) == (2, "")
    # saving the form again goes through, and keeps both edits
    again = {i["name"]: i.get("value", "") for i in page.select("form.customer-form input[name]")}
    again |= {"address": "台北市信義區", "language": "zh-TW", "currency": "TWD"}
    assert pages.post(f"/customers/{c['id']}", data=again).status_code == 303
    got = client.get(f"/api/v1/customers/{c['id']}", headers=a.headers).json()
    assert (got["version"], got["address"], got["contact"]) == (3, "台北市信義區", "Chen")


def test_a_field_both_changed_keeps_the_users_value_beside_the_colleagues(
    client: TestClient,
) -> None:
    a = make_account(client, "sales")
    c = _new(client, a.headers, "Both Co")
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    form = BeautifulSoup(pages.get(f"/customers/{c['id']}").text, "html.parser").select_one(
        "form.customer-form"
    )
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    data |= {"contact": "Wang", "language": "zh-TW", "currency": "TWD", "address": ""}
    client.put(
        f"/api/v1/customers/{c['id']}", json={"version": 1, "contact": "Chen"}, headers=a.headers
    )
    r = pages.post(f"/customers/{c['id']}", data=data, headers={"Accept-Language": "en"})
    page = BeautifulSoup(r.text, "html.parser")
    row = page.select_one(".conflict tbody tr")
    assert [td.get_text(strip=True) for td in row.select("td")] == ["Chen", "your value, kept"]
    assert page.select_one("input[name=contact]")["value"] == "Wang"


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "This form is out of date or was changed: it does not say which version"),
        ("zh-TW", "這份表單已過期或遭到更動：無法得知它是以哪一版客戶資料開啟的"),
    ],
)
@pytest.mark.parametrize("version", ["abc", "", "0", "²", "9" * 30, "999"])
def test_a_form_whose_version_is_not_one_asks_for_a_reload_and_invents_none(
    client: TestClient, lang: str, message: str, version: str
) -> None:
    """QA: version=abc (or empty) said "you started from version 0", a version no customer
    has. It is a form that was changed: 422, nothing saved, the typed values kept, and the
    hidden version left as sent, so saving again does not overwrite what was not seen."""
    a = make_account(client, "sales")
    c = _new(client, a.headers, "Tampered Co")
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    form = BeautifulSoup(pages.get(f"/customers/{c['id']}").text, "html.parser").select_one(
        "form.customer-form"
    )
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    data |= {"name": "Typed Co", "version": version}
    r = pages.post(f"/customers/{c['id']}", data=data, headers={"Accept-Language": lang})
    assert r.status_code == 422
    page = BeautifulSoup(r.text, "html.parser")
    alert = page.select_one("#err-form[role=alert]")
    assert alert is not None and message in alert.get_text()
    assert " 0" not in alert.get_text() and "第 0 版" not in alert.get_text()
    assert page.select_one("input[name=name]")["value"] == "Typed Co"
    assert page.select_one("input[name=version]")["value"] == version
    got = client.get(f"/api/v1/customers/{c['id']}", headers=a.headers).json()
    assert (got["version"], got["name"]) == (1, "Tampered Co")
