"""Security headers on every response, the Content-Security-Policy first.

The policy allows scripts from this origin only: no inline scripts, no `on*=` handlers, no
eval (templates follow that; see app/web/templating.py). Styles may be inline because
Plotly sets `style` attributes and injects <style> rules while drawing. A response that
already carries a Content-Security-Policy keeps it: the API docs page sets its own, which
adds the hash of its one inline script (app/security/docs.py).

A response made for a signed-in user (the request resolved one: `request.state.user`, set by
app/accounts/web.py and the API's token check) or under a share link (`/s/<token>`: the
token in the address is the credential) gets `Cache-Control: private, no-store` unless it
set its own: a quote must stay out of shared caches and the browser's back-forward cache,
where `Vary: Cookie` alone kept it (the next person at a kiosk pressed Back). Anonymous pages
and /static keep their own caching.
"""

from __future__ import annotations

from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP_DIRECTIVES: Final = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
)
CSP: Final = "; ".join(CSP_DIRECTIVES)
PERMISSIONS_POLICY: Final = (
    "camera=(), microphone=(), geolocation=(), payment=(), usb=(), "
    "accelerometer=(), gyroscope=(), magnetometer=()"
)
HSTS: Final = "max-age=31536000"
PRIVATE_CACHE: Final = "private, no-store"
#: Paths whose address is a credential: the page is as private as a signed-in one.
PRIVATE_PREFIXES: Final = ("/s/",)


def csp_with_script_hashes(*hashes: str) -> str:
    """The policy with `script-src` also allowing inline scripts of these sha256 hashes."""
    extra = " ".join(f"'sha256-{h}'" for h in hashes)
    return CSP.replace("script-src 'self'", f"script-src 'self' {extra}", 1)


class SecurityHeadersMiddleware:
    """Adds CSP, nosniff, Referrer-Policy, X-Frame-Options, Permissions-Policy (and HSTS
    when served over HTTPS) to every HTTP response that does not set them itself."""

    def __init__(self, app: ASGIApp, *, https: bool = False) -> None:
        self.app = app
        headers = [
            (b"content-security-policy", CSP.encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"same-origin"),
            (b"x-frame-options", b"DENY"),
            (b"permissions-policy", PERMISSIONS_POLICY.encode()),
        ]
        if https:
            headers.append((b"strict-transport-security", HSTS.encode()))
        self.headers: Final = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if str(scope.get("path", "")).startswith(PRIVATE_PREFIXES):
                    # Every answer under a share link, error pages included: the address
                    # holds the token, and `same-origin` would send it as the Referer of
                    # the page's own stylesheet, into the proxy's log (review).
                    headers = [h for h in headers if h[0].lower() != b"referrer-policy"]
                    headers.append((b"referrer-policy", b"no-referrer"))
                present = {name.lower() for name, _ in headers}
                headers.extend(h for h in self.headers if h[0] not in present)
                if b"cache-control" not in present and is_private(scope):
                    headers.append((b"cache-control", PRIVATE_CACHE.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def is_private(scope: Scope) -> bool:
    """Whether the answer was made for one person: a signed-in user's, or a share link's.

    Read when the response starts, after the route ran: `state["user"]` is only there once
    something asked who the visitor is (every rendered page does), so a signed-in user's
    /static request stays public.
    """
    if str(scope.get("path", "")).startswith(PRIVATE_PREFIXES):
        return True
    state = scope.get("state")
    return isinstance(state, dict) and state.get("user") is not None
