"""Share links: token strength, expiry, revocation, and what the shared page shows."""

from __future__ import annotations

import math
from datetime import timedelta

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.sharing import service
from app.sharing.models import ShareLink
from tests.accounts.helpers import MakeAccount
from tests.plan_quotes import XSS, create_plan


def _share(client: TestClient, plan_id: int, headers: dict[str, str], **body: int) -> dict:
    r = client.post(f"/api/v1/plans/{plan_id}/share", json=body or None, headers=headers)
    assert r.status_code == 201, r.text
    return r.json()


def test_token_is_long_random_and_only_its_hash_is_stored(
    client: TestClient, account: MakeAccount
) -> None:
    a = account("sales")
    plan = create_plan(client, a)
    tokens = [_share(client, plan["id"], a.headers)["url"].rsplit("/", 1)[1] for _ in range(5)]
    assert len(set(tokens)) == 5
    for token in tokens:
        # token_urlsafe(24): 32 characters of a 64-symbol alphabet = 192 bits ≥ 128.
        assert len(token) >= 32 and len(token) * math.log2(64) >= 128
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        hashes = {link.token_hash for link in s.exec(select(ShareLink))}
    assert service.hash_token(tokens[0]) in hashes
    assert not any(t in hashes for t in tokens)


def test_shared_page_is_read_only_and_hides_internal_data(
    client: TestClient, account: MakeAccount
) -> None:
    a = account("sales")
    plan = create_plan(client, a)
    url = _share(client, plan["id"], a.headers, expires_in_days=30)["url"]
    anon = TestClient(client.app)
    r = anon.get(url.replace("http://testserver", ""))
    assert r.status_code == 200
    assert r.headers["referrer-policy"] == "no-referrer"
    assert "noindex" in r.headers["x-robots-tag"]
    assert "INTERNAL-NOTE" not in r.text
    assert a.user.email.lower() not in r.text.lower()
    soup = BeautifulSoup(r.text, "html.parser")
    # The stored <script> is text, never an element.
    assert XSS in soup.select_one(".plan-name").get_text()
    assert XSS in soup.select_one(".customer").get_text()
    assert not [s for s in soup.find_all("script") if "alert" in (s.string or "")]
    assert not soup.select("form[method=post]"), "no edit controls"
    # No quote yet: no quoted total (tests/sharing/test_shared_quote_page.py), the ways to pay
    # keep their own prices.
    assert soup.select_one(".quoted-total") is None
    assert soup.select_one(".quote-pending") is not None
    assert any(td.get_text().startswith("NT$") for td in soup.select("td.num"))
    links = [x["href"] for x in soup.select("a[href$='quote.pdf?lang=en']")]
    assert links


def test_expired_and_revoked_links_are_refused(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    plan = create_plan(client, a)
    made = _share(client, plan["id"], a.headers, expires_in_days=1)
    path = made["url"].replace("http://testserver", "")
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        link = s.get(ShareLink, made["id"])
        assert link is not None
        link.expires_at = service.utcnow() - timedelta(minutes=1)
        s.add(link)
        s.commit()
    # In the customer's document language, as the working page was (a plan without a
    # customer record: 中文), whatever the browser asks (tests/sharing/
    # test_gone_page_language.py).
    en = {"accept-language": "en"}
    r = client.get(path, headers=en)
    assert r.status_code == 410 and "此連結已過期" in r.text
    assert client.get(path + "/quote.pdf").status_code == 410

    other = _share(client, plan["id"], a.headers)
    path = other["url"].replace("http://testserver", "")
    assert client.get(path).status_code == 200
    r = client.delete(f"/api/v1/plans/{plan['id']}/share/{other['id']}", headers=a.headers)
    assert r.status_code == 204
    r = client.get(path, headers=en)
    assert r.status_code == 410 and "此連結已被撤銷" in r.text

    third = _share(client, plan["id"], a.headers)
    assert client.delete(f"/api/v1/plans/{plan['id']}/share", headers=a.headers).status_code == 204
    assert client.get(third["url"].replace("http://testserver", "")).status_code == 410
    assert client.get("/s/not-a-real-token-at-all").status_code == 404


def test_only_owner_or_admin_may_share_and_days_are_bounded(
    client: TestClient, account: MakeAccount
) -> None:
    owner, other = account("sales"), account("sales")
    plan = create_plan(client, owner)
    r = client.post(f"/api/v1/plans/{plan['id']}/share", headers=other.headers)
    assert r.status_code == 403
    r = client.post(
        f"/api/v1/plans/{plan['id']}/share", json={"expires_in_days": 400}, headers=owner.headers
    )
    assert r.status_code == 422
    assert client.post(f"/api/v1/plans/{plan['id']}/share").status_code == 401
