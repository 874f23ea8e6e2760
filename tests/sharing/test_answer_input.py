"""What the customer types on /s/{token}/accept and /decline: the signature must read as it
was stored (no control or text-direction characters), JSON fields must be strings, and a
body that is not JSON gets a JSON 422 (QA S3.16, S3.17)."""

from __future__ import annotations

from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import Account, make_account
from tests.quotes.test_quote_life import _customer, _plan, _quote, _share


def _sent(client: TestClient) -> tuple[Account, dict[str, Any], str]:
    """A sent quote, its owner and the path of its share link."""
    a = make_account(client, "sales")
    p = _plan(client, a, _customer(client, a)["id"], _quote("0"))
    link = _share(client, a, p["id"])
    assert client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers).status_code == 200
    return a, p, link


def _status(client: TestClient, a: Account, plan_id: int) -> str:
    return str(client.get(f"/api/v1/plans/{plan_id}", headers=a.headers).json()["status"])


@pytest.mark.parametrize(
    ("body", "field", "char"),
    [
        ({"name": "\u0000", "title": "CTO"}, "name", "U+0000"),
        ({"name": "王小明", "title": "CTO\u0007"}, "title", "U+0007"),
        ({"name": "\u202eevil", "title": "CTO"}, "name", "U+202E"),  # right-to-left override
        ({"name": "Alice\nBob", "title": "CTO"}, "name", "U+000A"),  # a signature is one line
        ({"name": "Alice", "title": "\x1b[31mCTO"}, "title", "U+001B"),  # ANSI escape
    ],
)
def test_signature_with_control_characters_is_refused(
    client: TestClient, body: dict[str, str], field: str, char: str
) -> None:
    a, p, link = _sent(client)
    r = TestClient(client.app).post(f"{link}/accept", json=body, headers={"Accept-Language": "en"})
    assert r.status_code == 422, r.text
    detail = r.json()["detail"][0]
    assert detail["loc"] == ["body", field]
    assert detail["msg"] == f"must not contain control or text-direction characters (found {char})"
    assert _status(client, a, p["id"]) == "sent"


def test_signature_keeps_ordinary_text(client: TestClient) -> None:
    # Chinese and accented names go through untouched.
    _a, _p, link = _sent(client)
    r = TestClient(client.app).post(f"{link}/accept", json={"name": "José 王", "title": "採購經理"})
    assert r.status_code == 200 and r.json()["status"] == "accepted"


def test_form_signature_with_a_nul_gets_the_inline_error_in_the_page_language(
    client: TestClient,
) -> None:
    a, p, link = _sent(client)
    anon = TestClient(client.app)
    # The customer's language (zh-TW) unless the visitor chose one.
    page = BeautifulSoup(anon.get(link).text, "html.parser")
    token = page.select_one("form.accept-form input[name=csrf_token]")["value"]
    r = anon.post(
        f"{link}/accept",
        data={"csrf_token": token, "name": "王\u0000小明", "title": "經理", "agree": "on"},
    )
    assert r.status_code == 422
    err = BeautifulSoup(r.text, "html.parser").select_one("#err-name")
    assert (
        err is not None and err.get_text() == "不得包含控制字元或文字方向控制字元（發現 U+0000）。"
    )
    assert _status(client, a, p["id"]) == "sent"


def test_decline_reason_may_span_lines_but_not_hold_a_nul(client: TestClient) -> None:
    a, p, link = _sent(client)
    anon = TestClient(client.app)
    bad = anon.post(f"{link}/decline", json={"reason": "預算\u0000不足"})
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["body", "reason"]
    ok = anon.post(f"{link}/decline", json={"reason": "預算不足\n明年再議"})
    assert ok.status_code == 200 and ok.json()["status"] == "declined"
    got = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert got["decline_reason"] == "預算不足\n明年再議"


@pytest.mark.parametrize(
    ("body", "field", "msg"),
    [
        ({"name": ["x"], "title": "CTO"}, "name", "must be a string"),
        ({"name": "Alice", "title": {"a": 1}}, "title", "must be a string"),
        ({"name": 42, "title": "CTO"}, "name", "must be a string"),
        # QA: a tick box said "must be a string" though true and false are what it takes,
        # and a version of 0 or -1 "must be a whole number", which both are.
        ({"name": "Alice", "title": "CTO", "agree": ["yes"]}, "agree", "must be true or false"),
        # QA: "yes" (a string) accepted the quote; JSON says true.
        ({"name": "Alice", "title": "CTO", "agree": "yes"}, "agree", "must be true or false"),
        ({"name": "Alice", "title": "CTO", "agree": "true"}, "agree", "must be true or false"),
        ({"name": "A", "title": "B", "revision": 0}, "revision",
         "must be the quote's version, a whole number from 1"),
        ({"name": "A", "title": "B", "revision": -1}, "revision",
         "must be the quote's version, a whole number from 1"),
        ({"name": "A", "title": "B", "revision": 1.5}, "revision",
         "must be the quote's version, a whole number from 1"),
    ],
)  # fmt: skip
def test_json_answer_fields_say_what_they_take(
    client: TestClient, body: dict[str, Any], field: str, msg: str
) -> None:
    a, p, link = _sent(client)
    r = TestClient(client.app).post(f"{link}/accept", json=body, headers={"Accept-Language": "en"})
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0] == {"loc": ["body", field], "msg": msg, "type": "value_error"}
    assert _status(client, a, p["id"]) == "sent"


def test_json_agree_may_be_a_boolean(client: TestClient) -> None:
    _a, _p, link = _sent(client)
    anon = TestClient(client.app)
    no = anon.post(f"{link}/accept", json={"name": "A", "title": "B", "agree": False})
    assert no.status_code == 422 and no.json()["detail"][0]["loc"] == ["body", "agree"]
    yes = anon.post(f"{link}/accept", json={"name": "A", "title": "B", "agree": True})
    assert yes.status_code == 200 and yes.json()["status"] == "accepted"


@pytest.mark.parametrize(
    ("raw", "msg"),
    [
        ('{"name": "Alice", "title": ', "the body is not JSON"),
        ('["Alice", "CTO"]', "the body must be an object"),
        # QA: 2,000 nested lists were a 500 (RecursionError in the JSON reader)
        ("[" * 2_000 + "]" * 2_000, "the body is not JSON"),
    ],
)
@pytest.mark.parametrize("action", ["accept", "decline"])
def test_a_body_that_is_not_a_json_object_gets_a_json_422(
    client: TestClient, raw: str, msg: str, action: str
) -> None:
    a, p, link = _sent(client)
    r = TestClient(client.app).post(
        f"{link}/{action}",
        content=raw,
        headers={"Content-Type": "application/json", "Accept-Language": "en"},
    )
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("application/json")
    assert r.json()["detail"][0]["loc"] == ["body"] and r.json()["detail"][0]["msg"] == msg
    assert _status(client, a, p["id"]) == "sent"


@pytest.mark.parametrize(
    ("answer", "body", "field", "msg"),
    [
        # A misspelt tick box was read as agreement, and so was a null (QA).
        ("accept", {"name": "Bob", "title": "CTO", "agreed": False}, "agreed",
         "is not a field of this answer, which takes name, title, agree, revision"),
        ("accept", {"name": "Bob", "title": "CTO", "agree": None}, "agree",
         "must be true or false"),
        ("accept", {"name": None, "title": "CTO"}, "name", "must be a string"),
        ("decline", {"reason": "預算", "name": "Bob"}, "name",
         "is not a field of this answer, which takes reason, revision"),
    ],
)  # fmt: skip
def test_a_json_answer_takes_only_its_fields_and_no_nulls(
    client: TestClient, answer: str, body: dict[str, Any], field: str, msg: str
) -> None:
    a, p, link = _sent(client)
    r = TestClient(client.app).post(
        f"{link}/{answer}", json=body, headers={"Accept-Language": "en"}
    )
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0] == {"loc": ["body", field], "msg": msg, "type": "value_error"}
    assert _status(client, a, p["id"]) == "sent"  # neither accepted nor declined


def test_an_unknown_answer_field_is_named_in_the_readers_language(client: TestClient) -> None:
    _a, _p, link = _sent(client)
    r = TestClient(client.app).post(
        f"{link}/accept", json={"name": "王小明", "title": "經理", "agreed": True},
        headers={"Accept-Language": "zh-TW"},
    )  # fmt: skip
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["msg"] == (
        "不是這個回覆的欄位，可用的欄位為 name、title、agree、revision"
    )


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "Link not found: there is no shared quote at this address."),
        ("zh-TW", "找不到連結：此網址沒有分享的報價。"),
    ],
)
def test_a_json_answer_to_a_link_that_does_not_open_gets_json(
    client: TestClient, lang: str, said: str
) -> None:
    # QA: a JSON client answering a mistyped link got the 404 page's HTML.
    r = TestClient(client.app).post(
        "/s/no-such-token/accept",
        json={"name": "A", "title": "B"},
        headers={"Accept-Language": lang},
    )
    assert r.status_code == 404 and r.headers["content-type"] == "application/json"
    assert r.json()["detail"].startswith(said)


def test_a_json_answer_to_a_revoked_link_gets_json_410(client: TestClient) -> None:
    a, p, link = _sent(client)
    revoked = client.delete(f"/api/v1/plans/{p['id']}/share", headers=a.headers)
    assert revoked.status_code == 204
    r = TestClient(client.app).post(
        f"{link}/decline", json={"reason": "price"}, headers={"Accept-Language": "en"}
    )
    assert r.status_code == 410 and r.json()["detail"].startswith("This link has been revoked")
    assert _status(client, a, p["id"]) == "sent"


def test_guessing_tokens_by_answering_is_limited_like_opening_them(client: TestClient) -> None:
    # A failed lookup counts against the client's share limit (10 a minute) whichever
    # route makes it: answering was a way around the limit the page has.
    guesser = TestClient(client.app, client=("198.51.100.7", 50000))  # its own count
    codes = [
        guesser.post(f"/s/guess-{i}/accept", json={"name": "A", "title": "B"}).status_code
        for i in range(11)
    ]
    assert codes == [404] * 10 + [429]
    last = guesser.post("/s/guess-x/decline", json={"reason": "x"})
    assert last.status_code == 429 and "Retry-After" in last.headers
    assert last.headers["content-type"] == "application/json"


def test_a_blank_acceptance_form_marks_every_part_left_empty(client: TestClient) -> None:
    # QA: sent blank, only the name was marked; the title and the tick box were found empty
    # one try at a time. The form posts to "#decision" so the page opens at the errors.
    a, p, link = _sent(client)
    anon = TestClient(client.app)
    page = BeautifulSoup(anon.get(link).text, "html.parser")
    form = page.select_one("form.accept-form")
    assert form["action"].endswith("/accept#decision")
    token = form.select_one("input[name=csrf_token]")["value"]
    r = anon.post(f"{link}/accept", data={"csrf_token": token, "name": " ", "title": ""})
    assert r.status_code == 422
    soup = BeautifulSoup(r.text, "html.parser")
    said = {k: soup.select_one(f"#err-{k}").get_text() for k in ("name", "title", "agree")}
    assert said == {
        "name": "此欄位必填。",
        "title": "此欄位必填。",
        "agree": "請勾選方框以接受報價。",
    }
    # A name given keeps its value and loses its error; the others stay marked.
    r = anon.post(f"{link}/accept", data={"csrf_token": token, "name": "王小明", "title": ""})
    soup = BeautifulSoup(r.text, "html.parser")
    assert soup.select_one("#f-name")["value"] == "王小明"
    assert not soup.select_one("#err-name").get_text().strip()
    assert soup.select_one("#err-title").get_text() and soup.select_one("#err-agree").get_text()
    assert _status(client, a, p["id"]) == "sent"


def test_a_second_answer_is_said_as_a_sentence_in_the_page_language(client: TestClient) -> None:
    """QA: a second tab's answer read "the quote was already accepted" in a red box, lower
    case and without a full stop: the API's clause, shown to a customer as it is."""
    _a, _p, link = _sent(client)
    first = TestClient(client.app)
    assert first.post(f"{link}/accept", json={"name": "王小明", "title": "經理"}).status_code == 200
    anon = TestClient(client.app)
    page = BeautifulSoup(anon.get(f"{link}?lang=en").text, "html.parser")
    token = page.select_one("meta[name=csrf-token]")["content"]  # a stale tab's answer
    r = anon.post(f"{link}/decline", data={"csrf_token": token, "reason": "too late"})
    assert r.status_code == 409, r.text[:300]
    said = " ".join(
        e.get_text(" ", strip=True)
        for e in BeautifulSoup(r.text, "html.parser").select("[role=alert]")
    )
    assert "The quote was already accepted." in said, said


def test_the_acceptance_form_lets_the_server_judge_the_length(client: TestClient) -> None:
    # QA (silent truncation): a `maxlength` on the signature cuts a pasted name without a
    # word; the server refuses a long one beside the field instead (below).
    _a, _p, link = _sent(client)
    page = BeautifulSoup(TestClient(client.app).get(link).text, "html.parser")
    fields = page.select("form.accept-form input[name=name], form.accept-form input[name=title]")
    assert len(fields) == 2
    assert page.select("input[maxlength], textarea[maxlength]") == []


@pytest.mark.parametrize(
    ("field", "lang", "message"),
    [
        ("name", "zh-TW", "最多 200 個字元。"),
        ("title", "zh-TW", "最多 200 個字元。"),
        ("name", "en", "At most 200 characters."),
    ],
)
def test_a_signature_too_long_is_refused_not_cut(
    client: TestClient, field: str, lang: str, message: str
) -> None:
    # QA: a 3,000-character name (maxlength bypassed) must not be stored as 200 characters
    # with the quote accepted: 422 beside the field, the quote still open, the text given back.
    a, p, link = _sent(client)
    anon = TestClient(client.app)
    page = BeautifulSoup(anon.get(f"{link}?lang={lang}").text, "html.parser")
    token = page.select_one("form.accept-form input[name=csrf_token]")["value"]
    data = {"csrf_token": token, "name": "王小明", "title": "經理", "agree": "on"}
    data[field] = "王" * 3000
    r = anon.post(f"{link}/accept", data=data)
    assert r.status_code == 422
    shown = BeautifulSoup(r.text, "html.parser")
    assert shown.select_one(f"#err-{field}").get_text(strip=True) == message
    assert shown.select_one(f"form.accept-form #f-{field}")["value"] == data[field]
    assert _status(client, a, p["id"]) == "sent"
    r = anon.post(f"{link}/accept", json={"name": "王小明", "title": "經理", field: "王" * 3000})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", field]
    assert "200" in r.json()["detail"][0]["msg"]
    assert _status(client, a, p["id"]) == "sent"
    got = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert got["decision_name"] == "" and got["decision_title"] == ""
