"""End-to-end in Chromium: self-assessment, live planner, charts, switches, keyboard, console."""

from __future__ import annotations

import itertools
import re
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect
from sqlmodel import Session

from app.accounts import service as accounts
from app.db import make_engine
from app.plans import service as plans
from app.settings import Settings
from app.sharing import service as sharing
from tests.browser.test_plans_flow import PASSWORD

pytestmark = pytest.mark.browser


@pytest.fixture
def console_errors(page: Page) -> list[str]:
    errors: list[str] = []

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            errors.append(msg.text)

    page.on("console", on_console)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


@pytest.fixture
def en(page: Page) -> Page:
    page.set_extra_http_headers({"Accept-Language": "en"})
    return page


def test_serving_is_assessed_in_three_questions(
    en: Page, base_url: str, console_errors: list[str]
) -> None:
    # What to do, how big, how many users: the deadline question (it sizes nothing a service
    # serves) is not shown for serving, and the tier comes without it.
    page = en
    page.goto(f"{base_url}/assess")
    page.get_by_text("Adapt a model to our data").click()
    expect(page.locator("fieldset#q-deadline")).to_be_visible()
    page.get_by_text("Serve a model to users").click()
    expect(page.locator("fieldset#q-deadline")).to_be_hidden()
    expect(page.locator("fieldset#q-data")).to_be_hidden()
    visible = page.locator("fieldset.question:visible")
    expect(visible).to_have_count(3)
    page.locator("label[for=size-70]").click()
    page.locator("label[for=users-200]").click()
    page.get_by_role("button", name="Show my tier").click()
    expect(page.locator("section#result .tier-name")).to_have_text("Multi-GPU")
    expect(page).not_to_have_url(re.compile(r"deadline="))
    assert console_errors == []


def test_self_assessment_end_to_end(en: Page, base_url: str, console_errors: list[str]) -> None:
    page = en
    page.goto(f"{base_url}/assess")
    page.get_by_text("Adapt a model to our data").click()
    page.locator("label[for=size-13]").click()
    page.locator("label[for=data-10]").click()
    page.locator("label[for=deadline-30]").click()
    page.get_by_role("button", name="Show my tier").click()
    result = page.locator("section#result")
    expect(result.locator(".tier-name")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/assess\?.*task=lora"))
    expect(result.locator("table.tier-table tr.is-you")).to_have_count(1)
    expect(result.locator("ol.signals li")).to_have_count(3)
    # Request a quote: an invalid e-mail first, then a good one.
    page.locator("#f-name").fill("Chen")
    page.locator("#f-company").fill("Formosa AI")
    page.locator("#f-email").fill("chen@")
    page.get_by_role("button", name="Send my request").click()
    expect(page.locator("#err-email")).to_contain_text("e-mail")
    page.locator("#f-email").fill("chen@formosa.ai")
    page.get_by_role("button", name="Send my request").click()
    expect(page.locator("#quote .notice.ok")).to_be_visible()
    assert console_errors == []


def test_planner_updates_live(en: Page, base_url: str, console_errors: list[str]) -> None:
    page = en
    page.goto(f"{base_url}/plan")
    expect(page.locator("#results .tier-name")).to_have_text("Multi-GPU")
    page.evaluate("window.__sameDocument = true")
    page.select_option("#f-preset", "llama-3.1-8b")
    page.select_option("#f-task", "lora")
    expect(page.locator("#results .tier-name")).to_have_text("Single GPU", timeout=5000)
    assert page.evaluate("window.__sameDocument") is True  # no reload: an HTMX swap
    expect(page).to_have_url(re.compile(r"preset=llama-3\.1-8b"))
    # A bad value shows inline, then clears.
    page.fill("#f-seq_len", "8")
    expect(page.locator("#err-seq_len")).to_contain_text("at least 16")
    page.fill("#f-seq_len", "2048")
    expect(page.locator("#err-seq_len")).to_have_text("")
    expect(page.locator("#results .tier-name")).to_be_visible()
    page.locator("#chart-memory svg.main-svg").first.wait_for()
    assert console_errors == []


@pytest.mark.parametrize(
    "path, charts",
    [
        ("/plan", ["memory", "scaling", "cumulative", "tco"]),
        ("/tco", ["cumulative", "tco"]),
        ("/architectures", ["architectures"]),
    ],
)
def test_charts_are_drawn(
    en: Page, base_url: str, console_errors: list[str], path: str, charts: list[str]
) -> None:
    en.goto(f"{base_url}{path}")
    for key in charts:
        svg = en.locator(f"#chart-{key} svg.main-svg").first
        svg.wait_for(timeout=10000)
        assert en.locator(f"#chart-{key} .plot path, #chart-{key} .plot rect").count() > 0 or (
            en.locator(f"#chart-{key} g.trace").count() > 0
        ), key
        # No mode bar: its buttons were Tab stops inside role="img" (axe nested-interactive)
        # labelled in English on 中文 pages (QA, theme.CONFIG)
        assert en.locator(f"#chart-{key} .modebar-btn").count() == 0, key
    assert console_errors == []


def _shared_inference_plan(
    settings: Settings, base_url: str, workload: dict[str, object] | None = None
) -> str:
    """A share link to a saved Llama 3.1 8B plan for 400 users (its options span servers)."""
    with Session(make_engine(settings.database_url)) as s:
        owner = accounts.create_user(session=s, email=f"s-{uuid.uuid4().hex[:8]}@example.com",
                                     password=PASSWORD, role="sales")  # fmt: skip
        plan = plans.create_plan(session=s, owner=owner, name="客服模型", workload=workload or {
            "model": {"preset": "llama-3.1-8b"}, "task": "inference", "users": 400,
            "term_months": 36})  # fmt: skip
        assert plan.id is not None
        _, token = sharing.create_link(session=s, plan_id=plan.id, actor=owner)
    return f"{base_url}/s/{token}"


def test_a_phone_puts_chart_groups_above_their_bars_and_shortens_money_ticks(
    page: Page, base_url: str, console_errors: list[str], settings: Settings
) -> None:
    # At 390 px the TCO chart's (option, year) axis took 170 of 316 px for its option names
    # and left the bars 126 px; the NT$ ticks turned on their side (static/js/charts.js
    # fitNarrow). Each option's name now heads its own row above its years, the axis keeps
    # only the years, and money ticks read "10M" level under a title that names the currency.
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(f"{base_url}/tco")
    page.locator("#chart-tco svg.main-svg").first.wait_for(timeout=10000)
    shown = page.evaluate(
        """() => { const el = document.getElementById("chart-tco"), L = el._fullLayout;
                   return {plot: L._size.w, ticks: L.yaxis.ticktext,
                           heads: L.annotations.map(a => a.text),
                           money: L.xaxis.ticktext, angle: L.xaxis.tickangle,
                           prefix: L.xaxis.tickprefix, title: L.xaxis.title.text}; }"""
    )
    assert shown["plot"] >= 200, shown["plot"]
    assert shown["ticks"] and all(t.startswith("Year ") for t in shown["ticks"])
    # Every option keeps all five years: thinned as if they were money ticks, every other
    # one went ("Year 1, 3, 5" under one option, "Year 2, 4" under the next, QA).
    bars = page.evaluate(
        """() => document.getElementById("chart-tco")._fullLayout.yaxis._categories
                   .filter(c => c.includes("\u241f")).length"""
    )
    assert len(shown["ticks"]) == bars and bars % 5 == 0, (bars, shown["ticks"])
    assert "<b>Buy</b>" in shown["heads"] and any("12-month" in h for h in shown["heads"])
    # short, level, and the currency left to the title: "0", "5M", "10M"
    assert shown["money"] and shown["angle"] == 0
    assert all(re.fullmatch(r"−?[\d.]+[kMB]?", m) for m in shown["money"]), shown["money"]
    assert shown["prefix"] == "" and "NT$" in shown["title"]
    # Every heading is drawn inside the chart: a customer's document names each option in full
    # ("長約租用 · 36 個月合約 · 2 × NVIDIA H100 SXM5 80GB"), wider than a phone, so it wraps.
    page.goto(_shared_inference_plan(settings, base_url))
    page.locator("#chart-tco svg.main-svg").first.wait_for(timeout=10000)
    lines = page.evaluate(
        """[...document.querySelectorAll("#chart-tco .annotation-text")]
             .map(a => Math.max(1, a.querySelectorAll("tspan.line").length))"""
    )
    assert max(lines) >= 2, lines
    overflow = page.evaluate(
        """() => { const box = document.getElementById("chart-tco").getBoundingClientRect();
                   return [...document.querySelectorAll("#chart-tco .annotation-text")]
                     .map(a => a.getBoundingClientRect().right - box.right)
                     .filter(d => d > 0.5); }"""
    )
    assert overflow == []
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{base_url}/tco")
    page.locator("#chart-cumulative svg.main-svg").first.wait_for(timeout=10000)
    # The cumulative axis writes money in the reader's scale as the TCO axis does
    # (app.charts.theme.short_money_ticks): "NT$20M", never plotly's bare SI "20M".
    cumulative = page.evaluate(
        'document.getElementById("chart-cumulative")._fullLayout.yaxis.ticktext'
    )
    assert cumulative and all(re.fullmatch(r"−?NT\$[\d.]+[kMB]?", m) for m in cumulative), (
        cumulative
    )
    # The TCO bars write money short at every width (app.charts.costs.tco_bars): a year's
    # resale left of zero narrows the tick spacing, and "NT$10,000,000" turned on its side.
    wide = page.evaluate('document.getElementById("chart-tco")._fullLayout.xaxis.ticktext')
    assert wide and all(re.fullmatch(r"−?NT\$[\d.]+[kMB]?", m) for m in wide), wide
    page.set_viewport_size({"width": 390, "height": 900})
    # In Chinese the money ticks are wider ("1,000萬"): six of them ran together on the phone
    # (QA: "−1,000萬 0 1,000萬,000萬,000萬"). Every other one is kept, zero among them, and
    # no two drawn labels overlap.
    # Llama 2 13B for 300 users at targets, on 8 H100: ticks from −1,000萬 to 4,000萬.
    big = {"model": {"preset": "llama-2-13b"}, "task": "inference", "users": 300,
           "slo": {"ttft_s": 1, "tokens_per_s_per_user": 20}, "term_months": 12}  # fmt: skip
    page.goto(_shared_inference_plan(settings, base_url, big) + "?lang=zh-TW")
    page.locator("#chart-tco svg.main-svg").first.wait_for(timeout=10000)
    boxes = page.evaluate(
        """[...document.querySelectorAll("#chart-tco .xtick text")]
             .map(t => { const r = t.getBoundingClientRect(); return [r.left, r.right, t.textContent]; })
             .sort((a, b) => a[0] - b[0])"""
    )
    assert 2 <= len(boxes) <= 4 and any(b[2] == "0" for b in boxes), boxes
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(boxes)), boxes
    assert console_errors == []


def test_a_phone_keeps_only_the_break_even_callouts_where_the_cheapest_option_changes(
    page: Page, base_url: str, console_errors: list[str]
) -> None:
    # Six "Month N" boxes over a 220 px plot ran into one another on a phone (a quote with
    # public-cloud comparisons, QA): there the crossings where the cheapest option does not
    # change lose their box (static/js/charts.js fitNarrow) and keep their marker; the
    # break-even table beside the chart names every one. /tco's defaults cross once, off the
    # cheapest line (month 27.2).
    names = """() => document.getElementById("chart-cumulative")._fullLayout.annotations
                 .map(a => a.name)"""
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{base_url}/tco")
    page.locator("#chart-cumulative svg.main-svg").first.wait_for(timeout=10000)
    assert "break_even_minor" in page.evaluate(names)
    marker = """() => document.getElementById("chart-cumulative")._fullData
                  .filter(t => t.meta && t.meta.role === "break_even")[0].x.length"""
    wide_markers = page.evaluate(marker)
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(f"{base_url}/tco")
    page.locator("#chart-cumulative svg.main-svg").first.wait_for(timeout=10000)
    assert "break_even_minor" not in page.evaluate(names)
    assert page.evaluate(marker) == wide_markers >= 1
    assert console_errors == []


def test_a_phone_shortens_the_utilisation_boxes_and_drops_the_targets_label(
    page: Page, base_url: str, console_errors: list[str]
) -> None:
    # QA at 390 px: the utilisation chart's "Break-even at 46% / Hourly rent (Stratagem
    # Taipei) = 12-month contract" box covered the lines it marks, and the serving chart's
    # "At the targets: 349 users per replica" ran off the chart's left edge. A phone keeps
    # the box's first line (the table under the chart names the pair) and the marker
    # without its label (the legend names it); a wide screen keeps both.
    boxes = """() => document.getElementById("chart-utilization")._fullLayout.annotations
                 .filter(a => a.name === "break_even_at").map(a => a.text)"""
    chosen = """() => document.getElementById("chart-serving")._fullData
                  .filter(t => t.meta && t.meta.role === "chosen").map(t => t.mode)"""
    url = f"{base_url}/plan?example=7b-chat&lang=en"
    seen = {}
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(url)
        page.locator("#chart-utilization svg.main-svg").first.wait_for(timeout=10000)
        page.locator("#chart-serving svg.main-svg").first.wait_for(timeout=10000)
        seen[width] = (page.evaluate(boxes), page.evaluate(chosen))
    wide, narrow = seen[1440], seen[390]
    assert wide[0] and all("<br>" in t for t in wide[0]), wide
    assert narrow[0] == [t.split("<br>")[0] for t in wide[0]], narrow
    assert all(t.startswith("Break-even at ") for t in narrow[0])
    assert wide[1] == ["markers+text"] and narrow[1] == ["markers"]
    assert console_errors == []


def test_a_window_narrowed_to_a_phone_fits_its_charts_again(
    page: Page, base_url: str, console_errors: list[str]
) -> None:
    # Drawn at 1440 px and then narrowed to 390 (a tablet turned, a window dragged), the TCO
    # chart kept its wide layout and plotly shrank it to 64 px of plot beside its option
    # names (QA); static/js/charts.js now draws a chart again when it crosses the phone width.
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{base_url}/tco")
    page.locator("#chart-tco svg.main-svg").first.wait_for(timeout=10000)
    shown = """() => { const L = document.getElementById("chart-tco")._fullLayout;
                       return {plot: L._size.w, ticks: L.yaxis.ticktext || [],
                               heads: L.annotations.filter(a => a.text.startsWith("<b>"))
                                                    .length}; }"""
    page.set_viewport_size({"width": 390, "height": 900})
    page.wait_for_function(
        """() => document.getElementById("chart-tco").dataset.narrow === "1" """, timeout=10000
    )
    narrow = page.evaluate(shown)
    assert narrow["plot"] >= 200, narrow
    assert narrow["ticks"] and all(t.startswith("Year ") for t in narrow["ticks"])
    assert narrow["heads"] >= 2  # each option's name heads its years
    page.set_viewport_size({"width": 1440, "height": 900})
    page.wait_for_function(
        """() => document.getElementById("chart-tco").dataset.narrow === "0" """, timeout=10000
    )
    wide = page.evaluate(shown)
    # The option names are back on the axis beside their years, with no headings above.
    assert wide["plot"] > narrow["plot"] and wide["heads"] == 0, wide
    assert console_errors == []


def test_a_phone_stacks_the_architecture_panels(
    page: Page, base_url: str, console_errors: list[str]
) -> None:
    # At 390 px the three panels side by side (price, GPU memory, power) had 51 px of plot
    # each, their titles ran into one another and the bar labels overlapped
    # (static/js/charts.js stackPanels): now one under another, full width, each title above
    # its own panel.
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(f"{base_url}/architectures")
    page.locator("#chart-architectures svg.main-svg").first.wait_for(timeout=10000)
    panels = page.evaluate(
        """() => [...document.querySelectorAll("#chart-architectures .nsewdrag")]
                   .map(d => d.getBoundingClientRect())
                   .map(r => ({left: r.left, top: r.top, width: r.width, bottom: r.bottom}))"""
    )
    titles = page.evaluate(
        """() => [...document.querySelectorAll("#chart-architectures .annotation")]
                   .map(a => a.getBoundingClientRect())
                   .map(r => ({top: r.top, bottom: r.bottom}))"""
    )
    assert len(panels) == 3 and all(p["width"] >= 180 for p in panels), panels
    panels.sort(key=lambda p: p["top"])
    assert all(a["bottom"] <= b["top"] for a, b in itertools.pairwise(panels)), "stacked"
    titles.sort(key=lambda t: t["top"])
    assert len(titles) == 3
    for title, panel in zip(titles, panels, strict=True):  # each just above its panel
        assert 0 <= panel["top"] - title["bottom"] <= 40, (title, panel)
    assert console_errors == []


@pytest.mark.parametrize("lang", ["zh-TW", "en"])
def test_a_phone_reads_every_validation_figure_without_scrolling_sideways(
    page: Page, base_url: str, console_errors: list[str], lang: str
) -> None:
    # At 390 px the runs table (min-width 70rem) and the 10-column summary scrolled inside
    # their boxes: predicted, reported and the ratio sat off-screen. They stack now, each
    # figure beside the label of its column; so does the table of disagreeing sources.
    page.set_viewport_size({"width": 390, "height": 900})
    page.set_extra_http_headers({"Accept-Language": lang})
    page.goto(f"{base_url}/validation")
    boxes = page.evaluate(
        """() => [...document.querySelectorAll(".table-box")]
                   .map(b => b.scrollWidth - b.clientWidth)"""
    )
    assert len(boxes) == 3 and all(extra <= 1 for extra in boxes), boxes
    ratio = page.locator("table.validation-runs tbody tr td.ratio").first
    box = ratio.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    label = ratio.evaluate("td => getComputedStyle(td, '::before').content")
    assert label == ('"預測 / 實測"' if lang == "zh-TW" else '"Predicted / reported"')
    assert console_errors == []


@pytest.mark.parametrize("width", [1440, 390])
@pytest.mark.parametrize("lang", ["zh-TW", "en"])
def test_the_note_under_an_unfit_prediction_stays_in_its_cell(
    page: Page, base_url: str, console_errors: list[str], lang: str, width: int
) -> None:
    # QA at 1440 px: the predicted column's cells keep a figure on one line (.num), and the
    # note under Llama 3.1 405B's and DeepSeek-V3's predictions ("ran as published; the
    # engine's memory estimate ... is over GPU memory") ran on one line across the reported,
    # ratio and source columns, written over the source's title.
    page.set_viewport_size({"width": width, "height": 900})
    page.set_extra_http_headers({"Accept-Language": lang})
    page.goto(f"{base_url}/validation")
    spill = page.evaluate(
        """() => [...document.querySelectorAll("table.validation-runs .unfit-note")]
                   .map(n => { const c = n.closest("td").getBoundingClientRect();
                               const r = n.getBoundingClientRect();
                               return Math.max(c.left - r.left, r.right - c.right); })"""
    )
    assert len(spill) >= 2  # Llama 3.1 405B and DeepSeek-V3 at least
    assert all(extra <= 1 for extra in spill), spill
    assert console_errors == []


@pytest.mark.parametrize(("width", "table"), [(1440, "table.costs-table"), (390, "table.bom")])
def test_the_planner_tables_fit_their_cards(
    page: Page, base_url: str, console_errors: list[str], width: int, table: str
) -> None:
    # 8B pre-training on 32 H100 (4 nodes): in English at 1440 px the cost table was 947 px
    # in a 724 px card ("NT$1,761,436 per month, amortised" on one line), so its "Total for
    # the period" column sat off-screen; at 390 px the bill of materials was 617 px in 316.
    page.set_viewport_size({"width": width, "height": 900})
    page.set_extra_http_headers({"Accept-Language": "en"})
    page.goto(f"{base_url}/plan?preset=llama-3.1-8b&task=pretrain&tokens=2e11"
              "&deadline_days=14&gpu=h100-sxm-80gb")  # fmt: skip
    page.locator(table).wait_for()
    extra = page.locator(table).evaluate(
        "t => t.parentElement.scrollWidth - t.parentElement.clientWidth"
    )
    assert extra <= 1, extra
    if table == "table.costs-table":
        billed = page.locator("table.costs-table .billed").first.inner_text()
        assert billed.startswith("Billed: 1 month ·")  # one month, not "1 months"
    assert console_errors == []


def test_language_and_currency_switches(
    page: Page, base_url: str, console_errors: list[str]
) -> None:
    page.set_extra_http_headers({"Accept-Language": "zh-TW"})
    page.goto(f"{base_url}/plan?example=70b-lora")
    expect(page.locator("h1")).to_have_text("規劃器")
    page.locator("nav.switch a[hreflang=en]").click()
    expect(page.locator("h1")).to_have_text("Planner")
    expect(page).to_have_url(re.compile(r"/plan\?example=70b-lora"))
    page.locator("nav.switch a", has_text="USD").click()
    expect(page.locator("table.costs-table td.num strong").first).to_contain_text("US$")
    page.goto(f"{base_url}/")  # both stick (cookies)
    expect(page.locator("h1")).to_contain_text("How big is the model")
    expect(page.locator("table.tier-table")).to_contain_text("US$")
    page.locator("nav.switch a[hreflang=zh-TW]").click()
    page.locator("nav.switch a", has_text="TWD").click()
    expect(page.locator("table.tier-table")).to_contain_text("NT$50,000")
    assert console_errors == []


def test_keyboard_only_self_assessment(en: Page, base_url: str, console_errors: list[str]) -> None:
    """Tab, arrows, Space, Enter and typing only: no clicks, no focus() calls."""
    page = en
    page.goto(f"{base_url}/assess")

    def focused() -> str:
        return str(page.evaluate("document.activeElement.id || document.activeElement.className"))

    def tab_to(element_id: str, limit: int = 40) -> None:
        for _ in range(limit):
            page.keyboard.press("Tab")
            if focused() == element_id:
                return
        raise AssertionError(f"Tab never reached #{element_id} (at {focused()})")

    page.keyboard.press("Tab")
    expect(page.locator("a.skip-link")).to_be_focused()
    page.keyboard.press("Enter")  # skip the navigation
    tab_to("task-lora")  # first radio of question 1
    page.keyboard.press("Space")
    page.keyboard.press("Tab")  # into question 2
    assert focused() == "size-7"
    page.keyboard.press("Space")
    page.keyboard.press("Tab")  # the custom size box stays hidden: straight to question 3
    assert focused() == "data-1"
    page.keyboard.press("Space")
    page.keyboard.press("Tab")  # the users question is hidden for training
    assert focused() == "deadline-7"
    page.keyboard.press("ArrowRight")  # arrows move and select within a group
    assert focused() == "deadline-30"
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # "Show my tier"
    expect(page.locator("#result .tier-name")).to_have_text("Single GPU")
    tab_to("f-name")
    page.keyboard.type("Wang")
    page.keyboard.press("Tab")
    page.keyboard.type("Keelung Labs")
    page.keyboard.press("Tab")  # the 統一編號, optional
    assert focused() == "f-tax_id"
    page.keyboard.type("22099131")
    page.keyboard.press("Tab")
    page.keyboard.type("wang@keelung.tw")
    page.keyboard.press("Tab")
    page.keyboard.type("Keyboard only")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(page.locator("#quote .notice.ok")).to_be_visible()
    assert console_errors == []


SHOTS = [
    ("home", "/"),
    ("assess", "/assess?task=lora&size=13&data=10&deadline=30"),
    ("plan", "/plan"),
    ("tco", "/tco"),
    ("architectures", "/architectures"),
]


@pytest.mark.parametrize("lang", ["zh-TW", "en"])
@pytest.mark.parametrize("width, height", [(1440, 900), (820, 1180)])
def test_screenshots(
    page: Page,
    base_url: str,
    artifacts: Path,
    console_errors: list[str],
    lang: str,
    width: int,
    height: int,
) -> None:
    """Every page at desktop and tablet width, both languages, for people to look at."""
    page.set_viewport_size({"width": width, "height": height})
    page.set_extra_http_headers({"Accept-Language": lang})
    for name, path in SHOTS:
        page.goto(f"{base_url}{path}")
        page.wait_for_load_state("networkidle")
        # Nothing sticks out sideways on a tablet.
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, (name, width, overflow)
        page.screenshot(path=str(artifacts / f"{name}-{width}-{lang}.png"), full_page=True)
    assert console_errors == []


@pytest.mark.parametrize("lang", ["zh-Hant", "en"])
def test_the_share_pages_ways_to_pay_wrap_between_parts_on_a_phone(
    page: Page, base_url: str, settings: Settings, lang: str
) -> None:
    # QA at 390 px: "NT$480/小時 × 8,760 / 小時" split a count from its unit, and buying's
    # breakdown could split 「營運費／用」. Each rate part and each term of the breakdown is now
    # one box (templates/_wrapping.html) that moves to the next line whole; in 中文 every one
    # fits the phone's column on a line of its own.
    url = _shared_inference_plan(settings, base_url)
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(f"{url}?lang={lang}")
    boxes = page.evaluate(
        """() => [...document.querySelectorAll(
                    ".ways-to-pay .buy-breakdown .keep, .ways-to-pay .rate .nobr")].map(el => {
                 const cell = el.closest("th, td").getBoundingClientRect();
                 const r = el.getBoundingClientRect();
                 const line = parseFloat(getComputedStyle(el).lineHeight);
                 return {text: el.textContent, lines: Math.round(r.height / line),
                         right: r.right, cell: cell.right};
               })"""
    )
    terms = [b for b in boxes if "NT$" in b["text"] and "×" not in b["text"]]
    assert len(terms) >= 3, boxes  # up front, resale, running costs
    assert all(b["right"] <= b["cell"] + 0.5 for b in boxes), boxes  # nothing leaves its cell
    if lang == "zh-Hant":
        assert all(b["lines"] == 1 for b in boxes), boxes
