"""A GPU added to the catalog reaches the planner, the GPU list and the cost comparison."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.catalog import service

# A hypothetical part, only for this test: twice an H100's memory, the same compute.
NEW_GPU = {
    "id": "test-h100-160gb", "name": "Test H100 160GB", "vendor": "NVIDIA",
    "generation": "hopper", "memory_gb": "160", "bandwidth_gbs": "3350", "bf16_tflops": "989",
    "fp8_tflops": "1979", "int8_tops": "1979", "fp32_tflops": "67", "tdp_w": "700",
    "form_factor": "sxm", "nvlink_gbs": "900", "pcie_gbs": "128", "gpus_per_node": "8",
    "mig_max": "7", "launch_year": "2026", "source": "test fixture",
}  # fmt: skip


def test_a_catalog_gpu_is_planned_with(catalog_client: TestClient) -> None:
    body = {"model": {"preset": "llama-2-70b"}, "task": "lora", "seq_len": 2048,
            "gpu": NEW_GPU["id"], "tokens": 1e8}  # fmt: skip
    before = catalog_client.post("/api/v1/estimate", json=body)
    assert before.status_code == 422  # not known yet
    with Session(catalog_client.app.state.engine) as s:  # type: ignore[attr-defined]
        data = service.validate_row(kind_name="gpus", values=NEW_GPU)
        service.create_row(session=s, kind_name="gpus", price_list_id=None, data=data, actor="t")
    r = catalog_client.post("/api/v1/estimate", json=body)
    assert r.status_code == 200, r.text
    h100 = catalog_client.post("/api/v1/estimate", json=body | {"gpu": "h100-sxm-80gb"}).json()
    # Twice the memory per card: never more cards than the 80 GB H100 needs, and it is used.
    assert r.json()["gpu"]["memory_gb"] == 160
    assert r.json()["gpu"]["count"] <= h100["gpu"]["count"]
    assert r.json()["memory_per_gpu_gb"]["total"] <= 160 * 0.95
    ids = {g["id"] for g in catalog_client.get("/api/v1/gpus").json()}
    assert NEW_GPU["id"] in ids


def test_a_gpu_without_a_host_bus_is_refused() -> None:
    """Review: a GPU saved with pcie_gbs 0 made every training search that walked it divide by
    zero (compute.tp_step: TP over PCIe is costed by the link), a 500 whichever GPU was
    asked for. Every GPU sits on a host bus: the field must be more than 0."""
    with pytest.raises(service.InvalidRow) as err:
        service.validate_row(kind_name="gpus", values=NEW_GPU | {"pcie_gbs": "0"})
    assert list(err.value.errors) == ["pcie_gbs"]
