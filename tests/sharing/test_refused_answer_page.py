"""The share page rendered in answer to a refused accept or decline (QA, 2026-12-03):

- a refused decline (empty reason) showed its error inside the closed "Decline the quote"
  panel, so the customer saw nothing happen;
- the language switch on that page led to GET /s/<token>/accept, a 405 in raw JSON: the
  switch now comes back to the page the form was posted from.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.sharing.test_answer_input import _sent


def _token(anon: TestClient, link: str) -> str:
    page = BeautifulSoup(anon.get(link).text, "html.parser")
    return str(page.select_one("form.accept-form input[name=csrf_token]")["value"])


def test_a_refused_decline_opens_its_panel_with_the_error(client: TestClient) -> None:
    _a, _p, link = _sent(client)
    anon = TestClient(client.app)
    r = anon.post(f"{link}/decline", data={"csrf_token": _token(anon, link), "reason": ""})
    assert r.status_code == 422
    page = BeautifulSoup(r.text, "html.parser")
    panel = page.select_one("details.decline")
    assert panel is not None and panel.has_attr("open")
    assert panel.select_one("#err-reason").get_text().strip()
    # Without an error the panel stays closed.
    assert (
        not BeautifulSoup(anon.get(link).text, "html.parser")
        .select_one("details.decline")
        .has_attr("open")
    )


def test_the_language_switch_after_a_refused_accept_returns_to_the_quote(
    client: TestClient,
) -> None:
    _a, _p, link = _sent(client)
    anon = TestClient(client.app)
    r = anon.post(
        f"{link}/accept",
        data={"csrf_token": _token(anon, link), "name": "", "title": ""},
        headers={"Referer": f"http://testserver{link}"},
    )
    assert r.status_code == 422
    switch = BeautifulSoup(r.text, "html.parser").select_one('a[hreflang="en"]')
    assert switch is not None
    (nxt,) = parse_qs(urlsplit(switch["href"]).query)["next"]
    assert nxt == link
    assert not switch.has_attr("data-keep-location")  # the script would put the POST URL back
    back = anon.get(switch["href"], follow_redirects=True)
    assert back.status_code == 200 and back.url.path == link


def test_without_a_referer_the_switch_goes_home_not_to_the_post_url(client: TestClient) -> None:
    _a, _p, link = _sent(client)
    anon = TestClient(client.app)
    r = anon.post(f"{link}/accept", data={"csrf_token": _token(anon, link), "name": ""})
    switch = BeautifulSoup(r.text, "html.parser").select_one('a[hreflang="en"]')
    (nxt,) = parse_qs(urlsplit(switch["href"]).query)["next"]
    assert nxt == "/"
