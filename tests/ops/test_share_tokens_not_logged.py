"""A share link's token never reaches the log whole (app/ops/middleware.loggable_path): it is
the credential to a customer's quote, and the database keeps only its hash so that a leaked
database opens no plan; logs are read by more people than the database. The access line keeps
the first six characters, enough to tell links apart."""

from __future__ import annotations

import logging

import pytest
from fastapi.testclient import TestClient

from app.ops.middleware import loggable_path
from tests.accounts.helpers import make_account
from tests.quotes.test_quote_life import _customer, _plan, _quote, _share


@pytest.mark.parametrize(
    ("path", "logged"),
    [
        ("/s/AbCdEfGhIjKlMnOpQrStUvWxYz012345", "/s/AbCdEf…"),
        ("/s/AbCdEfGhIjKlMnOpQrStUvWxYz012345/quote.pdf", "/s/AbCdEf…/quote.pdf"),
        ("/s/AbC", "/s/AbC"),  # too short to be a token: nothing to hide
        ("/plans/12/share", "/plans/12/share"),
    ],
)
def test_the_logged_path_keeps_six_characters_of_a_token(path: str, logged: str) -> None:
    assert loggable_path(path) == logged


def test_opening_a_share_link_logs_no_token(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    a = make_account(client, "sales")
    url = _share(client, a, _plan(client, a, _customer(client, a)["id"], _quote())["id"])
    token = url.removeprefix("/s/")
    with caplog.at_level(logging.INFO):
        assert client.get(url).status_code == 200
        assert client.get(f"{url}/quote.pdf?lang=en").status_code == 200
        assert client.get(url[:-1] + ("x" if url[-1] != "x" else "y")).status_code == 404
    access = [r for r in caplog.records if r.name == "stratagem.access"]
    assert any(getattr(r, "path", "") == f"/s/{token[:6]}…" for r in access)
    server = [r for r in caplog.records if r.name != "httpx"]  # not the test client's own
    assert all(token[6:] not in r.getMessage() for r in server)
    assert all(token[6:] not in str(getattr(r, "path", "")) for r in server)


def test_every_answer_under_a_share_link_sends_no_referrer(client: TestClient) -> None:
    # Review: the share view sent no-referrer, but its error pages (a link that does not
    # exist, 404) kept the default same-origin: loading their stylesheet sent the address,
    # token and all, as the Referer, into the proxy's log.
    for path in ("/s/AbCdEfGhIjKlMnOpQrStUvWxYz012345", "/s/AbCdEfGhIjKlMnOpQrStUvWxYz012345/x"):
        r = client.get(path)
        assert r.status_code in (404, 410), r.status_code
        assert r.headers.get_list("referrer-policy") == ["no-referrer"]
    assert client.get("/").headers["referrer-policy"] == "same-origin"  # elsewhere as before
