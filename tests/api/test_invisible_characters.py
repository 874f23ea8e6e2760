"""Text people type is refused when it holds characters nothing should store (app.text):
control characters (NUL, ESC …) and the text-direction overrides that make a name read
differently from what was stored. QA of stop 22 found them accepted in plan notes, phase
labels, quote line descriptions, payment terms, tags, token names and catalog text; each is
now a 422 naming the field and the character (U+202E), and nothing is saved."""

from __future__ import annotations

import uuid
from datetime import date, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.plans.schedule import T16_PHASES
from app.plans.service import today
from tests.accounts.helpers import make_account, sign_in
from tests.quotes.test_quote_life import TERM, WORKLOAD, _customer

RLO = "Invoice \u202eTXT.EXE"  # reads "Invoice EXE.TXT" on screen
NUL = "ok\x00then"


def _loc(r: Any) -> list[tuple[Any, ...]]:
    return [tuple(d["loc"]) for d in r.json()["detail"]]


@pytest.mark.parametrize("bad", [RLO, NUL])
@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"notes": "{bad}"}, ("body", "notes")),
        ({"tags": ["{bad}"]}, ("body", "tags", 0)),
        (
            {"quote": {"lines": [{"description": "{bad}", "unit_price": "1"}]}},
            ("body", "quote", "lines", 0, "description"),
        ),
        ({"quote": {"payment_terms": "{bad}"}}, ("body", "quote", "payment_terms")),
    ],
)
def test_plan_text_fields_refuse_control_and_direction_characters(
    client: TestClient, bad: str, body: dict[str, Any], loc: tuple[Any, ...]
) -> None:
    a = make_account(client, "sales")
    filled = _fill(body, bad)
    name = f"Refused {uuid.uuid4().hex}"
    r = client.post(
        "/api/v1/plans",
        json={"name": name, "workload": WORKLOAD, **filled},
        headers=a.headers,
    )
    assert r.status_code == 422, r.text
    assert loc in _loc(r)
    message = next(d["msg"] for d in r.json()["detail"] if tuple(d["loc"]) == loc)
    assert ("U+202E" if bad == RLO else "U+0000") in message
    listed = client.get("/api/v1/plans", params={"search": name}, headers=a.headers)
    assert listed.json()["total"] == 0, "nothing saved"


def _fill(value: Any, bad: str) -> Any:
    if isinstance(value, str):
        return value.replace("{bad}", bad)
    if isinstance(value, list):
        return [_fill(v, bad) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, bad) for k, v in value.items()}
    return value


def test_a_phase_label_refuses_a_direction_override(client: TestClient) -> None:
    a = make_account(client, "sales")
    phases = [dict(p) for p in T16_PHASES]
    phases[1]["label"] = RLO
    r = client.post("/api/v1/plans", json={"name": "Phased", "phases": phases}, headers=a.headers)
    assert r.status_code == 422
    assert ("body", "phases", 1, "label") in _loc(r)


def test_multi_line_notes_keep_their_line_breaks_and_tabs(client: TestClient) -> None:
    a = make_account(client, "sales")
    notes = "Call Mei first.\n\tBudget: Q1\r\nRTL names keep their mark \u200f"
    r = client.post(
        "/api/v1/plans",
        json={"name": "Lab", "workload": WORKLOAD, "notes": notes},
        headers=a.headers,
    )
    assert r.status_code == 201 and r.json()["notes"] == notes


def test_a_token_name_with_an_escape_sequence_is_refused_on_the_account_page(
    client: TestClient,
) -> None:
    """An ESC in a token name starts an ANSI colour code wherever the name is logged."""
    a = make_account(client, "sales")
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    page = pages.get("/account")
    token = page.text.split('name="csrf_token" value="')[1].split('"')[0]
    r = pages.post(
        "/account/tokens",
        data={"csrf_token": token, "name": "crm\x1b[31m"},
        headers={"Accept-Language": "zh-TW"},
    )
    assert r.status_code == 422
    assert "不得包含控制字元或文字方向控制字元（發現 U+001B）" in r.text


# ------------------------------------------------------------------ numbers at their edges


def test_minus_zero_is_stored_as_zero(client: TestClient) -> None:
    """`ge=0` lets Decimal("-0") through: it was stored, and printed, as "-0"."""
    a = make_account(client, "sales")
    c = _customer(client, a)
    quote = {
        "lines": [{"option_key": TERM, "discount_pct": "-0"}],
        "discount_pct": "-0.00",
    }
    r = client.post(
        "/api/v1/plans",
        json={"name": "Lab", "workload": WORKLOAD, "customer_id": c["id"], "quote": quote},
        headers=a.headers,
    )
    assert r.status_code == 201, r.text
    stored = r.json()["quote"]
    assert stored["discount_pct"] == "0" and stored["lines"][0]["discount_pct"] == "0"


@pytest.mark.parametrize(("days", "status"), [(365, 201), (366, 422), (None, 422)])
def test_a_quote_is_valid_for_at_most_a_year(
    client: TestClient, days: int | None, status: int
) -> None:
    """``None`` stands for the last day a date can name (9999-12-31).

    The dates are worked out when the test runs, not when it is collected: a run that
    crosses midnight would otherwise ask for a day after 9999-12-31.
    """
    a = make_account(client, "sales")
    c = _customer(client, a)
    last_day = date(9999, 12, 31)
    until = (last_day if days is None else today() + timedelta(days=days)).isoformat()
    r = client.post(
        "/api/v1/plans",
        json={
            "name": "Lab",
            "workload": WORKLOAD,
            "customer_id": c["id"],
            "quote": {"lines": [{"option_key": TERM}], "valid_until": until},
        },
        headers={**a.headers, "Accept-Language": "zh-TW"},
    )
    assert r.status_code == status, r.text
    if status == 422:
        assert ("body", "quote", "valid_until") in _loc(r)
        assert r.json()["detail"][0]["msg"] == "最晚只能是今天起一年內的日期"


@pytest.mark.parametrize(
    ("field", "value"), [("notes", "line one\n" + NUL), ("tags", "ok, " + RLO)]
)
def test_the_plan_edit_form_refuses_them_beside_the_field(
    client: TestClient, field: str, value: str
) -> None:
    """The edit form saves through the service, not the API model: it checks them itself."""
    a = make_account(client, "sales")
    r = client.post("/api/v1/plans", json={"name": "Lab", "workload": WORKLOAD}, headers=a.headers)
    plan = r.json()
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    page = pages.get(f"/plans/{plan['id']}/edit")
    token = page.text.split('name="csrf_token" value="')[1].split('"')[0]
    data = {"name": "Lab", "customer": "", "status": "draft", "tags": "", "notes": ""}
    data |= {"csrf_token": token, "version": "1", field: value}
    r = pages.post(f"/plans/{plan['id']}/edit", data=data, headers={"Accept-Language": "en"})
    assert r.status_code == 422
    assert "must not contain control or text-direction characters" in r.text
    got = client.get(f"/api/v1/plans/{plan['id']}", headers=a.headers).json()
    assert got["version"] == 1 and got["notes"] == "" and got["tags"] == []


# ------------------------------------------------------------ a tab in one-line text (QA)

TAB = "Acme\tCorp"
TAB_SAID = {
    "en": "must not contain a tab (found U+0009): type a space instead",
    "zh-TW": "不得包含定位字元（Tab，發現 U+0009）：請改用空格",
}


@pytest.mark.parametrize(
    ("path", "body", "loc"),
    [
        ("/api/v1/customers", {"name": TAB}, ("body", "name")),
        ("/api/v1/customers", {"name": "Tab Co", "contact": "Mei\tLin"}, ("body", "contact")),
        ("/api/v1/plans", {"name": TAB, "workload": WORKLOAD}, ("body", "name")),
        (
            "/api/v1/plans",
            {"name": "Tab plan", "customer": TAB, "workload": WORKLOAD},
            ("body", "customer"),
        ),
        (
            "/api/v1/plans",
            {"name": "Tab plan", "workload": WORKLOAD, "tags": ["a\tb"]},
            ("body", "tags", 0),
        ),
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_tab_in_a_one_line_field_is_a_422_naming_the_field(
    client: TestClient, path: str, body: dict[str, Any], loc: tuple[Any, ...], lang: str
) -> None:
    """QA saved a customer named "Acme<TAB>Corp": shown as a space, kept in every export."""
    a = make_account(client, "sales")
    before = client.get(path, headers=a.headers).json()
    r = client.post(path, json=body, headers={**a.headers, "Accept-Language": lang})
    assert r.status_code == 422, r.text
    (said,) = [d["msg"] for d in r.json()["detail"] if tuple(d["loc"]) == loc]
    assert said == TAB_SAID[lang]
    assert client.get(path, headers=a.headers).json() == before, "nothing saved"


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_tab_in_the_customer_and_plan_forms_is_said_beside_the_field(
    client: TestClient, lang: str
) -> None:
    from bs4 import BeautifulSoup

    a = make_account(client, "sales")
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    headers = {"Accept-Language": lang}

    def token(path: str) -> str:
        page = BeautifulSoup(pages.get(path).text, "html.parser")
        return str(page.select_one("input[name=csrf_token]")["value"])

    r = pages.post(
        "/customers/new",
        data={"csrf_token": token("/customers/new"), "name": "Tab Co", "contact": "Mei\tLin"},
        headers=headers,
    )
    assert r.status_code == 422
    said = BeautifulSoup(r.text, "html.parser").select_one("#err-contact").get_text(strip=True)
    assert said == TAB_SAID[lang]
    plan = client.post(
        "/api/v1/plans", json={"name": "Tab plan", "workload": WORKLOAD}, headers=a.headers
    ).json()
    edit = {"version": "1", "name": TAB, "status": "draft", "notes": "keeps\ta tab"}
    r = pages.post(
        f"/plans/{plan['id']}/edit",
        data={"csrf_token": token(f"/plans/{plan['id']}/edit"), **edit},
        headers=headers,
    )
    assert r.status_code == 422
    page = BeautifulSoup(r.text, "html.parser")
    assert page.select_one("#err-name").get_text(strip=True) == TAB_SAID[lang]
    assert page.select_one("#err-notes") is None or not page.select_one("#err-notes").get_text(
        strip=True
    )
    got = client.get(f"/api/v1/plans/{plan['id']}", headers=a.headers).json()
    assert (got["version"], got["name"]) == (1, "Tab plan")
