"""QA of /assess, second round: a serving fleet's tier, the tier table's first column, the
'other size' message, half-up US$ with the rate it used, signals that fit the answers, the
single tier's PCIe line, and a space before units in Chinese.

Expected figures are worked out by hand in each case's comment from the shipped price list
(seed 003 T8: 1 / 2 / 4 / 8 × H100 at NT$50,000 / 100,000 / 200,000 / 350,000 a month,
12-month contract −20 %; the list's rate 32 NT$ to the US$, as of 2026-11-01) and the
engine's own figures for the case.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.assess import views
from app.catalog.shipped import shipped_price_book
from app.engine.plan_costs import provider_selection
from app.leads.models import Lead

ZH = "zh-TW"

#: 70B served to 1,000 users at once within a week (QA's case): the engine plans 26
#: copies of the int4 model, one H100 each (67 GB of 80 GB), 8 to a server → 4 servers.
FLEET = "task=inference&size=70&users=1000&deadline=7"


def _text(soup: BeautifulSoup, selector: str) -> str:
    el = soup.select_one(selector)
    assert el is not None, selector
    return el.get_text(" ", strip=True)


def _why(soup: BeautifulSoup) -> list[str]:
    return [
        li.get_text(" ", strip=True) for li in soup.select(".tier-result ul.why li:not(.why-model)")
    ]


# --- 1. a serving fleet is not a training cluster ----------------------------------------


def test_a_fleet_of_single_gpu_copies_is_the_multi_gpu_tier_not_a_training_cluster(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    # Seed 003 puts serving in the single and multi-GPU tiers ("推論", "兩個服務分流", "70B 張量
    # 平行推論" on the 8-GPU server) and calls the multi-node tier "分散式訓練的入場券": InfiniBand
    # for gradient sync across nodes. 26 copies that each fit one H100 exchange nothing, so
    # the fleet is 4 servers of the multi-GPU tier behind a load balancer (the engine's own
    # network sizing says "the replicas are independent, so the servers need no InfiniBand").
    soup = get_soup(f"/assess?{FLEET}")
    assert soup.select_one(".tier-result.multi_gpu") is not None
    assert [tr["data-tier"] for tr in soup.select("#result tr.is-you")] == ["multi_gpu"]
    assert _text(soup, ".tier-name") == ("多卡" if lang == ZH else "Multi-GPU")
    assert "InfiniBand" not in _text(soup, ".tier-sub")
    # The template is the multi-GPU tier's (Growth), not Training's InfiniBand × 8 rails.
    assert _text(soup, "#tpl-heading") == (
        "參考範本：成長型" if lang == ZH else "Reference template: Growth"
    )
    assert "InfiniBand" not in _text(soup, "dl.specs")
    # The memory sentence (26 copies, one GPU each) and the servers sentence agree with it:
    # 26 = 3 × 8 + 1 × 2 GPUs, the cheapest cover of the list (below).
    memory, _load, servers = _why(soup)
    assert ("26 份共用 26 張 GPU" if lang == ZH else "26 copies take 26 GPUs") in memory
    assert servers == (
        "伺服器：26 份模型分放在 4 台伺服器（3 台 8 卡伺服器 + 1 台 2 卡伺服器），前面接負載平衡器。"
        "各份模型之間不交換資料，伺服器之間用乙太網路即可，不需要多節點訓練叢集的 InfiniBand："
        "每台伺服器都屬於「多卡」這一級。"
        if lang == ZH
        else "Servers: the 26 copies run on 4 servers (3 × 8-GPU servers + 1 × 2-GPU server) "
        "behind a load balancer. The copies exchange no data, so the servers need only "
        "Ethernet between them, not the InfiniBand of a multi-node training cluster: each "
        "server is in the Multi-GPU tier."
    )
    # The card's hardware line is per server.
    assert _text(soup, ".tier-sub") == (
        "每台伺服器 H100 ×2–8 · 伺服器內 NVLink 900 GB/s，伺服器之間用乙太網路 · "
        "我們的估算：26 × NVIDIA H100 SXM5 80GB"
        if lang == ZH
        else "H100 ×2–8 per server · NVLink 900 GB/s inside each server, Ethernet between "
        "servers · our estimate: 26 × NVIDIA H100 SXM5 80GB"
    )


def test_a_fleet_is_priced_as_the_servers_that_hold_it(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    # 26 GPUs from the list's 1/2/4/8-GPU servers: 3 × 8 (3 × 350,000 = 1,050,000) + 1 × 2
    # (100,000) = NT$1,150,000 a month at list; −20 % on 12 months = NT$920,000. Cheaper than
    # 4 × 8 (1,400,000) or 3 × 8 + 4 (1,250,000); 3 × 8 + 1 + 1 costs the same with one
    # more server. It said "Quoted per project", the multi-node cluster's answer.
    soup = get_soup(f"/assess?{FLEET}")
    assert _text(soup, ".price-range") == "NT$920,000 – NT$1,150,000"
    assert _text(soup, ".price-range + p") == (
        "4 台 H100 伺服器（3 台 8 卡伺服器 + 1 台 2 卡伺服器）每月：從牌價到 12 個月合約價。含電力與頻寬。"
        if lang == ZH
        else "For the 4 H100 servers (3 × 8-GPU servers + 1 × 2-GPU server) a month: list "
        "price, down to the 12-month contract price. Power and bandwidth included."
    )


@pytest.mark.parametrize(
    "gpus, span, expected",
    [
        # (GPUs, GPUs a copy spans) → servers, largest first; list NT$ a month, by hand.
        (26, 1, ((8, 8, 8, 2), 1_150_000)),  # 3 × 350,000 + 100,000
        (9, 1, ((8, 1), 400_000)),  # 350,000 + 50,000
        (11, 1, ((8, 2, 1), 500_000)),  # 350,000 + 100,000 + 50,000 (not 8 + 4: 550,000)
        (12, 2, ((8, 4), 550_000)),  # whole 2-GPU copies: 350,000 + 200,000
        (10, 2, ((8, 2), 450_000)),  # 350,000 + 100,000
        (24, 8, ((8, 8, 8), 1_050_000)),  # an 8-GPU copy only fits the 8-GPU server
    ],
)
def test_fleet_rental_is_the_cheapest_cover_in_whole_copies(
    gpus: int, span: int, expected: tuple[tuple[int, ...], int]
) -> None:
    # The engine's own selection (`plan_costs.provider_selection`), which /assess prices on.
    book = shipped_price_book()
    sel = provider_selection(
        book, provider=book.house_provider, task="inference", gpu_id="h100-sxm-80gb",
        count=gpus, tp=span, gpus_per_node=8,
    )  # fmt: skip
    assert sel is not None
    servers, price = expected
    held = sorted((int(o.gpu_count) for o, k in sel.parts for _ in range(k)), reverse=True)
    assert tuple(held) == servers
    assert sel.monthly(lambda amount, _ccy: amount) == price
    # 12-month contract −20 % (T8)
    assert sel.term_monthly(lambda amount, _ccy: amount, 12) == pytest.approx(price * 0.8)


def test_a_copy_that_spans_servers_stays_multi_node(
    get_soup: Callable[..., BeautifulSoup],
) -> None:
    # 2,000B for 1,000 users: each copy is split over 8 GB200 GPUs, more than the engine's
    # 4-GPU node holds, so the copies themselves cross servers: the multi-node tier stays.
    soup = get_soup("/assess?task=inference&size=other&size_other=2000&users=1000&deadline=none")
    assert [tr["data-tier"] for tr in soup.select("#result tr.is-you")] == ["multi_node"]
    assert len(_why(soup)) == 2


def test_a_training_job_over_several_nodes_stays_multi_node(
    get_soup: Callable[..., BeautifulSoup],
) -> None:
    # 70B full fine-tune on 100 GB–1 TB in a month: one job over nodes (gradient sync):
    # seed 003's InfiniBand tier.
    soup = get_soup("/assess?task=full_finetune&size=70&data=1000&deadline=30")
    assert [tr["data-tier"] for tr in soup.select("#result tr.is-you")] == ["multi_node"]
    assert "InfiniBand" in _text(soup, "dl.specs")


def test_a_fleet_quote_request_carries_the_tier_the_page_showed(web: TestClient) -> None:
    page = web.get(f"/assess?{FLEET}", headers={"Accept-Language": "en"})
    token = BeautifulSoup(page.text, "html.parser").select_one("input[name=csrf_token]")
    assert token is not None
    form = {
        "task": "inference",
        "size": "70",
        "users": "1000",
        "deadline": "7",
        "name": "Lin",
        "company": "Fleet Co",
        "email": "lin@fleet.example",
        "csrf_token": str(token["value"]),
    }
    r = web.post("/assess/quote", data=form, follow_redirects=False)
    assert r.status_code == 303
    with Session(web.app.state.engine) as s:  # type: ignore[attr-defined]
        lead = s.exec(select(Lead).where(Lead.email == "lin@fleet.example")).one()
    assert lead.tier == "multi_gpu"


# --- 2. the tier table's first column at 1440 px -----------------------------------------


def test_the_badge_and_the_tier_column_do_not_clip_or_wrap() -> None:
    # The badge was `display: table` inside a `border-collapse: collapse` table: a table box
    # in the collapsing model has no padding, so the pill was the text's width and its round
    # ends cut the text ("您的方案" in a 48.6 px pill). The first column wrapped its header
    # ("規模落 / 點", "Multi- / node"). The /assess rules must not use a table box and must
    # keep the tier column on one line on wide screens.
    css = (Path(__file__).parents[2] / "static/css/app.css").read_text(encoding="utf-8")
    badge = [
        line
        for line in css.splitlines()
        if ".result-area .tier-table" in line and "you-badge" in line
    ]
    assert badge and all("display: table" not in line for line in badge), badge
    assert any("width: max-content" in line for line in badge), (
        "the badge is as wide as its text and padding"
    )
    assert ".result-area .tier-table th:first-child" in css
    assert "white-space: nowrap" in css.split(".result-area .tier-table th:first-child", 1)[1][:200]


# --- 3. the 'other size' message states the range ----------------------------------------


@pytest.mark.parametrize("typed", ["abc", "", "5000", "0.01", "1e9"])
def test_an_unreadable_or_out_of_range_size_says_the_range(
    get_soup: Callable[..., BeautifulSoup], lang: str, typed: str
) -> None:
    # The field takes billions of parameters from 0.1 to 2,000 (views.build_request); it
    # said "Enter a number, e.g. 4096." (4,096B is outside the range).
    soup = get_soup(f"/assess?task=lora&size=other&size_other={typed}&data=1&deadline=7")
    assert _text(soup, "#err-size_other") == (
        "請輸入 0.1 到 2,000 之間的參數量（單位：十億，B），例如 32。"
        if lang == ZH
        else "Enter a size from 0.1 to 2,000 billion parameters, e.g. 32."
    )


# --- 4. US$: half-up, and the rate it was converted at -----------------------------------


def test_us_dollars_round_half_up_and_name_the_rate(web: TestClient) -> None:
    # NT$50,000 / 32 = US$1,562.50 → US$1,563 half-up (it showed 1,562, half to even, while
    # 10,937.5 became 10,938); NT$40,000 / 32 = US$1,250. Tier table: NT$100,000–350,000 →
    # US$3,125–10,937.50 → US$10,938.
    web.cookies.set("currency", "USD")
    r = web.get("/assess?task=lora&size=7&data=1&deadline=7", headers={"Accept-Language": "en"})
    soup = BeautifulSoup(r.text, "html.parser")
    assert _text(soup, ".price-range") == "US$1,250 – US$1,563"
    cells = [td.get_text(" ", strip=True) for td in soup.select("#result .tier-table td.num")]
    assert cells == ["about US$1,563", "US$3,125–US$10,938", "Quoted per project"]
    assert _text(soup, ".fx-note") == (
        "Converted from NT$ at the price list's rate, US$1 = NT$32, as of Nov 1, 2026."
    )


def test_the_rate_in_chinese_and_none_in_the_list_currency(web: TestClient) -> None:
    r = web.get("/assess?task=lora&size=7&data=1&deadline=7", headers={"Accept-Language": ZH})
    assert BeautifulSoup(r.text, "html.parser").select_one(".fx-note") is None
    web.cookies.set("currency", "USD")
    r = web.get("/assess?task=lora&size=7&data=1&deadline=7", headers={"Accept-Language": ZH})
    soup = BeautifulSoup(r.text, "html.parser")
    assert _text(soup, ".fx-note") == "以價目表的匯率由 NT$ 換算：US$1 = NT$32（2026年11月1日）。"


@pytest.mark.parametrize(
    "amount, whole",
    [(1562.5, 1563), (10937.5, 10938), (1250.0, 1250), (1562.49, 1562), (2.5, 3), (3.5, 4)],
)
def test_whole_rounds_half_up(amount: float, whole: int) -> None:
    assert views.whole(amount) == whole


# --- 5. signals that fit the answers and the tier ----------------------------------------


def _signals(soup: BeautifulSoup) -> tuple[str, str, list[str]]:
    section = soup.select_one("#signals-heading").parent
    intro = section.select_one("p.signals-intro")
    return (
        _text(soup, "#signals-heading"),
        intro.get_text(" ", strip=True) if intro else "",
        [li.get_text(" ", strip=True) for li in section.select("ol.signals li")],
    )


def test_the_top_tier_has_no_next_tier(get_soup: Callable[..., BeautifulSoup], lang: str) -> None:
    # Seed 003's multi-node tier is the last; it said "就該評估下一階段" with T14's list.
    heading, intro, signals = _signals(
        get_soup("/assess?task=full_finetune&size=70&data=1000&deadline=30")
    )
    assert heading == ("如何擴充" if lang == ZH else "How this grows")
    assert signals == []
    assert intro == (
        "這已是最高一級，上面沒有下一階段。模型更大、資料更多或時程更緊，就加節點，依專案報價。"
        if lang == ZH
        else "This is the top tier: there is no tier above it. A larger model, more data or a "
        "tighter deadline takes more nodes, priced per project."
    )


def test_a_70b_customer_is_not_told_about_a_jump_to_70b(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    # 70B LoRA on 10–100 GB in a month: the multi-GPU tier. What takes it to multi-node is
    # what one 8-GPU server cannot do (seed 003: "單節點八卡仍不夠,就得跨機器"); the T14 signal
    # "13B → 70B" is the single tier's, and this customer already chose 70B.
    heading, intro, signals = _signals(get_soup("/assess?task=lora&size=70&data=100&deadline=30"))
    assert heading == ("何時該升級" if lang == ZH else "When to move up a tier")
    assert all("13B" not in s for s in signals)
    assert signals == (
        [
            "改做 70B 全參數微調或預訓練：所需記憶體是 TB 級，一台 8 卡伺服器放不下。",
            "在一台 8 卡伺服器上訓練已趕不上您的期限。",
        ]
        if lang == ZH
        else [
            "You move to a full fine-tune or pre-training of a 70B model: terabyte-class "
            "memory, more than one 8-GPU server holds.",
            "Training on one 8-GPU server no longer meets your deadline.",
        ]
    )
    assert intro == (
        "一台 8 卡伺服器不再夠用時，就該規劃多節點："
        if lang == ZH
        else "Plan the multi-node tier when one 8-GPU server is no longer enough:"
    )


def test_the_single_tier_keeps_t14_with_the_size_jump_for_small_models(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    # 7B LoRA: the single tier; seed 003 T14 verbatim — two or more of three.
    heading, intro, signals = _signals(get_soup("/assess?task=lora&size=7&data=1&deadline=7"))
    assert heading == ("何時該升級" if lang == ZH else "When to move up a tier")
    assert intro == (
        "出現以下兩個以上訊號時，就該評估下一階段："
        if lang == ZH
        else "Plan the next tier when two or more of these show up:"
    )
    assert len(signals) == 3
    assert signals[1] == (
        "想做的模型尺寸從 13B 跳到 70B。"
        if lang == ZH
        else "The model you want to train jumps from 13B to 70B."
    )


def test_a_70b_model_on_one_gpu_drops_the_size_jump(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    # 70B int4 served to 10 users fits one H100 (the single tier); the "13B → 70B" signal
    # cannot happen to a 70B model, so two remain and both must show up (T14: two or more).
    soup = get_soup("/assess?task=inference&size=70&users=10&deadline=none")
    assert soup.select_one("#result tr.is-you")["data-tier"] == "single_gpu"
    _heading, intro, signals = _signals(soup)
    assert all("70B" not in s for s in signals) and len(signals) == 2
    assert intro == (
        "以下兩個訊號都出現時，就該評估下一階段："
        if lang == ZH
        else "Plan the next tier when both of these show up:"
    )


def test_a_serving_fleet_grows_by_servers(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    heading, intro, signals = _signals(get_soup(f"/assess?{FLEET}"))
    assert heading == ("如何擴充" if lang == ZH else "How this grows")
    assert intro == (
        "服務靠在這一級加伺服器擴充，不必升級："
        if lang == ZH
        else "Serving grows by adding servers in this tier, not by moving up:"
    )
    assert len(signals) == 2


# --- 6. the single tier's line: PCIe is the host link, not the GPU ------------------------


def test_the_single_tier_line_says_pcie_is_the_host_link(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    # Seed 003's single tier reads "H100 80GB ×1 | PCIe 5.0"; its GPU is the 80GB HBM3 part,
    # the SXM5 the estimate names (app/data/catalog.yaml, stratagem-tpe-h100-x1). One GPU has
    # no peer: PCIe 5.0 is its link to the host (the engine's "single GPU (PCIe to host)").
    sub = _text(get_soup("/assess?task=lora&size=7&data=1&deadline=7"), ".tier-sub")
    assert sub == (
        "H100 80GB ×1 · PCIe 5.0 連接主機 · 我們的估算：1 × NVIDIA H100 SXM5 80GB"
        if lang == ZH
        else "H100 80GB ×1 · PCIe 5.0 to the host · our estimate: 1 × NVIDIA H100 SXM5 80GB"
    )


# --- 7. a space between a number and its unit in Chinese ----------------------------------


@pytest.mark.parametrize(
    "query, network",
    [
        ("task=lora&size=7&data=1&deadline=7", "100 Mbps 對外"),
        ("task=full_finetune&size=13&data=10&deadline=30", "1 Gbps 對外+10GbE 內網"),
        ("task=full_finetune&size=70&data=1000&deadline=30", "InfiniBand 400 Gbps 八軌"),
    ],
)
def test_chinese_network_specs_space_the_unit(web: TestClient, query: str, network: str) -> None:
    r = web.get(f"/assess?{query}", headers={"Accept-Language": ZH})
    specs = BeautifulSoup(r.text, "html.parser").select("dl.specs dd")
    assert specs[-1].get_text(strip=True) == network
