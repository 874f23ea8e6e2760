"""An integrator's client: `openapi-python-client generate` on /openapi.json, with no
warnings, then the estimate called through the generated code (issue 13).

The generator runs as a command (it pins an older typer than the app, so the Makefile
installs it without its dependencies). Its one option, `text/csv → application/octet-stream`,
is how that tool is told to send the catalog import's CSV body as raw bytes.
"""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

GENERATOR = shutil.which("openapi-python-client") or str(
    Path(sys.executable).with_name("openapi-python-client")
)


@pytest.fixture(scope="module")
def generated(client: TestClient, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    if not Path(GENERATOR).exists():
        pytest.fail("openapi-python-client is not installed: run `make test` (it installs it)")
    work = tmp_path_factory.mktemp("client")
    (work / "openapi.json").write_text(json.dumps(client.get("/openapi.json").json()))
    (work / "config.yaml").write_text(
        "content_type_overrides:\n  text/csv: application/octet-stream\n"
    )
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}  # its ruff post-hook
    proc = subprocess.run(
        [
            GENERATOR,
            "generate",
            "--path",
            "openapi.json",
            "--meta",
            "none",
            "--config",
            "config.yaml",
        ],
        cwd=work,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return work, proc.stdout + proc.stderr


def test_the_client_generates_without_warnings(generated: tuple[Path, str]) -> None:
    work, output = generated
    assert "Warning" not in output and "WARNING" not in output, output
    names = {p.stem for p in (work / "stratagem_client" / "api").rglob("*.py")} - {"__init__"}
    # Short verbs, not FastAPI's `post_estimate_api_v1_estimate_post`.
    assert {"estimate", "create_plan", "get_plan", "compare_costs", "import_catalog"} <= names
    models = {p.stem for p in (work / "stratagem_client" / "models").glob("*.py")}
    assert {"field_change", "catalog_field_change", "revision_diff"} <= models


def test_the_estimate_through_the_generated_client(
    generated: tuple[Path, str], client: TestClient
) -> None:
    work, _ = generated
    sys.path.insert(0, str(work))
    try:
        pkg = importlib.import_module("stratagem_client")
        estimate = importlib.import_module("stratagem_client.api.engine.estimate")
        models = importlib.import_module("stratagem_client.models")
        api = pkg.Client(base_url="http://testserver")
        api.set_httpx_client(client)
        body = models.EstimateRequest.from_dict(
            {"model": {"preset": "llama-3.1-8b"}, "task": "lora", "seq_len": 4096, "tokens": 2e8}
        )
        answer = estimate.sync_detailed(client=api, body=body)
        assert answer.status_code == 200
        parsed = answer.parsed
        assert isinstance(parsed, models.EstimateResponse)
        # The same figure the API gives without the client (the engine is deterministic).
        direct = client.post("/api/v1/estimate", json=body.to_dict()).json()
        assert parsed.gpu.count == direct["gpu"]["count"] >= 1
        assert parsed.memory_gb.total == pytest.approx(direct["memory_gb"]["total"])
        bad = estimate.sync_detailed(
            client=api,
            body=models.EstimateRequest.from_dict({"model": {"params_b": 0.0}, "task": "lora"}),
        )
        assert bad.status_code == 422
        assert isinstance(bad.parsed, models.Error)
    finally:
        sys.path.remove(str(work))
        for name in [m for m in sys.modules if m.startswith("stratagem_client")]:
            del sys.modules[name]
