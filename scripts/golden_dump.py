"""Dump golden outputs of the whole app, to prove a refactoring changes no behaviour.

    .venv/bin/python scripts/golden_dump.py OUT_DIR
    diff -r golden/before golden/after

What it writes (one file per request, so `diff -r` names what changed):

* ``api/estimate-NNNN.json`` — ``POST /api/v1/estimate`` over a grid of presets (dense,
  MoE, image), every task, pins, deadlines, precisions and currencies (≥500 requests);
* ``api/costs-NNNN.json`` — ``POST /api/v1/costs`` over GPUs, counts, months, utilisation;
* ``api/*.json`` — the read-only catalog and model endpoints and the OpenAPI document;
* ``pages/*.html`` — every page and HTMX fragment in zh-TW and en, signed out and as
  sales/admin, with CSRF tokens, nonces, dates and generated tokens normalised;
* ``pdf/*.txt`` — ``pdftotext -layout`` of two quotes (zh-TW and en), dates normalised.

The database is a fresh SQLite file in a temporary folder with the shipped catalog, and
the accounts and plans are made in a fixed order, so ids are the same on every run.
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

# The checkout this script lives in, before the editable install's: a worktree dumps its own code.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.accounts import service as accounts
from app.bootstrap import prepare_database
from app.main import create_app
from app.settings import Settings

PRESETS = (
    "llama-2-7b",
    "llama-2-13b",
    "llama-3.1-8b",
    "llama-3.1-70b",
    "mistral-7b",
    "qwen2.5-7b",
    "mixtral-8x7b",
    "deepseek-v3",
    "sdxl",
    "flux-1-dev",
)
TASKS = ("pretrain", "full_finetune", "lora", "qlora", "inference", "image")
VARIANTS: tuple[dict[str, Any], ...] = (
    {},
    {"deadline_days": 7},
    {"deadline_days": 1, "tokens": 5e9},
    {"gpu": "a100-sxm-80gb"},
    {"gpu": "h100-sxm-80gb", "gpu_count": 8},
    {"gpu_count": 16, "tp": 8},
    {"zero_stage": 3, "recompute": "full"},
    {"precision": "fp8"},
    {"precision": "int4", "concurrency": 200},
    {"mfu": 0.3, "interconnect": "roce"},
    {"currency": "USD", "term_months": 12},
    {"utilization": 0.5, "term_months": 6},
)
COST_GPUS = ("h100-sxm-80gb", "a100-sxm-80gb", "l40s-48gb", "h200-sxm-141gb")

_NORMALISE = (
    (re.compile(r'name="csrf[^"]*" value="[^"]*"'), 'name="csrf" value="X"'),
    (re.compile(r'"X-CSRF-Token": ?"[^"]*"'), '"X-CSRF-Token":"X"'),
    (re.compile(r'content="[A-Za-z0-9_\-\.]{20,}"'), 'content="X"'),
    (re.compile(r'nonce="[^"]*"'), 'nonce="X"'),
    (re.compile(r"/s/[A-Za-z0-9_\-]{20,}"), "/s/TOKEN"),
    (re.compile(r"\b20\d\d-\d\d-\d\d([T ][0-9:.]+)?(\+00:00|Z)?"), "DATE"),
    (re.compile(r"\b20\d\d/\d\d?/\d\d?( [0-9:]+)?"), "DATE"),
    (re.compile(r"\d{4}年\d{1,2}月\d{1,2}日"), "DATE"),
    (re.compile(r"[A-Z][a-z]{2,8} \d{1,2}, 20\d\d"), "DATE"),
    (re.compile(r"\d{1,2} [A-Z][a-z]{2,8} 20\d\d"), "DATE"),
    (re.compile(r"\b\d\d:\d\d( UTC)?\b"), "TIME"),
    (re.compile(r"stg_[A-Za-z0-9_\-]+"), "TOKEN"),
    (re.compile(r"Q-\d{4}-\d+"), "Q-NUM"),
)


def normalise(text: str) -> str:
    for pattern, repl in _NORMALISE:
        text = pattern.sub(repl, text)
    return text


def estimate_grid() -> list[dict[str, Any]]:
    grid: list[dict[str, Any]] = []
    for preset, task, variant in itertools.product(PRESETS, TASKS, VARIANTS):
        image_model = preset in ("sdxl", "flux-1-dev")
        if image_model != (task == "image"):
            continue
        body: dict[str, Any] = {"model": {"preset": preset}, "task": task, **variant}
        if task in ("full_finetune", "lora", "qlora"):
            body.setdefault("dataset_gb", 5)
        grid.append(body)
    # Custom sizes and a pasted config.json.
    for params in (1, 3, 34, 180, 400):
        for task in ("pretrain", "lora", "inference"):
            grid.append({"model": {"params_b": params}, "task": task, "tokens": 1e11})
    return grid


def cost_grid() -> list[dict[str, Any]]:
    grid = []
    for gpu, count, months, util in itertools.product(
        COST_GPUS, (0.25, 1, 4, 8, 24), (1, 6, 36), (0.3, 1.0)
    ):
        grid.append({"gpu": gpu, "gpu_count": count, "months": months, "utilization": util})
    grid += [
        {"gpu": "h100-sxm-80gb", "gpu_count": 8, "months": 36, "currency": "USD"},
        {"gpu": "h100-sxm-80gb", "gpu_count": 4, "months": 12, "term_months": 12},
        {"gpu": "h100-sxm-80gb", "gpu_count": 4, "months": 12, "power_kw": 5},
    ]
    return grid


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def dump_json(path: Path, response: Any) -> None:
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    text = json.dumps({"status": response.status_code, "body": body}, indent=1, sort_keys=True)
    write(path, normalise(text))


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="golden-"))
    settings = Settings(DATABASE_URL=f"sqlite:///{tmp / 'g.db'}", STRATAGEM_SECRET_KEY="golden")
    prepare_database(settings, echo=lambda _: None)
    app = create_app(settings)
    with TestClient(app, follow_redirects=False) as client:
        with Session(app.state.engine) as session:
            users = {}
            for role in ("sales", "admin"):
                user = accounts.create_user(
                    session=session,
                    email=f"{role}@golden.example",
                    password="correct horse battery",
                    role=role,
                    name=f"Golden {role}",
                )
                _, token = accounts.create_token(session=session, user=user, name="golden")
                session.refresh(user)
                session.expunge(user)
                users[role] = (user, token)
        sales_headers = {"Authorization": f"Bearer {users['sales'][1]}"}

        for i, body in enumerate(estimate_grid()):
            dump_json(
                out / f"api/estimate-{i:04d}.json", client.post("/api/v1/estimate", json=body)
            )
        for i, body in enumerate(cost_grid()):
            dump_json(out / f"api/costs-{i:04d}.json", client.post("/api/v1/costs", json=body))
        for name, url in (
            ("models", "/api/v1/models"),
            ("gpus", "/api/v1/gpus"),
            ("offers", "/api/v1/offers"),
            ("cloud", "/api/v1/cloud"),
            ("price-lists", "/api/v1/price-lists"),
            ("openapi", "/openapi.json"),
        ):
            dump_json(out / f"api/{name}.json", client.get(url))
        # A bad request of each kind: the error shape is behaviour too.
        for i, body in enumerate(
            ({}, {"model": {"preset": "nope"}}, {"model": {"params_b": -1}}, {"task": "x"})
        ):
            dump_json(out / f"api/error-{i}.json", client.post("/api/v1/estimate", json=body))

        # Plans: one plain, one from the T16 example, to reach the plan pages and the PDF.
        plan = client.post(
            "/api/v1/plans",
            json={
                "name": "Golden 13B 客服模型",
                "customer": "台大 Lab",
                "notes": "internal",
                "workload": {
                    "model": {"preset": "llama-2-13b"},
                    "task": "full_finetune",
                    "seq_len": 2048,
                    "tokens": 2e9,
                    "term_months": 6,
                },
            },
            headers=sales_headers,
        ).json()
        plan_id = plan["id"]
        share = client.post(f"/api/v1/plans/{plan_id}/share", json={}, headers=sales_headers)
        share_url = share.json().get("url", "") if share.status_code < 300 else ""
        dump_json(
            out / "api/plan.json", client.get(f"/api/v1/plans/{plan_id}", headers=sales_headers)
        )
        csv = client.get(f"/api/v1/plans/{plan_id}/bom.csv", headers=sales_headers)
        write(out / "api/bom.csv", normalise(csv.text))

        pages_public = [
            "/",
            "/assess",
            "/assess?task=lora&size=13&data=10&deadline=30&users=50",
            "/assess?task=inference&size=7&data=1&deadline=none&users=200",
            "/assess?task=pretrain&size=other&size_other=abc",
            "/plan",
            "/plan?example=70b-full",
            "/plan?example=7b-chat",
            "/plan?example=images",
            "/plan?preset=mixtral-8x7b&task=lora&dataset_gb=3&deadline_days=5",
            "/plan?preset=llama-2-13b&task=full_finetune&seq_len=abc",
            "/tco",
            "/tco?gpu=a100-sxm-80gb&gpu_count=4&months=12&utilization=40",
            "/architectures",
            "/login",
            "/no-such-page",
        ]
        pages_signed_in = [
            "/plans",
            f"/plans/{plan_id}",
            f"/plans/{plan_id}/edit",
            "/compare",
            f"/compare?ids={plan_id}",
            "/leads",
            "/account",
            "/catalog",
            "/catalog/price-lists",
            "/catalog/offers",
            "/catalog/gpus",
            "/catalog/cloud",
            "/catalog/audit",
            "/catalog/import",
        ]
        fragments = ["/plan?example=8b-lora", "/tco?months=12", "/assess?task=image&size=7"]
        from app.accounts import web as accounts_web

        for lang in ("zh-TW", "en"):
            client.cookies.clear()
            client.cookies.set("lang", lang)
            for url in pages_public:
                r = client.get(url)
                write(
                    out / f"pages/{lang}/{_slug(url)}.html",
                    f"{r.status_code}\n" + normalise(r.text),
                )
            for url in fragments:
                r = client.get(url, headers={"HX-Request": "true"})
                write(
                    out / f"pages/{lang}/frag{_slug(url)}.html",
                    f"{r.status_code}\n" + normalise(r.text),
                )
            if share_url:
                path = "/s/" + share_url.rsplit("/s/", 1)[-1]
                r = client.get(path)
                write(out / f"pages/{lang}/share.html", f"{r.status_code}\n" + normalise(r.text))
            admin = users["admin"][0]
            client.cookies.set(
                accounts_web.COOKIE,
                accounts_web.session_cookie(settings.resolved_secret_key(), admin),
            )
            for url in pages_signed_in:
                r = client.get(url)
                write(
                    out / f"pages/{lang}/admin{_slug(url)}.html",
                    f"{r.status_code}\n" + normalise(r.text),
                )

        client.cookies.clear()
        for lang in ("zh-TW", "en"):
            r = client.get(f"/api/v1/plans/{plan_id}/pdf?lang={lang}", headers=sales_headers)
            pdf = tmp / f"q-{lang}.pdf"
            pdf.write_bytes(r.content)
            text = subprocess.run(
                ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
            ).stdout
            write(out / f"pdf/quote-{lang}.txt", normalise(text))
    app.state.engine.dispose()
    print(f"golden outputs in {out}: {sum(1 for _ in out.rglob('*') if _.is_file())} files")


def _slug(url: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", url).strip("_") or "root"


if __name__ == "__main__":
    main(Path(sys.argv[1]))
