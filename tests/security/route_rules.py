"""Who may call each route: the table tests/security/test_route_matrix.py checks.

Every route of the app (walked from a fresh `create_app()`, HEAD and /static excepted) needs
a rule here, or the matrix test fails with "add a rule for METHOD PATH"; a rule for a route
that no longer exists fails too.

Format
------
``RULES[("METHOD", "/path/{as_declared}")] = Rule(anonymous, sales, admin, share)``: the
path exactly as FastAPI declares it (``app.routes``), one method per key. Each outcome is

* ``"allow"`` — 2xx, a 3xx that does not go to /login, or 400/409/422 (the matrix sends an
  empty form or ``{}`` body, so "your input is wrong" or "not in this state" counts as
  being let in);
* ``"login"`` — 303 to ``/login?next=…`` (pages for signed-in users);
* ``"deny"``  — 401, 403 or 404.

Visitors: ``anonymous`` (no cookie, no token); ``sales`` and ``admin`` (a session cookie for
the pages AND a bearer token for the API, both sent); ``share`` (an anonymous visitor holding
a share link: the URL's ``{token}`` is a live share token — if you leave ``share`` out it is
the same as ``anonymous``). The shorthands below cover most routes:

    RULES[("GET", "/plans")] = SIGNED_IN_PAGE
    RULES[("GET", "/s/{token}")] = Rule("deny", "allow", "allow", share="allow")

Requests: every state-changing request carries a valid CSRF token (header), and an empty
form — or ``{}`` for /api/ routes. Path parameters are filled from ``PARAMS`` (name → value
or a function of the `World` the fixtures build: a plan owned by the sales user, the
current and a draft price list, …). A route that needs a whole URL of its own (query string,
a particular row) goes in ``URLS`` under the same key. Add to both as your routes need.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

Outcome = Literal["allow", "login", "deny"]


@dataclass(frozen=True)
class Rule:
    anonymous: Outcome
    sales: Outcome
    admin: Outcome
    share: Outcome | None = None  # None: as anonymous

    def for_visitor(self, visitor: str) -> Outcome:
        value: Outcome | None = getattr(self, visitor)
        return value if value is not None else self.anonymous


@dataclass
class World:
    """What the fixtures created; ids to put into URLs."""

    plan_id: int
    current_price_list_id: int
    draft_price_list_id: int
    offer_key: str
    extra: dict[str, Any] = field(default_factory=dict)  # for other areas' fixtures


PUBLIC = Rule("allow", "allow", "allow")
SIGNED_IN_PAGE = Rule("login", "allow", "allow")  # sales or admin
ADMIN_PAGE = Rule("login", "deny", "allow")
TOKEN_API = Rule("deny", "allow", "allow")  # bearer token, any role
ADMIN_API = Rule("deny", "deny", "allow")

RULES: dict[tuple[str, str], Rule] = {
    # Framework: the OpenAPI document and the self-hosted Swagger UI.
    ("GET", "/openapi.json"): PUBLIC,
    ("GET", "/docs"): PUBLIC,
    # Public pages.
    ("GET", "/"): PUBLIC,
    ("GET", "/set-language"): PUBLIC,
    ("GET", "/set-currency"): PUBLIC,
    ("GET", "/assess"): PUBLIC,
    ("POST", "/assess/quote"): PUBLIC,
    ("GET", "/plan"): PUBLIC,
    ("GET", "/tco"): PUBLIC,
    ("GET", "/architectures"): PUBLIC,
    ("GET", "/validation"): PUBLIC,
    ("GET", "/api/v1/validation"): PUBLIC,
    # Sign-in and account.
    ("GET", "/login"): PUBLIC,
    ("POST", "/login"): PUBLIC,
    ("POST", "/logout"): PUBLIC,
    ("GET", "/account"): SIGNED_IN_PAGE,
    ("POST", "/account/tokens"): SIGNED_IN_PAGE,
    ("POST", "/account/tokens/{token_id}/revoke"): SIGNED_IN_PAGE,
    ("POST", "/account/password"): SIGNED_IN_PAGE,
    # Public JSON API (a bearer token is accepted too).
    ("POST", "/api/v1/estimate"): PUBLIC,
    ("GET", "/api/v1/models"): PUBLIC,
    ("GET", "/api/v1/gpus"): PUBLIC,
    ("POST", "/api/v1/costs"): PUBLIC,
    ("GET", "/api/v1/offers"): PUBLIC,
    ("GET", "/api/v1/cloud"): PUBLIC,
    ("GET", "/api/v1/price-lists"): PUBLIC,
    ("GET", "/api/v1/price-lists/current"): PUBLIC,
    # PARAMS fills in the draft: unpublished lists are for signed-in users only (issue 13).
    ("GET", "/api/v1/price-lists/{price_list_id}"): Rule("deny", "allow", "allow"),
    # The draft against the current list: as the draft itself.
    ("GET", "/api/v1/price-lists/{price_list_id}/changes"): Rule("deny", "allow", "allow"),
    ("GET", "/api/v1/catalog/export"): PUBLIC,
    # Catalog writes and the audit trail: admins.
    ("POST", "/api/v1/catalog/import"): ADMIN_API,
    ("GET", "/api/v1/catalog/audit"): ADMIN_API,
    # Accounts and plans API: a bearer token.
    ("GET", "/api/v1/me"): TOKEN_API,
    ("POST", "/api/v1/plans"): TOKEN_API,
    ("GET", "/api/v1/plans"): TOKEN_API,
    ("GET", "/api/v1/plans/{plan_id}"): TOKEN_API,
    ("PUT", "/api/v1/plans/{plan_id}"): TOKEN_API,
    ("GET", "/api/v1/plans/{plan_id}/revisions"): TOKEN_API,
    ("GET", "/api/v1/plans/{plan_id}/diff"): TOKEN_API,
    ("POST", "/api/v1/plans/{plan_id}/duplicate"): TOKEN_API,
    ("POST", "/api/v1/plans/{plan_id}/archive"): TOKEN_API,
    ("POST", "/api/v1/plans/{plan_id}/restore"): TOKEN_API,
    ("POST", "/api/v1/plans/{plan_id}/reprice"): TOKEN_API,
    # Catalog pages: read when signed in, edit as admin.
    ("GET", "/catalog"): SIGNED_IN_PAGE,
    ("GET", "/catalog/price-lists"): SIGNED_IN_PAGE,
    ("GET", "/catalog/price-lists/{price_list_id}/changes"): SIGNED_IN_PAGE,
    ("GET", "/catalog/{slug}"): SIGNED_IN_PAGE,
    ("GET", "/catalog/audit"): ADMIN_PAGE,
    ("GET", "/catalog/import"): ADMIN_PAGE,
    ("POST", "/catalog/import"): ADMIN_PAGE,
    ("POST", "/catalog/import/apply"): ADMIN_PAGE,
    ("GET", "/catalog/price-lists/new"): ADMIN_PAGE,
    ("POST", "/catalog/price-lists/new"): ADMIN_PAGE,
    ("GET", "/catalog/price-lists/{price_list_id}/edit"): ADMIN_PAGE,
    ("POST", "/catalog/price-lists/{price_list_id}/edit"): ADMIN_PAGE,
    ("POST", "/catalog/price-lists/{price_list_id}/publish"): ADMIN_PAGE,
    ("POST", "/catalog/price-lists/{price_list_id}/archive"): ADMIN_PAGE,
    ("POST", "/catalog/price-lists/{price_list_id}/delete"): ADMIN_PAGE,
    ("GET", "/catalog/{slug}/new"): ADMIN_PAGE,
    ("POST", "/catalog/{slug}/new"): ADMIN_PAGE,
    ("GET", "/catalog/{slug}/{key:path}/edit"): ADMIN_PAGE,
    ("POST", "/catalog/{slug}/{key:path}/edit"): ADMIN_PAGE,
    ("POST", "/catalog/{slug}/{key:path}/delete"): ADMIN_PAGE,
}

#: Path parameter → value (or a function of the World).
# Quotes and share links (app/quotes, app/sharing).
RULES.update(
    {
        ("POST", "/api/v1/plans/import"): TOKEN_API,
        ("GET", "/api/v1/plans/{plan_id}/pdf"): TOKEN_API,
        ("GET", "/api/v1/plans/{plan_id}/export"): TOKEN_API,
        ("GET", "/api/v1/plans/{plan_id}/bom.csv"): TOKEN_API,
        ("POST", "/api/v1/plans/{plan_id}/share"): TOKEN_API,
        ("DELETE", "/api/v1/plans/{plan_id}/share"): TOKEN_API,
        ("DELETE", "/api/v1/plans/{plan_id}/share/{link_id}"): TOKEN_API,
        ("POST", "/plans/{plan_id}/share"): SIGNED_IN_PAGE,
        ("POST", "/plans/{plan_id}/share/revoke"): SIGNED_IN_PAGE,
        ("GET", "/plans/{plan_id}/quote.pdf"): SIGNED_IN_PAGE,
        # The matrix sends the same live token for every visitor: whoever holds it may read.
        ("GET", "/s/{token}"): PUBLIC,
        ("GET", "/s/{token}/quote.pdf"): PUBLIC,
        # A quote's life (issue 10): sales send, admins approve discounts, the link's holder
        # accepts or declines (the matrix plan was never sent: a 409, "allow").
        ("POST", "/api/v1/plans/{plan_id}/send"): TOKEN_API,
        ("POST", "/api/v1/plans/{plan_id}/approve-discount"): ADMIN_API,
        ("POST", "/s/{token}/accept"): PUBLIC,
        ("POST", "/s/{token}/decline"): PUBLIC,
        ("POST", "/plans/{plan_id}/quote"): SIGNED_IN_PAGE,
        ("POST", "/plans/{plan_id}/phases"): SIGNED_IN_PAGE,
        ("POST", "/plans/{plan_id}/workload"): SIGNED_IN_PAGE,
        ("POST", "/plans/{plan_id}/send"): SIGNED_IN_PAGE,
        ("POST", "/plans/{plan_id}/approve-discount"): ADMIN_PAGE,
    }
)

# Customers (app/customers).
RULES.update(
    {
        ("POST", "/api/v1/customers"): TOKEN_API,
        ("GET", "/api/v1/customers"): TOKEN_API,
        ("GET", "/api/v1/customers/{customer_id}"): TOKEN_API,
        ("PUT", "/api/v1/customers/{customer_id}"): TOKEN_API,
        ("GET", "/customers"): SIGNED_IN_PAGE,
        ("GET", "/customers/new"): SIGNED_IN_PAGE,
        ("POST", "/customers/new"): SIGNED_IN_PAGE,
        ("GET", "/customers/{customer_id}"): SIGNED_IN_PAGE,
        ("POST", "/customers/{customer_id}"): SIGNED_IN_PAGE,
    }
)

# Plan pages, scenario comparison and the sales queue (app/plans/pages.py, app/leads/pages.py).
RULES.update(
    {
        ("GET", "/plans"): SIGNED_IN_PAGE,
        ("POST", "/plans/new"): SIGNED_IN_PAGE,
        ("GET", "/plans/{plan_id}"): SIGNED_IN_PAGE,
        ("GET", "/plans/{plan_id}/edit"): SIGNED_IN_PAGE,
        ("POST", "/plans/{plan_id}/edit"): SIGNED_IN_PAGE,
        ("POST", "/plans/{plan_id}/status"): SIGNED_IN_PAGE,
        ("POST", "/plans/{plan_id}/duplicate"): SIGNED_IN_PAGE,
        ("POST", "/plans/{plan_id}/archive"): SIGNED_IN_PAGE,
        ("POST", "/plans/{plan_id}/restore"): SIGNED_IN_PAGE,
        ("POST", "/plans/{plan_id}/reprice"): SIGNED_IN_PAGE,
        ("GET", "/plans/{plan_id}/diff"): SIGNED_IN_PAGE,
        ("GET", "/compare"): SIGNED_IN_PAGE,
        ("POST", "/compare/t16"): SIGNED_IN_PAGE,
        ("GET", "/leads"): SIGNED_IN_PAGE,
        ("GET", "/leads/{lead_id}"): SIGNED_IN_PAGE,
        ("POST", "/leads/{lead_id}/status"): SIGNED_IN_PAGE,
        ("POST", "/leads/{lead_id}/convert"): SIGNED_IN_PAGE,
    }
)

# Operations (app/ops): the load balancer's probes are public; /metrics opens only from
# STRATAGEM_METRICS_ALLOW addresses (the test client's "testclient" is none) or with the
# metrics token, never with a user's session or API token.
RULES.update(
    {
        ("GET", "/healthz"): PUBLIC,
        ("GET", "/readyz"): PUBLIC,
        ("GET", "/metrics"): Rule("deny", "deny", "deny"),
    }
)

PARAMS: dict[str, str | Callable[[World], Any]] = {
    "plan_id": lambda w: w.plan_id,
    "price_list_id": lambda w: w.draft_price_list_id,
    "slug": "offers",
    "key": lambda w: w.offer_key,
    "token_id": lambda w: w.extra.get("sales_token_id", 1),
    "lead_id": lambda w: w.extra["lead_id"],
    "customer_id": lambda w: w.extra["customer_id"],
    "link_id": lambda w: w.extra.get("share_link_id", 1),
    "token": lambda w: w.extra.get("share_token", "no-such-token"),
}

#: Whole URLs for routes whose path parameters are not enough (same keys as RULES).
URLS: dict[tuple[str, str], str | Callable[[World], str]] = {
    # Rows are edited in a draft; the page shows the current (published) list otherwise.
    ("GET", "/catalog/{slug}/new"): lambda w: (
        f"/catalog/offers/new?price_list={w.draft_price_list_id}"
    ),
    ("POST", "/catalog/{slug}/new"): lambda w: (
        f"/catalog/offers/new?price_list={w.draft_price_list_id}"
    ),
    ("GET", "/catalog/{slug}/{key:path}/edit"): lambda w: (
        f"/catalog/offers/{w.offer_key}/edit?price_list={w.draft_price_list_id}"
    ),
    ("POST", "/catalog/{slug}/{key:path}/edit"): lambda w: (
        f"/catalog/offers/{w.offer_key}/edit?price_list={w.draft_price_list_id}"
    ),
    ("POST", "/catalog/{slug}/{key:path}/delete"): lambda w: (
        f"/catalog/offers/{w.offer_key}/delete?price_list={w.draft_price_list_id}"
    ),
    ("GET", "/api/v1/plans/{plan_id}/diff"): lambda w: (
        f"/api/v1/plans/{w.plan_id}/diff?from=1&to=1"
    ),
}
