"""The one settings class. Every setting is listed in the README (a test checks it)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SQLITE = REPO_ROOT / "var" / "stratagem.db"


class Settings(BaseSettings):
    """Read from the environment; tests build their own and pass it to `create_app`."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore", populate_by_name=True)

    database_url: str = Field(
        default=f"sqlite:///{DEFAULT_SQLITE}",
        alias="DATABASE_URL",
        description="SQLAlchemy URL; SQLite file under var/ by default, PostgreSQL via "
        "postgresql+psycopg://user@host/db.",
    )
    secret_key: str = Field(
        default="",
        alias="STRATAGEM_SECRET_KEY",
        description="Signs session cookies and CSRF tokens; generated into var/secret_key "
        "when empty.",
    )
    default_currency: str = Field(
        default="TWD", alias="STRATAGEM_CURRENCY", description="Currency shown by default."
    )
    default_language: str = Field(
        default="zh-TW",
        alias="STRATAGEM_LANGUAGE",
        description="Language when the browser states no preference (zh-TW or en).",
    )
    load_catalog: bool = Field(
        default=True,
        alias="STRATAGEM_LOAD_CATALOG",
        description="Load the shipped catalog into an empty database on start.",
    )
    https: bool = Field(
        default=False,
        alias="STRATAGEM_HTTPS",
        description="Served over HTTPS: session cookies get the Secure flag.",
    )

    trusted_proxies: str = Field(
        default="127.0.0.1",
        alias="STRATAGEM_TRUSTED_PROXIES",
        description="Comma-separated addresses/CIDRs whose X-Forwarded-For is believed; "
        "'' trusts none.",
    )
    max_json_bytes: int = Field(
        default=1_000_000,
        ge=1_000,
        alias="STRATAGEM_MAX_JSON_BYTES",
        description="Largest request body (JSON, forms), bytes; larger is a 413 unread.",
    )
    max_upload_bytes: int = Field(
        default=10_000_000,
        ge=1_000,
        alias="STRATAGEM_MAX_CSV_BYTES",
        description="Largest catalog import (CSV or JSON file, paths ending /import), bytes.",
    )

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    def resolved_secret_key(self) -> str:
        """The configured key, or one generated once and kept in var/secret_key."""
        if self.secret_key:
            return self.secret_key
        import secrets

        path = REPO_ROOT / "var" / "secret_key"
        if path.exists():
            return path.read_text().strip()
        path.parent.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(48)
        path.write_text(key)
        path.chmod(0o600)
        return key
