"""Users, Argon2 passwords, bearer tokens and role checks."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher
from fastapi import Depends, FastAPI
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.accounts import service
from app.accounts.deps import require_role
from app.accounts.models import ApiToken, User
from tests.accounts.helpers import PASSWORD, MakeAccount


def _session(client: TestClient) -> Session:
    return Session(client.app.state.engine)  # type: ignore[attr-defined]


def test_password_is_stored_as_argon2_and_checked(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    with _session(client) as s:
        user = s.get(User, a.user.id)
        assert user is not None
        assert user.email == user.email.lower() and user.email.endswith("@example.com")
        assert user.password_hash.startswith("$argon2id$")
        assert PASSWORD not in user.password_hash
        assert service.authenticate(session=s, email=user.email.upper(), password=PASSWORD)
        assert service.authenticate(session=s, email=user.email, password=PASSWORD + "x") is None
        assert (
            service.authenticate(session=s, email="nobody@example.com", password=PASSWORD) is None
        )


def test_weak_hash_is_upgraded_on_sign_in(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    weak = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1).hash(PASSWORD)
    with _session(client) as s:
        user = s.get(User, a.user.id)
        assert user is not None
        user.password_hash = weak
        s.add(user)
        s.commit()
        assert service.authenticate(session=s, email=user.email, password=PASSWORD)
        s.refresh(user)
        assert user.password_hash != weak and user.password_hash.startswith("$argon2id$")


@pytest.mark.parametrize(
    ("email", "password", "role", "field"),
    [
        ("not-an-email", "long enough password", "sales", "email"),
        ("ok@example.com", "short", "sales", "password"),
        ("ok@example.com", "long enough password", "boss", "role"),
    ],
)
def test_create_user_validates(
    client: TestClient, email: str, password: str, role: str, field: str
) -> None:
    with _session(client) as s, pytest.raises(service.AccountError) as e:
        service.create_user(session=s, email=email, password=password, role=role)
    assert e.value.field == field


def test_duplicate_email_is_refused(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    with _session(client) as s, pytest.raises(service.AccountError, match="already exists"):
        service.create_user(session=s, email=a.user.email.upper(), password=PASSWORD, role="sales")


def test_token_is_stored_hashed_with_a_prefix(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    assert a.token.startswith("stg_") and len(a.token) > 40
    with _session(client) as s:
        row = s.exec(select(ApiToken).where(ApiToken.user_id == a.user.id)).one()
        assert row.token_hash != a.token and len(row.token_hash) == 64
        assert a.token.startswith(row.prefix) and len(row.prefix) == 12


def test_bearer_token_authenticates(client: TestClient, account: MakeAccount) -> None:
    a = account("admin")
    r = client.get("/api/v1/me", headers=a.headers)
    assert r.status_code == 200
    assert r.json()["email"] == a.user.email and r.json()["role"] == "admin"
    assert "password_hash" not in r.json()


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer stg_not-a-real-token"},
        {"Authorization": "Bearer "},
        {"Authorization": "Basic dXNlcjpwYXNz"},
    ],
    ids=["missing", "invalid", "empty", "wrong-scheme"],
)
def test_missing_or_invalid_token_is_401(client: TestClient, headers: dict[str, str]) -> None:
    r = client.get("/api/v1/me", headers=headers)
    assert r.status_code == 401
    assert r.headers["www-authenticate"].startswith("Bearer")
    assert client.get("/api/v1/plans", headers=headers).status_code == 401


def test_revoked_token_is_401(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    assert client.get("/api/v1/me", headers=a.headers).status_code == 200
    with _session(client) as s:
        row = s.exec(select(ApiToken).where(ApiToken.user_id == a.user.id)).one()
        assert row.last_used_at is not None
        assert row.id is not None
        service.revoke_token(session=s, token_id=row.id)
    r = client.get("/api/v1/me", headers=a.headers)
    assert r.status_code == 401 and 'error="invalid_token"' in r.headers["www-authenticate"]


def test_inactive_user_token_is_401(client: TestClient, account: MakeAccount) -> None:
    a = account("sales")
    with _session(client) as s:
        user = s.get(User, a.user.id)
        assert user is not None
        user.is_active = False
        s.add(user)
        s.commit()
    assert client.get("/api/v1/me", headers=a.headers).status_code == 401


def test_require_role(client: TestClient, account: MakeAccount) -> None:
    app = FastAPI()
    app.state.engine = client.app.state.engine  # type: ignore[attr-defined]

    @app.get("/admin-only", dependencies=[Depends(require_role("admin"))])
    def admin_only() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/staff", dependencies=[Depends(require_role("admin", "sales"))])
    def staff() -> dict[str, bool]:
        return {"ok": True}

    admin, sales = account("admin"), account("sales")
    with TestClient(app) as c:
        assert c.get("/admin-only", headers=admin.headers).status_code == 200
        r = c.get("/admin-only", headers=sales.headers)
        assert r.status_code == 403 and "admin" in r.json()["detail"]
        assert c.get("/admin-only").status_code == 401
        assert c.get("/staff", headers=sales.headers).status_code == 200
    with pytest.raises(ValueError, match="unknown roles"):
        require_role("boss")


@pytest.mark.parametrize(
    ("lang", "said"), [("en", "requires role admin (you are sales)"),
                       ("zh-TW", "需要 admin 角色（您目前是 sales）")],
)  # fmt: skip
def test_a_wrong_role_is_refused_in_the_requests_language(
    client: TestClient, account: MakeAccount, lang: str, said: str
) -> None:
    """QA: approving a discount as a sales user answered an English 403 to a client that
    asked in 中文, while the 409 before it was in 中文."""
    sales = account("sales")
    r = client.post(
        "/api/v1/plans/1/approve-discount", headers={**sales.headers, "Accept-Language": lang}
    )
    assert r.status_code == 403
    assert r.json()["detail"] == said


def test_a_wrong_role_is_refused_in_english_when_no_language_is_asked(
    client: TestClient, account: MakeAccount
) -> None:
    """The JSON API answers in English unless asked (README): a bare 403 was Chinese, the
    pages' default language, while the API's 401 and 422 were English (QA)."""
    sales = account("sales")
    for path in ("/api/v1/plans/1/approve-discount", "/api/v1/catalog/import"):
        r = client.post(path, headers=sales.headers)
        assert r.status_code == 403
        assert r.json()["detail"] == "requires role admin (you are sales)"
