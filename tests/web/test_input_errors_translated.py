"""The engine's refusals (a TP degree that does not split the heads, FP8 on a GPU without FP8,
0 training tokens) read in the reader's language: beside the field on the planner page and
in the API's 422 (app.engine.estimate writes them as translatable Notices)."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

# Llama 2 7B has 32 attention heads: tp 3 does not split them (Megatron-LM shards whole heads).
TP3 = "/plan?model_source=preset&preset=llama-2-7b&task=full_finetune&gpu_count=6&tp=3"
BODY = {"model": {"preset": "llama-2-7b"}, "task": "full_finetune", "gpu_count": 6, "tp": 3}


@pytest.mark.parametrize(
    ("lang", "words"),
    [("zh-TW", "無法平分 Llama 2 7B 的 32 個注意力頭"), ("en", "does not split the 32 attention")],
)
def test_planner_shows_the_engine_refusal_beside_the_field_in_the_page_language(
    client: TestClient, lang: str, words: str
) -> None:
    r = client.get(TP3, headers={"Accept-Language": lang})
    assert r.status_code == 200
    soup = BeautifulSoup(r.text, "html.parser")
    err = soup.select_one("#err-tp")
    assert err is not None and words in err.get_text(), err
    assert not err.select("[lang=en]")  # translated, not marked as English


@pytest.mark.parametrize(
    ("lang", "words"),
    [("zh-TW", "請從 1, 2, 4, 8, 16, 32 中選擇"), ("en", "choose one of 1, 2, 4, 8, 16, 32")],
)
def test_api_refusal_is_a_422_in_the_request_language(
    client: TestClient, lang: str, words: str
) -> None:
    r = client.post("/api/v1/estimate", json=BODY, headers={"Accept-Language": lang})
    assert r.status_code == 422
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "tp"] and words in detail["msg"]


def test_zero_training_tokens_is_refused_not_taken_for_missing(client: TestClient) -> None:
    # Before: tokens 0 planned an assumed 1e8 tokens with the notice "No tokens or dataset
    # given", which the user had given.
    body = {"model": {"preset": "llama-2-7b"}, "task": "lora", "tokens": 0}
    r = client.post("/api/v1/estimate", json=body, headers={"Accept-Language": "en"})
    assert r.status_code == 422
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "tokens"] and "trains on nothing" in detail["msg"]
    assert client.post("/api/v1/estimate", json={**body, "tokens": None}).status_code == 200


@pytest.mark.parametrize(
    ("field", "value", "en", "zh"),
    [
        ("tokens", 0.5, "less than one token: give at least 1", "不到一個 token"),
        # Found by tests/api/test_input_bounds.py's property test: 5e-324 GB made the run's
        # days underflow to 0 and the scaling notice divided by it (a 500).
        ("dataset_gb", 5e-324, "is less than one token (4 bytes per token)", "不到一個 token"),
    ],
)
def test_less_than_one_training_token_is_refused_naming_the_field(
    client: TestClient, field: str, value: float, en: str, zh: str
) -> None:
    body = {"model": {"params_b": 0.001}, "task": "pretrain", "gpu_count": 100000, field: value}
    for lang, words in (("en", en), ("zh-TW", zh)):
        r = client.post("/api/v1/estimate", json=body, headers={"Accept-Language": lang})
        assert r.status_code == 422, r.text
        (detail,) = r.json()["detail"]
        assert detail["loc"] == ["body", field] and words in detail["msg"]


@pytest.mark.parametrize(
    ("body", "field", "en", "zh"),
    [
        ({"model": {"preset": "llama-3.1-8b"}, "gpu": "h100-sxm"}, "gpu",
         "unknown GPU 'h100-sxm'. Did you mean", "沒有 GPU「h100-sxm」。您是指"),
        ({"model": {"preset": "lama-3.1-8b"}}, "model.preset",
         "unknown model preset 'lama-3.1-8b'; did you mean", "沒有預設模型「lama-3.1-8b」"),
    ],
)  # fmt: skip
def test_an_unknown_gpu_or_preset_is_named_in_the_request_language(
    client: TestClient, body: dict, field: str, en: str, zh: str
) -> None:
    # Before, a zh-TW page (and API) answered these in English only.
    for lang, words in (("en", en), ("zh-TW", zh)):
        r = client.post("/api/v1/estimate", json={"task": "lora", **body},
                        headers={"Accept-Language": lang})  # fmt: skip
        assert r.status_code == 422, r.text
        (detail,) = r.json()["detail"]
        assert detail["loc"] == ["body", *field.split(".")] and words in detail["msg"]


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("zh-TW", "config.json 缺少 'model_type'（可用值：deepseek_v3, gemma"),
        ("en", "config.json is missing 'model_type' (one of: deepseek_v3, gemma"),
    ],
)
def test_a_pasted_config_json_is_refused_in_the_page_language(
    client: TestClient, lang: str, words: str
) -> None:
    # {} has no model_type: the planner names the field and the types it reads.
    r = client.get(
        "/plan?model_source=config&hf_config=%7B%7D&task=lora", headers={"Accept-Language": lang}
    )
    err = BeautifulSoup(r.text, "html.parser").select_one("#err-hf_config")
    assert err is not None and words in err.get_text(), err
    # The API says the same in the reader's language, naming the field.
    api = client.post(
        "/api/v1/estimate",
        json={"model": {"hf_config": {"model_type": "gpt9"}}, "task": "lora"},
        headers={"Accept-Language": lang},
    )
    assert api.status_code == 422
    (detail,) = api.json()["detail"]
    assert detail["loc"] == ["body", "model", "hf_config"]
    assert ("不支援" if lang == "zh-TW" else "is not supported") in detail["msg"]


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("zh-TW", "這不是有效的 JSON：請檢查第 2 行第 3 個字元。"),
        ("en", "This is not valid JSON: look at line 2, column 3."),
    ],
)
def test_unreadable_json_says_where_in_the_page_language(
    client: TestClient, lang: str, words: str
) -> None:
    """QA of stop 32: 「這不是有效的 JSON：Expecting property name enclosed in double quotes:
    line 1 column 2 (char 1)」. "{\\n  x" breaks at line 2, column 3 (the x)."""
    r = client.get(
        "/plan",
        params={"model_source": "config", "hf_config": "{\n  x", "task": "lora"},
        headers={"Accept-Language": lang},
    )
    err = BeautifulSoup(r.text, "html.parser").select_one("#err-hf_config")
    assert err is not None and err.get_text(strip=True) == words
    assert "Expecting" not in err.get_text()


def test_users_typed_wrong_is_one_error_at_the_field_the_page_shows() -> None:
    """QA of stop 32: "-1" users was listed twice, once for the hidden `concurrency` the
    form copies it into ("Concurrent users" and "Users served at once")."""
    from app import i18n
    from app.planner.views import build_request, form_values

    i18n.activate("en")
    values = form_values({"task": "inference", "users": "-1", "preset": "llama-3.1-8b"})
    req, errors = build_request(values, "TWD")
    assert req is None and list(errors) == ["users"]


@pytest.mark.parametrize(
    ("query", "field", "lang", "said"),
    [
        (
            "task=full_finetune&precision=int8",
            "precision",
            "en",
            "Full fine-tuning does not train in INT8: choose FP32, BF16, FP16 or FP8, or QLoRA "
            "fine-tuning to train on a 4-bit base",
        ),
        (
            "task=full_finetune&precision=int8",
            "precision",
            "zh-TW",
            "全參數微調不以 INT8 訓練：請選擇 FP32、BF16、FP16 或 FP8，或改用 QLoRA 微調以 4-bit 基底訓練",
        ),
        (
            "task=image",
            "task",
            "en",
            "Image generation needs an image model: choose Stable Diffusion XL or FLUX.1 [dev] "
            "as the model",
        ),
        (
            "task=image",
            "task",
            "zh-TW",
            "生圖需要圖片模型：請將模型選為 Stable Diffusion XL 或 FLUX.1 [dev]",
        ),
    ],
)
def test_the_planner_names_tasks_and_precisions_as_its_fields_do(
    client: TestClient, query: str, field: str, lang: str, said: str
) -> None:
    """QA read "precision 'int8' is not a training precision for task 'full_finetune'" and
    「需要圖片模型預設（sdxl、flux-1-dev）」 on the planner: the API's values, not the names the
    form's fields show. The API keeps its own words (they name what a request sends)."""
    r = client.get(
        f"/plan?model_source=preset&preset=llama-2-7b&{query}", headers={"Accept-Language": lang}
    )
    assert r.status_code == 200
    err = BeautifulSoup(r.text, "html.parser").select_one(f"#err-{field}")
    assert err is not None and err.get_text(strip=True) == said, err
    body = {"model": {"preset": "llama-2-7b"}, **dict(p.split("=") for p in query.split("&"))}
    api = client.post("/api/v1/estimate", json=body, headers={"Accept-Language": "en"})
    assert api.status_code == 422 and "'" in api.json()["detail"][0]["msg"]
