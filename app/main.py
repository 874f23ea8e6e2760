"""The ASGI application, built by `create_app()` (uvicorn serves `app.main:app`)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import RedirectResponse

from app import errors
from app.api import estimate as estimate_api
from app.db import make_engine
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

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        """The API documentation until the web pages are mounted."""
        return RedirectResponse("/docs")

    return app


app = create_app()
