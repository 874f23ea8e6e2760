"""The OpenAPI schema of the estimate's `model` says what the server accepts (issue 13:
`{"model": {}}` was valid by the schema but answered 422).

Each case is checked twice: against the generated OpenAPI component with jsonschema_rs (the validator
schemathesis uses), and by
posting it to /api/v1/estimate. Both must agree — valid by the schema ⇔ not a 422 about
`model`. The rule (`ModelInput._one_source`): exactly one of `preset`, `params_b`,
`hf_config`; a null counts as not given.
"""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest
from fastapi.testclient import TestClient

LLAMA_CONFIG = {
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "vocab_size": 32000,
    "max_position_embeddings": 4096,
}

CASES: list[tuple[str, dict[str, Any], bool]] = [
    ("empty", {}, False),
    ("architecture only", {"layers": 32, "hidden": 4096}, False),
    ("all sources null", {"preset": None, "params_b": None, "hf_config": None}, False),
    ("preset", {"preset": "llama-2-7b"}, True),
    ("params_b", {"params_b": 7}, True),
    ("params_b, the others null", {"preset": None, "params_b": 7, "hf_config": None}, True),
    ("hf_config", {"hf_config": LLAMA_CONFIG}, True),
    ("preset and params_b", {"preset": "llama-2-7b", "params_b": 7}, False),
    ("params_b and hf_config", {"params_b": 7, "hf_config": LLAMA_CONFIG}, False),
    ("all three", {"preset": "llama-2-7b", "params_b": 7, "hf_config": LLAMA_CONFIG}, False),
]


@pytest.fixture(scope="module")
def model_schema(client: TestClient) -> Any:
    spec = client.get("/openapi.json").json()
    schema = {"$ref": "#/components/schemas/ModelInput", "components": spec["components"]}
    return jsonschema_rs.Draft202012Validator(schema)


@pytest.mark.parametrize("model, valid", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_schema_and_server_agree_on_the_model(
    client: TestClient, model_schema: Any, model: Any, valid: bool
) -> None:
    by_schema = model_schema.is_valid(model)
    r = client.post("/api/v1/estimate", json={"model": model, "task": "inference"})
    by_server = r.status_code != 422
    assert (by_schema, by_server) == (valid, valid), (by_schema, r.status_code, r.text[:300])
    if not valid:
        locs = [tuple(d["loc"][:2]) for d in r.json()["detail"]]
        assert ("body", "model") in locs, locs
