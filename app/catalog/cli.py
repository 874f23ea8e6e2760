"""`stratagem catalog …`: load, reload, export and list price lists from a terminal.

Every command works on DATABASE_URL (migrated to head first), like `stratagem serve`.
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

catalog_cli = typer.Typer(
    help="Keep the catalog: load the shipped data, export, list.", no_args_is_help=True
)
console = Console()


@contextmanager
def _session() -> Iterator[Session]:
    from app.db import make_engine, migrate
    from app.settings import Settings

    settings = Settings()
    migrate(settings.database_url)
    engine = make_engine(settings.database_url)
    try:
        with Session(engine) as session:
            yield session
    finally:
        engine.dispose()


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
        str | None, typer.Option(help=f"For CSV / JSON lists: {', '.join(KINDS)}")
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
    mode: Literal["sync", "upsert"] = "upsert" if upsert else "sync"
    parsed = io.parse(data, fmt=fmt, kind=kind)
    with _session() as session:
        try:
            if apply:
                result = service.apply_import(
                    session=session,
                    parsed=parsed,
                    target=price_list,
                    actor="cli",
                    mode=mode,
                    new_name=name,
                )
            else:
                result = service.preview_import(
                    session=session, parsed=parsed, target=price_list, mode=mode
                )
        except service.CatalogError as e:
            _fail(e.message)
            return
    typer.echo(
        f"{len(result.added)} added, {len(result.changed)} changed, {len(result.removed)} "
        f"removed, {result.unchanged} unchanged, {len(result.rejected)} rejected "
        f"→ {result.target_name}"
    )
    for c in result.changed:
        changes = "; ".join(f"{f.field}: {f.old} → {f.new}" for f in c.fields)
        typer.echo(f"  changed {c.kind}:{c.key}: {changes}")
    for message in result.messages:
        typer.echo(f"error: {message}", err=True)
    if not result.ok:
        raise typer.Exit(1)
    if result.applied:
        typer.echo(f"applied to price list {result.price_list_id} (a draft: publish it to use it)")


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
