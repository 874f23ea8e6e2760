"""/static: content-hashed URLs cached for a year, compressed once (brotli or gzip), ETags.

``static_url()`` (templating) appends ``?v=<hash>``, the first `VERSION_CHARS` hex digits of
the file's sha256. A request whose ``v`` is the hash of the file this process serves is
answered with ``Cache-Control: public, max-age=31536000, immutable``. Any other ``v`` gets
``no-cache`` (kept, but revalidated by ETag before each use): during a rolling deploy a
browser holding a new page can ask an old replica for ``app.css?v=<new>``, and the old file
stored for a year under the new URL would outlive the deploy. No ``v`` at all gets five
minutes. Text assets are compressed on first request (or by :func:`warm` at start-up) and
kept in memory with their ETag.

Compressed bodies are also kept on disk (`STRATAGEM_STATIC_CACHE_DIR`, else a private
directory under the system's temporary directory), named by the content's hash: brotli at
quality 11 takes ≈5 s of CPU for the vendored scripts, and without the disk copy every app
process (`stratagem serve --workers N`) and every restart paid it again, on the CPU its
first requests need. A file lock makes concurrent processes compress each body once.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import mimetypes
import os
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final
from urllib.parse import parse_qs

import brotli
from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, Response
from starlette.types import Receive, Scope, Send

from app import filelock

COMPRESSIBLE: Final = (".js", ".css", ".svg", ".json", ".html", ".txt", ".map", ".mjs")
LONG_CACHE: Final = "public, max-age=31536000, immutable"
SHORT_CACHE: Final = "public, max-age=300"
#: A `v` that is not this file's hash: the page and this process disagree on the version.
MISMATCH_CACHE: Final = "no-cache"
#: Hex digits of the sha256 in `?v=`, as app.web.templating.static_url writes it.
VERSION_CHARS: Final = 12

mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("text/javascript", ".mjs")
mimetypes.add_type("image/svg+xml", ".svg")
mimetypes.add_type("font/woff2", ".woff2")


@dataclass
class _Asset:
    mtime: float
    raw: bytes
    etag: str
    media_type: str
    variants: dict[str, bytes] = field(default_factory=dict)
    digest: str = ""  # sha256 of `raw`, hex: the name of its compressed bodies on disk

    @property
    def version(self) -> str:
        """The `v` a page that links this content writes (app.web.templating.static_url)."""
        return self.digest[:VERSION_CHARS]


def _compress(raw: bytes, encoding: str) -> bytes:
    if encoding == "br":
        return brotli.compress(raw, quality=11, mode=brotli.MODE_TEXT)
    return gzip.compress(raw, compresslevel=9, mtime=0)


def disk_cache_dir() -> Path | None:
    """The directory of compressed bodies, created private to this user; None where it
    cannot be made or is not this user's own (then bodies are compressed in memory only)."""
    configured = os.environ.get("STRATAGEM_STATIC_CACHE_DIR")
    path = (
        Path(configured)
        if configured
        else Path(tempfile.gettempdir()) / (f"stratagem-static-{os.getuid()}")
    )
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = path.stat()
    except OSError:
        return None
    if st.st_uid != os.getuid() or (not configured and st.st_mode & 0o077):
        return None  # someone else's directory under a shared /tmp: do not trust its files
    return path


def cached_compress(
    raw: bytes, digest: str, encoding: str, directory: Path | None,
    compress: Callable[[bytes, str], bytes] = _compress,
) -> bytes:  # fmt: skip
    """`compress(raw, encoding)`, read from `directory` when an earlier process wrote it."""
    if directory is None:
        return compress(raw, encoding)
    target = directory / f"{digest}.{encoding}"
    try:
        with filelock.exclusive(directory / f"{digest}.lock"):
            with contextlib.suppress(FileNotFoundError):
                return target.read_bytes()
            body = compress(raw, encoding)
            tmp = target.with_suffix(f".{encoding}.{os.getpid()}.tmp")
            tmp.write_bytes(body)
            tmp.replace(target)  # atomic: a reader sees all of it or nothing
            return body
    except OSError:  # a full or read-only disk: compress in memory, as without a cache
        return compress(raw, encoding)


_CACHES: dict[Path, dict[str, _Asset]] = {}
_LOCK = threading.Lock()
_WARMED: set[Path] = set()


class StaticAssets:
    """A small ASGI app for /static (mount it; it resolves paths under `directory` only)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory.resolve()
        # One cache per process (apps built by tests share it): compressing plotly.js once
        # takes seconds at brotli quality 11.
        self._cache = _CACHES.setdefault(self.directory, {})
        self._lock = _LOCK
        self._disk = disk_cache_dir()

    def _resolve(self, rel: str) -> Path | None:
        target = (self.directory / rel.lstrip("/")).resolve()
        if not target.is_relative_to(self.directory) or not target.is_file():
            return None
        return target

    def asset(self, rel: str) -> _Asset | None:
        path = self._resolve(rel)
        if path is None:
            return None
        mtime = path.stat().st_mtime
        cached = self._cache.get(rel)
        if cached and cached.mtime == mtime:
            return cached
        raw = path.read_bytes()
        media = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if media.startswith("text/") or media in ("image/svg+xml", "application/json"):
            media += "; charset=utf-8"
        digest = hashlib.sha256(raw).hexdigest()
        asset = _Asset(mtime, raw, '"' + digest[:20] + '"', media, digest=digest)
        self._cache[rel] = asset
        return asset

    def variant(self, rel: str, asset: _Asset, encoding: str) -> bytes:
        """The `br` or `gzip` body of an asset, compressed once."""
        body = asset.variants.get(encoding)
        if body is not None:
            return body
        with self._lock:
            body = asset.variants.get(encoding)
            if body is None:
                body = cached_compress(asset.raw, asset.digest, encoding, self._disk)
                asset.variants[encoding] = body
        return body

    def warm_in_background(self) -> None:
        """Start `warm` in a daemon thread, once per process and directory."""
        with self._lock:
            if self.directory in _WARMED:
                return
            _WARMED.add(self.directory)
        threading.Thread(target=self.warm, name="static-warm", daemon=True).start()

    def warm(self) -> None:
        """Compress every text asset now, so the first visitor does not wait."""
        for path in sorted(self.directory.rglob("*")):
            if path.is_file() and path.suffix in COMPRESSIBLE:
                rel = path.relative_to(self.directory).as_posix()
                asset = self.asset(rel)
                if asset and len(asset.raw) > 512:
                    self.variant(rel, asset, "br")
                    self.variant(rel, asset, "gzip")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        rel = (path[len(root) :] if root and path.startswith(root) else path).lstrip("/")
        if scope["method"] not in ("GET", "HEAD"):
            await PlainTextResponse("Method Not Allowed", 405)(scope, receive, send)
            return
        asset = self.asset(rel)
        if asset is None:
            await PlainTextResponse("Not Found", 404)(scope, receive, send)
            return
        headers = Headers(scope=scope)
        accepted = headers.get("accept-encoding", "")
        encoding = None
        if path_compressible(rel) and len(asset.raw) > 512:
            encoding = chosen_encoding(accepted)
        # Each encoding is its own representation, so its own strong ETag (RFC 9110 §8.8.3):
        # one ETag for the br, gzip and plain bodies let a cache revalidate a body it may not
        # hand to this client.
        etag = encoded_etag(asset.etag, encoding)
        out = {
            "Cache-Control": cache_control(scope.get("query_string", b""), asset.version),
            "ETag": etag,
            "Vary": "Accept-Encoding",
            "X-Content-Type-Options": "nosniff",
        }
        if etag_matches(headers.get("if-none-match", ""), etag):
            await Response(status_code=304, headers=out)(scope, receive, send)
            return
        body = asset.raw
        if encoding is not None:
            body = self.variant(rel, asset, encoding)
            out["Content-Encoding"] = encoding
        if scope["method"] == "HEAD":
            out["Content-Length"] = str(len(body))
            body = b""
        await Response(body, headers=out, media_type=asset.media_type)(scope, receive, send)


def chosen_encoding(accept_encoding: str) -> str | None:
    """ "br" or "gzip", whichever the client accepts first in that order, or None: the codings
    of an Accept-Encoding header with a q-value above 0 ("*" standing for any not named).
    QA: "br;q=0" — br refused — was answered in br (a substring test)."""
    weights: dict[str, float] = {}
    for part in accept_encoding.lower().split(","):
        coding, *params = (x.strip() for x in part.split(";"))
        q = 1.0
        for param in params:
            name, _sep, value = param.partition("=")
            if name.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if coding:
            weights[coding] = q
    for coding in ("br", "gzip"):
        if weights.get(coding, weights.get("*", 0.0)) > 0:
            return coding
    return None


def encoded_etag(etag: str, encoding: str | None) -> str:
    """The ETag of the `encoding` body of the content whose ETag is `etag` ("abc" → "abc-br")."""
    return etag if encoding is None else f'{etag[:-1]}-{encoding}"'


def etag_matches(if_none_match: str, etag: str) -> bool:
    """Whether an If-None-Match header names `etag`: "*", or one of its comma-separated
    entity tags, weak (W/"…") or strong, compared weakly as RFC 9110 §13.1.2 asks."""
    tags = [t.strip() for t in if_none_match.split(",") if t.strip()]
    return "*" in tags or etag in (t.removeprefix("W/") for t in tags)


def cache_control(query_string: bytes, version: str) -> str:
    """A year for the URL of exactly this content, revalidation for another version's URL,
    five minutes for an unversioned one."""
    asked = parse_qs(query_string.decode("latin-1"), keep_blank_values=True).get("v")
    if asked is None:
        return SHORT_CACHE
    return LONG_CACHE if asked == [version] else MISMATCH_CACHE


def path_compressible(rel: str) -> bool:
    return rel.endswith(COMPRESSIBLE)
