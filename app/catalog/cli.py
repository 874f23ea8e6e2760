"""`stratagem catalog …`: load, reload, export, import and list price lists from a terminal.

Every command works on DATABASE_URL (migrated to head first), like `stratagem serve`; a
database that cannot be used is one `error:` line (app/cli.py `database_session`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.console import Console
from rich.table import Table
from sqlmodel import Session

from app.catalog import io, service
from app.catalog.kinds import KINDS, ORDER
from app.catalog.views import CellFormat, factor_text, shown_value
from app.cli_db import database_session

catalog_cli = typer.Typer(
    help="Keep the catalog: load the shipped data, export, import, list.", no_args_is_help=True
)
console = Console()


@contextmanager
def _session() -> Iterator[Session]:
    with database_session() as session:  # migrated first; a database problem is one line
        yield session


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


@catalog_cli.command("load")
def load_cmd(
    replace: Annotated[
        bool, typer.Option("--replace", help="Reload the shipped list's rows and the GPU specs")
    ] = False,
) -> None:
    """Load the shipped catalog (app/data) as a published price list."""
    with _session() as session:
        try:
            summary = service.load_shipped(session=session, actor="cli", replace=replace)
        except service.CatalogError as e:
            _fail(e.message)
            return
    typer.echo(summary)


@catalog_cli.command("export")
def export_cmd(
    format: Annotated[str, typer.Option("--format", help="json | csv")] = "json",
    out: Annotated[
        Path | None, typer.Option("--out", help="Folder to write to (JSON: stdout when omitted)")
    ] = None,
    price_list: Annotated[
        int | None, typer.Option("--price-list", help="Price list id (default: the current one)")
    ] = None,
) -> None:
    """Export a price list: one JSON document, or one CSV file per kind."""
    if format not in ("json", "csv"):
        _fail(f"--format must be json or csv (got {format!r})")
    if format == "csv" and out is None:
        _fail("--format csv writes one file per kind: give a folder with --out")
    with _session() as session:
        try:
            pl = service.resolve_price_list(session=session, price_list_id=price_list)
        except service.CatalogError as e:
            _fail(e.message)
            return
        assert pl.id is not None
        kinds: list[str | None] = list(ORDER) if format == "csv" else [None]
        files = [
            service.export_file(session=session, price_list_id=pl.id, fmt=format, kind=k)
            for k in kinds
        ]
    if out is None:
        typer.echo(files[0][0])
        return
    out.mkdir(parents=True, exist_ok=True)
    for body, _media, name in files:
        (out / name).write_text(body, encoding="utf-8")
        typer.echo(f"wrote {out / name}")


@catalog_cli.command("import")
def import_cmd(
    file: Annotated[Path, typer.Argument(help="A .json document/list or a .csv file")],
    kind: Annotated[
        str | None,
        typer.Option(
            help=f"For CSV / JSON lists: {', '.join(KINDS)} (a CSV's name may say it: offers.csv)"
        ),
    ] = None,
    price_list: Annotated[
        int | None, typer.Option("--price-list", help="Draft to import into (default: a new copy)")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Name of the new draft")] = None,
    upsert: Annotated[bool, typer.Option(help="Only add and change rows, never remove")] = False,
    apply: Annotated[
        bool, typer.Option("--apply", help="Write it (default: preview only)")
    ] = False,
) -> None:
    """Preview a CSV/JSON import (or apply it with --apply; all-or-nothing)."""
    try:
        data = file.read_bytes()
    except OSError as e:
        _fail(f"cannot read {file}: {e}")
        return
    fmt: io.Format = "csv" if file.suffix.lower() == ".csv" else "json"
    if fmt == "csv" and kind is None:
        kind = io.kind_from_name(file.name)
        if kind is None:
            _fail(
                f"--kind: a CSV file holds one kind, one of {', '.join(KINDS)}; give --kind, "
                f"or name the file after it (offers.csv, stratagem-price-list-1-offers.csv)"
            )
    mode: Literal["sync", "upsert"] = "upsert" if upsert else "sync"
    parsed = io.parse(data, fmt=fmt, kind=kind)
    if parsed.errors:  # the file as a whole: no rows to count, nothing to compare
        for message in parsed.errors:
            typer.echo(f"error: {message}", err=True)
        typer.echo(f"error: {file} was refused; nothing was written", err=True)
        raise typer.Exit(1)
    with _session() as session:
        try:
            result = service.preview_import(
                session=session, parsed=parsed, target=price_list, mode=mode
            )
            nothing_to_do = not (result.added or result.changed or result.removed)
            if apply and result.ok and not nothing_to_do:
                result = service.apply_import(
                    session=session,
                    parsed=parsed,
                    target=price_list,
                    actor="cli",
                    mode=mode,
                    new_name=name,
                )
        except service.CatalogError as e:
            _fail(e.message)
            return
    if not result.ok:
        for message in result.messages:
            typer.echo(f"error: {message}", err=True)
        typer.echo(
            f"error: {file} was refused ({len(result.rejected)} of its rows rejected); "
            "nothing was written",
            err=True,
        )
        raise typer.Exit(1)
    counts = (
        f"{len(result.added)} added, {len(result.changed)} changed, "
        f"{len(result.removed)} removed, {result.unchanged} unchanged"
    )
    if nothing_to_do:
        # Applied, it would only have added a draft identical to the current list.
        where = "the current price list" if price_list is None else f"price list {price_list}"
        typer.echo(f"{counts}: the file matches {where}; nothing to change")
        if apply:
            typer.echo("nothing was written (no draft created)")
        return
    typer.echo(f"{counts} → {result.target_name}")
    for line in change_lines(result):
        typer.echo(line)
    gpus = ", ".join(service.gpu_changes(result))
    if result.applied:
        typer.echo(f"applied to price list {result.price_list_id} (a draft: publish it to use it)")
        if gpus:
            typer.echo(f"GPU specs of {gpus}: in effect now for every price list (not versioned)")
    else:
        typer.echo("a preview: add --apply to write it")
        if gpus:
            typer.echo(f"GPU specs of {gpus}: --apply changes them for every price list at once")


def change_lines(result: io.ImportPreview) -> list[str]:
    """Every row an import adds, changes and removes, one line each, money with its currency
    and grouping as the pages write it ("monthly_price: NT$15,000 → NT$13,500 (−10%)"): the
    added and removed rows whole, by key (QA: "1 added … 1 removed" named neither, and the
    changes were bare floats, "15000.0 → 13500.0")."""
    cell = CellFormat()  # the CLI speaks English (no request, no language activated)
    out = []
    for c in result.added:
        out.append(f"  added {c.kind}:{c.key}: {_whole_row(c, cell)}")
    for c in result.changed:
        before = c.old_currency or c.currency
        parts = []
        for f in c.fields:
            text = (
                f"{f.field}: {shown_value(f.old, f.field, before, cell)} → "
                f"{shown_value(f.new, f.field, c.currency, cell)}"
            )
            factor = factor_text(f)
            parts.append(f"{text} ({factor})" if factor else text)
        out.append(f"  changed {c.kind}:{c.key}: " + "; ".join(parts))
    for c in result.removed:
        out.append(f"  removed {c.kind}:{c.key}: {_whole_row(c, cell)}")
    return out


def _whole_row(change: io.RowChange, cell: CellFormat) -> str:
    """An added or removed row's columns that hold a value, amounts with their currency."""
    values = change.values or {}
    key_fields = KINDS[change.kind].key_fields
    return ", ".join(
        f"{column}: {shown_value(v, column, change.currency, cell)}"
        for column, v in values.items()
        if column not in key_fields and column != "source"
    )


@catalog_cli.command("price-lists")
def price_lists_cmd() -> None:
    """List the price lists: id, name, effective date, status, current, rows."""
    with _session() as session:
        lists = service.price_lists_public(session=session)
    t = Table(title="Price lists")
    for column in ("id", "name", "effective", "status", "current", "rows"):
        t.add_column(column)
    for pl in lists:
        rows = ", ".join(f"{n} {k}" for k, n in pl.counts.items() if k != "gpus")
        t.add_row(
            str(pl.id),
            pl.name,
            pl.effective_date.isoformat(),
            pl.status,
            "✓" if pl.is_current else "",
            rows,
        )
    console.print(t)
