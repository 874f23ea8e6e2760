"""A select sent with a value it never offered (a hand-edited form) is told to choose one of
the listed options, in the page's language, beside the field, with what was typed kept.

The pages offer GPUs by name; the API names them by id. Before, a page answered an unknown
GPU with the API's sentence — "unknown GPU 'x'. Allowed: a100-pcie-80gb, a100-sxm-40gb, …",
twenty internal ids — on the planner, in the phase builder, and, from the planner's "save as
a new revision", on a bare error page that lost the typed workload (QA). The API keeps its
answer: a client needs the ids it takes.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.plans.test_pages import make_plan, signed_in, soup
from tests.plans.test_phase_builder import HX, form_of, t16
from tests.plans.test_stale_forms import _setup, _version

CHOOSE = {"en": "Choose one of the listed options.", "zh-TW": "請從列出的選項中選擇。"}
LANGS = ("en", "zh-TW")
# Ids a page must not show: the API's list of GPUs it takes.
IDS = ("a100-pcie-80gb", "h100-sxm-80gb", "rtx-4090-24gb")


def _said(r: object) -> str:
    """Every error and alert the page shows, as text."""
    return " ".join(e.get_text() for e in soup(r).select(".error, [role=alert]"))


def _shows_no_ids(text: str) -> None:
    assert not [i for i in IDS if i in text], text[:300]


@pytest.mark.parametrize("lang", LANGS)
def test_the_planner_says_choose_beside_the_gpu(client: TestClient, lang: str) -> None:
    r = client.get(
        "/plan",
        params={"preset": "llama-2-7b", "task": "lora", "tokens": "1e9", "gpu": "h100-sxm-8gb"},
        headers={"Accept-Language": lang},
    )
    assert r.status_code == 200
    err = soup(r).select_one("#err-gpu")
    assert err is not None and err.get_text().strip() == CHOOSE[lang]
    _shows_no_ids(_said(r))


@pytest.mark.parametrize("lang", LANGS)
def test_a_workload_phase_gpu_never_offered_is_a_field_error(
    pages: TestClient, account: object, lang: str
) -> None:
    a = signed_in(pages, account)  # type: ignore[arg-type]
    plan = t16(pages, a.user)
    data = form_of(soup(pages.get(f"/plans/{plan.id}")))
    assert data["phase-0-wgpu"] == "h100-sxm-80gb"  # the select the builder draws
    data["phase-0-wgpu"] = "no-such-gpu"
    for action, status in (("preview", 200), ("save", 422)):
        r = pages.post(
            f"/plans/{plan.id}/phases",
            data={**data, "action": action},
            headers={**HX, "Accept-Language": lang},
        )
        assert r.status_code == status, action
        err = soup(r).select_one("#err-phase-0-wgpu")
        assert err is not None, (action, [e.get_text() for e in soup(r).select(".error")])
        assert err.get_text().endswith(CHOOSE[lang]), err.get_text()
        _shows_no_ids(_said(r))


@pytest.mark.parametrize("lang", LANGS)
def test_a_revision_from_the_planner_keeps_the_workload_and_says_choose(
    client: TestClient, lang: str
) -> None:
    sales, pages, plan = _setup(client)
    planner = pages.get(
        "/plan",
        params={"preset": "llama-3.1-8b", "task": "lora", "deadline_days": "9",
                "revise": plan["id"], "version": "1"},
    )  # fmt: skip
    form = soup(planner).select_one(f"form[action='/plans/{plan['id']}/workload']")
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    data["gpu"] = "no-such-gpu"
    r = pages.post(f"/plans/{plan['id']}/workload", data=data, headers={"Accept-Language": lang})
    assert r.status_code == 422
    page = soup(r)
    assert page.select_one("#err-gpu").get_text().strip() == CHOOSE[lang]
    # the planner's form as posted, still revising version 1: nothing typed is lost
    again = page.select_one("input[name=deadline_days]").find_parent("form")
    kept = {i["name"]: i.get("value", "") for i in again.select("input[name]")}
    assert kept["deadline_days"] == "9"
    assert (kept["revise"], kept["version"]) == (str(plan["id"]), "1")
    _shows_no_ids(_said(r))
    assert _version(client, sales, plan["id"]) == 1  # nothing saved


def test_the_api_still_names_the_gpus_it_takes(client: TestClient) -> None:
    r = client.post(
        "/api/v1/estimate",
        json={"model": {"preset": "llama-2-7b"}, "task": "lora", "gpu": "no-such-gpu"},
    )
    assert r.status_code == 422
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "gpu"] and "h100-sxm-80gb" in detail["msg"]


def test_a_plan_made_from_the_planner_with_a_gpu_never_offered_says_choose(
    pages: TestClient, account: object
) -> None:
    a = signed_in(pages, account)  # type: ignore[arg-type]
    make_plan(pages, a.user)  # a sales user with plans: the planner offers "save as plan"
    planner = pages.get("/plan", params={"preset": "llama-3.1-8b", "task": "lora"})
    form = soup(planner).select_one("form[action='/plans/new']")
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    data |= {"name": "Lab LoRA", "customer": "NTU AI Lab", "gpu": "no-such-gpu"}
    r = pages.post("/plans/new", data=data, headers={"Accept-Language": "zh-TW"})
    assert r.status_code == 422
    assert soup(r).select_one("#err-gpu").get_text().strip() == CHOOSE["zh-TW"]
    _shows_no_ids(_said(r))
