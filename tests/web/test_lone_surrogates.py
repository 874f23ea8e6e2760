"""Text no document can carry is refused at the door (app/web/json_body.py, QA fuzz).

JSON may spell a lone UTF-16 surrogate, `"\\ud800"`. Before: a quote line described so was
saved with a 500, and its plan then answered 500 on every read (JSON, page, PDF); `gpu` or
`preset` spelled so was a 500 because the 422 echoing it could not be encoded. Now each is
a 422 at the field's location and nothing is saved; a valid pair (an emoji) is text.
"""

from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account
from tests.quotes.test_quote_life import WORKLOAD


def _raw(client: TestClient, path: str, text: str, headers: dict[str, str]) -> object:
    """POST `text` as the JSON body, bytes as written (httpx would refuse to encode a lone
    surrogate, so the escape is spelled out in the text)."""
    return client.post(
        path, content=text.encode(), headers={**headers, "content-type": "application/json"}
    )


def test_a_quote_line_with_a_lone_surrogate_is_a_422_and_nothing_is_saved(
    client: TestClient,
) -> None:
    a = make_account(client, "sales")
    before = client.get("/api/v1/plans", headers=a.headers).json()["total"]
    body = json.dumps(
        {
            "name": "Surrogate plan",
            "workload": WORKLOAD,
            "quote": {"lines": [{"description": "@@", "quantity": 2, "unit_price": 1000}]},
        }
    ).replace("@@", "NAS \\ud800 20 TB")
    r = _raw(client, "/api/v1/plans", body, a.headers)
    assert r.status_code == 422, r.text
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "quote", "lines", 0, "description"]
    assert detail["msg"].startswith("Text must be valid Unicode: it holds a lone UTF-16 surrogate")
    assert "U+D800" in detail["msg"]
    assert detail["input"] == "NAS \ufffd 20 TB"  # echoed as the replacement character
    assert client.get("/api/v1/plans", headers=a.headers).json()["total"] == before


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ('{"model": {"preset": "llama-3.1-8b"}, "task": "lora", "gpu": "\\ud800"}', ["body", "gpu"]),
        ('{"model": {"preset": "\\uDFFF"}, "task": "lora"}', ["body", "model", "preset"]),
        ('{"model": {"preset": "llama-3.1-8b", "\\ud801x": 1}, "task": "lora"}',
         ["body", "model", "\ufffdx"]),
    ],
)  # fmt: skip
def test_an_echoed_field_with_a_lone_surrogate_is_a_422_naming_it(
    client: TestClient, body: str, loc: list[object]
) -> None:
    r = _raw(client, "/api/v1/estimate", body, {})
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"] == loc


def test_a_valid_pair_is_text(client: TestClient) -> None:
    # "\ud83d\ude00" is one character, 😀: a plan may be named with it.
    a = make_account(client, "sales")
    body = json.dumps({"name": "@@ plan", "workload": WORKLOAD}).replace("@@", "\\ud83d\\ude00")
    r = _raw(client, "/api/v1/plans", body, a.headers)
    assert r.status_code == 201, r.text
    plan = client.get(f"/api/v1/plans/{r.json()['id']}", headers=a.headers).json()
    assert plan["name"] == "😀 plan"


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", "config.json holds a lone UTF-16 surrogate (half of a pair): it is not valid "
             "Unicode text."),
     ("zh-TW", "config.json 含有落單的 UTF-16 代理字元（一對中的一半）：不是有效的 Unicode 文字。")],
)  # fmt: skip
def test_a_pasted_config_json_with_a_lone_surrogate_is_refused_beside_the_field(
    client: TestClient, lang: str, words: str
) -> None:
    # A form field cannot carry a surrogate, but the config.json pasted into one is JSON
    # text that may spell one: the page answered 500 while rendering it back.
    r = client.get(
        "/plan",
        params={"model_source": "config", "task": "lora",
                "hf_config": '{"model_type": "\\ud800", "hidden_size": 4096}'},
        headers={"Accept-Language": lang},
    )  # fmt: skip
    assert r.status_code == 200
    err = BeautifulSoup(r.text, "html.parser").select_one("#err-hf_config")
    assert err is not None and err.get_text(strip=True) == words


def test_a_lone_surrogate_as_raw_bytes_is_refused_too(client: TestClient) -> None:
    # Review: Starlette decodes a body with 'surrogatepass', so the bytes ED A0 80 (U+D800
    # written as if it were UTF-8) reached the route as "\ud800" past an escape-only check,
    # and the plan was saved with a 500 as before. Also with no content type (FastAPI reads
    # such a body as JSON) and in a UTF-16 body (json.loads reads that too).
    a = make_account(client, "sales")
    before = client.get("/api/v1/plans", headers=a.headers).json()["total"]
    body = json.dumps(
        {
            "name": "Raw surrogate plan",
            "workload": WORKLOAD,
            "quote": {"lines": [{"description": "@@", "quantity": 2, "unit_price": 1000}]},
        }
    ).encode()
    raw = body.replace(b"@@", b"NAS \xed\xa0\x80")
    for headers in ({"content-type": "application/json"}, {}):
        r = client.post("/api/v1/plans", content=raw, headers={**a.headers, **headers})
        assert r.status_code == 422, r.text
        assert r.json()["detail"][0]["loc"] == ["body", "quote", "lines", 0, "description"]
    utf16 = body.decode().replace("@@", "\\ud800").encode("utf-16")
    r = client.post(
        "/api/v1/plans", content=utf16, headers={**a.headers, "content-type": "application/json"}
    )
    assert r.status_code == 422, r.text
    assert client.get("/api/v1/plans", headers=a.headers).json()["total"] == before
