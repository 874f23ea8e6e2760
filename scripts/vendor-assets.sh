#!/usr/bin/env bash
# Re-vendor the front-end assets into static/vendor/ from the npm registry (never a CDN).
#
# Versions come from static/vendor/VERSIONS.json. plotly.js-basic-dist-min (bar, pie, scatter)
# must share plotly.js's major.minor with the bundle inside the plotly Python wheel
# (.venv/.../plotly/package_data/plotly.min.js): figure JSON built by Python is drawn by it.
# After changing a version: run this script, update the README line
# "Vendored front-end assets: htmx.org X, plotly.js-basic-dist-min Y", and run
# `.venv/bin/pytest tests/charts/test_vendor.py`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENDOR="$ROOT/static/vendor"
VERSIONS="$VENDOR/VERSIONS.json"

version() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$VERSIONS" "$1"
}
HTMX="$(version htmx.org)"
PLOTLY="$(version plotly.js-basic-dist-min)"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# npm pack NAME@VERSION → the tarball the registry serves (integrity checked by npm).
fetch() {
    local spec="$1" dir="$WORK/$2"
    mkdir -p "$dir"
    (cd "$dir" && npm pack --silent "$spec" >/dev/null && tar -xzf ./*.tgz)
    echo "$dir/package"
}

pkg="$(fetch "htmx.org@$HTMX" htmx)"
install -m 0644 "$pkg/dist/htmx.min.js" "$VENDOR/htmx.min.js"
install -m 0644 "$pkg/LICENSE" "$VENDOR/htmx.LICENSE"

pkg="$(fetch "plotly.js-basic-dist-min@$PLOTLY" plotly)"
install -m 0644 "$pkg/plotly-basic.min.js" "$VENDOR/plotly-basic.min.js"
install -m 0644 "$pkg/LICENSE" "$VENDOR/plotly.LICENSE"

# Checksums of what was vendored: tests/charts/test_vendor.py notices a hand edit.
(cd "$VENDOR" && sha256sum htmx.min.js htmx.LICENSE plotly-basic.min.js plotly.LICENSE >SHA256SUMS)

echo "vendored htmx.org $HTMX and plotly.js-basic-dist-min $PLOTLY into $VENDOR"
ls -l "$VENDOR"
