"""Log lines as JSON objects, each carrying the id of the request it was written for.

The request id lives in a context variable the request middleware sets (`REQUEST_ID`);
anyio copies the context into the worker threads that run sync routes, so a line logged
anywhere while a request is served carries its id.
"""

from __future__ import annotations

import contextvars
import json
import logging
import logging.config
import sys
from datetime import UTC, datetime
from typing import Any, Final

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "stratagem_request_id", default=None
)

#: LogRecord attributes that are not "extra" fields of the call.
_STANDARD: Final = frozenset(
    vars(logging.LogRecord("", 0, "", 0, "", None, None)).keys() | {"message", "asctime"}
)


class RequestIdFilter(logging.Filter):
    """Adds `request_id` (or None outside a request) to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = REQUEST_ID.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id, extras, exc."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None) or REQUEST_ID.get(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in out and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


def logging_config(fmt: str, level: str = "INFO") -> dict[str, Any]:
    """A `logging.config.dictConfig` for the app and uvicorn (uvicorn takes it as log_config).

    uvicorn's own access log is off: the request middleware writes one line per request
    (logger `stratagem.access`) with the request id, route, status and duration.
    """
    formatter: dict[str, Any] = (
        {"()": JsonFormatter}
        if fmt == "json"
        else {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"}
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": RequestIdFilter}},
        "formatters": {"default": formatter},
        "handlers": {
            "stdout": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stdout",
                "formatter": "default",
                "filters": ["request_id"],
            }
        },
        "root": {"handlers": ["stdout"], "level": level},
        "loggers": {
            "uvicorn": {"handlers": [], "level": level, "propagate": True},
            "uvicorn.error": {"handlers": [], "level": level, "propagate": True},
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        },
    }


def configure(fmt: str, level: str = "INFO") -> None:
    """Apply `logging_config` to this process (the CLI does it before serving)."""
    logging.config.dictConfig(logging_config(fmt, level))
    logging.captureWarnings(True)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
