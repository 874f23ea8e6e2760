"""A body the form parser cannot read, or one past its limits, is answered in the request's
language: the API's 422 (413 past a limit) in its documented shape, naming the body; a page's
error page; an HTMX form the sentence on top of its own section (app/web/errors.py).

QA: multipart/form-data without a boundary, a broken multipart body, and a form of 1,200
fields each got Starlette's English 400 `{"detail": "Missing boundary in multipart."}`
(…"Invalid multipart data.", …"Too many fields. Maximum number of fields is 1000.") from the
API and the pages alike, even with Accept-Language: zh-TW."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select
from starlette.formparsers import MultiPartException

from app.customers.models import Customer
from app.web.errors import FormTooLarge, UnreadableForm, form_refusal
from tests.accounts.helpers import make_account, sign_in
from tests.catalog.helpers import csrf
from tests.plan_quotes import create_plan

NO_BOUNDARY = "multipart/form-data"
BAD_PARTS = "multipart/form-data; boundary=xyz"
MANY = 1200


@pytest.mark.parametrize(
    ("ctype", "lang", "msg"),
    [
        (NO_BOUNDARY, "en", "The body is sent as multipart/form-data without a boundary: the "
         "Content-Type header must name one (multipart/form-data; boundary=…), as a browser's "
         "file upload does."),
        (NO_BOUNDARY, "zh-TW", "內容以 multipart/form-data 送出，卻沒有指定分隔字串：Content-Type "
         "標頭必須寫明（multipart/form-data; boundary=…），就像瀏覽器上傳檔案時那樣。"),
        (BAD_PARTS, "en", "The body cannot be read as multipart/form-data: its parts do not "
         "follow the boundary its Content-Type names."),
        (BAD_PARTS, "zh-TW", "無法以 multipart/form-data 讀取內容：各段沒有依照 Content-Type "
         "指定的分隔字串分開。"),
    ],
)  # fmt: skip
def test_the_api_answers_an_unreadable_multipart_body_with_a_422_naming_the_body(
    client: TestClient, ctype: str, lang: str, msg: str
) -> None:
    admin = make_account(client, "admin")
    r = TestClient(client.app).post(
        "/api/v1/catalog/import",
        content=b"garbage",
        headers={**admin.headers, "Content-Type": ctype, "Accept-Language": lang},
    )
    assert r.status_code == 422
    body = r.json()
    assert body["detail"] == [{"loc": ["body"], "msg": msg, "type": "multipart"}]
    assert body["request_id"]


def _multipart(fields: int) -> tuple[bytes, str]:
    parts = b"".join(
        b'--b\r\nContent-Disposition: form-data; name="f%d"\r\n\r\nx\r\n' % i for i in range(fields)
    )
    return parts + b"--b--\r\n", "multipart/form-data; boundary=b"


@pytest.mark.parametrize(
    ("lang", "msg"),
    [
        ("en", "The form sends more than 1,000 fields; at most 1,000 are taken."),
        ("zh-TW", "表單送出的欄位超過 1,000 個；最多只接受 1,000 個。"),
    ],
)
def test_the_api_answers_too_many_fields_with_a_413_stating_the_limit(
    client: TestClient, lang: str, msg: str
) -> None:
    admin = make_account(client, "admin")
    body, ctype = _multipart(MANY)
    r = TestClient(client.app).post(
        "/api/v1/catalog/import",
        content=body,
        headers={**admin.headers, "Content-Type": ctype, "Accept-Language": lang},
    )
    assert r.status_code == 413
    assert r.json()["detail"] == [{"loc": ["body"], "msg": msg, "type": "too_large"}]


def _pages(client: TestClient) -> tuple[TestClient, str]:
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, make_account(client, "sales").user)
    return pages, csrf(pages, "/customers/new")


def _customers(client: TestClient) -> int:
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        return int(s.exec(select(func.count()).select_from(Customer)).one())


def _error_page(html: str) -> tuple[str, str, str]:
    page = BeautifulSoup(html, "html.parser")
    return (
        page.title.get_text(),
        page.select_one("main .error-page h1").get_text(),
        page.select_one("main .error-page p").get_text(),
    )


@pytest.mark.parametrize(
    ("ctype", "lang", "heading", "said"),
    [
        (NO_BOUNDARY, "zh-TW", "無法讀取這份表單", "內容以 multipart/form-data 送出，卻沒有指定"
         "分隔字串：Content-Type 標頭必須寫明（multipart/form-data; boundary=…），就像瀏覽器上傳"
         "檔案時那樣。沒有儲存任何內容：請回到表單再送出一次。"),
        (BAD_PARTS, "en", "The form could not be read", "The body cannot be read as "
         "multipart/form-data: its parts do not follow the boundary its Content-Type names. "
         "Nothing was saved: go back to the form and send it again."),
    ],
)  # fmt: skip
def test_a_page_answers_an_unreadable_form_with_its_error_page(
    client: TestClient, ctype: str, lang: str, heading: str, said: str
) -> None:
    pages, _token = _pages(client)
    before = _customers(client)
    r = pages.post("/customers/new", content=b"garbage",
                   headers={"Content-Type": ctype, "Accept-Language": lang})  # fmt: skip
    assert r.status_code == 422 and r.headers["content-type"].startswith("text/html")
    title, h1, text = _error_page(r.text)
    assert title.startswith(heading) and h1 == heading
    assert text == said
    assert _customers(client) == before


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("zh-TW", "表單送出的欄位超過 1,000 個；最多只接受 1,000 個。沒有儲存任何內容：請回到表單"
         "再送出一次。"),
        ("en", "The form sends more than 1,000 fields; at most 1,000 are taken. Nothing was "
         "saved: go back to the form and send it again."),
    ],
)  # fmt: skip
def test_a_page_answers_a_form_of_too_many_fields_with_a_413_page(
    client: TestClient, lang: str, said: str
) -> None:
    pages, token = _pages(client)
    before = _customers(client)
    form = {"csrf_token": token, "name": "Too many", **{f"f{i}": "x" for i in range(MANY)}}
    r = pages.post("/customers/new", data=form, headers={"Accept-Language": lang})
    assert r.status_code == 413 and r.headers["content-type"].startswith("text/html")
    assert _error_page(r.text)[2] == said
    assert _customers(client) == before


def test_an_htmx_form_of_too_many_fields_gets_the_sentence_on_top_of_its_section(
    client: TestClient,
) -> None:
    """The quote builder swaps its section: htmx swaps a 422 (not a 413, base.html's
    responseHandling), and the sentence goes on top of the form, which keeps what was typed."""
    pages, token = _pages(client)
    plan = create_plan(client, make_account(client, "sales"))
    form = {"csrf_token": token, **{f"line-{i}-description": "x" for i in range(MANY)}}
    r = pages.post(f"/plans/{plan['id']}/quote", data=form,
                   headers={"HX-Request": "true", "Accept-Language": "zh-TW"})  # fmt: skip
    assert r.status_code == 422
    assert r.headers["HX-Reswap"] == "afterbegin"
    (said,) = BeautifulSoup(r.text, "html.parser").select("p.notice.error[role=alert]")
    assert said.get_text().startswith("表單送出的欄位超過 1,000 個")
    assert "<html" not in r.text


@pytest.mark.parametrize(
    ("starlette_says", "kind", "ours"),
    [
        ("Missing boundary in multipart.", UnreadableForm, "without a boundary"),
        ("Invalid multipart data.", UnreadableForm, "cannot be read as multipart/form-data"),
        ('The Content-Disposition header field "name" must be provided.', UnreadableForm,
         "has no name"),
        ("Too many fields. Maximum number of fields is 1000.", FormTooLarge,
         "more than 1,000 fields"),
        ("Too many files. Maximum number of files is 1000.", FormTooLarge,
         "more than 1,000 files"),
        ("Field exceeded maximum size of 1024KB.", FormTooLarge, "more than 1,024 KB"),
        ("Part exceeded maximum size of 1024KB.", FormTooLarge, "more than 1,024 KB"),
        ("Something Starlette may say one day.", UnreadableForm, "cannot be read"),
    ],
)  # fmt: skip
def test_every_refusal_of_starlettes_form_parser_is_said_in_our_words(
    starlette_says: str, kind: type, ours: str
) -> None:
    """Each message of starlette/formparsers.py, by the start the mapping reads."""
    err, _type = form_refusal(MultiPartException(starlette_says))
    assert type(err) is kind
    assert ours in err.message
