"""`stratagem users …` and `stratagem tokens …`: accounts from a terminal.

Each command migrates the database at DATABASE_URL to head first, so it works on a fresh one;
a database that cannot be used is one `error:` line (app/cli.py `database_session`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer
from sqlmodel import Session

from app.accounts import service
from app.accounts.models import ROLES
from app.cli_db import database_session

users_cli = typer.Typer(help="Create users (admin or sales).", no_args_is_help=True)
tokens_cli = typer.Typer(help="Create and revoke API tokens.", no_args_is_help=True)


@contextmanager
def _session() -> Iterator[Session]:
    with database_session() as session:  # migrated first; a database problem is one line
        yield session


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _stdin_is_terminal() -> bool:
    return sys.stdin.isatty()


def _password(given: str | None, from_stdin: bool) -> str:
    """The new user's password: --password, one line of standard input, or typed twice at a
    hidden prompt. Only --password puts it on the command line, where `ps` and the shell's
    history keep it."""
    if given is not None and from_stdin:
        _fail("--password-stdin: give the password one way, not with --password too")
    if given is not None:
        return given
    if from_stdin:
        line = sys.stdin.readline()
        # Only the line break goes: spaces may be part of a passphrase.
        password = line.removesuffix("\n").removesuffix("\r")
        if not password:
            _fail("--password-stdin: standard input is empty; write the password as one line")
        return password
    if not _stdin_is_terminal():
        _fail(
            "--password: not given, and standard input is not a terminal to ask on; "
            "pipe it with --password-stdin"
        )
    return str(
        typer.prompt(
            f"Password (at least {service.MIN_PASSWORD} characters)",
            hide_input=True,
            confirmation_prompt=True,
        )
    )


@users_cli.command("create")
def users_create(
    email: Annotated[str, typer.Option(help="Sign-in e-mail (stored lower-case).")],
    password: Annotated[
        str | None,
        typer.Option(
            help=f"At least {service.MIN_PASSWORD} characters. Omit it to be asked (hidden, "
            "twice), or use --password-stdin: on the command line it shows in `ps` and history."
        ),
    ] = None,
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from standard input.")
    ] = False,
    role: Annotated[str, typer.Option(help=" | ".join(ROLES))] = "sales",
    name: Annotated[str, typer.Option(help="Display name.")] = "",
    token_name: Annotated[
        str | None, typer.Option(help="Also issue an API token with this name (last line).")
    ] = None,
) -> None:
    """Create a user; with --token-name, also print a new API token on the last line."""
    secret = _password(password, password_stdin)
    with _session() as session:
        try:
            user = service.create_user(
                session=session, email=email, password=secret, role=role, name=name
            )
        except service.AccountError as e:
            _fail(f"--{e.field}: {e}")
            return
        typer.echo(f"Created {user.role} user {user.email} (id {user.id}).")
        if token_name:
            token, plaintext = service.create_token(session=session, user=user, name=token_name)
            typer.echo(f"Token {token.id} ({token.name}); shown once:")
            typer.echo(plaintext)


@tokens_cli.command("create")
def tokens_create(
    email: Annotated[str, typer.Option(help="The user the token acts as.")],
    name: Annotated[str, typer.Option(help="What the token is for, e.g. 'crm'.")],
) -> None:
    """Issue an API token; the token is printed once, on the last line."""
    with _session() as session:
        user = service.get_user_by_email(session=session, email=email)
        if user is None:
            _fail(f"--email: no user {email.strip().lower()}")
            return
        try:
            token, plaintext = service.create_token(session=session, user=user, name=name)
        except service.AccountError as e:
            _fail(f"--{e.field}: {e}")
            return
        typer.echo(f"Token {token.id} ({token.name}) for {user.email}; shown once:")
        typer.echo(plaintext)


@tokens_cli.command("revoke")
def tokens_revoke(
    id: Annotated[int, typer.Option("--id", help="The token id (from `tokens create`).")],
) -> None:
    """Revoke an API token; requests with it get 401 from now on."""
    with _session() as session:
        try:
            token = service.revoke_token(session=session, token_id=id)
        except service.AccountError as e:
            _fail(f"--{e.field}: {e}")
            return
        typer.echo(f"Revoked token {token.id} ({token.prefix}…).")
