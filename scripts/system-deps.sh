#!/usr/bin/env bash
# Installs the Debian packages Stratagem needs when they are missing, so that `make run` and
# `make test` stay the only set-up commands on a new machine.
#   fonts-noto-cjk       Chinese glyphs in pages and PDF quotes
#   libharfbuzz-subset0  WeasyPrint font subsetting (without it a CJK PDF takes ~16 s)
#   poppler-utils        pdftotext / pdftoppm for PDF tests
#   chromium             Playwright browser tests and Plotly -> SVG (kaleido)
#   postgresql           only when no server answers on 127.0.0.1:5432 (see ensure-postgres.sh)
set -euo pipefail
want=(fonts-noto-cjk libharfbuzz-subset0 poppler-utils chromium "$@")
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "Installing Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
