"""`stratagem users create` without the password on the command line (where `ps` and the
shell's history keep it): typed twice at a hidden prompt, or piped with --password-stdin.
--password keeps working for scripts."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import Session
from typer.testing import CliRunner

from app.accounts import cli as accounts_cli
from app.accounts import service
from app.cli import cli
from app.db import make_engine

runner = CliRunner()


def signs_in(db_url: str, email: str, password: str) -> bool:
    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            return service.authenticate(session=session, email=email, password=password) is not None
    finally:
        engine.dispose()


def create(*args: str, input: str | None = None) -> tuple[int, str]:
    r = runner.invoke(cli, ["users", "create", "--email", "ann@example.com", *args], input=input)
    return r.exit_code, r.output


@pytest.mark.parametrize(
    "password",
    [
        "long enough pw",
        "  spaced pass phrase  ",  # only the line break is dropped, not the spaces
    ],
)
def test_password_stdin_takes_one_line(db_url: str, password: str) -> None:
    code, output = create("--password-stdin", input=f"{password}\n")
    assert code == 0, output
    assert output.strip() == "Created sales user ann@example.com (id 1)."
    assert signs_in(db_url, "ann@example.com", password)


def test_a_terminal_is_asked_twice_without_echo(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(accounts_cli, "_stdin_is_terminal", lambda: True)
    code, output = create(input="first try pw\nsecond try\nlong enough pw\nlong enough pw\n")
    assert code == 0, output
    assert "do not match" in output  # the first pair differed: asked again
    assert "long enough pw" not in output and "first try pw" not in output
    assert signs_in(db_url, "ann@example.com", "long enough pw")


def test_the_password_option_still_works(db_url: str) -> None:
    code, output = create("--password", "long enough pw", "--role", "admin")
    assert code == 0, output
    assert signs_in(db_url, "ann@example.com", "long enough pw")


@pytest.mark.parametrize(
    ("args", "input", "message"),
    [
        # no --password, and stdin is a pipe: nobody to ask
        ((), "", "error: --password: not given, and standard input is not a terminal to ask on"),
        (("--password-stdin",), "", "error: --password-stdin: standard input is empty"),
        (("--password-stdin",), "\n", "error: --password-stdin: standard input is empty"),
        (
            ("--password-stdin", "--password", "long enough pw"),
            "long enough pw\n",
            "error: --password-stdin: give the password one way, not with --password too",
        ),
        (("--password-stdin",), "short\n", "error: --password: "),  # the usual length check
    ],
)
def test_no_usable_password_is_one_error(
    db_url: str, args: tuple[str, ...], input: str, message: str
) -> None:
    code, output = create(*args, input=input)
    assert code == 2
    assert output.startswith(message) and len(output.strip().splitlines()) == 1, output
    database = Path(db_url.removeprefix("sqlite:///"))
    # Refused before the database is opened, or (too short) by create_user: no user either way.
    assert not database.exists() or not signs_in(db_url, "ann@example.com", "long enough pw")
