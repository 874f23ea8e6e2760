"""The one settings class. Every setting is listed in the README (a test checks it)."""

from __future__ import annotations

import ipaddress
from decimal import Decimal
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, ValidationInfo, field_validator
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
    default_currency: Literal["TWD", "USD"] = Field(
        default="TWD",
        alias="STRATAGEM_CURRENCY",
        description="Currency shown by default: TWD or USD.",
    )
    default_language: Literal["zh-TW", "en"] = Field(
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

    workers: int = Field(
        default=1,
        ge=1,
        le=64,
        alias="STRATAGEM_WORKERS",
        description="App processes `stratagem serve` starts (uvicorn workers); more than one "
        "needs STRATAGEM_SECRET_KEY.",
    )
    trusted_proxies: str = Field(
        default="127.0.0.1",
        alias="STRATAGEM_TRUSTED_PROXIES",
        description="Comma-separated addresses or networks whose X-Forwarded-For/-Proto "
        "headers are believed (the reverse proxy); '*' trusts every peer.",
    )
    pdf_workers: int = Field(
        default=1,
        ge=0,
        le=32,
        alias="STRATAGEM_PDF_WORKERS",
        description="Processes that render PDF quotes beside each app process (started on "
        "the first quote); 0 renders in the request's own process.",
    )
    pdf_priority: Literal["idle", "nice"] = Field(
        default="idle",
        alias="STRATAGEM_PDF_PRIORITY",
        description="CPU priority of the PDF workers and their Chromium: 'idle' (Linux "
        "SCHED_IDLE: only CPU time nothing else wants, so quotes never slow the planner but "
        "wait while the machine is saturated) or 'nice' (nice 10: a smaller share, never "
        "starved).",
    )
    pdf_warm: bool = Field(
        default=False,
        alias="STRATAGEM_PDF_WARM",
        description="Start the PDF worker (its Chromium, WeasyPrint and fonts) when the app "
        "starts instead of on the first quote, so the first quote costs what every quote does.",
    )
    metrics_allow: str = Field(
        default="127.0.0.1,::1",
        alias="STRATAGEM_METRICS_ALLOW",
        description="Comma-separated addresses or networks that may read /metrics.",
    )
    metrics_token: str = Field(
        default="",
        alias="STRATAGEM_METRICS_TOKEN",
        description="A bearer token that also opens /metrics (from any address); empty: none.",
    )
    log_format: Literal["json", "text"] = Field(
        default="json",
        alias="STRATAGEM_LOG_FORMAT",
        description="Log lines as JSON objects (one per line, with the request id) or text.",
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
    max_concurrent_requests: int = Field(
        default=10,
        ge=1,
        le=64,
        alias="STRATAGEM_MAX_CONCURRENT_REQUESTS",
        description="Requests one app process works on at once; more wait their turn (a 503 "
        "with Retry-After after STRATAGEM_QUEUE_TIMEOUT_S). The database pool holds twice "
        "as many connections, so a request never waits for one another request holds.",
    )
    queue_timeout_s: float = Field(
        default=30.0,
        gt=0,
        le=600,
        alias="STRATAGEM_QUEUE_TIMEOUT_S",
        description="Longest a request waits for its turn before a 503 with Retry-After, s.",
    )
    redis_url: str = Field(
        default="",
        alias="REDIS_URL",
        description="redis://host:port/db for the rate-limit counters (shared by every app "
        "process and replica); empty: they are kept in the database.",
    )
    redis_prefix: str = Field(
        default="stratagem:rl:",
        max_length=64,
        alias="STRATAGEM_REDIS_PREFIX",
        description="Prefix of the rate-limit keys in Redis (several apps may share one).",
    )
    public_url: str = Field(
        default="",
        max_length=500,
        alias="STRATAGEM_PUBLIC_URL",
        description="The address customers reach this app at (https://quotes.example.com), "
        "used in share links; empty: the address of the request that made the link.",
    )
    # The seller on every quote (the PDF's letterhead and the share page), PRODUCT.md §6.
    company_name: str = Field(
        default="Stratagem", alias="STRATAGEM_COMPANY_NAME", description="Seller's company name."
    )
    company_address: str = Field(
        default="", alias="STRATAGEM_COMPANY_ADDRESS", description="Seller's address."
    )
    company_tax_id: str = Field(
        default="", alias="STRATAGEM_COMPANY_TAX_ID", description="Seller's 統一編號 (8 digits)."
    )
    company_contact: str = Field(
        default="",
        alias="STRATAGEM_COMPANY_CONTACT",
        description="Seller's contact line (phone, e-mail) on every quote.",
    )
    payment_terms: str = Field(
        default="",
        alias="STRATAGEM_PAYMENT_TERMS",
        description="Default payment terms of a new quote; empty: the standard sentence in "
        "the customer's language.",
    )
    sales_discount_limit_pct: Decimal = Field(
        default=Decimal(10),
        ge=0,
        le=100,
        alias="STRATAGEM_SALES_DISCOUNT_LIMIT_PCT",
        description="Deepest discount (%) a sales user may send without an admin's approval.",
    )

    @field_validator("redis_url")
    @classmethod
    def _redis_scheme(cls, v: str) -> str:
        """Refused at start, in one line, rather than as a traceback from the Redis client."""
        if v and not v.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("must start with redis://, rediss:// or unix:// (or be empty)")
        return v

    @field_validator("default_currency", mode="before")
    @classmethod
    def _currency_code(cls, v: object) -> object:
        """'usd' is USD, as the currency switch reads it; EUR is refused at start (QA: it
        started, and pages showed TWD)."""
        return v.strip().upper() if isinstance(v, str) else v

    @field_validator("metrics_allow", "trusted_proxies")
    @classmethod
    def _networks(cls, v: str, info: ValidationInfo) -> str:
        """Addresses or networks, refused at start in one line (QA: 300.1.1.1 started the
        app, then every /metrics scrape was a 500); the proxies may also be '*'."""
        for part in (p.strip() for p in v.split(",")):
            if not part or (part == "*" and info.field_name == "trusted_proxies"):
                continue
            try:
                ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise ValueError(
                    f"must be comma-separated IP addresses or networks (got {part!r})"
                ) from None
        return v

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, v: str) -> str:
        """An absolute http(s) address without query or fragment; kept without a trailing
        slash, so share links read <public_url>/s/<token>."""
        if not v:
            return v
        parts = urlsplit(v)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("must be an absolute http:// or https:// address (or be empty)")
        if parts.query or parts.fragment:
            raise ValueError("must not have a query (?…) or a fragment (#…)")
        return v.rstrip("/")

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
