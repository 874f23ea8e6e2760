"""The ASGI application, built by `create_app()` (uvicorn serves `app.main:app`)."""

from __future__ import annotations

from fastapi import FastAPI

from app import errors, web
from app.accounts import routes as accounts_api
from app.api import costs as costs_api
from app.api import estimate as estimate_api
from app.catalog import pages as catalog_pages
from app.catalog import routes as catalog_routes
from app.db import make_engine
from app.plans import routes as plans_api
from app.settings import Settings

OPENAPI_DESCRIPTION = """
Stratagem sizes AI GPU workloads and prices them.

* `POST /api/v1/estimate` — memory, GPUs, parallelism, time, tier, infrastructure, costs.
* Every figure in a response carries its formula and source in `explain`.
* Sizes are GB (10^9 bytes); money carries its currency. Invalid input → 422 naming the field.
"""


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app. Tests pass their own `Settings`; production reads the environment."""
    settings = settings or Settings()
    app = FastAPI(
        title="Stratagem",
        version="1.0.0",
        description=OPENAPI_DESCRIPTION,
        openapi_tags=[{"name": "engine", "description": "The sizing engine."}],
    )
    app.state.settings = settings
    app.state.engine = make_engine(settings.database_url)
    errors.install(app)
    app.include_router(estimate_api.router)
    app.include_router(accounts_api.router)
    plans_api.install(app)  # /api/v1/plans and its error mapping
    app.include_router(catalog_routes.router)
    app.include_router(catalog_pages.router)
    app.include_router(costs_api.router)

    web.install(app)  # HTML pages, /static, language/currency switches (app/web/)
    return app


app = create_app()
