"""Double-submit CSRF: the cookie, the token in pages, the checks, the JSON API exemption."""

from __future__ import annotations

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.web.csrf import is_valid, new_token

FORM = {
    "task": "lora",
    "size": "7",
    "data": "1",
    "deadline": "7",
    "name": "A",
    "company": "B",
    "email": "a@b.tw",
}


def test_token_is_signed() -> None:
    token = new_token("k1")
    assert is_valid(token, "k1")
    assert not is_valid(token, "k2")
    assert not is_valid(token + "x", "k1")
    assert not is_valid("", "k1")


def test_cookie_and_page_token_match(web: TestClient) -> None:
    r = web.get("/assess?task=lora&size=7&data=1&deadline=7")
    cookie = r.cookies.get("csrf") or web.cookies.get("csrf")
    assert cookie
    assert "HttpOnly" in r.headers["set-cookie"] and "SameSite=Lax" in r.headers["set-cookie"]
    soup = BeautifulSoup(r.text, "html.parser")
    assert soup.select_one("meta[name=csrf-token]")["content"] == cookie
    assert soup.select_one("form[method=post] input[name=csrf_token]")["value"] == cookie
    # A second page keeps the same token (no new cookie).
    assert "set-cookie" not in web.get("/").headers


def test_header_token_is_accepted(web: TestClient) -> None:
    web.get("/assess")
    r = web.post(
        "/assess/quote",
        data=FORM,
        headers={"X-CSRF-Token": web.cookies["csrf"]},
        follow_redirects=False,
    )
    assert r.status_code == 303


def test_missing_or_mismatched_token_is_403(web: TestClient) -> None:
    web.get("/assess")
    assert web.post("/assess/quote", data=FORM).status_code == 403
    other = new_token("test-secret")  # validly signed, but not this visitor's cookie
    assert web.post("/assess/quote", data={**FORM, "csrf_token": other}).status_code == 403
    web.cookies.clear()
    assert web.post("/assess/quote", data={**FORM, "csrf_token": other}).status_code == 403


def test_json_api_is_exempt(web: TestClient) -> None:
    r = web.post("/api/v1/estimate", json={"model": {"preset": "llama-3.1-8b"}, "task": "lora"})
    assert r.status_code == 200
    assert "csrf" not in r.headers.get("set-cookie", "")
