"""Inputs that used to answer a bare 500 (issue 13's fuzzing) now answer a JSON 4xx naming
the field; an unexpected error is a JSON 500 with a request id on a connection that stays
open."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from app.web.failures import ECHO_LIMIT, safe_errors
from tests.accounts.helpers import make_account

LLAMA = (
    '"hidden_size":4096,"num_hidden_layers":32,"vocab_size":32000,"intermediate_size":11008,'
    '"max_position_embeddings":4096,"model_type":"llama"'
)


def post_raw(client: TestClient, path: str, body: str) -> tuple[int, dict]:
    # In English: the assertions quote the engine's English words (a zh-TW client gets them
    # translated, tests/web/test_input_errors_translated.py).
    headers = {"content-type": "application/json", "Accept-Language": "en"}
    r = client.post(path, content=body, headers=headers)
    assert r.headers["content-type"].startswith("application/json"), r.text[:200]
    return r.status_code, r.json()


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400"])
@pytest.mark.parametrize(
    ("path", "template", "loc"),
    [
        (
            "/api/v1/estimate",
            '{"model":{"params_b":X},"task":"lora"}',
            ["body", "model", "params_b"],
        ),
        (
            "/api/v1/estimate",
            '{"model":{"preset":"llama-3.1-8b"},"task":"lora","mfu":X}',
            ["body", "mfu"],
        ),
        (
            "/api/v1/estimate",
            '{"model":{"preset":"llama-3.1-8b"},"task":"lora","tokens":X}',
            ["body", "tokens"],
        ),
        ("/api/v1/costs", '{"gpu_count":X}', ["body", "gpu_count"]),
        ("/api/v1/costs", '{"months":X}', ["body", "months"]),
    ],
)
def test_non_finite_numbers_are_a_422(
    client: TestClient, path: str, template: str, loc: list[str], literal: str
) -> None:
    status, body = post_raw(client, path, template.replace("X", literal))
    assert status == 422
    (err,) = body["detail"]
    assert err["loc"] == loc
    assert err["type"] == "finite_number"
    assert err["input"] in ("nan", "inf", "-inf")  # echoed as text: JSON has no NaN


@pytest.mark.parametrize(
    ("body", "loc", "words"),
    [
        ('{"model":{"params_b":5e-324},"task":"lora"}', ["body", "model", "params_b"], "0.001"),
        ('{"model":{"params_b":1e-10},"task":"lora"}', ["body", "model", "params_b"], "0.001"),
        ('{"model":{"preset":"llama-3.1-8b"},"task":"lora","mfu":1e-320}', ["body", "mfu"], "0.01"),
        (
            '{"model":{"hf_config":{"num_attention_heads":0,' + LLAMA + '}},"task":"lora"}',
            ["body", "model", "hf_config"],
            "'num_attention_heads' must be between 1",
        ),
        (
            '{"model":{"hf_config":{"num_attention_heads":32,'
            + LLAMA.replace('"num_hidden_layers":32', '"num_hidden_layers":1' + "0" * 400)
            + '}},"task":"lora"}',
            ["body", "model", "hf_config"],
            "'num_hidden_layers' must be between 1 and 10,000, got ≥ 10^30",
        ),
        # As JSON spells it, never Python's True/None (QA: 收到的是 True).
        (
            '{"model":{"hf_config":{"num_attention_heads":true,' + LLAMA + '}},"task":"lora"}',
            ["body", "model", "hf_config"],
            "'num_attention_heads' must be an integer, got true",
        ),
        (
            '{"model":{"hf_config":{"num_attention_heads":"32",' + LLAMA + '}},"task":"lora"}',
            ["body", "model", "hf_config"],
            '''must be an integer, got "32"''',
        ),
        (
            '{"model":{"hf_config":{"num_attention_heads":"32",' + LLAMA + '}},"task":"lora"}',
            ["body", "model", "hf_config"],
            "'num_attention_heads' must be an integer",
        ),
        (
            '{"model":{"hf_config":{"model_type":["llama"]}},"task":"lora"}',
            ["body", "model", "hf_config"],
            "'model_type' must be a string",
        ),
        (
            '{"model":{"hf_config":{"model_type":{"a":1}}},"task":"lora"}',
            ["body", "model", "hf_config"],
            "'model_type' must be a string",
        ),
        (
            '{"model":{"hf_config":{"num_attention_heads":32,"num_key_value_heads":5,'
            + LLAMA
            + '}},"task":"lora"}',
            ["body", "model", "hf_config"],
            "multiple of 'num_key_value_heads'",
        ),
    ],
)
def test_degenerate_sizes_are_a_422_naming_the_field(
    client: TestClient, body: str, loc: list[str], words: str
) -> None:
    status, answer = post_raw(client, "/api/v1/estimate", body)
    assert status == 422, answer
    assert any(e["loc"] == loc and words in e["msg"] for e in answer["detail"]), answer


def test_a_config_nested_5000_deep_is_refused(client: TestClient) -> None:
    nested = '{"a":' * 5000 + "1" + "}" * 5000
    status, _answer = post_raw(
        client, "/api/v1/estimate", '{"model":{"hf_config":' + nested + '},"task":"lora"}'
    )
    assert status in (400, 422)


def test_the_plan_page_refuses_a_deeply_nested_config(client: TestClient) -> None:
    # 2,000 levels: past json.loads' recursion limit (1,000), within httpx's URL length.
    nested = '{"a":' * 2000 + "1" + "}" * 2000
    r = client.get(
        "/plan",
        headers={"Accept-Language": "en"},
        params={"model_source": "config", "hf_config": nested, "task": "lora"},
    )
    assert r.status_code in (200, 422)
    assert "nested too deeply" in r.text


def test_the_echoed_input_is_cut(client: TestClient) -> None:
    """A 900 KB string (under the 1 MB body limit) where an enum goes comes back as ECHO_LIMIT characters and an ellipsis."""
    status, answer = post_raw(
        client, "/api/v1/estimate", json.dumps({"model": {"preset": "x"}, "task": "a" * 900_000})
    )
    assert status == 422
    (err,) = [e for e in answer["detail"] if e["loc"] == ["body", "task"]]
    assert err["input"] == "a" * ECHO_LIMIT + "…"
    assert len(json.dumps(answer)) < 5_000


def test_a_lone_surrogate_in_a_value_is_a_422_naming_the_field(client: TestClient) -> None:
    """`"\\ud800"` is valid JSON but no UTF-8 can carry it: the echoed input shows U+FFFD."""
    account = make_account(client, "sales")
    r = client.post(
        "/api/v1/customers",
        content='{"name":"\\ud800"}',
        headers={**account.headers, "content-type": "application/json"},
    )
    assert r.status_code == 422, r.text
    (err,) = [e for e in r.json()["detail"] if e["loc"] == ["body", "name"]]
    assert err["input"] == "\ufffd"


def test_a_lone_surrogate_in_a_key_is_a_422_echoing_it_safely(client: TestClient) -> None:
    """The key itself is refused at its own location (app/web/json_body.py: `string_unicode`
    at the key, where pydantic said only "body"); the echo shows U+FFFD."""
    status, answer = post_raw(client, "/api/v1/costs", '{"gpu_count":8,"x\\udfff":1}')
    assert status == 422, answer
    (err,) = answer["detail"]
    assert (err["type"], err["loc"], err["input"]) == (
        "string_unicode", ["body", "x\ufffd"], "x\ufffd",
    )  # fmt: skip


def test_a_lone_surrogate_deep_in_the_echoed_input_is_replaced() -> None:
    """Containers echo their items and keys through the same cleaning."""
    errors = [
        {
            "type": "t",
            "loc": ("body", "\ud800"),
            "msg": "m\udc00",
            "input": {"\ud83d": ["\udfff"]},
            "ctx": {"k\ud800": "v\ud800"},
        }
    ]
    (item,) = safe_errors(errors)
    assert item == {
        "type": "t",
        "loc": ["body", "\ufffd"],
        "msg": "m\ufffd",
        "input": {"\ufffd": ["\ufffd"]},
        "ctx": {"k\ufffd": "v\ufffd"},
    }
    json.dumps(item, ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize(
    "url",
    [
        f"/api/v1/price-lists/{2**63}",
        f"/api/v1/price-lists/{2**31}",
        f"/api/v1/offers?price_list={2**63}",
        f"/api/v1/catalog/export?price_list={2**31}",
    ],
)
def test_ids_beyond_the_database_range_are_a_404(client: TestClient, url: str) -> None:
    """No row can have them, like an id no row has (every route: tests/security/
    test_ids_out_of_range.py); the body names the parameter."""
    r = client.get(url)
    assert r.status_code == 404, r.text
    (item,) = r.json()["detail"]
    assert item["loc"][-1] in ("price_list_id", "price_list")


# ----------------------------------------------------------------------------- the last resort


@pytest.fixture(scope="module")
def broken_app(settings: Settings) -> FastAPI:
    app = create_app(settings)

    @app.get("/api/v1/boom")
    def boom() -> None:
        raise RuntimeError("a bug")

    return app


def test_an_unexpected_error_is_json_with_a_request_id(broken_app: FastAPI) -> None:
    with TestClient(broken_app, raise_server_exceptions=True) as c:  # raises if it escapes
        r = c.get("/api/v1/boom", headers={"X-Request-ID": "abc123"})
    assert r.status_code == 500
    assert r.json() == {
        "detail": "Internal server error; quote the request id when reporting it.",
        "request_id": "abc123",
    }
    assert r.headers["x-request-id"] == "abc123"


@pytest.fixture(scope="module")
def live_broken(broken_app: FastAPI) -> Iterator[int]:
    config = uvicorn.Config(broken_app, host="127.0.0.1", port=0, log_level="critical")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield port
    server.should_exit = True
    thread.join(5)


def test_the_connection_survives_a_500(live_broken: int) -> None:
    """uvicorn closes a keep-alive connection when the app raises; ours answers instead."""
    conn = http.client.HTTPConnection("127.0.0.1", live_broken, timeout=10)
    conn.request("GET", "/api/v1/boom")
    first = conn.getresponse()
    assert first.status == 500
    assert json.loads(first.read())["request_id"]
    sock = conn.sock
    conn.request("GET", "/api/v1/models")  # same socket, no reconnect
    second = conn.getresponse()
    assert second.status == 200
    assert conn.sock is sock
    conn.close()


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", None])
def test_a_json_body_under_another_content_type_is_a_415_saying_so(
    client: TestClient, ctype: str | None
) -> None:
    # QA fuzz: curl's default form type gave a 422 "Input should be a valid dictionary or
    # object to extract fields from" about the body's bytes, which does not say what to fix.
    headers = {"content-type": ctype} if ctype else {}
    r = client.post("/api/v1/estimate", content=b'{"model": {"preset": "llama-3.1-8b"}}',
                    headers=headers)  # fmt: skip
    assert r.status_code == 415, r.text
    (err,) = r.json()["detail"]
    assert err["loc"] == ["header", "content-type"]
    assert err["msg"] == (
        f"Send the body as JSON with Content-Type: application/json (got {ctype or 'none'})"
    )
    # a JSON body that is not an object stays a 422 about the body
    r = client.post("/api/v1/estimate", json=[1, 2])
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body"]
