#!/usr/bin/env bash
# Builds the Stratagem image from ./Dockerfile on a machine WITHOUT a Docker engine, starts the
# app from it, calls it, and prints a benchmark-style report.
#
#   scripts/build-image.sh [--keep]        (as root, on Debian 12)
#
# How (see TOOLCHAIN "Containers without a Docker engine"):
#   * podman + buildah with the vfs storage driver and chroot isolation (no daemon, no
#     overlayfs, no user namespaces needed). `podman run` fails on these machines (crun:
#     setrlimit RLIMIT_NPROC), so the app is started with `buildah run --isolation chroot`,
#     which shares the host network: the app listens on a free 127.0.0.1 port.
#   * No image registry is reachable, so the Dockerfile's base image is SUBSTITUTED:
#     `FROM python:3.11-slim-bookworm` resolves to a local image tagged
#     localhost/python:3.11-slim-bookworm, made here from `debootstrap --variant=minbase
#     bookworm` plus Debian's python3 (3.11), python3-venv, python-is-python3 and
#     ca-certificates. Differences from the official image: Python is Debian's 3.11.2 in
#     /usr/bin (not 3.11.x built into /usr/local), and pip comes from the venv. The Dockerfile
#     only relies on `python3`, `python3 -m venv` and apt, which both bases provide.
#   * apt (Debian's mirror) and PyPI must be reachable from the build (the build shares the
#     host network). Where the host trusts an extra CA for HTTPS (pip's `cert` / PIP_CERT,
#     e.g. behind an intercepting proxy), that bundle is passed as the build secret
#     `pip_cert` that the Dockerfile's pip steps use; it is stored in no layer.
#   * Everything lives in its own container store under var/image-build/ (the bookworm
#     rootfs is cached there and reused). Without --keep the images, containers and store
#     are removed at the end (vfs copies every layer: a build takes several GB).
#     With --keep, use the image with
#       podman --root var/image-build/storage --runroot var/image-build/run \
#              --storage-driver vfs images
#
# Exit status: 0 when the image builds, the app answers and every required call gives 2xx.
set -euo pipefail

KEEP=0
for arg in "$@"; do
  case "$arg" in
    --keep) KEEP=1 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "unknown option: $arg" >&2; exit 2 ;;
  esac
done

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
CACHE=${STRATAGEM_IMAGE_CACHE:-$ROOT/var/image-build}
ROOTFS=$CACHE/rootfs-bookworm
STORE=$CACHE/storage
RUNROOT=$CACHE/run
LOGS=$CACHE/logs
IMAGE=localhost/stratagem:dev
BASE=localhost/python:3.11-slim-bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
MIN_FREE_GB=15

mkdir -p "$CACHE" "$LOGS"
PODMAN=(podman --root "$STORE" --runroot "$RUNROOT" --storage-driver vfs)
BUILDAH=(buildah --root "$STORE" --runroot "$RUNROOT" --storage-driver vfs)

say() { printf '%s\n' "$*"; }
step() { printf '==> %s\n' "$*"; }
now() { date +%s.%N; }
secs() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$2"; }

[ "$(id -u)" -eq 0 ] || { echo "run as root (debootstrap, chroot and the vfs store need it)" >&2; exit 2; }

# ------------------------------------------------------------------ disk
free_gb=$(df -P -BG "$CACHE" | awk 'NR==2 {gsub("G","",$4); print $4}')
if [ "$free_gb" -lt "$MIN_FREE_GB" ]; then
  echo "only ${free_gb} GB free under $CACHE; need ${MIN_FREE_GB} GB (vfs copies every layer)" >&2
  exit 3
fi

# ------------------------------------------------------------------ tools
missing=()
for tool in podman:podman buildah:buildah debootstrap:debootstrap; do
  command -v "${tool%%:*}" > /dev/null || missing+=("${tool#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" > "$LOGS/apt-tools.log"
fi

# ------------------------------------------------------------------ cleanup
SERVER_PID=""
CTR=""
CTR_MNT=""
# `buildah run --isolation chroot` has no PID namespace: a process the app started in its own
# session (a PDF worker's Chromium) survives the app's process group. Stop every process
# whose root directory is the container's.
kill_container_procs() {
  [ -n "$CTR_MNT" ] || return 0
  local sig pid
  for sig in TERM KILL; do
    for pid in $(ls /proc | grep -E '^[0-9]+$'); do
      [ "$(readlink "/proc/$pid/root" 2> /dev/null)" = "$CTR_MNT" ] && kill "-$sig" "$pid" 2> /dev/null
      # The server by its command line as well: once seen alive 45 min after a run whose
      # root-directory match missed it (tini gives it a process group of its own).
      [ -n "${PORT:-}" ] && { tr '\0' ' ' < "/proc/$pid/cmdline"; } 2> /dev/null \
        | grep -q -- "stratagem serve --host 127.0.0.1 --port $PORT" && kill "-$sig" "$pid" 2> /dev/null
    done
    sleep 1
  done
  return 0
}
cleanup() {
  local rc=$?
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2> /dev/null; then
    kill -TERM -- "-$SERVER_PID" 2> /dev/null || true
    sleep 2
    kill -KILL -- "-$SERVER_PID" 2> /dev/null || true
  fi
  kill_container_procs
  if [ -n "$CTR" ]; then "${BUILDAH[@]}" rm "$CTR" > /dev/null 2>&1 || true; fi
  mountpoint -q "$ROOTFS/proc" 2> /dev/null && umount "$ROOTFS/proc" || true
  if [ "$KEEP" -eq 0 ]; then
    "${BUILDAH[@]}" rm --all > /dev/null 2>&1 || true
    "${PODMAN[@]}" rmi --all --force > /dev/null 2>&1 || true
    rm -rf "$STORE" "$RUNROOT"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------------ base image (substitute)
t_base0=$(now)
if [ ! -e "$ROOTFS/.stratagem-base-ready" ]; then
  step "debootstrap --variant=minbase bookworm -> $ROOTFS (first time only)"
  rm -rf "$ROOTFS"
  debootstrap --variant=minbase bookworm "$ROOTFS" "$MIRROR" > "$LOGS/debootstrap.log" 2>&1 \
    || { tail -20 "$LOGS/debootstrap.log"; exit 1; }
  # The same apt sources as the official image: bookworm, -updates, -security.
  rm -f "$ROOTFS/etc/apt/sources.list"
  cat > "$ROOTFS/etc/apt/sources.list.d/debian.sources" << EOF
Types: deb
URIs: $MIRROR
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  step "installing python3 python3-venv into the rootfs (chroot)"
  mount -t proc proc "$ROOTFS/proc"
  chroot "$ROOTFS" /usr/bin/env DEBIAN_FRONTEND=noninteractive bash -c '
      apt-get update -qq &&
      apt-get install -y -qq --no-install-recommends \
          python3 python3-venv python-is-python3 ca-certificates &&
      apt-get clean && rm -rf /var/lib/apt/lists/*' > "$LOGS/rootfs-python.log" 2>&1 \
    || { tail -20 "$LOGS/rootfs-python.log"; exit 1; }
  umount "$ROOTFS/proc"
  touch "$ROOTFS/.stratagem-base-ready"
fi
if ! "${PODMAN[@]}" image exists "$BASE"; then
  step "importing the rootfs as $BASE"
  tar -C "$ROOTFS" --exclude=./.stratagem-base-ready --exclude=./proc/* -c . \
    | "${PODMAN[@]}" import \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LANG=C.UTF-8' \
        --change 'CMD ["python3"]' \
        - "$BASE" > /dev/null
fi
t_base1=$(now)
base_python=$(chroot "$ROOTFS" python3 --version 2>&1)

# ------------------------------------------------------------------ build
# A host whose HTTPS goes through an intercepting proxy trusts an extra CA (pip's `cert`
# setting / PIP_CERT). Hand that bundle to the build as the secret the Dockerfile's pip steps
# look for: mounted for those RUN steps only, stored in no layer.
BUILD_SECRETS=()
HOST_CA=${PIP_CERT:-$(python3 -m pip config get global.cert 2> /dev/null || true)}
if [ -n "$HOST_CA" ] && [ -f "$HOST_CA" ]; then
  BUILD_SECRETS=(--secret "id=pip_cert,src=$HOST_CA")
  say "    (pip in the build trusts the host's CA bundle $HOST_CA, as build secret pip_cert)"
fi
step "podman build (vfs, chroot isolation) -> $IMAGE"
t_build0=$(now)
# --layers=false: commit once per stage, not once per instruction (vfs copies the whole
# tree at every commit: with layers a build takes ~40 GB of disk and twice the time).
# --format docker keeps HEALTHCHECK (the OCI image format has no such field).
if ! "${PODMAN[@]}" build --isolation chroot --pull=never --format docker --layers=false \
      "${BUILD_SECRETS[@]}" \
      -t "$IMAGE" -f Dockerfile . > "$LOGS/build.log" 2>&1; then
  tail -40 "$LOGS/build.log"
  echo "BUILD FAILED (full log: $LOGS/build.log)" >&2
  exit 1
fi
t_build1=$(now)
size_bytes=$("${PODMAN[@]}" image inspect "$IMAGE" --format '{{.Size}}')
size_mb=$(python3 -c "import sys; print(f'{int(sys.argv[1]) / 1e6:.0f}')" "$size_bytes")
store_mb=$(du -sm "$STORE" | cut -f1)
layers=$("${PODMAN[@]}" image inspect "$IMAGE" --format '{{len .RootFS.Layers}}')
healthcheck=$("${PODMAN[@]}" image inspect "$IMAGE" --format '{{json .Config.Healthcheck}}' 2> /dev/null || echo '?')
img_user=$("${PODMAN[@]}" image inspect "$IMAGE" --format '{{.Config.User}}')
img_cmd=$("${PODMAN[@]}" image inspect "$IMAGE" --format '{{json .Config.Cmd}}')

# ------------------------------------------------------------------ run
PORT=$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
CTR=$("${BUILDAH[@]}" from --pull-never "$IMAGE" 2> /dev/null || "${BUILDAH[@]}" from "$IMAGE")
CTR_MNT=$(readlink -f "$("${BUILDAH[@]}" mount "$CTR")")
step "starting the app in $CTR on 127.0.0.1:$PORT (temporary SQLite)"
t_run0=$(now)
# setsid: the server gets its own process group, so that it can be stopped as one.
setsid "${BUILDAH[@]}" run --isolation chroot \
    --env DATABASE_URL=sqlite:////tmp/stratagem-smoke.db \
    --env STRATAGEM_SECRET_KEY=build-image-smoke-test-key \
    "$CTR" -- /usr/bin/tini -s -- stratagem serve --host 127.0.0.1 --port "$PORT" \
    > "$LOGS/serve.log" 2>&1 &
SERVER_PID=$!

first=""
for _ in $(seq 1 600); do
  if ! kill -0 "$SERVER_PID" 2> /dev/null; then break; fi
  if python3 -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" \
       "http://127.0.0.1:$PORT/" 2> /dev/null; then
    first=$(now); break
  fi
  sleep 0.2
done
if [ -z "$first" ]; then
  tail -40 "$LOGS/serve.log"
  echo "THE APP DID NOT ANSWER (log: $LOGS/serve.log)" >&2
  exit 1
fi
ttfa=$(secs "$t_run0" "$first")

# name|method|path|body|required
CALLS=(
  "GET|/||1"
  "GET|/api/v1/gpus||1"
  'POST|/api/v1/estimate|{"model":{"preset":"llama-3.1-8b"},"task":"lora"}|1'
  "GET|/healthz||1"
  "GET|/readyz||1"
)
results=()
failed=0
for c in "${CALLS[@]}"; do
  IFS='|' read -r method path body required <<< "$c"
  line=$(python3 - "$method" "http://127.0.0.1:$PORT$path" "$body" << 'PY'
import json, sys, time, urllib.error, urllib.request
method, url, body = sys.argv[1], sys.argv[2], sys.argv[3]
data = body.encode() if body else None
req = urllib.request.Request(url, data=data, method=method,
                             headers={"Content-Type": "application/json"} if data else {})
t = time.perf_counter()
try:
    with urllib.request.urlopen(req, timeout=60) as r:
        status, payload = r.status, r.read()
except urllib.error.HTTPError as e:
    status, payload = e.code, e.read()
dt = time.perf_counter() - t
extra = ""
if status == 200 and url.endswith("/api/v1/gpus"):
    doc = json.loads(payload)
    n = len(doc) if isinstance(doc, list) else len(doc.get("gpus", doc))
    extra = f" {n} GPUs"
elif status == 200 and url.endswith("/api/v1/estimate"):
    doc = json.loads(payload)
    gpu = doc.get("gpu", {})
    extra = f" tier={doc.get('tier')} gpus={gpu.get('count')}x{gpu.get('name')}"
print(f"{status} {dt:.3f} {len(payload)}{extra}")
PY
  ) || line="ERR 0 0"
  read -r status dt nbytes rest <<< "$line"
  ok="ok"
  if [[ ! "$status" =~ ^2 ]]; then
    if [ "$required" = 1 ]; then ok="FAIL"; failed=1; else ok="(not required)"; fi
  fi
  results+=("$(printf '%-6s %-20s %4s %7ss %9s B  %s %s' "$method" "$path" "$status" "$dt" "$nbytes" "$ok" "${rest:-}")")
done

step "stopping the app"
kill -TERM -- "-$SERVER_PID" 2> /dev/null || true
for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2> /dev/null || break; sleep 0.2; done
kill -KILL -- "-$SERVER_PID" 2> /dev/null || true
wait "$SERVER_PID" 2> /dev/null || true
SERVER_PID=""
kill_container_procs

# ------------------------------------------------------------------ podman run (for the record)
# `podman run` is what an operator would type. On these machines crun cannot set any rlimit
# (setrlimit RLIMIT_NPROC / RLIMIT_NOFILE: EPERM, even to the host's own values, even with
# --ulimit host); try it once anyway and report what happened. --no-healthcheck: podman would
# otherwise want a systemd timer for the image's HEALTHCHECK (no systemd here). Not required
# for PASS: the app above ran from the same image.
step "trying podman run once (not required)"
podman_run=$(timeout 120 "${PODMAN[@]}" run --rm --network host --ulimit host --cgroups disabled --no-healthcheck \
    --env STRATAGEM_SECRET_KEY=build-image-smoke-test-key \
    "$IMAGE" stratagem --help 2>&1 | grep -v "unexpected operator" | tail -3) \
  && podman_run="ok: stratagem --help ran ($(printf '%s' "$podman_run" | head -c 60 | tr '\n' ' ')...)" \
  || podman_run="FAILED: $(printf '%s' "$podman_run" | tr '\n' ' ' | head -c 300)"

# ------------------------------------------------------------------ inside the image
step "versions and a PDF/chart smoke test inside the image"
inside=$("${BUILDAH[@]}" run --isolation chroot "$CTR" -- /bin/bash -c '
  echo "python     $(python --version 2>&1 | cut -d" " -f2) ($(command -v python))"
  python - << "PY"
import importlib.metadata as md, time
for dist in ("weasyprint", "kaleido", "fastapi", "uvicorn", "SQLAlchemy", "psycopg"):
    print(f"{dist:<10} {md.version(dist)}")
import weasyprint
t = time.perf_counter()
pdf = weasyprint.HTML(string="<html lang=zh-Hant><body style=\"font-family: Noto Sans CJK TC\">"
                      "<h1>報價單</h1><p>GPU 叢集規劃 — 每月費用</p></body></html>").write_pdf()
print(f"pdf smoke  weasyprint CJK page {time.perf_counter() - t:.2f} s, {len(pdf)} B")
try:
    import plotly.graph_objects as go
    from app.charts import to_svg
    t = time.perf_counter()
    svg = to_svg(go.Figure(go.Bar(x=["A", "B"], y=[1, 2])), 400, 300)
    print(f"svg smoke  kaleido/chromium chart {time.perf_counter() - t:.2f} s, {len(svg)} B")
except Exception as e:  # reported, not fatal: app.charts may move
    print(f"svg smoke  FAILED: {type(e).__name__}: {e}")
PY
  echo "chromium   $(chromium --version 2>/dev/null | grep -v "unexpected operator" | tail -1)"
  echo "pg_dump    $(pg_dump --version)"
  echo "harfbuzz-subset $(ls /usr/lib/x86_64-linux-gnu/libharfbuzz-subset.so.0 2>/dev/null || echo MISSING)"
  echo "user       $(id -un) (uid $(id -u)); /app/var owner $(stat -c %U /app/var)"
  left=$(ls -d /run/secrets/pip_cert /wheels /etc/pip.conf 2>/dev/null | tr "\n" " ")
  echo "leftovers  ${left:-none (no build secret, wheels or pip.conf in the image)}"
' 2>&1 | grep -v "unexpected operator") || inside="(inside checks failed)"

# ------------------------------------------------------------------ report
build_s=$(secs "$t_build0" "$t_build1")
base_s=$(secs "$t_base0" "$t_base1")
cat << EOF

Stratagem container image — scripts/build-image.sh
date             $(date -u +%Y-%m-%dT%H:%M:%SZ)
host             $(uname -srm), $(nproc) CPUs; $(podman --version); $(buildah --version | cut -d' ' -f1-3)
store            vfs, chroot isolation, $STORE
base             $BASE (substitute: debootstrap bookworm minbase + $base_python)
base prep        ${base_s} s (0 when the cached rootfs and base image are reused)
image            $IMAGE
image size       ${size_mb} MB (${layers} layers); vfs store after the build ${store_mb} MB
build time       ${build_s} s
config           user=${img_user} cmd=${img_cmd}
healthcheck      ${healthcheck}
first answer     ${ttfa} s (buildah run -> first HTTP answer on GET /; migrations + catalog load included)
podman run       ${podman_run}
calls            method path                 status   time      bytes
EOF
for r in "${results[@]}"; do say "                 $r"; done
say "inside the image"
while IFS= read -r l; do say "                 $l"; done <<< "$inside"
if [ "$KEEP" -eq 1 ]; then
  say "images kept     ${PODMAN[*]} images"
else
  say "images          removed (use --keep to keep them)"
fi
if [ "$failed" -eq 0 ]; then say "result           PASS"; else say "result           FAIL"; exit 1; fi
