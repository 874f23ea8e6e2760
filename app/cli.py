"""The `stratagem` command: estimate from a terminal, serve the app, keep the catalog."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from app.accounts.cli import tokens_cli, users_cli
from app.catalog.cli import catalog_cli
from app.cli_db import database_errors, fail, load_settings, prepare_or_fail
from app.engine.estimate import InputError, estimate
from app.engine.formatting import plural
from app.engine.schemas import EstimateRequest, EstimateResponse

cli = typer.Typer(help="Stratagem — plan and quote AI GPU infrastructure.", no_args_is_help=True)
cli.add_typer(catalog_cli, name="catalog")
console = Console()
cli.add_typer(users_cli, name="users")
cli.add_typer(tokens_cli, name="tokens")


@cli.command("estimate")
def estimate_cmd(
    task: Annotated[str, typer.Option(help="pretrain|full_finetune|lora|qlora|inference|image")],
    model: Annotated[str | None, typer.Option(help="Preset id, e.g. llama-3.1-70b")] = None,
    params_b: Annotated[float | None, typer.Option(help="Custom model size, 10^9 params")] = None,
    config: Annotated[Path | None, typer.Option(help="A Hugging Face config.json")] = None,
    precision: Annotated[str, typer.Option()] = "bf16",
    seq_len: Annotated[int, typer.Option()] = 4096,
    micro_batch: Annotated[int, typer.Option()] = 1,
    global_batch: Annotated[int | None, typer.Option()] = None,
    tokens: Annotated[float | None, typer.Option(help="Training tokens in total")] = None,
    epochs: Annotated[float | None, typer.Option()] = None,
    dataset_gb: Annotated[float, typer.Option()] = 0.0,
    deadline_days: Annotated[float | None, typer.Option()] = None,
    concurrency: Annotated[int, typer.Option()] = 1,
    users: Annotated[int | None, typer.Option(help="Users served at once (serving)")] = None,
    avg_context_tokens: Annotated[int, typer.Option()] = 2048,
    output_tokens: Annotated[int | None, typer.Option(help="Output tokens per request")] = None,
    ttft_s: Annotated[
        float | None, typer.Option(help="Target: first token within this many seconds")
    ] = None,
    tokens_per_s_per_user: Annotated[
        float | None, typer.Option(help="Target: output tokens/s each user gets, at least")
    ] = None,
    images: Annotated[int | None, typer.Option(help="Images to generate (task image)")] = None,
    images_per_hour: Annotated[
        float | None, typer.Option(help="Target images per hour (task image, a service)")
    ] = None,
    image_resolution: Annotated[int | None, typer.Option(help="Image side, pixels")] = None,
    image_steps: Annotated[int | None, typer.Option(help="Diffusion steps per image")] = None,
    gpu: Annotated[str | None, typer.Option(help="GPU id (`stratagem gpus` lists them)")] = None,
    gpu_count: Annotated[int | None, typer.Option()] = None,
    zero_stage: Annotated[int | None, typer.Option()] = None,
    tp: Annotated[int | None, typer.Option()] = None,
    pp: Annotated[int | None, typer.Option()] = None,
    recompute: Annotated[str | None, typer.Option()] = None,
    mfu: Annotated[float | None, typer.Option()] = None,
    interconnect: Annotated[str | None, typer.Option()] = None,
    utilization: Annotated[float | None, typer.Option()] = None,
    term_months: Annotated[int | None, typer.Option()] = None,
    rent_months: Annotated[float | None, typer.Option(help="Rental period, months")] = None,
    pricing_mode: Annotated[
        str | None, typer.Option(help="job|capacity (default: capacity for serving)")
    ] = None,
    currency: Annotated[str, typer.Option()] = "TWD",
    as_json: Annotated[bool, typer.Option("--json", help="Print the API's JSON")] = False,
    explain: Annotated[bool, typer.Option(help="Show every figure's formula and source")] = False,
) -> None:
    """Size a workload and print the plan (a table, or --json)."""
    m: dict[str, Any] = {}
    if model:
        m["preset"] = model
    if params_b is not None:
        m["params_b"] = params_b
    if config is not None:
        try:
            m["hf_config"] = json.loads(config.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            fail([f"--config: cannot read {config}: {e}"])
        except RecursionError:
            fail([f"--config: cannot read {config}: the JSON is nested too deeply"])
    body: dict[str, Any] = {
        "model": m,
        "task": task,
        "precision": precision,
        "seq_len": seq_len,
        "micro_batch": micro_batch,
        "dataset_gb": dataset_gb,
        "concurrency": concurrency,
        "avg_context_tokens": avg_context_tokens,
        "currency": currency,
    }
    optional = {
        "global_batch": global_batch,
        "tokens": tokens,
        "epochs": epochs,
        "deadline_days": deadline_days,
        "gpu": gpu,
        "gpu_count": gpu_count,
        "zero_stage": zero_stage,
        "tp": tp,
        "pp": pp,
        "recompute": recompute,
        "mfu": mfu,
        "interconnect": interconnect,
        "utilization": utilization,
        "term_months": term_months,
        "rent_months": rent_months,
        "pricing_mode": pricing_mode,
        "users": users,
        "output_tokens": output_tokens,
        "images": images,
        "images_per_hour": images_per_hour,
        "image_resolution": image_resolution,
        "image_steps": image_steps,
    }
    body.update({k: v for k, v in optional.items() if v is not None})
    slo = {"ttft_s": ttft_s, "tokens_per_s_per_user": tokens_per_s_per_user}
    if any(v is not None for v in slo.values()):
        body["slo"] = {k: v for k, v in slo.items() if v is not None}
    try:
        req = EstimateRequest.model_validate(body)
        res = estimate(req, prices=_shipped_prices())
    except ValidationError as e:
        fail(
            [
                f"{'.'.join(str(p) for p in err['loc']) or 'input'}: {err['msg']}"
                for err in e.errors()
            ]
        )
        return
    except InputError as e:
        fail([f"{e.field}: {e}"])
        return
    if as_json:
        typer.echo(res.model_dump_json(indent=2))
        return
    _print_plan(res, explain=explain)


def _shipped_prices() -> Any:
    """Prices for the CLI: the shipped price list (the CLI needs no database)."""
    try:
        from app.catalog.shipped import shipped_price_book
    except ImportError:
        return None
    return shipped_price_book()


def _print_plan(r: EstimateResponse, *, explain: bool) -> None:
    t = Table(title=f"{r.model['name']} — {r.task} ({r.precision})", show_header=False)
    t.add_column("figure", style="bold")
    t.add_column("value")
    frac = f" (MIG {r.gpu.fraction:g} slice)" if r.gpu.fraction else ""
    t.add_row("Tier", r.tier.replace("_", " "))
    t.add_row("GPUs", f"{r.gpu.count} × {r.gpu.name}{frac} on {plural(r.gpu.nodes, 'node')}")
    p = r.parallelism
    t.add_row(
        "Parallelism",
        f"DP {p.dp} · TP {p.tp} · PP {p.pp}{f' · EP {p.ep}' if p.ep > 1 else ''} · "
        f"ZeRO-{p.zero_stage} · recompute {p.recompute}",
    )
    mg = r.memory_per_gpu_gb
    t.add_row(
        "Memory per GPU",
        f"{mg.total:,.1f} GB (weights {mg.weights:,.1f}, grads {mg.gradients:,.1f}, "
        f"optimizer {mg.optimizer:,.1f}, activations {mg.activations:,.1f}, "
        f"KV {mg.kv_cache:,.1f}, overhead {mg.overhead:,.1f})",
    )
    t.add_row("Memory, one replica", f"{r.memory_gb.total:,.1f} GB")
    if r.training:
        tr = r.training
        t.add_row(
            "Training",
            f"{tr.days:,.2f} days · {tr.gpu_hours:,.0f} GPU-hours · "
            f"MFU {tr.mfu:.1%} · {tr.flops:.3g} FLOP",
        )
    if r.inference and r.inference.images_per_hour is not None:
        i = r.inference
        # Image generation (QA: `--task image --model sdxl` printed no image figure).
        t.add_row(
            "Images",
            f"{i.images_per_hour:,.0f} images/h · {i.seconds_per_image or 0:,.2f} s per image "
            "per GPU"
            + (f" · {i.batch_hours:,.2f} h for the batch" if i.batch_hours is not None else "")
            + (
                f" · {i.cost_per_image:,.2f} {(r.cost or {}).get('currency', '')} per image"
                if i.cost_per_image is not None
                else ""
            ),
        )
    elif r.inference:
        i = r.inference
        t.add_row(
            "Serving",
            f"{i.max_concurrency:,} max concurrent · {i.tokens_per_s:,.0f} tok/s "
            f"· {i.tokens_per_s_per_user:,.1f} tok/s/user · TTFT {i.time_to_first_token_s:.2f} s",
        )
    f = r.infra
    t.add_row(
        "Node",
        f"{f.cpu_cores_per_node} cores · {f.ram_gb_per_node:,} GB RAM · "
        f"{f.nvme_tb_per_node:g} TB NVMe per node",
    )
    t.add_row(
        "Storage",
        f"NVMe {f.nvme_tb:g} TB · NAS {f.nas_tb:g} TB · checkpoint "
        f"{f.checkpoint_gb:,.0f} GB ({f.checkpoint_kind})",
    )
    t.add_row(
        "Network",
        f"uplink {f.network.uplink_gbps:g} Gbps · {f.network.internal}"
        + (f" · {f.network.scale_out}" if f.network.scale_out else ""),
    )
    t.add_row("Power", f"{f.power_kw:,.1f} kW provisioned · {f.power_typical_kw:,.1f} kW typical")
    if r.cost:
        # Options by name, as the pages and the API's `name` say them (QA read "Hourly rent —
        # 1× h100-sxm-80gb"), and their billed period agreeing in number ("1 month billed").
        from app.costs.presenters import named_options

        for o in named_options(r.cost, _shipped_prices())["options"]:
            t.add_row(
                f"Cost: {o['name']}",
                (
                    f"{o['monthly_rate']:,.0f} {o['currency']}/month · "
                    if o.get("monthly_rate") is not None
                    else ""
                )
                + f"{o['total']:,.0f} {o['currency']} total "
                + f"({plural(o['billed']['quantity'], o['billed']['unit'])} billed)",
            )
    console.print(t)
    # A warning naming a cost option names it as the table above does, not by its label of
    # catalog ids ("Monthly rent — 1× h100-sxm-80gb (RunPod)").
    names: dict[str, str] = {}
    if r.cost:
        from app.costs.presenters import named_options

        named = named_options(r.cost, _shipped_prices())["options"]
        names = {str(o.get("label")): str(o.get("name")) for o in named}
    for w, n in zip(r.warnings, r.notices, strict=False):
        option = n.params.get("option")
        shown = n.template % {**n.params, "option": names[option]} if option in names else w
        console.print(f"[yellow]⚠[/yellow] {shown}")
    if explain:
        et = Table(title="How each figure was reached")
        for col in ("figure", "formula", "source"):
            et.add_column(col, overflow="fold")
        for e in r.explain:
            et.add_row(e.figure, e.formula, e.source)
        console.print(et)


def check_serve_settings(settings: Any, workers: int) -> list[str]:
    """Why these settings cannot serve with `workers` processes (empty: they can), plus
    warnings prefixed "warning: ".

    Several processes must sign cookies and CSRF tokens with one key: a key generated into
    var/secret_key is per machine (per container), so it has to come from the environment.
    """
    out: list[str] = []
    if workers > 1 and not settings.secret_key:
        out.append(
            f"--workers {workers}: set STRATAGEM_SECRET_KEY (the same value for every process "
            "and replica), e.g. python3 -c 'import secrets; print(secrets.token_urlsafe(48))'"
        )
    if workers > 1 and settings.is_sqlite:
        out.append(
            "warning: several processes on SQLite share one writer; use PostgreSQL "
            "(DATABASE_URL=postgresql+psycopg://…) for more than one process"
        )
    if not settings.is_sqlite and not settings.secret_key:
        out.append(
            "warning: STRATAGEM_SECRET_KEY is not set: this replica signs sessions with a key "
            "generated into var/secret_key; other replicas on this database will not accept them"
        )
    if 0 < len(settings.secret_key) < MIN_SECRET_KEY_CHARS:
        out.append(
            f"warning: STRATAGEM_SECRET_KEY is only {len(settings.secret_key)} "
            f"character{'' if len(settings.secret_key) == 1 else 's'} long: anyone "
            "who guesses it can sign sessions and CSRF tokens; use "
            f"{MIN_SECRET_KEY_CHARS} or more, e.g. python3 -c 'import secrets; "
            "print(secrets.token_urlsafe(48))'"
        )
    return out


#: A signing key shorter than this is guessable (the generated one is 64 characters).
MIN_SECRET_KEY_CHARS = 32


@cli.command("migrate")
def migrate_cmd() -> None:
    """Bring DATABASE_URL to the latest migration and load the shipped catalog if empty.

    Holds the migration lock (a PostgreSQL advisory lock), like `serve` does at start, so
    replicas and a one-shot `migrate` never run Alembic at the same time.
    """
    settings = load_settings()
    prepare_or_fail(settings)


@cli.command("serve")
def serve_cmd(
    host: Annotated[str, typer.Option()] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535)] = 8000,
    workers: Annotated[
        int | None,
        typer.Option(min=1, max=64, help="App processes (default: STRATAGEM_WORKERS, 1)"),
    ] = None,
) -> None:
    """Migrate the database to head, load the shipped catalog if empty, and serve."""
    import os
    import tempfile

    import uvicorn

    from app.db import safe_url
    from app.ops import logs
    from app.ops.metrics import MULTIPROC_ENV, prepare_multiprocess_dir

    settings = load_settings()
    n = workers or settings.workers
    if n > 1 and port == 0:  # every worker would bind a different free port
        typer.echo(f"error: --port 0: name the port --workers {n} processes share", err=True)
        raise typer.Exit(2)
    problems = check_serve_settings(settings, n)
    for line in problems:
        typer.echo(line if line.startswith("warning: ") else f"error: {line}", err=True)
    if any(not line.startswith("warning: ") for line in problems):
        raise typer.Exit(2)
    if n > 1 and not os.environ.get(MULTIPROC_ENV):
        # Before any worker imports prometheus_client: each then writes its samples here.
        os.environ[MULTIPROC_ENV] = tempfile.mkdtemp(prefix="stratagem-metrics-")
    if os.environ.get(MULTIPROC_ENV):
        prepare_multiprocess_dir(os.environ[MULTIPROC_ENV])
    from app.web.serving import CannotListen, check_port_free

    try:  # before migrating and before the banner: "Stratagem on …" then a bind error misled
        if port != 0:
            check_port_free(host, port)
    except CannotListen as e:
        typer.echo(f"error: {e.option} {port if e.option == '--port' else host}: {e}", err=True)
        raise typer.Exit(2) from None
    logs.configure(settings.log_format)
    prepare_or_fail(settings)
    from app.accounts.admin_hint import first_admin_hint

    hint = first_admin_hint(settings)
    if hint:
        typer.echo(_hint_for_this_install(hint))
    typer.echo(
        f"Stratagem on http://{host}:{port}  ({n} process{'es' if n > 1 else ''}, "
        f"database: {safe_url(settings.database_url)})"
    )
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "proxy_headers": True,
        "forwarded_allow_ips": settings.trusted_proxies,
        "log_config": logs.logging_config(settings.log_format),
        "access_log": False,  # the request middleware logs each request, with its id
        "server_header": False,
    }
    if n == 1:
        from app.web.serving import serve_one

        code = serve_one(uvicorn.Config("app.main:app", **options))
        if code:
            raise typer.Exit(code)
        return
    # Each worker accepts on its own SO_REUSEPORT socket (app.web.serving: why).
    from app.web.serving import PortInUse, Supervisor

    try:  # taken between the check above and now
        code = Supervisor(uvicorn.Config("app.main:app", workers=n, **options), n).run()
    except PortInUse as e:
        typer.echo(f"error: --port {port}: {e}", err=True)
        raise typer.Exit(2) from None
    if code:
        raise typer.Exit(code)


def _hint_for_this_install(hint: str) -> str:
    """The first-admin hint with the `stratagem` this install has: `.venv/bin/stratagem` in
    a checkout (as HINT says), plain `stratagem` where that is on PATH (the image)."""
    import shutil

    from app.settings import REPO_ROOT

    venv_cmd = REPO_ROOT / ".venv" / "bin" / "stratagem"
    running = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else None
    if running is not None and running.name == "stratagem":
        if running == venv_cmd.resolve():
            return hint
        found = shutil.which("stratagem")
        command = "stratagem" if found and Path(found).resolve() == running else str(running)
        return hint.replace(".venv/bin/stratagem", command)
    if venv_cmd.exists():
        return hint
    return hint.replace(".venv/bin/stratagem", "stratagem")


@cli.command("backup")
def backup_cmd(out: Annotated[Path, typer.Option("--out", help="File to write.")]) -> None:
    """Back up the whole database (SQLite online backup, or pg_dump) to --out."""
    import time

    from app.backup import BackupError, backup

    url = load_settings().database_url
    # Replacing a file is what a nightly job to one name wants, but never silently (QA: an
    # earlier backup was overwritten without a word).
    replaced = out.is_file()
    start = time.perf_counter()
    try:
        with database_errors(url):
            backup(url, out)
    except BackupError as e:
        fail([str(e)])
    took = time.perf_counter() - start
    typer.echo(
        f"backup written to {out} ({out.stat().st_size:,} bytes, {took:.1f} s)"
        + ("; it replaced the backup that was there" if replaced else "")
    )


@cli.command("restore")
def restore_cmd(
    file: Annotated[Path, typer.Argument(help="A file from `stratagem backup`.")],
) -> None:
    """Replace the whole database with a backup made by `stratagem backup`."""
    from app.backup import BackupError, restore

    url = load_settings().database_url
    try:
        with database_errors(url):
            restore(url, file)
    except BackupError as e:
        fail([str(e)])
    typer.echo(
        f"restored {file}; `stratagem migrate` (or starting the app) brings an older "
        "backup to the current schema"
    )


@cli.command("gpus")
def gpus_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="Print the API's JSON")] = False,
) -> None:
    """List the GPUs `estimate --gpu` accepts (the shipped catalog, as the CLI plans on)."""
    import dataclasses

    from app.engine.estimate import gpu_pool

    pool = gpu_pool(None, _shipped_prices())
    if as_json:  # the shape of GET /api/v1/gpus
        typer.echo(json.dumps([dataclasses.asdict(g) for g in pool], indent=2))
        return
    t = Table(title="GPUs")
    for column in ("id", "name", "memory GB", "BF16 TFLOPS", "bandwidth GB/s"):
        t.add_column(column, justify="left" if column in ("id", "name") else "right")
    for g in pool:
        t.add_row(g.id, g.name, f"{g.memory_gb:g}", f"{g.bf16_tflops:,g}", f"{g.bandwidth_gbs:,g}")
    console.print(t)


def main() -> None:
    try:
        cli()
    except KeyboardInterrupt:
        sys.exit(130)
