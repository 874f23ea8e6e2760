"""A cost option's note reads in the page's language, sentence by sentence: the engine keeps
each sentence as a Notice (app.engine.notices.Sentences), the stored plan keeps them as
`note_notices`, and the cost table translates them (before, every note was English on a
zh-TW page, marked lang="en")."""

from __future__ import annotations

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.engine.notices import Notice, Sentences, sentence_pairs

# A LoRA of Llama 3.1 8B pinned to 3 H100s keeps them in one NVLink machine; the shipped
# offers rent that as a 4-GPU server ("Rents 4 GPUs to cover 3").
PLAN = ("/plan?model_source=preset&preset=llama-3.1-8b&task=lora&gpu=h100-sxm-80gb"
           "&gpu_count=3&tokens=1e8")  # fmt: skip


def test_sentences_keep_each_notice_and_read_as_one_english_string() -> None:
    a = Notice("Rents %(rented)s GPUs to cover %(used)s.", rented="4", used="3")
    note = Sentences(Sentences(a), "", Notice("Monthly rent is billed by whole months: "
                     "%(billed)s for a %(period)s-month rental period.", billed="1", period="0.05"))  # fmt: skip
    assert note == "Rents 4 GPUs to cover 3. Monthly rent is billed by whole months: 1 for a " \
                   "0.05-month rental period."  # fmt: skip
    pairs = sentence_pairs(note)
    assert [p["params"] for p in pairs] == [{"rented": "4", "used": "3"},
                                            {"billed": "1", "period": "0.05"}]  # fmt: skip
    assert sentence_pairs("plain text") == [{"template": "plain text", "params": {}}]
    assert sentence_pairs("") == []


def test_cost_table_notes_are_in_chinese_on_a_zh_tw_page(client: TestClient) -> None:
    r = client.get(PLAN, headers={"Accept-Language": "zh-TW"})
    soup = BeautifulSoup(r.text, "html.parser")
    notes = soup.select("span.note")
    assert notes, "the serving plan's rentals and purchase carry notes"
    assert not [n for n in notes if n.get("lang") == "en" or n.select("[lang=en]")]
    text = " ".join(n.get_text() for n in notes)
    assert "租用 4 張 GPU 以支應 3 張的需求。" in text
    assert "Rents 4 GPUs" not in text


def test_cost_table_notes_stay_english_on_an_english_page(client: TestClient) -> None:
    r = client.get(PLAN, headers={"Accept-Language": "en"})
    text = " ".join(n.get_text() for n in BeautifulSoup(r.text, "html.parser").select("span.note"))
    assert "Rents 4 GPUs to cover 3." in text


def test_api_options_carry_the_note_and_its_sentences(client: TestClient) -> None:
    body = {"model": {"preset": "llama-3.1-8b"}, "task": "lora", "gpu": "h100-sxm-80gb",
            "gpu_count": 3, "tokens": 1e8}  # fmt: skip
    cost = client.post("/api/v1/estimate", json=body).json()["cost"]
    rented = [o for o in cost["options"] if o["note"].startswith("Rents 4 GPUs")]
    assert rented
    for o in rented:
        first = o["note_notices"][0]
        assert first["template"] == "Rents %(rented)s GPUs to cover %(used)s."
        assert first["template"] % first["params"] in o["note"]


def test_cost_table_cells_carry_their_column_header_for_the_phone_layout(
    client: TestClient,
) -> None:
    # Below 700 px the table stacks (static/css/app.css) and each amount is labelled from its
    # cell's data-label: it must be the column's header, in the page's language.
    soup = BeautifulSoup(client.get(PLAN, headers={"Accept-Language": "zh-TW"}).text,
                         "html.parser")  # fmt: skip
    table = soup.select_one("table.costs-table")
    assert table is not None
    headers = [th.get_text(strip=True) for th in table.select("thead th")][1:]
    # every amount says it is before tax (未稅, PRODUCT.md §6)
    assert headers == ["單價（未稅）", "期初支出（未稅）", "期間總額（未稅）"]
    for tr in table.select("tbody tr"):
        assert [td.get("data-label") for td in tr.select("td")] == headers


def test_a_purchase_held_for_hours_says_how_long_not_0_months(client: TestClient) -> None:
    # The planner's default LoRA job takes 0.09 days = 0.09 / (365 / 12) = 0.003 months;
    # one decimal printed "Held 0 months", then "Held 0.003 months" (which says nothing to a
    # buyer). Under a day it is said in hours: days × 24 h (0.003 months × 730 h).
    body = {"model": {"preset": "llama-3.1-8b"}, "task": "lora"}
    r = client.post("/api/v1/estimate", json=body).json()
    (buy,) = [o for o in r["cost"]["options"] if o["kind"] == "buy"]
    hours = f"{r['training']['days'] * 24:.1f}".removesuffix(".0")
    assert f"Held {hours} hours, then resold at book value" in buy["note"], buy["note"]
    assert f"Not economical for this period: {hours} hours is shorter than" in buy["note"]
    assert "Held 0" not in buy["note"]
