"""The interactive API docs (/docs), self-hosted: Swagger UI from static/vendor/swagger-ui/.

FastAPI's default /docs loads Swagger UI from a CDN and /redoc loads ReDoc and Google Fonts
from CDNs; both are switched off in `create_app` and this route serves FastAPI's Swagger
page with the vendored files instead (npm package swagger-ui-dist, the version in
static/vendor/swagger-ui/VERSION.json; the README names it too).

FastAPI's page starts Swagger UI with one inline <script>. Rather than allow inline scripts,
the page's Content-Security-Policy adds the sha256 hash of exactly that script; everything
else about the policy is the site's (app/security/headers.py). The validator badge is off:
it would load an image from validator.swagger.io.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Final

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse

from app.web.headers import csp_with_script_hashes
from app.web.templating import static_url

SWAGGER_DIR: Final = "vendor/swagger-ui"
_INLINE_SCRIPT: Final = re.compile(r"<script>(.*?)</script>", re.S)


def inline_script_hashes(html: str) -> list[str]:
    """Base64 sha256 of each inline <script> body, as CSP hash sources want them."""
    return [
        base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode()
        for body in _INLINE_SCRIPT.findall(html)
    ]


def docs_page(app: FastAPI) -> HTMLResponse:
    response = get_swagger_ui_html(
        openapi_url=app.openapi_url or "/openapi.json",
        title=f"{app.title} — API",
        swagger_js_url=static_url(f"{SWAGGER_DIR}/swagger-ui-bundle.js"),
        swagger_css_url=static_url(f"{SWAGGER_DIR}/swagger-ui.css"),
        swagger_favicon_url=static_url("img/favicon.svg"),
        oauth2_redirect_url=None,
        swagger_ui_parameters={"validatorUrl": None},
    )
    html = bytes(response.body).decode("utf-8")
    response.headers["Content-Security-Policy"] = csp_with_script_hashes(
        *inline_script_hashes(html)
    )
    return response


def install(app: FastAPI) -> None:
    """Serve /docs from the vendored Swagger UI (create_app passes docs_url=None)."""

    @app.get("/docs", include_in_schema=False)
    def swagger_ui(request: Request) -> HTMLResponse:
        """Interactive API docs (Swagger UI, self-hosted)."""
        return docs_page(request.app)
