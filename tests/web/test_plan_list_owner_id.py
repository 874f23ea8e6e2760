"""The plan list takes the owner filter by the API's name too (`owner_id`, as
GET /api/v1/plans calls it), and says beside the filters when it cannot apply it, as it does
for every other filter in the address.

QA: `/plans?owner_id=abc` showed every plan with no notice, unlike `?page=abc`."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in
from tests.plan_quotes import create_plan


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("zh-TW", None),
        ("en", "Owner “abc” is not “me” or a user number: everyone's plans are shown."),
    ],
)
@pytest.mark.parametrize("param", ["owner_id", "owner"])
def test_an_owner_that_is_no_user_number_is_said_beside_the_filters(
    client: TestClient, lang: str, said: str | None, param: str
) -> None:
    pages = TestClient(client.app)
    sign_in(pages, make_account(client, "sales").user)
    r = pages.get("/plans", params={param: "abc"}, headers={"Accept-Language": lang})
    assert r.status_code == 200
    notice = BeautifulSoup(r.text, "html.parser").select_one("p.notice.error#err-owner")
    assert notice is not None
    if said is not None:
        assert notice.get_text() == said
    else:  # in Chinese, naming the value
        assert "「abc」" in notice.get_text()


def test_owner_id_filters_the_list_as_the_api_does(client: TestClient) -> None:
    mine, theirs = make_account(client, "sales"), make_account(client, "sales")
    create_plan(client, mine, name="Mine only")
    create_plan(client, theirs, name="Theirs only")
    pages = TestClient(client.app)
    sign_in(pages, mine.user)
    r = pages.get("/plans", params={"owner_id": str(mine.user.id), "q": "only"})
    names = [a.get_text(strip=True) for a in BeautifulSoup(r.text, "html.parser").select(
        "table.plans-table tbody td a")]  # fmt: skip
    assert "Mine only" in names and "Theirs only" not in names
