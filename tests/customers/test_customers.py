"""Customers: 統一編號 checksum, the JSON API, the pages' inline errors in both languages."""

from __future__ import annotations

import re
import uuid

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.customers.models import is_valid_tax_id, tax_id_checksum
from tests.accounts.helpers import make_account, sign_in


@pytest.mark.parametrize(
    ("tax_id", "valid", "why"),
    [
        # PRODUCT.md §6 examples. 22099131: products 2,4,0,18,9,2,12,1 → digit sums
        # 2+4+0+9+9+2+3+1 = 30, divisible by 5.
        ("22099131", True, "PRODUCT.md §6 valid example (sum 30)"),
        ("22099132", False, "PRODUCT.md §6 invalid example (sum 31)"),
        # 7th digit 7: 10458574 → 1,0,4,10,8,10,28,4 → 1+0+4+1+8+1+10+4 = 29; 29+1 = 30.
        ("10458574", True, "7th digit 7: valid only through the sum + 1 rule"),
        ("10458576", False, "7th digit 7: 31 and 32 both fail"),
        ("12345675", True, "7th digit 7: sum 39, 39 + 1 = 40 (test_checksum_by_hand)"),
        ("2209913", False, "7 digits"),
        ("2209913a", False, "not all digits"),
        ("２２０９９１３１", False, "full-width digits are not accepted"),
        # 0 × anything = 0, divisible by 5: the checksum alone would take a placeholder
        ("00000000", False, "all zeros: checksum 0, never issued"),
    ],
)
def test_tax_id_checksum(tax_id: str, valid: bool, why: str) -> None:
    assert is_valid_tax_id(tax_id) is valid, why


def test_checksum_by_hand() -> None:
    # 12345675 × (1,2,1,2,1,2,4,1) = 1,4,3,8,5,12,28,5 → 1+4+3+8+5+3+10+5 = 39; 7th digit
    # is 7, 39+1 = 40 → valid (the case above).
    assert tax_id_checksum("12345675") == 39
    assert tax_id_checksum("22099131") == 30


def test_customer_api_create_read_update_and_bad_tax_id(client: TestClient) -> None:
    a = make_account(client, "sales")
    body = {
        "name": "台灣智慧客服股份有限公司",
        "tax_id": "2209-9131",
        "contact": "王小明",
        "email": "Buyer@Example.com.tw",
        "address": "台北市信義區",
        "language": "zh-TW",
        "currency": "TWD",
        "export": False,
    }
    r = client.post("/api/v1/customers", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    c = r.json()
    assert c["tax_id"] == "22099131" and c["email"] == "buyer@example.com.tw"
    assert (
        client.get(f"/api/v1/customers/{c['id']}", headers=a.headers).json()["name"] == body["name"]
    )
    zeros = client.post("/api/v1/customers", json={**body, "tax_id": "00000000"}, headers=a.headers)
    assert zeros.status_code == 422
    assert "00000000 is not a company's 統一編號" in zeros.text
    bad = client.post("/api/v1/customers", json={**body, "tax_id": "22099132"}, headers=a.headers)
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["loc"] == ["body", "tax_id"]
    for field, value in (("language", "fr"), ("currency", "EUR"), ("email", "nope")):
        r = client.post("/api/v1/customers", json={**body, field: value}, headers=a.headers)
        assert r.status_code == 422 and r.json()["detail"][0]["loc"][-1] == field, field
    r = client.put(
        f"/api/v1/customers/{c['id']}", json={"export": True, "currency": "USD"}, headers=a.headers
    )
    assert r.status_code == 200 and r.json()["export"] is True and r.json()["currency"] == "USD"
    assert r.json()["name"] == body["name"]  # unchanged
    bad = client.put(f"/api/v1/customers/{c['id']}", json={"tax_id": "1"}, headers=a.headers)
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["body", "tax_id"]
    assert client.get("/api/v1/customers/999999", headers=a.headers).status_code == 404
    found = client.get("/api/v1/customers", params={"search": "22099131"}, headers=a.headers)
    assert c["id"] in [x["id"] for x in found.json()]
    assert client.get("/api/v1/customers").status_code == 401


@pytest.mark.parametrize(
    ("lang", "message"),
    [("en", "Enter a valid 8-digit 統一編號"), ("zh-TW", "請輸入正確的 8 位數統一編號")],
)
def test_customer_page_inline_error_names_the_field(
    client: TestClient, lang: str, message: str
) -> None:
    a = make_account(client, "sales")
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    headers = {"Accept-Language": lang}
    form = BeautifulSoup(pages.get("/customers/new", headers=headers).text, "html.parser")
    token = form.select_one("input[name=csrf_token]")["value"]
    data = {"csrf_token": token, "name": "ACME", "tax_id": "22099132", "currency": "TWD"}
    r = pages.post("/customers/new", data=data, headers=headers)
    assert r.status_code == 422
    page = BeautifulSoup(r.text, "html.parser")
    assert message in page.select_one("#err-tax_id").get_text()
    assert page.select_one("#f-tax_id")["aria-invalid"] == "true"
    assert page.select_one("#f-name")["value"] == "ACME"  # typed values kept
    r = pages.post("/customers/new", data={**data, "tax_id": "22099131"}, headers=headers)
    assert r.status_code == 303
    detail = BeautifulSoup(pages.get(r.headers["location"], headers=headers).text, "html.parser")
    assert detail.select_one("#f-tax_id")["value"] == "22099131"
    # The save is said once, in the page's language (QA: nothing said it went through).
    said = detail.select_one("p.notice.ok[role=status]").get_text(strip=True)
    assert said == ("已建立客戶。" if lang == "zh-TW" else "Customer created.")
    form_fields = {
        i["name"]: i.get("value", "")
        for i in detail.select("main form input[name]")
        if i.get("type") not in ("checkbox", "submit")
    }
    edit = {**form_fields, "currency": "TWD", "contact": "王小明"}
    r = pages.post(r.headers["location"].split("?")[0], data=edit, headers=headers)
    assert r.status_code == 303
    again = BeautifulSoup(pages.get(r.headers["location"], headers=headers).text, "html.parser")
    said = again.select_one("p.notice.ok[role=status]").get_text(strip=True)
    assert said == ("已儲存變更。" if lang == "zh-TW" else "Changes saved.")
    plain = pages.get(r.headers["location"].split("?")[0], headers=headers).text
    assert not BeautifulSoup(plain, "html.parser").select("p.notice.ok")
    listing = BeautifulSoup(pages.get("/customers?q=22099131", headers=headers).text, "html.parser")
    assert listing.select("table.customers-table tbody tr a[href^='/customers/']")


@pytest.mark.parametrize(
    ("lang", "given", "expected"),
    [
        ("en", "2209913", "A 統一編號 is 8 digits (0–9): 2209913 has 7 digits."),
        ("zh-TW", "2209913", "統一編號為 8 位數字（0–9）：2209913 只有 7 位。"),
        # QA A10: the leading hyphen was dropped and "2209913 is 7 characters long" echoed
        ("en", "-2209913", "A 統一編號 is 8 digits (0–9): -2209913 has 7 digits."),
        ("en", "220991311", "A 統一編號 is 8 digits (0–9): 220991311 has 9 digits."),
        ("en", "2209913A", "A 統一編號 is 8 digits (0–9) and nothing else: 2209913A has other"),
        ("zh-TW", "2209913A", "統一編號只能是 8 位數字（0–9）：2209913A 含有其他字元。"),
    ],
)
def test_a_short_tax_id_is_told_its_length_not_its_check_digit(
    client: TestClient, lang: str, given: str, expected: str
) -> None:
    """QA: a 7-digit 統一編號 read "the check digit does not match"; the length is the fault."""
    from tests.accounts.helpers import make_account

    a = make_account(client, "sales")
    r = client.post("/api/v1/customers", json={"name": f"Short {lang}", "tax_id": given},
                    headers={**a.headers, "Accept-Language": lang})  # fmt: skip
    assert r.status_code == 422
    assert expected in r.json()["detail"][0]["msg"]


def test_a_tax_id_in_full_width_digits_is_the_same_number(client: TestClient) -> None:
    """QA: full-width digits were accepted in a quote's quantity but "２２０９９１３１" was refused
    as a wrong check digit; an IME types them so. 22099131 is valid (the checksum test)."""
    from tests.accounts.helpers import make_account

    a = make_account(client, "sales")
    r = client.post("/api/v1/customers", json={"name": "全形 Co", "tax_id": "２２０９９１３１"},
                    headers=a.headers)  # fmt: skip
    assert r.status_code == 201, r.text
    assert r.json()["tax_id"] == "22099131"


@pytest.mark.parametrize(
    ("lang", "tax_id", "lone", "words", "advice"),
    [
        # numbers of our own, valid by the check digit (the test database is the module's)
        (
            "zh-TW",
            "53212502",
            "53212513",
            "另有 1 位客戶使用相同的統一編號 53212502",
            "請只保留一筆客戶資料",
        ),
        (
            "en",
            "53212507",
            "53212518",
            "Another customer has the same 統一編號 53212507",
            "keep one record",
        ),
    ],
)
def test_a_customer_page_names_the_others_with_its_tax_id(
    client: TestClient, lang: str, tax_id: str, lone: str, words: str, advice: str
) -> None:
    """QA stored four customers under 22099131 (one by API, one in full-width digits, one
    as "2209 9131") without a word; one number is one business (PRODUCT.md §6)."""
    a = make_account(client, "sales")
    first = client.post(
        "/api/v1/customers", json={"name": "甲公司", "tax_id": tax_id}, headers=a.headers
    ).json()
    spaced = f"{tax_id[:4]} {tax_id[4:]}"
    second = client.post(
        "/api/v1/customers", json={"name": "甲公司 (重複)", "tax_id": spaced}, headers=a.headers
    ).json()
    other = client.post(
        "/api/v1/customers", json={"name": "乙公司", "tax_id": lone}, headers=a.headers
    ).json()
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    page = BeautifulSoup(
        pages.get(f"/customers/{second['id']}", headers={"Accept-Language": lang}).text,
        "html.parser",
    )
    note = page.select_one(".same-tax-id")
    assert note is not None
    text = " ".join(note.get_text().split())
    assert words in text and advice in text
    if lang == "zh-TW":  # no space after a full-width ：or 。, none before the first link
        assert not re.search(r"[：。]\s|^\s", note.get_text())
    links = {x["href"] for x in note.select("a")}
    assert links == {f"/customers/{first['id']}"}
    alone = BeautifulSoup(pages.get(f"/customers/{other['id']}").text, "html.parser")
    assert alone.select_one(".same-tax-id") is None


def test_the_list_marks_an_export_customer_as_export_sales_not_data_export(
    client: TestClient,
) -> None:
    """QA: the chip read 匯出 (exporting data, the catalog's "Export" button) where the form
    says 外銷客戶 (a zero-rated export sale)."""
    a = make_account(client, "sales")
    body = {"name": "Overseas Buyer Inc.", "export": True, "currency": "USD"}
    assert client.post("/api/v1/customers", json=body, headers=a.headers).status_code == 201
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    page = BeautifulSoup(
        pages.get("/customers?q=Overseas", headers={"Accept-Language": "zh-TW"}).text,
        "html.parser",
    )
    row = next(tr for tr in page.select("tr") if "Overseas Buyer" in tr.get_text())
    assert row.select_one(".chip").get_text() == "外銷客戶"


@pytest.mark.parametrize("email", ["a@b.tw\u0000", "a@b.tw\u0007x", "a@b\u0000.tw"])
def test_an_email_with_a_control_character_is_refused(client: TestClient, email: str) -> None:
    # QA fuzz: "a@b.tw\u0000" was saved (the pattern's character class took the NUL).
    a = make_account(client, "sales")
    before = len(client.get("/api/v1/customers", headers=a.headers).json())
    r = client.post("/api/v1/customers", json={"name": "Acme", "email": email}, headers=a.headers)
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"] == ["body", "email"]
    assert len(client.get("/api/v1/customers", headers=a.headers).json()) == before


@pytest.mark.parametrize(
    "email",
    [
        "a@b..com",
        ".a@b.com",
        "a.@b.com",
        "a..b@c.com",
        "a@-b.com",
        "a@b-.com",
        "a@b_c.com",
        "a@b.c",
        "a@1.23",
        "x@localhost",
    ],
)
def test_an_email_with_an_empty_or_malformed_part_is_refused(
    client: TestClient, email: str
) -> None:
    """QA A10: "a@b..com" was saved, and the quote e-mailed to it would bounce. An address
    has no empty dot-separated part, no domain label starting or ending in a hyphen (RFC
    1123 §2.1 host names) and a top-level domain of two or more letters."""
    a = make_account(client, "sales")
    r = client.post("/api/v1/customers", json={"name": "Acme", "email": email}, headers=a.headers)
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"] == ["body", "email"]


@pytest.mark.parametrize(
    "email", ["first.last+quotes@sub.example.com.tw", "it-ops@my-company.tw", "王@例子.台灣"]
)
def test_ordinary_and_international_addresses_are_kept(client: TestClient, email: str) -> None:
    a = make_account(client, "sales")
    r = client.post("/api/v1/customers", json={"name": "Acme", "email": email}, headers=a.headers)
    assert r.status_code == 201, r.text
    assert r.json()["email"] == email.lower()


@pytest.mark.parametrize("invisible", ["\u200b", "\ufeff", " \u2060 ", "\u200b\u3000"])
def test_a_name_of_invisible_characters_is_no_name(client: TestClient, invisible: str) -> None:
    """QA: a customer named "\\u200b" (a zero-width space) was saved and looked empty
    everywhere it was shown, while "   " was refused as empty."""
    from tests.accounts.helpers import make_account

    a = make_account(client, "sales")
    r = client.post("/api/v1/customers", json={"name": invisible}, headers=a.headers)
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "name"]


def test_invisible_characters_are_trimmed_from_the_ends_only() -> None:
    from app.text import trim

    assert trim("\u200bACME\ufeff ") == "ACME"
    # inside a name a joiner stays (some scripts need one)
    assert trim("क\u200dष") == "क\u200dष"
    assert trim("\u200b\u2060\u3000") == ""


@pytest.mark.parametrize("box", ["-1", "NaN", "😀"])
def test_an_export_box_that_is_neither_ticked_nor_clear_is_refused(
    client: TestClient, box: str
) -> None:
    """QA: a crafted export=-1 saved the customer as domestic without a word."""
    a = make_account(client, "sales")
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    form = BeautifulSoup(pages.get("/customers/new").text, "html.parser")
    token = form.select_one("input[name=csrf_token]")["value"]
    data = {"csrf_token": token, "name": f"Box {box}", "currency": "TWD", "export": box}
    r = pages.post("/customers/new", data=data, headers={"Accept-Language": "en"})
    assert r.status_code == 422
    assert "Choose yes or no." in BeautifulSoup(r.text, "html.parser").get_text()
    listed = client.get("/api/v1/customers", headers=a.headers).json()
    assert f"Box {box}" not in {c["name"] for c in listed}  # nothing saved


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", "Another customer has the same name:"), ("zh-TW", "另有 1 位客戶同名：")],
)
def test_a_customers_page_names_the_others_of_the_same_name(
    client: TestClient, lang: str, words: str
) -> None:
    """QA saved two "Acme Corp" without a word; they could not be told apart when quoting.
    Allowed (two companies may share a name), and the page names the other, case and outer
    spaces aside."""
    a = make_account(client, "sales")
    tag = uuid.uuid4().hex[:6]
    first = client.post(
        "/api/v1/customers", json={"name": f"Acme {tag}", "tax_id": "22099131"}, headers=a.headers
    ).json()
    second = client.post(
        "/api/v1/customers", json={"name": f"  ACME {tag} "}, headers=a.headers
    ).json()
    other = client.post("/api/v1/customers", json={"name": f"Beta {tag}"}, headers=a.headers).json()
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    page = BeautifulSoup(
        pages.get(f"/customers/{second['id']}", headers={"Accept-Language": lang}).text,
        "html.parser",
    )
    note = page.select_one(".same-name")
    assert note is not None and words in " ".join(note.get_text().split())
    assert {x["href"] for x in note.select("a")} == {f"/customers/{first['id']}"}
    assert "22099131" in note.get_text()
    # Chinese puts no space after its full-width ：and 。; English one after : and .
    said = note.get_text()
    name = f"Acme {tag} · 22099131"
    if lang == "zh-TW":
        assert f"同名：{name}。若" in said
    else:
        assert f"the same name: {name}. If" in said
    alone = BeautifulSoup(pages.get(f"/customers/{other['id']}").text, "html.parser")
    assert alone.select_one(".same-name") is None


def test_a_customer_that_does_not_exist_is_a_404_naming_the_path(client: TestClient) -> None:
    """QA: a bare string here, a list naming the path parameter for a plan or a price list."""
    a = make_account(client, "sales")
    for method in ("get", "put"):
        kw = {"json": {"name": "x"}} if method == "put" else {}
        r = getattr(client, method)(
            "/api/v1/customers/999999", headers={**a.headers, "Accept-Language": "zh-TW"}, **kw
        )
        assert r.status_code == 404
        assert r.json()["detail"] == [
            {"loc": ["path", "customer_id"], "msg": "找不到客戶 999999", "type": "value_error"}
        ]
