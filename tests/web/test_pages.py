"""Every page in both languages: structure, navigation, accessibility basics, no inline JS."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in

PAGES = {
    "/": (
        "home",
        {
            "zh-TW": "模型多大、資料多大、多久要看到結果？",
            "en": "How big is the model, how much data, how soon?",
        },
    ),
    "/assess": ("assess", {"zh-TW": "找出我的方案", "en": "Find my tier"}),
    "/plan": ("plan", {"zh-TW": "規劃器", "en": "Planner"}),
    "/tco": ("tco", {"zh-TW": "租、買，還是上雲？", "en": "Rent, buy or cloud?"}),
    "/architectures": (
        "architectures",
        {
            "zh-TW": "三種範本，在台北機房實際部署驗證",
            "en": "Three templates, proven in our Taipei data centre",
        },
    ),
    "/validation": (
        "validation",
        {"zh-TW": "引擎與公開實測有多接近", "en": "How close the engine comes to published runs"},
    ),
}
# What an anonymous visitor's nav shows; /catalog and /plans appear once signed in.
NAV = ["/", "/assess", "/plan", "/tco", "/architectures", "/validation"]


@pytest.mark.parametrize("path", list(PAGES))
def test_page_structure(path: str, lang: str, get_soup: Callable[..., BeautifulSoup]) -> None:
    soup = get_soup(path)
    _key, h1 = PAGES[path]
    html = soup.find("html")
    assert html is not None
    assert html["lang"] == ("zh-Hant-TW" if lang == "zh-TW" else "en")
    assert soup.h1 is not None and soup.h1.get_text(strip=True) == h1[lang]
    # Skip link first, pointing at <main id="main">.
    skip = soup.select_one("a.skip-link")
    assert skip is not None and skip["href"] == "#main"
    assert soup.select_one("main#main") is not None
    # Navigation: every section, the current one marked.
    hrefs = [a["href"] for a in soup.select("nav.main-nav a")]
    assert hrefs == NAV
    current = soup.select("nav.main-nav a[aria-current=page]")
    assert len(current) == 1 and current[0]["href"] == path
    # Language and currency switches work without JavaScript: plain links.
    langs = soup.select("nav.switch a[hreflang]")
    assert {a["hreflang"] for a in langs} == {"zh-TW", "en"}
    assert all(a["href"].startswith("/set-language?") for a in langs)
    on = soup.select_one("nav.switch a[hreflang][aria-current=true]")
    assert on is not None and on["hreflang"] == lang
    assert {a.get_text(strip=True) for a in soup.select("nav.switch a[href^='/set-currency']")} == {
        "TWD",
        "USD",
    }
    # CSRF token for htmx and forms.
    meta = soup.select_one("meta[name=csrf-token]")
    assert meta is not None and meta["content"]
    assert meta["content"] in soup.body["hx-headers"]
    # Footer: the price list by its date, in the page's language. The catalog's own name
    # ("2026-11 list", an admin's label in English) is for signed-in staff only.
    footer = soup.select_one("footer.site-footer").get_text(" ", strip=True)
    assert {"en": "Prices: the current price list, effective Nov 1, 2026.",
            "zh-TW": "價格：目前的價目表，2026年11月1日生效。"}[lang] in footer  # fmt: skip
    assert "2026-11 list" not in footer
    # Sentences follow each other with one space in English and none after a Chinese 。
    said = soup.select_one("footer.site-footer p").get_text().strip()
    assert {"en": "Nov 1, 2026. Figures are estimates", "zh-TW": "生效。數字皆為估算"}[lang] in said
    muted = soup.select_one("footer.site-footer p.muted").get_text()
    assert {"en": "infrastructure. API", "zh-TW": "報價。API"}[lang] in muted


def test_signed_in_staff_see_the_price_list_by_its_name(client: TestClient) -> None:
    pages = TestClient(client.app)
    sign_in(pages, make_account(client, "sales").user)
    soup = BeautifulSoup(
        pages.get("/plan", headers={"Accept-Language": "zh-TW"}).text, "html.parser"
    )
    footer = soup.select_one("footer.site-footer")
    assert footer is not None
    assert "價格：2026-11 list，2026年11月1日生效。" in footer.get_text("", strip=True)


@pytest.mark.parametrize("path", list(PAGES))
def test_no_inline_javascript(path: str, lang: str, get_soup: Callable[..., BeautifulSoup]) -> None:
    """A CSP without 'unsafe-inline' must hold: scripts are files or JSON data islands."""
    soup = get_soup(path)
    for script in soup.find_all("script"):
        assert script.get("src") or script.get("type") == "application/json", script
    for tag in soup.find_all(True):
        assert not [a for a in tag.attrs if a.startswith("on")], tag.name
        assert not tag.get("style"), tag.name


@pytest.mark.parametrize("path", list(PAGES))
def test_labels_bound_to_inputs(
    path: str, lang: str, get_soup: Callable[..., BeautifulSoup]
) -> None:
    soup = get_soup(path)
    for field in soup.select("input:not([type=hidden]), select, textarea"):
        fid = field.get("id")
        assert fid, field
        assert soup.select_one(f"label[for='{fid}']") is not None, fid
    ids = [t["id"] for t in soup.find_all(id=True)]
    assert len(ids) == len(set(ids)), "duplicate ids"


@pytest.mark.parametrize("path", list(PAGES))
def test_static_urls_versioned(
    path: str, lang: str, get_soup: Callable[..., BeautifulSoup]
) -> None:
    soup = get_soup(path)
    urls = [s["src"] for s in soup.select("script[src]")] + [
        link["href"] for link in soup.select("link[rel=stylesheet], link[rel=icon]")
    ]
    assert urls
    for url in urls:
        assert url.startswith("/static/") and "?v=" in url, url


@pytest.mark.parametrize("path", ["/plan", "/tco", "/architectures", "/plan?example=7b-chat"])
def test_every_data_island_is_a_figure(path: str, get_soup: Callable[..., BeautifulSoup]) -> None:
    soup = get_soup(path)
    islands = soup.select("script.plotly-figure")
    assert islands
    for island in islands:
        spec = json.loads(island.string)
        assert spec["data"] and isinstance(spec["layout"], dict), island["data-target"]
        assert soup.find(id=island["data-target"]) is not None


def test_charts_are_data_islands(get_soup: Callable[..., BeautifulSoup]) -> None:
    soup = get_soup("/plan")
    islands = soup.select("script.plotly-figure[type='application/json']")
    targets = {i["data-target"] for i in islands}
    assert {"chart-memory", "chart-scaling", "chart-cumulative", "chart-tco"} <= targets
    for t in targets:
        div = soup.find(id=t)
        assert div is not None and div.get("role") == "img" and div.get("aria-label")
    assert soup.select_one("script[src*='vendor/plotly-basic.min.js']") is not None
    assert soup.select_one("script[src*='js/charts.js']") is not None


def test_home_tiers_and_entries(get_soup: Callable[..., BeautifulSoup], lang: str) -> None:
    soup = get_soup("/")
    rows = soup.select("table.tier-table tbody tr")
    assert [r["data-tier"] for r in rows] == ["single_gpu", "multi_gpu", "multi_node"]
    assert "NT$50,000" in rows[0].get_text()
    assert "NT$100,000" in rows[1].get_text() and "NT$350,000" in rows[1].get_text()
    entries = {a["href"] for a in soup.select("a.entry")}
    assert {"/assess", "/plan"} <= entries


def test_architectures_page(get_soup: Callable[..., BeautifulSoup], lang: str) -> None:
    soup = get_soup("/architectures")
    cards = soup.select("article.arch")
    assert [c["id"] for c in cards] == ["entry", "growth", "training"]
    assert "NT$50,000" in cards[0].select_one(".price").get_text()
    assert "NT$200,000" in cards[1].select_one(".price").get_text()
    for c in cards:
        assert "kW" in c.select_one("dl.specs").get_text()
        assert c.select("ul.uses li")
    assert soup.select_one("script.plotly-figure[data-target='chart-architectures']") is not None
    assert len(soup.select(".upgrade-path .step")) == 3
    # QA: "NT$50,000 / 月" said neither 未稅 nor 含稅 (PRODUCT.md §6: a quote shows 未稅).
    basis = soup.select_one(".page-head .tax-basis").get_text(strip=True)
    assert basis == {"en": "All amounts exclude tax.", "zh-TW": "所有金額皆為未稅價。"}[lang]
    heads = [th.get_text(strip=True) for th in soup.select("section.chart-card thead th")]
    assert heads[1] == {"en": "Per month (excl. tax)", "zh-TW": "每月（未稅）"}[lang]


def test_architectures_in_us_dollars_says_its_rate_and_no_nt_dollar_figure(web: TestClient) -> None:
    """QA: in US$ the upgrade path still said "four idle GPUs for three months cost
    NT$600,000" (seed 003: 3 × the 4-GPU NT$200,000 monthly rent) and the page gave no rate.
    At the shipped list's 32 NT$/US$: 600,000 / 32 = US$18,750."""
    twd = BeautifulSoup(web.get("/architectures?lang=en").text, "html.parser")
    assert "cost NT$600,000." in twd.select_one("ul.why").get_text()
    assert twd.select_one(".fx-note") is None
    web.get("/set-currency?currency=USD&next=/")
    usd = BeautifulSoup(web.get("/architectures?lang=en").text, "html.parser")
    assert "cost US$18,750." in usd.select_one("ul.why").get_text()
    assert "NT$" not in usd.select_one("main").get_text().replace(
        usd.select_one(".fx-note").get_text(), ""
    )
    assert "US$1 = NT$32" in usd.select_one(".fx-note").get_text()
    web.get("/set-currency?currency=TWD&next=/")


def test_unknown_page_is_404(web) -> None:  # type: ignore[no-untyped-def]
    assert web.get("/no-such-page").status_code == 404
