"""The customer's document describes each kind of workload by its own figures: an image
plan by images per hour (never "0 tokens/s"), a serving plan by tokens per second, and the
assumptions list only the fields the task uses (a stored workload carries every field with
its default: an image plan has `seq_len: 4096`, a LoRA plan `concurrency: 1`)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session

from app import i18n
from app.plans.models import Plan
from app.quotes import document
from app.quotes.pdf import quote_html
from tests.accounts.helpers import Account, make_account
from tests.quotes.test_quote_life import TERM, _customer, _plan, _share

IMAGE_WORKLOAD = {
    "model": {"preset": "flux-1-dev"},
    "task": "image",
    "images_per_hour": 2000,
    "image_resolution": 1024,
    "image_steps": 30,
}


def _pdf_text(client: TestClient, a: Account, plan_id: int, lang: str, tmp_path: Path) -> str:
    r = client.get(f"/api/v1/plans/{plan_id}/pdf", params={"lang": lang}, headers=a.headers)
    assert r.status_code == 200, r.text[:300]
    out = tmp_path / f"q-{lang}.pdf"
    out.write_bytes(r.content)
    # Reading order keeps a table cell's wrapped sentence together; -layout keeps a label
    # and its value on one line. Both, each as one line of words.
    texts = [
        subprocess.run(
            ["pdftotext", *mode, str(out), "-"], check=True, capture_output=True, text=True
        ).stdout
        for mode in ([], ["-layout"])
    ]
    return " | ".join(" ".join(t.split()) for t in texts)


@pytest.fixture(scope="module")
def image_plan(client: TestClient) -> tuple[Account, dict[str, Any]]:
    a = make_account(client, "sales")
    body = {"name": "Image service", "customer": "ACME", "workload": IMAGE_WORKLOAD}
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    return a, r.json()


def test_an_image_plan_quote_states_images_per_hour_in_both_languages(
    client: TestClient, image_plan: tuple[Account, dict[str, Any]], tmp_path: Path
) -> None:
    a, plan = image_plan
    inf, gpu = plan["result"]["inference"], plan["result"]["gpu"]
    per_hour = f"{inf['images_per_hour']:,.0f}"
    seconds = f"{inf['seconds_per_image']:,.2f}"
    gpus = f"{gpu['count']} × {gpu['name']}"
    en = _pdf_text(client, a, plan["id"], "en", tmp_path)
    assert "Image generation" in en
    assert f"{per_hour} images per hour on {gpus}" in en
    assert f"{seconds} s per image on one GPU" in en
    assert inf["images_per_hour"] >= 2000  # the target the planner sized for
    zh = _pdf_text(client, a, plan["id"], "zh-TW", tmp_path)
    assert f"{gpus} 每小時生成 {per_hour} 張圖片" in zh
    assert f"單一 GPU 每張 {seconds} 秒" in zh
    assert "tokens/s at up to" not in en and "concurrent sequences" not in en
    # the assumptions: the image's own fields, none of the LLM defaults
    assert "Image resolution (pixels) 1,024 × 1,024" in en
    assert "Target images per hour 2,000" in en
    assert "Diffusion steps per image 30" in en
    assert "圖片解析度（像素） 1,024 × 1,024" in zh
    for absent in ("Sequence length", "Concurrent sequences", "Training tokens"):
        assert absent not in en


def test_the_share_page_of_an_image_plan_states_the_same_figure(
    client: TestClient, image_plan: tuple[Account, dict[str, Any]]
) -> None:
    a, plan = image_plan
    page = client.get(_share(client, a, plan["id"]))  # the customer's default: zh-TW
    assert page.status_code == 200
    served = BeautifulSoup(page.text, "html.parser").select_one("dd.service")
    assert served is not None
    gpu = plan["result"]["gpu"]
    per_hour = f"{plan['result']['inference']['images_per_hour']:,.0f}"
    assert served.get_text(" ", strip=True).startswith(
        f"{gpu['count']} × {gpu['name']} 每小時生成 {per_hour} 張圖片"
    )


def _rows(workload: dict[str, Any]) -> dict[str, str]:
    i18n.activate("en")
    return dict(document.assumption_rows(workload))


def test_assumptions_list_the_fields_of_their_task_only() -> None:
    defaults = {"seq_len": 4096, "concurrency": 1, "avg_context_tokens": 2048,
                "output_tokens": 256, "images": 1000, "image_resolution": 1024,
                "image_steps": 30, "precision": "bf16"}  # fmt: skip
    lora = _rows({**defaults, "task": "lora", "tokens": 2e8, "deadline_days": 7})
    assert lora == {
        "Task": "LoRA fine-tuning",
        "Sequence length (tokens)": "4,096",
        "Training tokens": "200 million",  # a customer reads words, never "2e+08"
        "Deadline (days)": "7",
        "Precision": "BF16",
    }
    serving = _rows({**defaults, "task": "inference", "concurrency": 64})
    assert serving == {
        "Task": "Inference (serving)",
        "Concurrent sequences": "64",
        "Average context (tokens)": "2,048",
        "Output tokens per request": "256",
        "Precision": "BF16",
    }
    batch = _rows({**defaults, "task": "image", "images": 50_000})
    assert batch["Images to generate"] == "50,000"  # a batch job: how many
    assert "Target images per hour" not in batch
    service = _rows({**defaults, "task": "image", "images_per_hour": 500})
    assert "Images to generate" not in service  # a service: the rate, not a count
    assert service["Target images per hour"] == "500"


def test_large_counts_read_in_the_customers_words() -> None:
    # CLDR long compact forms (Babel): English millions/billions/trillions, Chinese 萬/億/兆.
    workload = {"task": "pretrain", "tokens": 1.56e13, "seq_len": 8192}
    assert _rows(workload)["Training tokens"] == "15.6 trillion"
    i18n.activate("zh-TW")
    try:
        zh = dict(document.assumption_rows({**workload, "tokens": 2e9}))
    finally:
        i18n.activate("en")
    assert zh[i18n.zh_translations().gettext("Training tokens")] == "20億"
    assert zh[i18n.zh_translations().gettext("Sequence length (tokens)")] == "8,192"


def test_a_serving_plan_states_tokens_per_second_and_labels_its_capacity() -> None:
    """The speed is the estimate's at the concurrency asked for (64 sequences: 2,786 tokens/s
    in total, 43.5 each); the most sequences the memory holds (820) is another figure, on
    its own labelled row (visual QA: "最多 820 個同時序列" printed unlabelled beside a speed
    measured at 64)."""
    inference = {"tokens_per_s": 2786.1, "tokens_per_s_per_user": 43.53, "max_concurrency": 820}
    i18n.activate("en")
    rows = document.service_rows(inference, {}, {"task": "inference", "concurrency": 64})
    assert rows == [
        ("Output speed", "2,786 tokens/s in total at 64 sequences at once (44 tokens/s each)"),
        ("Sequences at once, at most", "820 (what the GPUs' memory holds)"),
    ]
    i18n.activate("zh-TW")
    try:
        rows = document.service_rows(inference, {}, {"task": "inference", "concurrency": 64})
    finally:
        i18n.activate("en")
    assert rows == [
        ("輸出速度", "同時處理 64 個序列時，合計每秒 2,786 個 token（每個序列每秒 44 個 token）"),
        ("同時序列上限", "820 個（GPU 記憶體可容納的上限）"),
    ]
    assert document.service_rows(None, {}) == []  # training plans: no service figure


def test_a_service_sized_for_users_names_them_and_its_replicas() -> None:
    """Sized for 500 users at latency targets: 4 replicas × up to 142 users each (568 ≥
    500), never the 800 sequences the KV cache holds, which no target was checked at."""
    inference = {"tokens_per_s": 11386.4, "max_concurrency": 800, "replicas": 4,
                 "concurrency_per_replica": 142, "meets_slo": True}  # fmt: skip
    i18n.activate("en")
    rows = document.service_rows(inference, {}, {"task": "inference", "users": 500})
    assert rows == [
        (
            "Inference",
            "11,386 tokens/s for 500 users at once: 4 replicas × up to 142 users each at your "
            "latency targets",
        )
    ]


def test_a_service_sized_at_latency_targets_states_them_and_what_it_gives() -> None:
    """QA: "meets your latency targets" with the targets printed nowhere on the quote. The
    targets are the workload's `slo`; what the plan gives is the estimate's own TTFT and
    tokens/s per user at those users."""
    inference = {"tokens_per_s": 11386.4, "replicas": 4, "concurrency_per_replica": 142,
                 "meets_slo": True, "time_to_first_token_s": 0.4237,
                 "tokens_per_s_per_user": 22.77}  # fmt: skip
    workload = {"task": "inference", "users": 500,
                "slo": {"ttft_s": 1, "tokens_per_s_per_user": 20}}  # fmt: skip
    i18n.activate("en")
    rows = document.service_rows(inference, {}, workload)
    assert rows[1:] == [
        ("Your latency targets", "first token within 1 s, 20 tokens/s per user"),
        ("This plan at 500 users", "first token in 0.42 s, 23 tokens/s per user"),
    ]
    i18n.activate("zh-TW")
    try:
        rows = document.service_rows(inference, {}, {**workload, "slo": {"ttft_s": 0.5}})
    finally:
        i18n.activate("en")
    assert rows[1:] == [
        ("您的延遲目標", "首個 token 於 0.5 秒內"),
        ("本方案於 500 位使用者時", "首個 token 0.42 秒"),
    ]


def test_an_option_names_the_gpus_it_pays_for(
    client: TestClient, image_plan: tuple[Account, dict[str, Any]], tmp_path: Path
) -> None:
    """The plan needs 5 GPUs; the catalog rents and sells whole 8-GPU servers, and the price
    is for all 8: the document said '5 × NVIDIA H100' beside an 8-GPU price."""
    a, plan = image_plan
    gpu = plan["result"]["gpu"]
    whole = [
        o for o in plan["result"]["cost"]["options"]
        if o["kind"] in ("rent_term", "buy") and o["billed"]["gpus"] != gpu["count"]
    ]  # fmt: skip
    assert whole, "the shipped catalog's H100 servers hold 8 GPUs"
    paid = f"{whole[0]['billed']['gpus']:g}"
    en = _pdf_text(client, a, plan["id"], "en", tmp_path)
    assert f"{paid} × {gpu['name']} (the plan uses {gpu['count']})" in en
    zh = _pdf_text(client, a, plan["id"], "zh-TW", tmp_path)
    assert f"{paid} × {gpu['name']}（方案使用 {gpu['count']} 張）" in zh
    # the quoted total says what it is: before tax, and for how long
    for text, label, months in (
        (en, "Quoted total (excl. tax)", "× 12 months"),
        (zh, "報價總額（未稅）", "× 12 個月"),
    ):
        flat = " ".join(text.split())
        assert months in flat[flat.index(label) :][:80]
    # the purchase beside it is held for the plan's 12 months, then resold
    assert "held for 12 months" in " ".join(en.split())
    assert "持有 12 個月" in " ".join(zh.split())


def test_an_option_for_exactly_the_plans_gpus_names_them_once() -> None:
    i18n.activate("en")
    gpu = {"count": 4, "name": "NVIDIA H100 SXM5 80GB"}
    assert document.priced_gpus_text({"billed": {"gpus": 4}}, gpu) == "4 × NVIDIA H100 SXM5 80GB"
    assert document.priced_gpus_text({"billed": {"gpus": 8.0}}, gpu) == (
        "8 × NVIDIA H100 SXM5 80GB (the plan uses 4)"
    )
    assert document.priced_gpus_text({}, gpu) == "4 × NVIDIA H100 SXM5 80GB"


def test_a_batch_image_plan_says_how_long_its_images_take() -> None:
    """A batch (no target per hour) is bought for its images: 100,000 images × 7.41 s on
    5 GPUs = 100,000 × 7.41 / 5 / 3,600 = 41.2 h (the estimate's own batch_hours)."""
    i18n.activate("en")
    inference = {"images_per_hour": 2430.0, "seconds_per_image": 7.41,
                 "batch_hours": 100_000 * 7.41 / 5 / 3600}  # fmt: skip
    gpu = {"count": 5, "name": "NVIDIA H100 SXM5 80GB"}
    (batch,) = document.service_rows(inference, gpu, {"task": "image", "images": 100_000})
    assert batch[1].endswith("· 100,000 images in 41.2 h")
    (service,) = document.service_rows(
        inference, gpu, {"task": "image", "images": 1000, "images_per_hour": 2000}
    )
    assert " images in " not in service[1]  # a rate, not a batch
    i18n.activate("zh-TW")
    (zh,) = document.service_rows(inference, gpu, {"task": "image", "images": 100_000})
    assert zh[1].endswith("· 100,000 張圖片需 41.2 小時")


def test_the_charts_name_the_gpus_each_option_pays_for_too(
    image_plan: tuple[Account, dict[str, Any]],
) -> None:
    """The TCO chart's rows name an option by key only; their labels take what it pays for
    from the option, as the cost table's do."""
    from app.plans.models import Plan
    from app.quotes import pdf

    _, plan = image_plan
    i18n.activate("en")
    cost = pdf.customer_result(Plan(result=plan["result"]))["cost"]
    used = plan["result"]["gpu"]["count"]
    paid = {o["key"]: o["billed"]["gpus"] for o in plan["result"]["cost"]["options"]}
    assert cost["tco"]
    for row in cost["tco"]:
        if paid.get(row["key"]) not in (None, used):
            assert f"(the plan uses {used})" in row["label"], row["label"]
    assert any("(the plan uses" in row["label"] for row in cost["tco"])


def test_a_service_sized_for_users_states_the_users_not_the_unused_concurrency() -> None:
    """`users` takes precedence over `concurrency` in the serving planner (serving.users_of),
    so a document must name the 200 users it was sized for; visual QA found "Concurrent
    sequences 64" beside "up to 204 concurrent sequences" and the 200 users nowhere."""
    from app.quotes.document import assumption_rows

    rows = dict(
        assumption_rows(
            {"task": "inference", "users": 200, "concurrency": 64, "avg_context_tokens": 2048,
             "output_tokens": 256}
        )
    )  # fmt: skip
    assert rows["Users served at once"] == "200"
    assert "Concurrent sequences" not in rows
    plain = dict(assumption_rows({"task": "inference", "concurrency": 64}))
    assert plain["Concurrent sequences"] == "64"


def test_every_way_to_pay_says_what_period_its_total_covers() -> None:
    """Rows of "Ways to pay" cover 132 hours, 1 month or 12 months: each total says which
    (visual QA: the same column mixed them with no label)."""
    from app.quotes.document import period_text

    assert period_text({"billed": {"unit": "hour", "quantity": 132.0}}) == "for 132 hours"
    assert period_text({"billed": {"unit": "month", "quantity": 1.0}}) == "for 1 month"
    assert period_text({"billed": {"unit": "month", "quantity": 12}}) == "for 12 months"
    assert period_text({}) == ""
    i18n.activate("zh-TW")
    try:
        assert period_text({"billed": {"unit": "month", "quantity": 12}}) == "共 12 個月"
    finally:
        i18n.activate("en")


def test_an_hourly_line_shows_no_months_period(client: TestClient, tmp_path: Path) -> None:
    # An hourly line is unit price/h × hours; its months multiplier is 1 and no period: the
    # document prints "—" there, not "1" (which reads "for 1 month"). A monthly line keeps
    # its months.
    a = make_account(client, "sales")
    c = _customer(client, a, name="Hourly Co", language="en")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    hourly = next(o["key"] for o in p["result"]["cost"]["options"] if o["kind"] == "rent_hourly")
    lines = [{"option_key": hourly}, {"option_key": TERM}]
    r = client.put(f"/api/v1/plans/{p['id']}", json={"quote": {"lines": lines}, "version": p["version"]},
                   headers=a.headers)  # fmt: skip
    assert r.status_code == 200, r.text
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, p["id"])
        assert plan is not None
        soup = BeautifulSoup(quote_html(plan, lang="en", session=s), "html.parser")
    rows = soup.select("table.lines tbody tr")
    months = [tr.select("td")[4].get_text(strip=True) for tr in rows]
    assert months[0] == "—"
    assert rows[0].select("td")[3].get_text(strip=True).endswith("h")  # the hours instead
    assert months[1] == "6"  # seed 003 T8's 6-month term


@pytest.mark.parametrize(
    ("lang", "start"), [("en", "Payment by bank transfer"), ("zh-TW", "於統一發票")]
)
def test_default_payment_terms_print_in_the_documents_language(
    client: TestClient, lang: str, start: str
) -> None:
    # Saved for a zh-TW customer, the standard terms are stored in Chinese; an English
    # document of the same quote prints them in English. Terms someone wrote stay as written.
    a = make_account(client, "sales")
    c = _customer(client, a, name=f"Terms {lang}")  # a zh-TW customer
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    assert p["quote"]["payment_terms"].startswith("於統一發票")
    own = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}],
                                     "payment_terms": "Net 45, wire to account 123"})  # fmt: skip
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        for plan_id, expected in ((p["id"], start), (own["id"], "Net 45, wire to account 123")):
            plan = s.get(Plan, plan_id)
            assert plan is not None
            soup = BeautifulSoup(quote_html(plan, lang=lang, session=s), "html.parser")
            terms = next(tr for tr in soup.select("tr") if tr.th and tr.th.get_text() in
                         ("Payment terms", "付款條件"))  # fmt: skip
            assert terms.td is not None and terms.td.get_text().startswith(expected)


def test_large_counts_on_the_document_are_grouped_like_its_money() -> None:
    # A 16,384-GPU pre-training plan printed '16384 × NVIDIA H100…', '262144 cores' and
    # '20766.7 kW' beside 'NT$3,584,000,000' and '3,145,728 GB'.
    assert document.gpu_text({"count": 16384, "name": "NVIDIA H100"}) == "16,384 × NVIDIA H100"
    i18n.activate("en")
    # A MIG slice is a share of one GPU, not "0.25 ×" of it (QA); A100's 1g slice is 1/7.
    assert (
        document.gpu_text({"count": 0.25, "name": "NVIDIA H100"})
        == "1/4 of one NVIDIA H100 (MIG slice)"
    )
    assert document.gpu_text({"count": 1 / 7, "name": "NVIDIA A100"}).startswith("1/7 of one")
    rows = dict(document.infra_rows({"cpu_cores": 262144, "power_kw": 20766.7}))
    assert rows["CPU"] == "262,144 cores"
    assert rows["Power"] == "20,766.7 kW"


def test_a_gpu_is_named_without_the_catalogs_english_qualifiers() -> None:
    # QA: "(HGX/DGX, per GPU)" on 中文 documents and the planner; a product name stays.
    assert document.gpu_text({"count": 8, "name": "NVIDIA B200 SXM 180GB (HGX/DGX, per GPU)"}) == (
        "8 × NVIDIA B200 SXM 180GB (HGX/DGX)"
    )
    assert document.gpu_text(
        {"count": 72, "name": "NVIDIA GB200 NVL72 (per Blackwell GPU, 186GB)"}
    ) == ("72 × NVIDIA GB200 NVL72 186GB")
