"""Share links under STRATAGEM_PUBLIC_URL: the address customers reach, not the request's.

Behind a reverse proxy that sends no X-Forwarded-* headers the request's address is the app's
internal one (http://127.0.0.1:8000); a link made there reaches no customer.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from app.main import create_app
from app.settings import Settings
from tests.accounts.helpers import make_account
from tests.plan_quotes import create_plan


def test_share_links_use_the_public_url(settings: Settings) -> None:
    public = settings.model_copy(update={"public_url": "https://quotes.example.com"})
    with TestClient(create_app(public)) as client:
        who = make_account(client, "sales")
        plan = create_plan(client, who)
        r = client.post(f"/api/v1/plans/{plan['id']}/share", json={}, headers=who.headers)
        assert r.status_code == 201, r.text
        url = r.json()["url"]
        assert url.startswith("https://quotes.example.com/s/")
        # The link opens the plan (the path is the app's own).
        assert client.get(url.removeprefix("https://quotes.example.com")).status_code == 200


def test_without_a_public_url_the_link_is_at_the_requests_address(client: TestClient) -> None:
    who = make_account(client, "sales")
    plan = create_plan(client, who)
    r = client.post(f"/api/v1/plans/{plan['id']}/share", json={}, headers=who.headers)
    assert r.json()["url"].startswith("http://testserver/s/")


@pytest.mark.parametrize(
    ("value", "stored"),
    [("https://quotes.example.com/", "https://quotes.example.com"),
     ("http://10.0.0.5:8000/stratagem", "http://10.0.0.5:8000/stratagem")],
)  # fmt: skip
def test_a_public_url_is_kept_without_its_trailing_slash(value: str, stored: str) -> None:
    assert Settings(STRATAGEM_PUBLIC_URL=value).public_url == stored


@pytest.mark.parametrize(
    "value", ["quotes.example.com", "ftp://quotes.example.com", "https://x.example/?a=1"]
)
def test_a_public_url_that_is_not_an_http_address_is_refused(value: str) -> None:
    with pytest.raises(ValidationError, match=r"STRATAGEM_PUBLIC_URL"):
        Settings(STRATAGEM_PUBLIC_URL=value)
