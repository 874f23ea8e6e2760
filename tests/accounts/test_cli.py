"""`stratagem users create`, `tokens create`, `tokens revoke` against their own database."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli import cli
from app.main import create_app
from app.settings import Settings

runner = CliRunner()


def test_users_and_tokens_from_the_command_line(db_url: str) -> None:
    r = runner.invoke(
        cli,
        [
            "users",
            "create",
            "--email",
            "Ann@Example.com",
            "--password",
            "long enough pw",
            "--role",
            "admin",
            "--name",
            "Ann",
            "--token-name",
            "laptop",
        ],
    )
    assert r.exit_code == 0, r.output
    first = r.output.strip().splitlines()[-1]
    assert first.startswith("stg_")

    r = runner.invoke(cli, ["tokens", "create", "--email", "ann@example.com", "--name", "crm"])
    assert r.exit_code == 0, r.output
    token = r.output.strip().splitlines()[-1]
    assert token.startswith("stg_") and token != first
    token_id = int(r.output.split("Token ", 1)[1].split(" ", 1)[0])

    with TestClient(create_app(Settings(DATABASE_URL=db_url))) as c:
        me = c.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
        assert me.status_code == 200 and me.json()["email"] == "ann@example.com"
        assert me.json()["role"] == "admin"
        r = runner.invoke(cli, ["tokens", "revoke", "--id", str(token_id)])
        assert r.exit_code == 0, r.output
        gone = c.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
        assert gone.status_code == 401


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--email", "nope", "--password", "long enough pw"], "--email"),
        (["--email", "a@b.co", "--password", "short"], "--password"),
        (["--email", "a@b.co", "--password", "long enough pw", "--role", "boss"], "--role"),
    ],
)
def test_users_create_refuses_bad_input(db_url: str, args: list[str], message: str) -> None:
    r = runner.invoke(cli, ["users", "create", *args])
    assert r.exit_code == 2
    assert message in r.output


def test_tokens_for_unknown_user_or_token(db_url: str) -> None:
    r = runner.invoke(cli, ["tokens", "create", "--email", "ghost@example.com", "--name", "x"])
    assert r.exit_code == 2 and "no user" in r.output
    r = runner.invoke(cli, ["tokens", "revoke", "--id", "9999"])
    assert r.exit_code == 2 and "no token" in r.output
