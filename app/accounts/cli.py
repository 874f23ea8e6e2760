"""`stratagem users …` and `stratagem tokens …`: accounts from a terminal.

Each command migrates the database at DATABASE_URL to head first, so it works on a fresh one.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer
from sqlmodel import Session

from app.accounts import service
from app.accounts.models import ROLES
from app.db import make_engine, migrate
from app.settings import Settings

users_cli = typer.Typer(help="Create users (admin or sales).", no_args_is_help=True)
tokens_cli = typer.Typer(help="Create and revoke API tokens.", no_args_is_help=True)


@contextmanager
def _session() -> Iterator[Session]:
    url = Settings().database_url
    migrate(url)
    engine = make_engine(url)
    try:
        with Session(engine) as session:
            yield session
    finally:
        engine.dispose()


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


@users_cli.command("create")
def users_create(
    email: Annotated[str, typer.Option(help="Sign-in e-mail (stored lower-case).")],
    password: Annotated[str, typer.Option(help=f"At least {service.MIN_PASSWORD} characters.")],
    role: Annotated[str, typer.Option(help=" | ".join(ROLES))] = "sales",
    name: Annotated[str, typer.Option(help="Display name.")] = "",
    token_name: Annotated[
        str | None, typer.Option(help="Also issue an API token with this name (last line).")
    ] = None,
) -> None:
    """Create a user; with --token-name, also print a new API token on the last line."""
    with _session() as session:
        try:
            user = service.create_user(
                session=session, email=email, password=password, role=role, name=name
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
