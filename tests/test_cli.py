"""The stratagem command line."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from app.cli import cli
from app.db import head_revisions, make_engine, migrate, safe_url
from app.settings import REPO_ROOT
from tests.scratch_db import BACKENDS, scratch_databases

runner = CliRunner()


def test_estimate_json_matches_the_api_shape() -> None:
    r = runner.invoke(
        cli,
        [
            "estimate",
            "--model",
            "llama-2-13b",
            "--task",
            "full_finetune",
            "--seq-len",
            "2048",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    body = json.loads(r.output)
    # T2: 13B full fine-tuning needs several GPUs in one node (≈260 GB of states and
    # activations); with ZeRO-3 at 2,048 tokens the exact search fits it on 3 × 80 GB.
    assert body["tier"] == "multi_gpu" and body["gpu"]["count"] in (3, 4)
    assert body["memory_per_gpu_gb"]["total"] <= 80


def test_estimate_table_and_explain() -> None:
    r = runner.invoke(cli, ["estimate", "--model", "llama-2-7b", "--task", "lora", "--explain"])
    assert r.exit_code == 0, r.output
    assert "Tier" in r.output and "single gpu" in r.output and "Korthikanti" in r.output


def test_estimate_names_cost_options_and_says_one_month_in_the_singular() -> None:
    """QA: the table read "Cost: Hourly rent — 1× h100-sxm-80gb …" (a catalog id) and "(1
    months billed)". A 3-hour LoRA on one H100 (its monthly rent bills 1 whole month)."""
    r = runner.invoke(
        cli,
        ["estimate", "--model", "llama-3.1-8b", "--task", "lora", "--tokens", "1e8",
         "--gpu", "h100-sxm-80gb", "--gpu-count", "1"],
        terminal_width=200,
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "(1 month billed)" in r.output and "1 months" not in r.output
    assert "H100 SXM5 80GB" in r.output and "h100-sxm-80gb" not in r.output


def test_estimate_takes_serving_targets_and_image_work() -> None:
    """QA: an integrator could not plan a service to its targets or an image batch from the
    CLI (no --users, --ttft-s, --tokens-per-s-per-user, --output-tokens, --images…), and
    `--task image` printed no image figure. The JSON is the API's: the targets reach the
    engine (a 1 s first token, 20 tokens/s a user, for 500 users)."""
    r = runner.invoke(
        cli,
        ["estimate", "--model", "llama-3.1-8b", "--task", "inference", "--users", "500",
         "--ttft-s", "1", "--tokens-per-s-per-user", "20", "--output-tokens", "512",
         "--json"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    inf = json.loads(r.output)["inference"]
    assert inf["replicas"] * inf["concurrency_per_replica"] >= 500 and inf["meets_slo"] is True
    assert inf["tokens_per_s_per_user"] >= 20 and inf["time_to_first_token_s"] <= 1
    img = runner.invoke(
        cli,
        ["estimate", "--model", "sdxl", "--task", "image", "--images", "5000"],
        terminal_width=200,
    )
    assert img.exit_code == 0, img.output
    assert "images/h" in img.output and "s per image" in img.output


def test_bad_input_names_the_field_and_exits_2() -> None:
    r = runner.invoke(
        cli, ["estimate", "--model", "llama-2-7b", "--task", "lora", "--deadline-days", "-1"]
    )
    assert r.exit_code == 2
    assert "deadline_days" in r.output


# --------------------------------------------------------------------------------------------
# A database that cannot be used: one `error:` line, exit 2, for every command that uses it
# --------------------------------------------------------------------------------------------

PASSWORD = "s3cret-pw"  # must never reach the terminal


def closed_port() -> int:
    """A local TCP port nobody listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: Every command that reads or writes DATABASE_URL, with arguments that get it there
#: ({tmp}: the test's folder). restore is tested below: it needs a real backup first.
DATABASE_COMMANDS = {
    "migrate": ["migrate"],
    "catalog load": ["catalog", "load"],
    "catalog export": ["catalog", "export"],
    "catalog import": ["catalog", "import", "{tmp}/fx.json"],
    "catalog price-lists": ["catalog", "price-lists"],
    "users create": ["users", "create", "--email", "a@example.com", "--password", "long enough pw"],
    "tokens create": ["tokens", "create", "--email", "a@example.com", "--name", "crm"],
    "tokens revoke": ["tokens", "revoke", "--id", "1"],
    "backup": ["backup", "--out", "{tmp}/x.backup"],
}


@pytest.mark.parametrize("args", DATABASE_COMMANDS.values(), ids=DATABASE_COMMANDS.keys())
def test_an_unreachable_database_is_one_line_without_the_password(
    args: list[str], tmp_path: Path
) -> None:
    # Valid to parse: an import opens the database only after reading the file.
    (tmp_path / "fx.json").write_text(json.dumps({"fx": [{"base": "USD", "quote": "TWD"}]}))
    port = closed_port()
    url = f"postgresql+psycopg://stratagem:{PASSWORD}@127.0.0.1:{port}/stratagem"
    r = runner.invoke(cli, [a.format(tmp=tmp_path) for a in args], env={"DATABASE_URL": url})
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.output
    assert PASSWORD not in r.output
    assert f"port {port} failed: Connection refused" in lines[0] or (
        args[0] == "backup" and "pg_dump is not installed" in lines[0]  # no PostgreSQL client
    )
    if args[0] != "backup":  # that one reports what pg_dump said
        assert lines[0].startswith(
            f"error: DATABASE_URL (postgresql+psycopg://stratagem:***@127.0.0.1:{port}/stratagem)"
            ": cannot open or reach the database: "
        )


@pytest.mark.postgres
def test_restore_into_an_unreachable_database_is_one_line(tmp_path: Path) -> None:
    with scratch_databases("postgres", tmp_path) as create:
        source = create()
        migrate(source)
        dump = tmp_path / "real.backup"
        made = runner.invoke(cli, ["backup", "--out", str(dump)], env={"DATABASE_URL": source})
        assert made.exit_code == 0, made.output
    port = closed_port()
    url = f"postgresql+psycopg://stratagem:{PASSWORD}@127.0.0.1:{port}/stratagem"
    r = runner.invoke(cli, ["restore", str(dump)], env={"DATABASE_URL": url})
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and PASSWORD not in r.output
    assert lines[0].startswith("error: restore failed, the database is unchanged: ")
    assert f"port {port} failed: Connection refused" in lines[0]


def test_a_database_url_that_is_no_url_is_one_line(tmp_path: Path) -> None:
    r = runner.invoke(cli, ["catalog", "price-lists"], env={"DATABASE_URL": "not a url"})
    assert r.exit_code == 2
    assert r.output.strip() == (
        "error: DATABASE_URL (not a url): not a database URL "
        "(sqlite:///path or postgresql+psycopg://…)"
    )


@pytest.mark.parametrize("command", ["backup", "restore"])
def test_backup_and_restore_name_a_bad_setting_in_one_line(command: str, tmp_path: Path) -> None:
    arg = ["--out", str(tmp_path / "x.db")] if command == "backup" else [str(tmp_path / "x.db")]
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'live.db'}", "STRATAGEM_WORKERS": "abc"}
    r = runner.invoke(cli, [command, *arg], env=env)
    assert r.exit_code == 2
    assert r.output.strip() == (
        "error: STRATAGEM_WORKERS: Input should be a valid integer, unable to parse string as "
        "an integer (got 'abc')"
    )


@pytest.fixture(params=BACKENDS)
def scratch(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], str]]:
    with scratch_databases(str(request.param), tmp_path) as create:
        yield create


def test_tables_that_do_not_match_alembic_version_are_one_line(
    scratch: Callable[[], str],
) -> None:
    """A database at head whose alembic_version says 0007 (what a restore that kept the
    newer tables left): 0008 meets its own table — PostgreSQL's ProgrammingError
    (DuplicateTable), SQLite's OperationalError — and `migrate` says so in one line."""
    url = scratch()
    migrate(url)
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0007_text_limits'"))
    engine.dispose()
    r = runner.invoke(cli, ["migrate"], env={"DATABASE_URL": url})
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert lines[-1].startswith("error: DATABASE_URL (") and "Traceback" not in r.output
    assert "the database refused a statement" in lines[-1] and "rate_hit" in lines[-1]
    assert "already exists" in lines[-1] and "stratagem restore" in lines[-1]
    # Only the migration's own progress lines may come before it (alembic's log).
    assert all(not line.startswith("error:") for line in lines[:-1])


# --------------------------------------------------------------------------------------------
# Help that points at real commands
# --------------------------------------------------------------------------------------------


def test_gpus_lists_what_estimate_gpu_accepts() -> None:
    r = runner.invoke(cli, ["gpus", "--json"])
    assert r.exit_code == 0, r.output
    gpus = {g["id"]: g for g in json.loads(r.output)}
    # app/data/gpus.yaml: the H100 SXM5 has 80 GB of HBM3 at 3,350 GB/s, 989 dense BF16 TFLOPS.
    h100 = gpus["h100-sxm-80gb"]
    assert (h100["memory_gb"], h100["bandwidth_gbs"], h100["bf16_tflops"]) == (80, 3350, 989)
    table = runner.invoke(cli, ["gpus"])
    assert table.exit_code == 0 and "h100-sxm-80gb" in table.output
    for gpu_id in ("h200-sxm-141gb", "l40s-48gb"):
        est = runner.invoke(
            cli, ["estimate", "--model", "llama-2-7b", "--task", "lora", "--gpu", gpu_id, "--json"]
        )
        assert est.exit_code == 0, est.output
        assert json.loads(est.output)["gpu"]["id"] == gpu_id


def test_every_command_the_help_or_readme_names_exists() -> None:
    """`estimate --gpu` points at `stratagem gpus`; README's command-line section lists
    every command and subcommand, and only real ones."""
    # A wide terminal (rich reads COLUMNS, not click's terminal_width): the option column grew
    # with --tokens-per-s-per-user, and at 80 columns the help wraps inside the name.
    estimate_help = runner.invoke(cli, ["estimate", "--help"], env={"COLUMNS": "200"}).output
    assert "stratagem gpus" in estimate_help
    commands = _commands()
    assert "gpus" in commands
    section = README.read_text(encoding="utf-8").split("## Command line", 1)[1]
    section = section.split("\n## ", 1)[0]
    named = {
        f"{first} {second}" if first in _groups() else first
        for first, second in re.findall(r"\.venv/bin/stratagem ([a-z-]+) ?([a-z-]*)", section)
    }
    assert named == commands


README = Path(__file__).resolve().parents[1] / "README.md"


def _groups() -> set[str]:
    from typer.main import get_group

    return {n for n, c in get_group(cli).commands.items() if hasattr(c, "commands")}


def _commands() -> set[str]:
    """Every command, subcommands as "group name": {"estimate", "catalog load", …}."""
    from typer.main import get_group

    out: set[str] = set()
    for name, command in get_group(cli).commands.items():
        sub = getattr(command, "commands", None)
        out.update(f"{name} {s}" for s in sub) if sub else out.add(name)
    return out


def test_a_failing_query_of_a_command_keeps_its_traceback(tmp_path: Path) -> None:
    # Review: every error inside a command's session read as "the database refused a
    # statement", so a bug in the command's own query lost its traceback. A database at
    # head whose price_list table is gone: the query fails and says where, exit status 1.
    url = f"sqlite:///{tmp_path / 'broken.db'}"
    migrate(url)
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE price_list"))
    engine.dispose()
    r = CliRunner().invoke(cli, ["catalog", "price-lists"], env={"DATABASE_URL": url})
    assert r.exit_code == 1
    assert r.exception is not None and "no such table: price_list" in str(r.exception)


# --------------------------------------------------------------------------------------------
# migrate says what it did; a mistyped SQLite path is refused
# --------------------------------------------------------------------------------------------


def test_migrate_says_which_migrations_it_applied(tmp_path: Path) -> None:
    """A new database gets every migration, an up-to-date one none, and one an upgrade finds
    behind gets the ones it lacks — each said with the revisions (an operator reads whether
    the upgrade changed the schema)."""
    url = f"sqlite:///{tmp_path / 'app.db'}"
    env = {"DATABASE_URL": url}
    (head,) = head_revisions()
    every = sorted(p.stem for p in (REPO_ROOT / "migrations" / "versions").glob("0*.py"))
    assert every[-1] == head

    r = runner.invoke(cli, ["migrate"], env=env)
    assert r.exit_code == 0, r.output
    assert f"Database {url} created at the latest migration ({head}): {len(every)} " \
        "migrations applied." in r.output  # fmt: skip

    r = runner.invoke(cli, ["migrate"], env=env)
    assert f"Database {url} already at the latest migration ({head}); nothing to apply." in (
        r.output
    )

    older = f"sqlite:///{tmp_path / 'older.db'}"
    migrate(older, every[-2])  # as the release before this one left it
    r = runner.invoke(cli, ["migrate"], env={"DATABASE_URL": older})
    assert r.exit_code == 0, r.output
    assert f"Database {older} migrated from {every[-2]} to {head}: 1 migration applied." in (
        r.output
    )


def test_a_sqlite_path_in_a_folder_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    """QA: a mistyped DATABASE_URL made the folder and an empty database with the shipped
    catalog, which the app then served as if the data were gone."""
    typo = tmp_path / "stratagm" / "app.db"
    for args in (["migrate"], ["catalog", "price-lists"], ["serve", "--port", "1"]):
        r = runner.invoke(cli, args, env={"DATABASE_URL": f"sqlite:///{typo}"})
        assert r.exit_code == 2, (args, r.output)
        assert r.output.strip() == (
            f"error: DATABASE_URL (sqlite:///{typo}): the folder {typo.parent} does not exist; "
            f"create it (mkdir -p {typo.parent}) or correct the path — a new SQLite database "
            "is only made in a folder that exists, so that a mistyped path never starts an "
            "empty one"
        )
    assert not typo.parent.exists()
    # In a folder that exists, a new database is made (the first start of a deployment).
    r = runner.invoke(cli, ["migrate"], env={"DATABASE_URL": f"sqlite:///{tmp_path / 'new.db'}"})
    assert r.exit_code == 0 and (tmp_path / "new.db").exists()


# `serve` configures the process's logging onto the runner's stream, which later tests would
# write to after it closed: tests/ops/test_serve_workers.py runs it in a process of its own.
@pytest.mark.parametrize("command", [["migrate"], ["catalog", "load"], ["catalog", "price-lists"]])
def test_a_file_that_is_no_sqlite_database_is_one_line(command: list[str], tmp_path: Path) -> None:
    """QA: a text file at DATABASE_URL's path ended `migrate` and `serve` in a traceback
    (DatabaseError: file is not a database); `backup` and `restore` already said it in a line."""
    junk = tmp_path / "notes.db"
    junk.write_text("hello\n")
    r = runner.invoke(cli, command, env={"DATABASE_URL": f"sqlite:///{junk}"})
    assert r.exit_code == 2, r.output
    assert r.output.strip().splitlines()[-1] == (
        f"error: DATABASE_URL (sqlite:///{junk}): not a usable SQLite database: "
        "file is not a database"
    )
    assert junk.read_text() == "hello\n"  # left as it was


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:"])
def test_an_in_memory_sqlite_database_is_refused(url: str) -> None:
    """Every connection opens a new, empty in-memory database: `migrate` said "created … 13
    migrations applied" and the next query failed on "no such table" (QA)."""
    r = runner.invoke(cli, ["migrate"], env={"DATABASE_URL": url})
    assert r.exit_code == 2
    assert r.output.strip() == (
        f"error: DATABASE_URL ({safe_url(url)}): an in-memory SQLite database lasts one "
        "connection; "
        "name a file (sqlite:///path/to/stratagem.db)"
    )
