"""An import's preview names every row it adds and removes with what the row holds: its
prices in their currency, its GPU and count, on the page, in the API and in the CLI; the
CLI writes money as the pages do, with the currency and grouping.

QA: `catalog import offers.csv` said "1 added, 6 changed, 1 removed" and named neither the new
H200 offer nor the removed RTX 4090 one; the page's and the API's `added[]` held only kind and
key, so the new offer's price could not be checked before applying.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli import cli

from .helpers import post_form, soup

#: The shipped H100 ×1 offer at NT$50,000 → NT$45,000 (−10%), a new 8 × H200 offer, and the
#: RunPod RTX 4090 offer (US$503.70 a month) left out of the file.
NEW_ROW = (
    "stratagem-tpe-h200-x8,Stratagem Taipei,h200-sxm-141gb,8,520000,1250,TWD,,4,true,nvlink,test"
)


def edited_offers(client: TestClient) -> str:
    csv_text = client.get("/api/v1/catalog/export", params={"format": "csv", "kind": "offers"}).text
    header, *rows = csv_text.strip().splitlines()
    columns = header.lstrip("\ufeff").split(",")
    assert columns[:10] == [
        "id", "provider", "gpu_id", "gpu_count", "monthly_price", "hourly_price", "currency",
        "term_discounts", "lead_time_hours", "includes_power",
    ]  # fmt: skip
    kept = [r for r in rows if not r.startswith("runpod-secure-rtx-4090-x1,")]
    assert len(kept) == len(rows) - 1
    text = "\n".join([header, *kept, NEW_ROW + "," * (len(columns) - 12)]) + "\n"
    assert text.count(",50000,120,") == 1
    return text.replace(",50000,120,", ",45000,120,")


def test_the_api_preview_gives_each_added_and_removed_row_whole(
    catalog_client: TestClient,
) -> None:
    files = {"file": ("offers.csv", edited_offers(catalog_client).encode(), "text/csv")}
    body = catalog_client.post(
        "/api/v1/catalog/import", params={"kind": "offers"}, files=files
    ).json()
    (added,) = body["added"]
    assert added["key"] == "stratagem-tpe-h200-x8" and added["currency"] == "TWD"
    assert {k: added["values"][k] for k in ("gpu_id", "gpu_count", "monthly_price")} == {
        "gpu_id": "h200-sxm-141gb",
        "gpu_count": 8,
        "monthly_price": 520_000,
    }
    (removed,) = body["removed"]
    assert removed["key"] == "runpod-secure-rtx-4090-x1" and removed["currency"] == "USD"
    assert removed["values"]["monthly_price"] == 503.7
    assert removed["values"]["hourly_price"] == 0.69
    assert removed["values"]["gpu_id"] == "rtx-4090-24gb"
    # a changed row says what moved in `fields`, not the whole row
    assert all(c["values"] is None for c in body["changed"])


def test_the_preview_page_lists_what_each_added_and_removed_row_holds(
    catalog_client: TestClient,
) -> None:
    text = edited_offers(catalog_client)
    for lang, price, removed_price in (
        ("en", "Monthly price: NT$520,000", "Monthly price: US$503.70"),
        ("zh-TW", "每月價格：NT$520,000", "每月價格：US$503.70"),
    ):
        r = post_form(
            catalog_client, "/catalog/import", {"kind": "offers", "target": "new"},
            files={"file": ("offers.csv", text.encode(), "text/csv")},
            headers={"Accept-Language": lang},
        )  # fmt: skip
        assert r.status_code == 200, r.text
        page = soup(r.text)
        (added,) = page.select("#added-rows tbody tr")
        assert added.select_one("code").get_text() == "stratagem-tpe-h200-x8"
        said = [s.get_text() for s in added.select(".row-values span")]
        assert price in said, said
        assert any("H200" in s or "h200" in s for s in said), said
        assert any(s.endswith("8") for s in said), said  # the GPU count
        (removed,) = page.select("#removed-rows tbody tr")
        assert removed.select_one("code").get_text() == "runpod-secure-rtx-4090-x1"
        assert removed_price in [s.get_text() for s in removed.select(".row-values span")]


def test_the_cli_names_every_row_and_writes_money_with_its_currency(
    catalog_client: TestClient, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", db_url)
    offers = tmp_path / "offers.csv"
    offers.write_text(edited_offers(catalog_client), encoding="utf-8")
    for args in ([], ["--apply"]):
        r = CliRunner().invoke(cli, ["catalog", "import", str(offers), *args])
        assert r.exit_code == 0, r.output
        lines = r.output.splitlines()
        assert lines[0].startswith("1 added, 1 changed, 1 removed, 15 unchanged")
        (added,) = [x for x in lines if x.startswith("  added ")]
        assert added.startswith("  added offers:stratagem-tpe-h200-x8: ")
        assert "gpu_id: h200-sxm-141gb" in added and "gpu_count: 8" in added
        assert "monthly_price: NT$520,000" in added and "hourly_price: NT$1,250" in added
        (changed,) = [x for x in lines if x.startswith("  changed ")]
        assert changed == (
            "  changed offers:stratagem-tpe-h100-x1: monthly_price: NT$50,000 → NT$45,000 (−10%)"
        )
        (removed,) = [x for x in lines if x.startswith("  removed ")]
        assert removed.startswith("  removed offers:runpod-secure-rtx-4090-x1: ")
        assert "monthly_price: US$503.70" in removed and "hourly_price: US$0.69" in removed
