"""The ASGI application, built by `create_app()` (uvicorn serves `app.main:app`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from fastapi import Depends, FastAPI
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from app import ops, web
from app.accounts import pages as accounts_pages
from app.accounts import routes as accounts_api
from app.accounts import web as accounts_web
from app.accounts.deps import optional_api_user
from app.catalog import pages as catalog_pages
from app.catalog import routes as catalog_routes
from app.costs import routes as costs_api
from app.customers import pages as customers_pages
from app.customers import routes as customers_api
from app.db import make_engine
from app.leads import pages as leads_pages
from app.planner import routes as estimate_api
from app.plans import pages as plans_pages
from app.plans import routes as plans_api
from app.quotes import pages as quotes_pages
from app.quotes import pdf as quote_pdf
from app.quotes import routes as quotes_api
from app.quotes import worker as pdf_worker
from app.ratelimit.redis_store import RedisStore
from app.settings import Settings
from app.sharing import pages as sharing_pages
from app.sharing import routes as sharing_api
from app.validation import routes as validation_api
from app.web import docs as api_docs
from app.web import openapi as api_schema
from app.web import path_ids, query_once
from app.web.concurrency import ConcurrencyLimitMiddleware
from app.web.content_encoding import ContentEncodingMiddleware
from app.web.form_body import FormBodyMiddleware
from app.web.head import HeadAsGetMiddleware
from app.web.headers import SecurityHeadersMiddleware
from app.web.json_body import JsonBodyMiddleware
from app.web.json_response import TidyJSONResponse
from app.web.limits import BodyLimitMiddleware

OPENAPI_DESCRIPTION = """
Stratagem sizes AI GPU workloads and prices them.

* `POST /api/v1/estimate` — memory, GPUs, parallelism, time, tier, infrastructure, costs.
* Every figure in a response carries its formula and source in `explain`.
* Sizes are GB (10^9 bytes); money carries its currency. Invalid input → 422 naming the field.
"""


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    if app.state.settings.pdf_warm:  # STRATAGEM_PDF_WARM: the first quote is not the slow one
        pdf_worker.warm(quote_pdf.warm)
    store = app.state.rate_limits
    if store is not None:  # say so at start, not at the first rate-limited request
        problem = await asyncio.to_thread(store.problem)
        if problem:
            logging.getLogger("stratagem.ratelimit").warning(
                "Redis at REDIS_URL does not answer at start (%s); rate limits: counting in "
                "the database until it does",
                problem,
            )
    yield
    # The PDF workers (and the Chromium each runs) stop with the app, not after it: without
    # a PID namespace (buildah run, a bare host) they would otherwise outlive it.
    pdf_worker.shutdown()


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app. Tests pass their own `Settings`; production reads the environment."""
    settings = settings or Settings()
    app = FastAPI(
        lifespan=_lifespan,
        # Floats without binary noise ("69846.40000000001", QA): app/web/json_response.py.
        default_response_class=TidyJSONResponse,
        title="Stratagem",
        version="1.0.0",
        description=OPENAPI_DESCRIPTION,
        openapi_tags=[{"name": "engine", "description": "The sizing engine."}],
        docs_url=None,  # self-hosted instead (app/security/docs.py): no CDN
        redoc_url=None,  # ReDoc loads from a CDN; Swagger UI at /docs is enough
        generate_unique_id_function=api_schema.operation_id,  # `estimate`, `create_plan`
        # An id in the path that no row can have is a 404, before any other dependency
        # (app/web/path_ids.py; issue 13).
        # A query parameter a route takes once, sent twice, is a 422 naming it
        # (app/web/query_once.py).
        dependencies=[Depends(path_ids.check_path_ids), Depends(query_once.check_query_once)],
    )
    app.state.settings = settings
    app.state.engine = make_engine(
        settings.database_url,
        concurrent_requests=settings.max_concurrent_requests,
        must_exist=True,  # made by `migrate`/`serve`; gone under a running server is a 503
    )
    # The pool itself starts on the first quote (or at start-up with STRATAGEM_PDF_WARM).
    pdf_worker.configure(settings.pdf_workers, settings.pdf_priority)
    # Rate-limit counters: Redis when REDIS_URL is set, else the database (app/ratelimit/).
    app.state.rate_limits = (
        RedisStore(settings.redis_url, prefix=settings.redis_prefix) if settings.redis_url else None
    )
    # A JSON body holding a lone UTF-16 surrogate, or naming one key twice in an object, is a
    # 422 at its location before any route sees it (app/web/json_body.py): such text was
    # saved and then broke every read; a repeated key was read as its last value, unsaid.
    app.add_middleware(JsonBodyMiddleware)
    # HEAD answered as its GET without the body (app/web/head.py): inside the request
    # middleware, so the access log and metrics still see a HEAD.
    app.add_middleware(HeadAsGetMiddleware)
    # A form body is UTF-8 or a 422 naming the field (app/web/form_body.py): Starlette read
    # raw bytes as Latin-1 and bad escapes as U+FFFD, and saved both.
    app.add_middleware(FormBodyMiddleware)
    # A compressed request body is a 415 naming its Content-Encoding before any reader takes
    # its bytes for the body (app/web/content_encoding.py; QA: gzip read as "not UTF-8").
    app.add_middleware(ContentEncodingMiddleware)
    # N requests at a time, the rest queue on the event loop (app/web/concurrency.py); added
    # first, so it sits inside the request middleware, which logs and counts its 503s.
    app.add_middleware(
        ConcurrencyLimitMiddleware,
        limit=settings.max_concurrent_requests,
        queue_timeout_s=settings.queue_timeout_s,
    )
    # 413 before a body past the limit is read (app/web/limits.py), outside every middleware
    # that reads a body and inside the request middleware, which logs and counts the 413 (a
    # chunked one was counted a 500, one refused by its Content-Length not at all — QA).
    app.add_middleware(
        BodyLimitMiddleware,
        max_json_bytes=settings.max_json_bytes,
        max_upload_bytes=settings.max_upload_bytes,
    )
    # /healthz, /readyz, /metrics and the request middleware (request id, access log,
    # metrics). Added before web.install, so it sits inside GZip and sees plain JSON bodies.
    ops.install(app)
    # Public API: anonymous, or a bearer token (an invalid one is a 401).
    bearer_optional = [Depends(optional_api_user)]
    app.include_router(estimate_api.router, dependencies=bearer_optional)
    app.include_router(accounts_api.router)
    app.include_router(quotes_api.router)  # before plans: /api/v1/plans/import
    app.include_router(sharing_api.router)
    app.include_router(plans_api.router)
    app.include_router(customers_api.router)
    app.include_router(sharing_pages.router)  # /s/{token}, share forms, quote PDFs
    app.include_router(catalog_routes.router, dependencies=bearer_optional)
    # Catalog pages: signed-in users read, admins edit (app/catalog/access.py).
    app.include_router(
        catalog_pages.router, dependencies=[Depends(accounts_web.page_role("sales", "admin"))]
    )
    app.include_router(costs_api.router, dependencies=bearer_optional)
    app.include_router(validation_api.router, dependencies=bearer_optional)
    app.include_router(accounts_pages.router)  # /login, /logout, /account
    api_docs.install(app)  # /docs with the vendored Swagger UI

    web.install(app)  # HTML pages, /static, language/currency switches (app/web/)
    app.include_router(plans_pages.router)  # /plans, /plans/{id}, /compare (sales, admin)
    app.include_router(leads_pages.router)  # /leads: the sales queue
    api_schema.install(app)  # every error status documented (app/web/openapi.py)
    app.include_router(customers_pages.router)  # /customers (sales, admin)
    app.include_router(quotes_pages.router)  # /plans/{id}/quote, send, approve-discount
    # The client address (throttles, audit) from X-Forwarded-For only when the peer is a
    # configured proxy; anyone else's header is ignored (issue 13).
    app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxies or [])
    app.add_middleware(SecurityHeadersMiddleware, https=settings.https)  # outermost
    return app


app = create_app()
