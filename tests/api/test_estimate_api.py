"""JSON API v1: the estimate contract (PRODUCT.md §5), its errors and its documentation."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CONTRACT_MEMORY = {
    "weights",
    "gradients",
    "optimizer",
    "activations",
    "kv_cache",
    "overhead",
    "total",
    "per_gpu",
}


def test_estimate_returns_the_contract(client: TestClient) -> None:
    r = client.post(
        "/api/v1/estimate",
        json={"model": {"preset": "llama-3.1-70b"}, "task": "lora", "tokens": 1e8},
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["tier"] in ("single_gpu", "multi_gpu", "multi_node")
    assert {"id", "count", "nodes"} <= body["gpu"].keys()
    assert {"dp", "tp", "pp", "zero_stage"} <= body["parallelism"].keys()
    assert CONTRACT_MEMORY <= body["memory_gb"].keys()
    assert CONTRACT_MEMORY - {"per_gpu"} <= body["memory_per_gpu_gb"].keys()
    assert {"flops", "gpu_hours", "days", "mfu"} <= body["training"].keys()
    assert {"cpu_cores", "ram_gb", "nvme_tb", "nas_tb", "network", "power_kw"} <= body[
        "infra"
    ].keys()
    assert body["explain"] and {"figure", "value", "formula", "source"} <= body["explain"][0].keys()
    # the replica total is the sum of its terms
    m = body["memory_gb"]
    assert m["total"] == pytest.approx(sum(m[k] for k in CONTRACT_MEMORY - {"total", "per_gpu"}))


def test_inference_block(client: TestClient) -> None:
    r = client.post(
        "/api/v1/estimate",
        json={
            "model": {"preset": "llama-2-7b"},
            "task": "inference",
            "precision": "int4",
            "concurrency": 100,
        },
    )
    assert r.status_code == 200
    inf = r.json()["inference"]
    assert {
        "max_concurrency",
        "tokens_per_s",
        "tokens_per_s_per_user",
        "time_to_first_token_s",
        "cost_per_million_tokens",
    } <= inf.keys()


@pytest.mark.parametrize(
    ("body", "loc", "words"),
    [
        ({"model": {"preset": "llama-2-7b"}, "task": "dance"}, ["body", "task"], "pretrain"),
        (
            {"model": {"preset": "llama-2-7b"}, "task": "lora", "deadline_days": 0},
            ["body", "deadline_days"],
            "Must be at least 0.01 and at most 3,650.",
        ),
        (
            {"model": {"preset": "llama-2-7b"}, "task": "lora", "utilization": 1.5},
            ["body", "utilization"],
            "Must be at least 0.01 and at most 1.",
        ),
        (
            {"model": {"preset": "llama-2-7b"}, "task": "lora", "seq_len": 1},
            ["body", "seq_len"],
            "16",
        ),
        (
            {"model": {"preset": "llama-2-7b"}, "task": "lora", "interconnect": "wifi"},
            ["body", "interconnect"],
            "nvlink",
        ),
        ({"model": {"preset": "gpt-9"}, "task": "lora"}, ["body", "model", "preset"], "preset"),
        (
            {"model": {"preset": "llama-2-7b"}, "task": "lora", "gpu": "tpu-v5"},
            ["body", "gpu"],
            "h100-sxm-80gb",
        ),
        ({"model": {}, "task": "lora"}, ["body", "model"], "exactly one"),
        (
            {"model": {"preset": "llama-2-7b"}, "task": "pretrain", "precision": "int4"},
            ["body", "precision"],
            "not a training precision",
        ),
        (
            {"model": {"hf_config": {"model_type": "bert"}}, "task": "lora"},
            ["body", "model", "hf_config"],
            "model_type",
        ),
        (
            {"model": {"preset": "sdxl"}, "task": "image", "images_per_hour": 0},
            ["body", "images_per_hour"],
            "Must be more than 0 and at most 100,000,000.",
        ),
        (
            {"model": {"preset": "sdxl"}, "task": "image", "images_per_hour": 1e9},
            ["body", "images_per_hour"],
            "at most 100,000,000",
        ),
        (
            {"model": {"preset": "flux-1-dev"}, "task": "image", "image_steps": 0},
            ["body", "image_steps"],
            "Must be at least 1 and at most 200.",
        ),
        (
            {"model": {"preset": "flux-1-dev"}, "task": "image", "image_resolution": 8192},
            ["body", "image_resolution"],
            "Must be at least 256 and at most 4,096.",
        ),
        # JSON true is not 1 (pydantic's lax mode would plan one token on one GPU).
        (
            {"model": {"preset": "llama-2-7b"}, "task": "lora", "tokens": True},
            ["body", "tokens"],
            "a number, not true or false",
        ),
        (
            {"model": {"preset": "llama-2-7b"}, "task": "lora", "gpu_count": True},
            ["body", "gpu_count"],
            "a number, not true or false",
        ),
        (
            {"model": {"params_b": False}, "task": "lora"},
            ["body", "model", "params_b"],
            "a number, not true or false",
        ),
    ],
)
def test_bad_input_is_a_422_naming_the_field(
    client: TestClient, body: dict, loc: list, words: str
) -> None:
    r = client.post("/api/v1/estimate", json=body)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert any(d["loc"][: len(loc)] == loc for d in detail), detail
    assert words in json.dumps(detail)


def test_absurd_but_valid_input_gets_a_plan_with_warnings(client: TestClient) -> None:
    huge = client.post(
        "/api/v1/estimate", json={"model": {"params_b": 10000}, "task": "full_finetune"}
    )
    assert huge.status_code == 200 and huge.json()["warnings"]
    rush = client.post(
        "/api/v1/estimate",
        json={"model": {"preset": "llama-3.1-70b"}, "task": "pretrain", "deadline_days": 1 / 24},
    )
    assert rush.status_code == 200
    assert any("Misses the deadline" in w for w in rush.json()["warnings"])


def test_models_and_gpus(client: TestClient) -> None:
    models = client.get("/api/v1/models").json()
    assert len(models) >= 25 and {"llama-2-7b", "deepseek-v3"} <= {m["id"] for m in models}
    gpus = client.get("/api/v1/gpus").json()
    assert all({"id", "name"} <= g.keys() for g in gpus)


def test_openapi_documents_every_route_with_examples(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            assert op.get("summary") or op.get("description"), f"{method} {path}"
    schema = spec["components"]["schemas"]["EstimateRequest"]
    assert schema.get("examples")


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.integers()
    | st.text(max_size=8),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
    max_leaves=8,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    task=st.sampled_from(["pretrain", "full_finetune", "lora", "qlora", "inference", "image", "x"]),
    field=st.sampled_from(
        [
            "seq_len",
            "tokens",
            "gpu_count",
            "tp",
            "pp",
            "mfu",
            "concurrency",
            "dataset_gb",
            "deadline_days",
            "zero_stage",
            "global_batch",
            "avg_context_tokens",
            "micro_batch",
        ]
    ),
    value=json_values,
    preset=st.sampled_from(["llama-2-7b", "mixtral-8x7b", "flux-1-dev", "deepseek-v3"]),
)
def test_fuzzed_requests_never_500(
    client: TestClient, task: str, field: str, value: object, preset: str
) -> None:
    body = {"model": {"preset": preset}, "task": task, field: value}
    r = client.post("/api/v1/estimate", json=body)
    assert r.status_code in (200, 422), (body, r.text)


def test_image_service_over_the_api(client: TestClient) -> None:
    """A target images/hour gives GPUs, the rate per GPU and the batch's hours (issue 12)."""
    r = client.post(
        "/api/v1/estimate",
        json={"model": {"preset": "sdxl"}, "task": "image", "images_per_hour": 20000,
              "images": 100000, "gpu": "h100-sxm-80gb"},
    )  # fmt: skip
    assert r.status_code == 200, r.text
    inf = r.json()["inference"]
    # SDXL 30 steps × 2 passes × 6.711e12 FLOP / (989e12 × 0.51) = 0.798 s → 4,509 images/h
    # a GPU; 20,000 / 4,509 → 5 GPUs; 100,000 images × 0.798 s / 5 / 3,600 = 4.4 h.
    assert r.json()["gpu"]["count"] == 5
    assert inf["images_per_hour_per_gpu"] == pytest.approx(4509, rel=1e-3)
    assert inf["batch_hours"] == pytest.approx(100000 * 0.7983 / 5 / 3600, rel=1e-3)
    assert inf["meets_images_per_hour"] is True
    assert inf["uncertainty"]["runs"] >= 12


@pytest.mark.parametrize(
    ("body", "loc", "words"),
    [
        # QA: these answered at loc ["body"], naming no field.
        ({"model": {"preset": "llama-2-7b"}, "task": "full_finetune", "gpu_count": 6, "tp": 4},
         ["body", "gpu_count"], "gpu_count 6 must be a multiple of tp × pp = 4"),
        ({"model": {"preset": "llama-2-7b"}, "task": "full_finetune", "gpu_count": 8, "tp": 2,
          "pp": 3}, ["body", "gpu_count"], "multiple of tp × pp = 6"),
        ({"model": {"preset": "llama-2-7b"}, "task": "full_finetune", "global_batch": 2,
          "micro_batch": 4}, ["body", "global_batch"], "global_batch 2 must be at least micro"),
        ({"model": {"preset": "llama-3.1-8b"}, "task": "lora", "precision": "fp4"},
         ["body", "precision"], "is an inference precision"),
        # QA: 5,000 answer tokens in a 100-token context was planned with a 1-token prompt.
        ({"model": {"preset": "llama-3.1-8b"}, "task": "inference", "avg_context_tokens": 100,
          "output_tokens": 5000}, ["body", "output_tokens"],
         "output_tokens 5,000 must be less than avg_context_tokens 100"),
    ],
)  # fmt: skip
def test_contradictory_fields_name_the_field(
    client: TestClient, body: dict, loc: list[str], words: str
) -> None:
    r = client.post("/api/v1/estimate", json=body, headers={"Accept-Language": "en"})
    assert r.status_code == 422, r.text
    (detail,) = r.json()["detail"]
    assert detail["loc"] == loc and words in detail["msg"]
    zh = client.post("/api/v1/estimate", json=body, headers={"Accept-Language": "zh-TW"})
    assert zh.json()["detail"][0]["msg"] != detail["msg"]  # translated


def test_an_answer_shorter_than_its_context_is_served(client: TestClient) -> None:
    body = {"model": {"preset": "llama-3.1-8b"}, "task": "inference", "avg_context_tokens": 300,
            "output_tokens": 299}  # fmt: skip
    assert client.post("/api/v1/estimate", json=body).status_code == 200
    # Training ignores the serving fields (the planner form sends them for every task).
    train = {"model": {"preset": "llama-3.1-8b"}, "task": "lora", "avg_context_tokens": 100,
             "output_tokens": 5000}  # fmt: skip
    assert client.post("/api/v1/estimate", json=train).status_code == 200


def test_a_body_that_is_not_json_gets_the_status_the_spec_documents(client: TestClient) -> None:
    # QA 2026-12-07: /openapi.json said "400: The body is not valid JSON", but the answer is
    # FastAPI's 422 (json_invalid), which an integrator's generated client then did not expect.
    r = client.post(
        "/api/v1/estimate", content=b"not json", headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 422
    assert r.json()["detail"][0]["type"] == "json_invalid"
    op = client.get("/openapi.json").json()["paths"]["/api/v1/estimate"]["post"]
    assert "422" in op["responses"] and "400" not in op["responses"]
    assert "not valid JSON" in op["responses"]["422"]["description"]
