"""HEAD gets the GET's status and headers without a body (RFC 9110 §9.3.2). QA: every page,
/healthz included, answered HEAD with 405, failing `curl -I`, uptime monitors' HEAD probes
and load balancers' HEAD health checks."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient


@pytest.mark.parametrize("path", ["/healthz", "/", "/plan", "/assess", "/api/v1/offers"])
def test_head_answers_as_get_without_a_body(client: TestClient, path: str) -> None:
    got = client.get(path)
    head = client.head(path)
    assert head.status_code == got.status_code == 200
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]


def test_head_of_a_route_without_get_is_still_refused(client: TestClient) -> None:
    assert client.head("/api/v1/estimate").status_code == 405  # POST only
    for path in ("/api/v1/plans/999999", "/no-such-page"):  # refused as GET is
        assert client.head(path).status_code == client.get(path).status_code
