"""The engine's refusals of values a task cannot honour (tests/engine/test_pins_by_task.py)
reach every door in the reader's language: beside the field on the planner page, as a 422
naming the field in the API, and as `field: message` with exit status 2 from the CLI.

The planner form sends every field for every task (hidden inputs with defaults: epochs 2,
users 64, …); those defaults must not start failing, so each task's plain form is checked too.
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli import cli

LLAMA_8B = "model_source=preset&preset=llama-3.1-8b"
H100_2 = "gpu=h100-sxm-80gb&gpu_count=2"

# (planner query, field, English words, zh-TW words), one per QA finding.
REFUSALS = [
    (f"{LLAMA_8B}&task=inference&{H100_2}&pp=2", "pp",
     "pipeline parallelism is not modelled for serving (pp 2): pin tp instead, one of 1, 2, 4, 8",
     "推論服務的估算不含管線平行（pp 2）：請改為指定 tp"),
    (f"model_source=preset&preset=flux-1-dev&task=image&{H100_2}&tp=2", "tp",
     "image generation runs one model copy per GPU: tensor parallelism is not modelled",
     "圖片生成在每張 GPU 上各跑一份模型：估算不含張量平行"),
    (f"{LLAMA_8B}&task=lora&gpu=l40s-48gb&gpu_count=2&interconnect=nvlink", "interconnect",
     "NVIDIA L40S 48GB has no NVLink: choose pcie within a node",
     "NVIDIA L40S 48GB 沒有 NVLink：節點內請選 pcie"),
    (f"{LLAMA_8B}&task=inference&avg_context_tokens=1048576", "avg_context_tokens",
     "exceeds the 131,072-token context of Llama 3.1 8B: give 1–131,072",
     "超過 Llama 3.1 8B 的上下文長度 131,072 個 token：請填 1–131,072"),
    (f"{LLAMA_8B}&task=full_finetune&seq_len=1048576", "seq_len",
     "exceeds the 131,072-token context of Llama 3.1 8B: give 16–131,072",
     "請填 16–131,072"),
]  # fmt: skip


@pytest.mark.parametrize(("query", "field", "en", "zh"), REFUSALS)
@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_the_planner_shows_the_refusal_beside_the_field_in_the_page_language(
    client: TestClient, lang: str, query: str, field: str, en: str, zh: str
) -> None:
    r = client.get(f"/plan?{query}", headers={"Accept-Language": lang})
    assert r.status_code == 200
    soup = BeautifulSoup(r.text, "html.parser")
    err = soup.select_one(f"#err-{field}")
    assert err is not None and (zh if lang == "zh-TW" else en) in err.get_text(), err
    assert not err.select("[lang=en]")  # translated, not marked as English
    assert soup.select_one("#results .errors-summary") is not None


def test_the_planner_forgets_the_training_fields_it_hides_for_serving(
    client: TestClient,
) -> None:
    # ZeRO 3 and a sequence length chosen for a fine-tune, then the task switched to
    # inference: the page hides those fields and still posts them. They are not this task's
    # pins (the API refuses them, tests/engine/test_pins_by_task.py); the form plans without.
    r = client.get(f"/plan?{LLAMA_8B}&task=inference&zero_stage=3&seq_len=8192&mfu=50",
                   headers={"Accept-Language": "en"})  # fmt: skip
    soup = BeautifulSoup(r.text, "html.parser")
    assert soup.select_one("#results .errors-summary") is None
    assert soup.select_one("#results .tier-result") is not None
    for field in ("zero_stage", "seq_len", "mfu"):
        err = soup.select_one(f"#err-{field}")
        assert err is None or not err.get_text(strip=True)


@pytest.mark.parametrize(
    "query",
    [
        f"{LLAMA_8B}&task=inference",
        "model_source=preset&preset=flux-1-dev&task=image",
        f"{LLAMA_8B}&task=lora",
        f"{LLAMA_8B}&task=full_finetune",
    ],
)
def test_each_tasks_plain_form_still_plans(client: TestClient, query: str) -> None:
    # The form sends epochs 2, dataset 5 GB, deadline 14 days, users 64, … for every task.
    r = client.get(f"/plan?{query}", headers={"Accept-Language": "en"})
    soup = BeautifulSoup(r.text, "html.parser")
    assert soup.select_one("#results .errors-summary") is None, soup.select_one(
        "#results .errors-summary"
    )


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        # The QA requests, as sent.
        ({"model": {"preset": "llama-3.1-8b"}, "task": "inference", "concurrency": 10,
          "gpu": "h100-sxm-80gb", "gpu_count": 2, "pp": 2}, "pp", "pin tp instead"),
        ({"model": {"preset": "flux-1-dev"}, "task": "image", "gpu": "h100-sxm-80gb",
          "gpu_count": 2, "tp": 2}, "tp", "one model copy per GPU"),
        ({"model": {"preset": "llama-3.1-8b"}, "task": "inference", "mfu": 0.5}, "mfu",
         "applies to training tasks only"),
        ({"model": {"preset": "llama-3.1-8b"}, "task": "lora", "gpu": "rtx-4090-24gb",
          "gpu_count": 2, "interconnect": "nvlink"}, "interconnect", "has no NVLink"),
        ({"model": {"preset": "llama-3.1-8b"}, "task": "inference",
          "avg_context_tokens": 1_048_576}, "avg_context_tokens", "1–131,072"),
    ],
)  # fmt: skip
def test_the_api_refusal_is_a_422_on_the_field(
    client: TestClient, body: dict, field: str, words: str
) -> None:
    r = client.post("/api/v1/estimate", json=body, headers={"Accept-Language": "en"})
    assert r.status_code == 422, r.text
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", field] and words in detail["msg"], detail


def test_the_api_refusal_reads_in_the_request_language(client: TestClient) -> None:
    body = {"model": {"preset": "llama-3.1-8b"}, "task": "inference", "recompute": "full"}
    r = client.post("/api/v1/estimate", json=body, headers={"Accept-Language": "zh-TW"})
    assert r.status_code == 422
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "recompute"] and "不適用於 inference 任務" in detail["msg"]


def test_the_cli_prints_the_refusal_and_exits_2() -> None:
    r = CliRunner().invoke(
        cli,
        ["estimate", "--model", "llama-3.1-8b", "--task", "inference",
         "--gpu", "h100-sxm-80gb", "--gpu-count", "2", "--pp", "2"],
    )  # fmt: skip
    assert r.exit_code == 2, r.output
    assert "pp: pipeline parallelism is not modelled for serving" in r.output


# A refusal that names other fields says them by the form's labels on the page, in its
# language, and by their field names in the API (QA: 「GPU 數量：gpu_count 8 必須是 tp × pp = 3
# 的倍數」 on a 中文 page that has no field called gpu_count).
PIN_COMBINATIONS = [
    (f"{LLAMA_8B}&task=full_finetune&tp=4&pp=3&gpu_count=8", "gpu_count",
     "GPU count 8 must be a multiple of Tensor parallel × Pipeline parallel = 12",
     "GPU 數量 8 必須是張量平行 × 管線平行 = 12 的倍數",
     "gpu_count 8 must be a multiple of tp × pp = 12"),
    (f"{LLAMA_8B}&task=full_finetune&gpu=h100-sxm-80gb&gpu_count=8&tp=1&pp=1&micro_batch=3"
     "&global_batch=10", "global_batch",
     "Give Global batch (sequences) 24 or a multiple of it, Micro-batch per GPU at most 1, or "
     "GPU count at most 3",
     "請將全域批次（序列數）設為 24 或其倍數、每張 GPU 的微批次不超過 1，或 GPU 數量不超過 3",
     "Give global_batch 24 or a multiple of it, micro_batch at most 1, or gpu_count at most 3"),
]  # fmt: skip


@pytest.mark.parametrize(("query", "field", "en", "zh", "api"), PIN_COMBINATIONS)
def test_a_pin_combination_is_refused_by_the_page_labels_and_by_the_api_names(
    client: TestClient, query: str, field: str, en: str, zh: str, api: str
) -> None:
    for lang, words in (("en", en), ("zh-TW", zh)):
        r = client.get(f"/plan?{query}", headers={"Accept-Language": lang})
        err = BeautifulSoup(r.text, "html.parser").select_one(f"#err-{field}")
        assert err is not None and words in err.get_text(), err
        for name in ("gpu_count", "global_batch", "micro_batch", " tp ", " pp "):
            assert name not in err.get_text()
    body = dict(pair.split("=") for pair in query.split("&"))
    payload = {
        "model": {"preset": body.pop("preset")},
        **{k: (v if k in ("task", "gpu") else int(v)) for k, v in body.items()
           if k != "model_source"},
    }  # fmt: skip
    r = client.post("/api/v1/estimate", json=payload)
    assert r.status_code == 422
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", field] and api in detail["msg"]
