"""An import that changes GPU specifications: they are shared by every price list (not
versioned), so the change reaches the planner at once, and the admin is told so before and
after applying — and an exported file imports under the kind its name says.

QA: H100 SXM's BF16 peak imported as 960 TFLOPS showed on /catalog/gpus at once, while the
estimates kept 989 until a restart (the cached price book is keyed by the latest GPU audit
entry, which the import did not write), and the page said "a draft: publish it to use it".
"""

from __future__ import annotations

from fastapi.testclient import TestClient

from .helpers import post_form, soup

H100 = "h100-sxm-80gb"
ESTIMATE = {
    "model": {"preset": "llama-2-7b"},
    "task": "full_finetune",
    "tokens": 1e9,
    "gpu": H100,
    "gpu_count": 8,
}


def _peak_in_explanation(client: TestClient) -> str:
    """The dense peak the estimate's days formula divides by ("8 × 989 TFLOPS …")."""
    resp = client.post("/api/v1/estimate", json=ESTIMATE).json()
    days = next(e for e in resp["explain"] if e["figure"] == "training.days")
    return days["formula"]


def _gpus_csv(client: TestClient, bf16: str) -> bytes:
    text = client.get("/api/v1/catalog/export", params={"format": "csv", "kind": "gpus"}).text
    header, *rows = text.splitlines()
    col = header.split(",").index("bf16_tflops")
    out = [header]
    for row in rows:
        cells = row.split(",")
        if cells[0] == H100:
            assert cells[col] == "989.0" or cells[col] == "989"  # the H100 SXM datasheet
            cells[col] = bf16
        out.append(",".join(cells))
    return ("\n".join(out) + "\n").encode("utf-8")


def test_an_imported_gpu_spec_reaches_the_next_estimate(catalog_client: TestClient) -> None:
    assert "8 × 989 TFLOPS" in _peak_in_explanation(catalog_client)  # cached from here on
    data = _gpus_csv(catalog_client, "960")
    r = catalog_client.post(
        "/api/v1/catalog/import",
        params={"dry_run": "false", "mode": "upsert", "name": "GPU fix"},
        files={"file": ("stratagem-price-list-1-gpus.csv", data, "text/csv")},
    )
    assert r.status_code == 201, r.text
    assert [c["key"] for c in r.json()["changed"]] == [H100]
    # Not published, yet in effect: GPU specs are not kept per list.
    assert "8 × 960 TFLOPS" in _peak_in_explanation(catalog_client)
    listed = {g["id"]: g for g in catalog_client.get("/api/v1/gpus").json()}
    assert listed[H100]["bf16_tflops"] == 960


def test_the_preview_and_the_result_say_gpu_specs_change_for_every_list(
    catalog_client: TestClient,
) -> None:
    data = _gpus_csv(catalog_client, "960")
    preview = post_form(
        catalog_client,
        "/catalog/import",
        {"target": "new", "mode": "upsert"},  # no kind chosen: the file's name says it
        files={"file": ("stratagem-price-list-1-gpus.csv", data, "text/csv")},
    )
    assert preview.status_code == 200, preview.text
    page = soup(preview.text)
    warning = page.select_one("#import-gpu-specs").get_text(" ", strip=True)
    assert H100 in warning and "every list, the current one included, at once" in warning
    token = page.select_one("#apply-form input[name=token]")["value"]
    applied = post_form(catalog_client, "/catalog/import/apply", {"token": token})
    assert applied.status_code == 303
    assert applied.headers["location"].endswith("&imported=1&gpus=1")
    overview = soup(catalog_client.get(applied.headers["location"]).text)
    notice = overview.select_one(".notice.ok").get_text(" ", strip=True)
    assert "already in effect for every price list" in notice


def test_an_offers_only_import_says_nothing_about_gpus(catalog_client: TestClient) -> None:
    text = catalog_client.get(
        "/api/v1/catalog/export", params={"format": "csv", "kind": "offers"}
    ).text
    changed = text.replace(",50000,120,", ",52000,120,").encode("utf-8")
    preview = post_form(
        catalog_client, "/catalog/import", {"target": "new"},
        files={"file": ("stratagem-price-list-1-offers.csv", changed, "text/csv")},
    )  # fmt: skip
    assert preview.status_code == 200
    page = soup(preview.text)
    assert page.select_one("#n-changed").get_text(strip=True) == "1"
    assert page.select_one("#import-gpu-specs") is None


def test_a_file_whose_name_names_no_kind_asks_for_the_kind(catalog_client: TestClient) -> None:
    data = _gpus_csv(catalog_client, "960")
    for lang, words in (("en", "choose the kind"), ("zh-TW", "請選擇")):
        r = post_form(
            catalog_client, "/catalog/import", {"target": "new"},
            files={"file": ("prices.csv", data, "text/csv")},
            headers={"Accept-Language": lang},
        )  # fmt: skip
        assert r.status_code == 422
        assert words in soup(r.text).select_one("#err-kind").get_text()


def test_an_empty_upload_is_called_empty(catalog_client: TestClient) -> None:
    r = post_form(
        catalog_client, "/catalog/import", {"target": "new", "kind": "offers"},
        files={"file": ("offers.csv", b"", "text/csv")},
    )  # fmt: skip
    assert r.status_code == 422
    assert soup(r.text).select_one("#err-file").get_text(strip=True) == (
        "The file offers.csv is empty."
    )


def test_the_gpu_form_says_a_spec_applies_to_every_list(catalog_client: TestClient) -> None:
    page = soup(catalog_client.get(f"/catalog/gpus/{H100}/edit").text)
    text = page.select_one("#gpu-specs-shared").get_text(" ", strip=True)
    assert "applies at once to every estimate and plan" in text
