"""The web application: HTML pages (Jinja2 + HTMX), /static, language and currency switches.

`install(app)` is the one call `create_app` makes; see `templating` for the conventions.
"""

from __future__ import annotations

from fastapi import FastAPI

from app.web import errors
from app.web.compression import AppGZipMiddleware
from app.web.csrf import CSRFMiddleware
from app.web.language import LanguageMiddleware
from app.web.static import StaticAssets
from app.web.templating import STATIC_DIR, templates


def install(app: FastAPI) -> None:
    """Mount /static, add the middleware, the CSRF error page and every page router."""
    from app.architectures import pages as architectures
    from app.assess import pages as assess
    from app.costs import pages as tco
    from app.home import pages
    from app.planner import pages as plan
    from app.validation import pages as validation

    settings = app.state.settings
    assets = StaticAssets(STATIC_DIR)
    app.state.static_assets = assets
    app.mount("/static", assets, name="static")
    app.add_middleware(CSRFMiddleware, secret=settings.resolved_secret_key(), secure=settings.https)
    app.add_middleware(AppGZipMiddleware, minimum_size=800, compresslevel=6)
    app.add_middleware(
        LanguageMiddleware, default=str(settings.default_language), secure=settings.https
    )
    errors.install(app)

    from app.web.notices import CHECKPOINT_KINDS, notice_text

    templates.env.filters["notice"] = notice_text
    templates.env.globals["checkpoint_kinds"] = CHECKPOINT_KINDS
    assets.warm_in_background()
    for module in (pages, assess, plan, tco, architectures, validation):
        app.include_router(module.router)
