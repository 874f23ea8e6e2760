"""`stratagem catalog import` as README shows it: `catalog import offers.csv [--apply]`.

The kind comes from the file's name when it ends with one (as `catalog export` names its
files); a file that is refused prints why and no summary; an import that would change
nothing writes nothing — no empty draft to clean up.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import Session
from typer.testing import CliRunner

from app.catalog import service
from app.catalog.io import kind_from_name
from app.cli import cli
from app.db import make_engine

runner = CliRunner()


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("offers.csv", "offers"),  # README's example
        ("stratagem-price-list-1-offers.csv", "offers"),  # what `catalog export` writes
        ("stratagem-price-list-12-gpu_prices.csv", "gpu_prices"),  # not "prices", not "gpus"
        ("stratagem-price-list-1-gpus.csv", "gpus"),
        ("Rental OFFERS.CSV", "offers"),  # case and a space before the kind
        ("2026_fx.csv", "fx"),
        ("coffers.csv", None),  # "offers" inside a word is no kind
        ("prices.csv", None),
        ("catalog.csv", None),
    ],
)
def test_the_kind_a_file_name_ends_with(name: str, kind: str | None) -> None:
    assert kind_from_name(name) == kind


@pytest.fixture
def exported(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shipped list exported as CSV, one file per kind; DATABASE_URL set for the CLI."""
    monkeypatch.setenv("DATABASE_URL", db_url)
    out = tmp_path / "export"
    r = runner.invoke(cli, ["catalog", "export", "--format", "csv", "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out


def offers_export(folder: Path) -> Path:
    """stratagem-price-list-<id>-offers.csv (the id depends on the database)."""
    (path,) = folder.glob("stratagem-price-list-*-offers.csv")
    return path


def price_list_ids(db_url: str) -> list[int]:
    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            return [pl.id for pl in service.price_lists_public(session=session)]
    finally:
        engine.dispose()


def test_an_unchanged_export_imports_as_nothing_to_change(exported: Path, db_url: str) -> None:
    offers = offers_export(exported)
    before = price_list_ids(db_url)
    preview = runner.invoke(cli, ["catalog", "import", str(offers)])  # no --kind
    assert preview.exit_code == 0, preview.output
    # app/data/catalog.yaml ships 17 rental offers; the export is the list itself.
    assert preview.output.splitlines()[0] == (
        "0 added, 0 changed, 0 removed, 17 unchanged: the file matches the current price "
        "list; nothing to change"
    )
    applied = runner.invoke(cli, ["catalog", "import", str(offers), "--apply"])
    assert applied.exit_code == 0, applied.output
    assert "nothing was written (no draft created)" in applied.output
    assert "applied" not in applied.output
    assert price_list_ids(db_url) == before


def test_a_changed_row_named_offers_csv_previews_then_applies(exported: Path, db_url: str) -> None:
    offers = exported / "offers.csv"
    text = offers_export(exported).read_text(encoding="utf-8")
    assert text.count(",50000,120,") == 1  # one shipped offer at 50,000 a month
    offers.write_text(text.replace(",50000,120,", ",51000,120,"), encoding="utf-8")
    before = price_list_ids(db_url)

    preview = runner.invoke(cli, ["catalog", "import", str(offers)])
    assert preview.exit_code == 0, preview.output
    lines = preview.output.splitlines()
    assert lines[0].startswith("0 added, 1 changed, 0 removed, 16 unchanged → a new draft")
    assert (
        lines[1]
        == "  changed offers:stratagem-tpe-h100-x1: monthly_price: NT$50,000 → NT$51,000 (+2%)"
    )
    assert lines[-1] == "a preview: add --apply to write it"
    assert price_list_ids(db_url) == before

    applied = runner.invoke(cli, ["catalog", "import", str(offers), "--apply"])
    assert applied.exit_code == 0, applied.output
    assert "applied to price list" in applied.output
    assert len(price_list_ids(db_url)) == len(before) + 1


def test_a_csv_whose_name_names_no_kind_asks_for_kind(exported: Path, db_url: str) -> None:
    rates = exported / "rates.csv"
    rates.write_text("base,quote,rate\nUSD,TWD,32.5\n", encoding="utf-8")
    r = runner.invoke(cli, ["catalog", "import", str(rates), "--apply"])
    assert r.exit_code == 2
    assert r.output.startswith("error: --kind: a CSV file holds one kind")
    assert "added" not in r.output  # no summary of an import that did not happen


def test_a_refused_file_prints_why_and_no_summary(exported: Path, db_url: str) -> None:
    before = price_list_ids(db_url)
    offers = exported / "offers.csv"
    offers.write_text("id,provider\nx,Acme\n", encoding="utf-8")  # most columns missing
    r = runner.invoke(cli, ["catalog", "import", str(offers), "--apply"])
    assert r.exit_code == 1
    assert "missing columns:" in r.output  # several: plural, never "column(s)"
    assert r.output.strip().splitlines()[-1] == f"error: {offers} was refused; nothing was written"
    assert "added" not in r.output and "→" not in r.output
    assert price_list_ids(db_url) == before


def test_rejected_rows_print_their_errors_and_no_summary(exported: Path, db_url: str) -> None:
    before = price_list_ids(db_url)
    source = offers_export(exported)
    header, first, *rest = source.read_text(encoding="utf-8").splitlines()
    gpu_at = header.split(",").index("gpu_id")
    cells = first.split(",")
    cells[gpu_at] = "no-such-gpu"
    offers = exported / "offers.csv"
    offers.write_text("\n".join([header, ",".join(cells), *rest]) + "\n", encoding="utf-8")
    r = runner.invoke(cli, ["catalog", "import", str(offers), "--apply"])
    assert r.exit_code == 1
    # CSV rows are numbered as a spreadsheet shows them: the header is row 1.
    assert r.output.strip().splitlines() == [
        "error: row 2: gpu_id 'no-such-gpu' is not a known GPU",
        f"error: {offers} was refused (1 of its rows rejected); nothing was written",
    ]
    assert "added" not in r.output
    assert price_list_ids(db_url) == before
