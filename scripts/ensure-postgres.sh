#!/usr/bin/env bash
# Prints a PostgreSQL URL for the test suite. Uses the server on 127.0.0.1:5432 when one answers
# (these machines and CI run one); otherwise installs PostgreSQL if needed and starts a private
# throw-away cluster on port 54329 under /tmp.
set -euo pipefail
db=stratagem_test
if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  host=127.0.0.1; port=5432
else
  port=54329; host=127.0.0.1
  dir=/tmp/stratagem-pg
  if ! pg_isready -q -h "$host" -p "$port" 2>/dev/null; then
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -z "$bin" ]; then
      bash "$(dirname "$0")/system-deps.sh" postgresql >&2
      bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    fi
    run=""
    if [ "$(id -u)" -eq 0 ]; then run="su postgres -c"; fi
    mkdir -p "$dir"; [ -n "$run" ] && chown postgres "$dir"
    if [ ! -f "$dir/PG_VERSION" ]; then
      ${run:-bash -c} "$bin/initdb -D $dir -A trust -U postgres -E UTF8" >&2
    fi
    ${run:-bash -c} "$bin/pg_ctl -D $dir -l $dir/log -o '-p $port -k $dir -c listen_addresses=127.0.0.1' -w start" >&2
  fi
fi
psql -h "$host" -p "$port" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$db'" | grep -q 1 \
  || psql -h "$host" -p "$port" -U postgres -c "CREATE DATABASE $db" >&2
echo "postgresql+psycopg://postgres@$host:$port/$db"
