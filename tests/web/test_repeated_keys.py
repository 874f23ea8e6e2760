"""A JSON object that names one key twice is refused at the door (app/web/json_body.py).

`{"quantity": 1, "quantity": 100}` is valid JSON that `json.loads` reads as its last value
without a word; which one the client meant cannot be known. Each such body is a 422 at the
key's location naming both values, in the reader's language, and nothing is saved.
"""

from __future__ import annotations

import json

import httpx
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account
from tests.quotes.test_quote_life import WORKLOAD

JSON = {"content-type": "application/json"}


def _post(
    client: TestClient, path: str, text: str, headers: dict[str, str] | None = None
) -> httpx.Response:
    return client.post(path, content=text.encode(), headers={**(headers or {}), **JSON})


def test_a_repeated_top_level_key_is_a_422_naming_it_and_both_values(client: TestClient) -> None:
    r = _post(
        client,
        "/api/v1/estimate",
        '{"model": {"preset": "llama-3.1-8b"}, "task": "lora", "gpu_count": 8, "gpu_count": 16}',
    )
    assert r.status_code == 422, r.text
    (err,) = r.json()["detail"]
    assert (err["type"], err["loc"], err["input"]) == ("duplicate_key", ["body", "gpu_count"], "16")
    assert err["msg"] == (
        "“gpu_count” is given 2 times in this object (8, 16): give each key once, since JSON "
        "would keep only the last"
    )


def test_a_repeated_key_deep_in_a_quote_line_saves_nothing(client: TestClient) -> None:
    a = make_account(client, "sales")
    before = client.get("/api/v1/plans", headers=a.headers).json()["total"]
    line = '{"description": "NAS", "quantity": 1, "unit_price": 1000, "quantity": 100}'
    first = '{"description": "A", "quantity": 1, "unit_price": 5}'
    body = (
        f'{{"name": "Two quantities", "workload": {json.dumps(WORKLOAD)}, '
        f'"quote": {{"lines": [{first}, {line}]}}}}'
    )
    r = _post(client, "/api/v1/plans", body, a.headers)
    assert r.status_code == 422, r.text
    (err,) = r.json()["detail"]
    assert err["loc"] == ["body", "quote", "lines", 1, "quantity"]
    assert "(1, 100)" in err["msg"]
    assert client.get("/api/v1/plans", headers=a.headers).json()["total"] == before


def test_the_refusal_is_in_the_readers_language(client: TestClient) -> None:
    r = client.post(
        "/api/v1/estimate",
        content=b'{"task": "lora", "task": "qlora", "task": "inference"}',
        headers={**JSON, "accept-language": "zh-TW"},
    )
    assert r.status_code == 422, r.text
    (err,) = r.json()["detail"]
    assert err["loc"] == ["body", "task"]
    assert err["msg"] == (
        '「task」在同一物件中出現 3 次（"lora"、"qlora"、"inference"）：'
        "每個鍵請只給一次，JSON 只會保留最後一個值"
    )


def test_the_same_key_in_two_objects_is_not_repeated(client: TestClient) -> None:
    # Each quote line names `description` and `quantity` once: keys of two objects, meant.
    a = make_account(client, "sales")
    body = json.dumps(
        {
            "name": "Two lines",
            "workload": WORKLOAD,
            "quote": {
                "lines": [
                    {"description": "NAS", "quantity": 1, "unit_price": 1000},
                    {"description": "Switch", "quantity": 2, "unit_price": 500},
                ]
            },
        }
    )
    r = _post(client, "/api/v1/plans", body, a.headers)
    assert r.status_code == 201, r.text
