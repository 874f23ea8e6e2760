"""`stratagem catalog load / export / import / price-lists` on DATABASE_URL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import cli


@pytest.fixture
def env(empty_db_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("DATABASE_URL", empty_db_url)
    return empty_db_url


def test_load_export_and_list(env: str, tmp_path: Path) -> None:
    runner = CliRunner()
    loaded = runner.invoke(cli, ["catalog", "load"])
    assert loaded.exit_code == 0, loaded.output
    assert "17 offers" in loaded.output
    again = runner.invoke(cli, ["catalog", "load"])
    assert "already loaded" in again.output
    assert runner.invoke(cli, ["catalog", "load", "--replace"]).exit_code == 0

    listed = runner.invoke(cli, ["catalog", "price-lists"])
    assert listed.exit_code == 0 and "2026-11 list" in listed.output

    doc = json.loads(runner.invoke(cli, ["catalog", "export"]).output)
    assert doc["price_list"]["name"] == "2026-11 list" and len(doc["offers"]) == 17

    out = tmp_path / "csv"
    exported = runner.invoke(cli, ["catalog", "export", "--format", "csv", "--out", str(out)])
    assert exported.exit_code == 0, exported.output
    offers = next(out.glob("*-offers.csv"))
    assert len(list(out.glob("*.csv"))) == 8

    text = offers.read_text(encoding="utf-8").replace(",50000,120,", ",51000,120,")
    offers.write_text(text, encoding="utf-8")
    preview = runner.invoke(cli, ["catalog", "import", str(offers), "--kind", "offers"])
    assert preview.exit_code == 0, preview.output
    assert (
        "1 changed" in preview.output
        and "monthly_price: NT$50,000 → NT$51,000 (+2%)" in preview.output
    )
    applied = runner.invoke(
        cli, ["catalog", "import", str(offers), "--kind", "offers", "--apply", "--name", "cli"]
    )
    assert applied.exit_code == 0 and "applied to price list" in applied.output


def test_bad_input_exits_with_a_message(env: str, tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["catalog", "load"]).exit_code == 0
    bad = runner.invoke(cli, ["catalog", "export", "--format", "xml"])
    assert bad.exit_code == 2 and "--format must be json or csv" in bad.output
    csv_no_out = runner.invoke(cli, ["catalog", "export", "--format", "csv"])
    assert csv_no_out.exit_code == 2
    broken = tmp_path / "broken.csv"
    broken.write_bytes("id,provider\nx,戰國策\n".encode("big5"))
    rejected = runner.invoke(cli, ["catalog", "import", str(broken), "--kind", "offers"])
    assert rejected.exit_code == 1 and "not UTF-8" in rejected.output
    missing = runner.invoke(cli, ["catalog", "export", "--price-list", "999"])
    assert missing.exit_code == 2 and "no price list 999" in missing.output
