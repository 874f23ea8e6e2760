# Stratagem — production image.
#
#   docker build -t stratagem .
#   docker run -p 8000:8000 -v stratagem-var:/app/var stratagem
#
# Without DATABASE_URL the app keeps an SQLite database (and a generated secret key) in
# /app/var, a volume owned by the unprivileged user. For PostgreSQL, several replicas and the
# proxy in front, see compose.yaml and README.md (Deploy). `stratagem serve` brings the
# database to the latest migration and loads the shipped catalog into an empty one at start.
#
# The app resolves templates/, static/, migrations/ and alembic.ini from its source tree
# (app/settings.py: REPO_ROOT), so the source lives in /app and the package is installed
# *editable* into the venv rather than copied into site-packages.
#
# On a machine without a Docker engine: scripts/build-image.sh (podman/buildah, vfs, chroot).

ARG BASE_IMAGE=python:3.11-slim-bookworm

# ---------------------------------------------------------------- builder: venv and wheels
FROM ${BASE_IMAGE} AS builder

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

# Every pinned dependency ships a manylinux wheel for CPython 3.11, so no compiler is needed.
# If one ever needs building, install build-essential (and the -dev headers) here only:
#   RUN apt-get update && apt-get install -y --no-install-recommends build-essential
#
# Behind an HTTPS-intercepting proxy, hand pip the proxy's CA bundle as a build secret
# (it is mounted for the RUN step only and never stored in a layer):
#   docker build --secret id=pip_cert,src=/etc/ssl/certs/ca-certificates.crt .
WORKDIR /app

# Dependencies first (from pyproject.toml's pinned list), so that a code change reuses this
# layer. Wheels are built/downloaded into /wheels and installed from there only.
COPY pyproject.toml README.md ./
RUN --mount=type=secret,id=pip_cert \
    if [ -s /run/secrets/pip_cert ]; then export PIP_CERT=/run/secrets/pip_cert; fi \
 && python3 -m venv /opt/venv \
 && /opt/venv/bin/pip install --upgrade pip \
 && python3 -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
 && /opt/venv/bin/pip wheel --wheel-dir /wheels -r /tmp/requirements.txt \
 && /opt/venv/bin/pip install --no-index --find-links /wheels -r /tmp/requirements.txt

# The project itself: editable, pointing at /app (the runtime stage has the same path).
COPY app ./app
RUN --mount=type=secret,id=pip_cert \
    if [ -s /run/secrets/pip_cert ]; then export PIP_CERT=/run/secrets/pip_cert; fi \
 && /opt/venv/bin/pip install --no-deps --editable . \
 && /opt/venv/bin/stratagem --help > /dev/null

# ---------------------------------------------------------------- runtime
FROM ${BASE_IMAGE} AS runtime

ARG DEBIAN_FRONTEND=noninteractive
# Runtime Debian packages:
#   libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz0b  WeasyPrint text layout (PDF quotes)
#   libharfbuzz-subset0   WeasyPrint font subsetting (without it a CJK PDF takes ~16 s)
#   libcairo2 libgdk-pixbuf-2.0-0 shared-mime-info  images in pages/PDFs (also Chromium's)
#   fontconfig fonts-noto-cjk fonts-dejavu-core     Chinese and Latin glyphs
#   chromium              kaleido renders Plotly charts to SVG for the PDF (BROWSER_PATH)
#   postgresql-client     pg_dump / psql for backups (15, as the postgres:15 server)
#   tini                  PID 1: forwards signals, reaps Chromium's child processes
#   ca-certificates       outbound TLS
# poppler-utils is only needed by the tests, not here.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
        libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz0b libharfbuzz-subset0 \
        libcairo2 libgdk-pixbuf-2.0-0 shared-mime-info \
        fontconfig fonts-noto-cjk fonts-dejavu-core \
        chromium \
        postgresql-client \
        tini ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 stratagem \
 && useradd --system --uid 10001 --gid stratagem --home-dir /home/stratagem \
        --create-home --shell /usr/sbin/nologin stratagem

COPY --from=builder /opt/venv /opt/venv

WORKDIR /app
COPY alembic.ini babel.cfg pyproject.toml README.md ./
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
COPY app ./app
# Byte-compile once as root (the tree stays read-only for the app user); /app/var is the one
# writable place: SQLite database and generated secret key when no settings say otherwise.
RUN python3 -m compileall -q /app/app /app/migrations \
 && install -d -o stratagem -g stratagem -m 0750 /app/var

ENV PATH=/opt/venv/bin:$PATH \
    LANG=C.UTF-8 \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOME=/home/stratagem \
    BROWSER_PATH=/usr/bin/chromium \
    STRATAGEM_LOAD_CATALOG=true \
    STRATAGEM_PDF_WARM=true
# DATABASE_URL is deliberately left unset: the default is sqlite:////app/var/stratagem.db.
# STRATAGEM_PDF_WARM: each app process starts its PDF worker and Chromium at start-up, so
# the first quote costs what every quote does (set it to false to save the memory).

VOLUME ["/app/var"]
USER stratagem:stratagem
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=40s --retries=3 \
    CMD ["/opt/venv/bin/python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status == 200 else 1)"]

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["stratagem", "serve", "--host", "0.0.0.0", "--port", "8000"]
