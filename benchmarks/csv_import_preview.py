"""The 10 MB CSV import preview (issue 13: "a 10 MB CSV import preview in under 2 s showing the
first rows and every error").

Run: .venv/bin/python benchmarks/csv_import_preview.py [--repeats 5] [--profile]

Builds a ~10 MB rental-offer CSV (the shipped offers' columns; one row in 500 has a negative
monthly price, so the preview has errors to show), signs in an admin on a fresh SQLite
database with the shipped catalog, and times `POST /catalog/import` (the preview page) and
`POST /catalog/import/apply` (the confirm) through the ASGI app in-process. Reports the
median, min and max wall time and the response size; nothing is asserted (a benchmark, not a
test). `--profile` prints a pyinstrument profile of one preview.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from admin_app import admin_client

TARGET_BYTES = 10_000_000 - 50_000  # under STRATAGEM_MAX_CSV_BYTES with the form around it
BAD_EVERY = 500


def offers_csv(client: TestClient) -> bytes:
    """The shipped offers, repeated with new ids up to ~10 MB; every 500th row is invalid."""
    text = client.get("/api/v1/catalog/export", params={"format": "csv", "kind": "offers"}).text
    lines = text.removeprefix("\ufeff").splitlines()
    header, rows = lines[0], lines[1:]
    out = [header]
    size = len(header) + 2
    n = 0
    while size < TARGET_BYTES:
        cells = rows[n % len(rows)].split(",", 1)
        line = f"bench-{n:06d}-{cells[0]},{cells[1]}"
        if n % BAD_EVERY == BAD_EVERY - 1:
            line = line.replace(",50000,", ",-5,", 1) if ",50000," in line else line + ",x"
        out.append(line)
        size += len(line.encode()) + 2
        n += 1
    return ("\r\n".join(out) + "\r\n").encode()


def csrf(client: TestClient) -> str:
    page = BeautifulSoup(client.get("/catalog/import").text, "html.parser")
    token = page.select_one("meta[name=csrf-token]")
    assert token is not None
    return str(token["content"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    with admin_client() as (c, _admin):
        data = offers_csv(c)
        rows = data.count(b"\n") - 1
        token = csrf(c)
        form = {"kind": "offers", "target": "new", "mode": "upsert", "csrf_token": token}

        def preview(body: bytes = data) -> tuple[float, float, int, int, str]:
            start, cpu = time.perf_counter(), time.process_time()
            r = c.post(
                "/catalog/import", data=form, files={"file": ("offers.csv", body, "text/csv")}
            )
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            page = BeautifulSoup(r.text, "html.parser")
            token = page.select_one("#apply-form input[name=token]")
            return (
                wall,
                cpu,
                r.status_code,
                len(r.content),
                str(token["value"]) if token else "",
            )

        preview()  # warm: templates compiled, catalog cached
        if args.profile:
            from pyinstrument import Profiler

            with Profiler() as prof:
                preview()
            prof.print()
        runs = [preview() for _ in range(args.repeats)]
        walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
        _, _, status, size, _ = runs[-1]
        print(f"file: {len(data):,} bytes, {rows:,} data rows, 1 in {BAD_EVERY} invalid")
        print(
            f"preview (with errors): median {statistics.median(walls):.3f} s wall "
            f"({statistics.median(cpus):.3f} s CPU), min {min(walls):.3f} s, "
            f"max {max(walls):.3f} s over {len(runs)}; status {status}, "
            f"response {size:,} bytes"
        )
        # A clean file of the same size: the preview keeps it on the server, the page
        # carries a token; confirming applies all rows in one transaction.
        clean = b"\r\n".join(
            line for i, line in enumerate(data.split(b"\r\n")) if i == 0 or b",-5," not in line
        )
        clean = clean.replace(b",x\r\n", b"\r\n")
        runs = [preview(clean) for _ in range(args.repeats)]
        walls = [r[0] for r in runs]
        _, _, status, size, token = runs[-1]
        print(
            f"preview (clean): median {statistics.median(walls):.3f} s wall, "
            f"min {min(walls):.3f} s, max {max(walls):.3f} s; status {status}, "
            f"response {size:,} bytes"
        )
        start = time.perf_counter()
        r = c.post(
            "/catalog/import/apply",
            data={"csrf_token": form["csrf_token"], "token": token},
            follow_redirects=False,
        )
        print(f"apply: {time.perf_counter() - start:.3f} s, status {r.status_code}")


if __name__ == "__main__":
    main()
