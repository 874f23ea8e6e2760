"""The request middleware: request id, one access-log line, metrics, ids in JSON errors.

* `X-Request-ID`: taken from the request when it looks like an id (1–128 characters of
  letters, digits and `._:-`; anything else could forge log lines), else a new one; echoed
  on the response and set in `app.ops.logs.REQUEST_ID` for every log line of the request.
* A JSON error response (status ≥ 400, `application/json`, an object) gets a `request_id`
  field — FastAPI's 422s, the domain errors of app/web/errors.py, 401/404s alike — so a
  user's report can be matched with the log.
* An exception no handler took becomes a 500 (JSON under /api/, text elsewhere) carrying
  the id, and is logged with its traceback. One that says the database cannot be reached
  (raised where no handler runs, such as an error page that needed the database itself) is
  the same 503 app/web/errors.py answers, logged the same way (`app.ops.outage`): one line,
  a traceback at most once a minute.
* Metrics by route *template* (`/api/v1/plans/{plan_id}`), never the raw path, so a scan of
  random URLs cannot grow the label set; unmatched paths count as `<unmatched>`.
* The probes' routes (`QUIET_ROUTES`) are left out of the metrics, and out of the access log
  while they answer 2xx: the load balancer and Prometheus poll them every few seconds. Any
  other answer is logged, or a failing /readyz would take a process out of rotation without
  a word in the log.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.ops import metrics, outage
from app.ops.logs import REQUEST_ID

HEADER: Final = "x-request-id"
# A share link's token is the credential to a customer's quote (the database keeps only its
# hash, so a leaked database opens no plan): the log keeps its first six characters, enough
# to tell links apart, never the whole (deploy/Caddyfile filters its own log the same way).
_SHARE_TOKEN: Final = re.compile(r"^/s/([A-Za-z0-9_-]{6})[A-Za-z0-9_-]+")
_VALID_ID: Final = re.compile(r"[A-Za-z0-9._:\-]{1,128}")
#: Not worth a latency sample each, nor a log line while they answer 2xx: the load balancer
#: and Prometheus poll them.
QUIET_ROUTES: Final = frozenset({"/healthz", "/readyz", "/metrics"})

access_log = logging.getLogger("stratagem.access")
error_log = logging.getLogger("stratagem.errors")


def request_id_from(scope: Scope) -> str:
    for name, value in scope.get("headers") or ():
        if name == b"x-request-id":
            candidate = value.decode("latin-1").strip()
            if _VALID_ID.fullmatch(candidate):
                return candidate
            break
    return uuid.uuid4().hex


def loggable_path(path: str) -> str:
    """`path` as the log may keep it: a share link's token cut to its first six characters
    ('/s/AbCdEfGh…/quote.pdf' → '/s/AbCdEf…/quote.pdf')."""
    return _SHARE_TOKEN.sub(r"/s/\1…", path)


def route_template(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    return str(path) if path else "<unmatched>"


class RequestMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = request_id_from(scope)
        token = REQUEST_ID.set(rid)
        start = time.perf_counter()
        state: dict[str, Any] = {"status": 500, "started": False, "hold": None}
        rid_header = (HEADER.encode(), rid.encode())

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                state["status"] = message["status"]
                headers = [h for h in message.get("headers", []) if h[0].lower() != b"x-request-id"]
                headers.append(rid_header)
                message = {**message, "headers": headers}
                if message["status"] >= 400 and _is_json(headers):
                    state["hold"] = {"start": message, "body": []}  # add request_id first
                    return
                state["started"] = True
                await send(message)
                return
            hold = state["hold"]
            if message["type"] == "http.response.body" and hold is not None:
                hold["body"].append(message.get("body", b""))
                if message.get("more_body"):
                    return
                state["hold"] = None
                state["started"] = True
                start_msg, body = _with_request_id(hold["start"], b"".join(hold["body"]), rid)
                await send(start_msg)
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        except Exception as exc:
            method, path = str(scope.get("method", "")), loggable_path(str(scope["path"]))
            unavailable = outage.database_unavailable(exc)
            if unavailable:
                outage.report(exc, method=method, path=path)
            else:
                error_log.exception("unhandled error in %s %s", method, path)
            if state["started"]:
                raise
            state["hold"] = None  # a held error response the exception cut short
            if unavailable:
                await _send_unavailable(
                    scope, receive, send_wrapper, busy=outage.database_busy(exc)
                )
            else:
                state["status"] = 500
                await _send_500(scope, send, rid)
        finally:
            REQUEST_ID.reset(token)
            self._record(scope, state["status"], time.perf_counter() - start, rid)

    @staticmethod
    def _record(scope: Scope, status: int, elapsed: float, rid: str) -> None:
        route = route_template(scope)
        quiet = route in QUIET_ROUTES
        if quiet and 200 <= status < 300:
            return
        method = scope.get("method", "")
        if not quiet:
            metrics.REQUESTS.labels(method, route, str(status)).inc()
            metrics.LATENCY.labels(method, route).observe(elapsed)
            if route in metrics.ESTIMATE_ROUTES and status < 400:
                metrics.ESTIMATE.labels(route).observe(elapsed)
            metrics.sync_caches()
        path = loggable_path(str(scope["path"]))
        access_log.info(
            "%s %s %s %.1f ms",
            method,
            path,
            status,
            elapsed * 1000,
            extra={
                "request_id": rid,
                "method": method,
                "path": path,
                "route": route,
                "status": status,
                "duration_ms": round(elapsed * 1000, 2),
                "client": (scope.get("client") or (None,))[0],
            },
        )


def _is_json(headers: list[tuple[bytes, bytes]]) -> bool:
    for name, value in headers:
        if name.lower() == b"content-type":
            return value.split(b";", 1)[0].strip().lower() == b"application/json"
    return False


def _with_request_id(start: Message, body: bytes, rid: str) -> tuple[Message, bytes]:
    try:
        data = json.loads(body)
    except ValueError:
        return start, body
    if not isinstance(data, dict) or "request_id" in data:
        return start, body
    data["request_id"] = rid
    new = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
    headers.append((b"content-length", str(len(new)).encode()))
    return {**start, "headers": headers}, new


async def _send_500(scope: Scope, send: Send, rid: str) -> None:
    if scope["path"].startswith("/api/"):
        body = json.dumps(
            {
                "detail": "Internal server error; quote the request id when reporting it.",
                "request_id": rid,
            }
        ).encode()
        ctype = b"application/json"
    else:
        body = f"Internal server error (request id {rid}).".encode()
        ctype = b"text/plain; charset=utf-8"
    headers = [
        (b"content-type", ctype),
        (b"content-length", str(len(body)).encode()),
        (HEADER.encode(), rid.encode()),
    ]
    await send({"type": "http.response.start", "status": 500, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _send_unavailable(
    scope: Scope, receive: Receive, send: Send, *, busy: bool = False
) -> None:
    """The 503 of a database that cannot be reached: the web layer's (JSON or the translated
    page, `app.state.unavailable_response`), else a plain one. `send` is the middleware's
    wrapper, which adds the request id to the header and to a JSON body."""
    state = getattr(scope.get("app"), "state", None)
    respond = getattr(state, "unavailable_response", None)
    response: Response | None = None
    if respond is not None:
        try:
            response = respond(Request(scope, receive), busy=busy)
        except Exception:
            error_log.exception("the 503 page failed; answering a plain one")
    if response is None:
        response = _plain_unavailable(scope)
    await response(scope, receive, send)


def _plain_unavailable(scope: Scope) -> Response:
    headers = {"Retry-After": str(outage.RETRY_AFTER_S), "Cache-Control": "no-store"}
    if scope["path"].startswith("/api/"):
        body = json.dumps({"detail": "The database is unavailable; try again in a few seconds."})
        return Response(body, 503, headers, media_type="application/json")
    text = "The service is temporarily unavailable; try again in a few seconds."
    return Response(text, 503, headers, media_type="text/plain; charset=utf-8")
