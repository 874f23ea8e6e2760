"""Language and currency: choice, switches that stick, locale formatting, no untranslated text."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app import charts, i18n
from app.web.templating import figure, money, number, percent

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None, "t": None}


def _lang_of(r_text: str) -> str:
    return BeautifulSoup(r_text, "html.parser").html["lang"]


@pytest.mark.parametrize(
    "header, expected",
    [
        ("zh-TW,zh;q=0.9,en;q=0.8", "zh-Hant-TW"),
        ("en-US,en;q=0.9", "en"),
        ("fr-FR, en;q=0.5", "en"),
        ("ja, zh-Hant;q=0.8", "zh-Hant-TW"),
        ("en;q=0.2, zh;q=0.9", "zh-Hant-TW"),
        ("", "zh-Hant-TW"),  # settings.default_language
        ("fr", "zh-Hant-TW"),
    ],
)
def test_accept_language(web: TestClient, header: str, expected: str) -> None:
    assert _lang_of(web.get("/", headers={"Accept-Language": header}).text) == expected


def test_language_switch_sticks_and_beats_the_header(web: TestClient) -> None:
    r = web.get("/set-language?lang=en&next=/plan%3Fexample%3D70b-lora", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/plan?example=70b-lora"
    cookie = r.headers["set-cookie"]
    assert "lang=en" in cookie and "Max-Age=31536000" in cookie and "SameSite=lax" in cookie
    assert _lang_of(web.get("/", headers={"Accept-Language": "zh-TW"}).text) == "en"
    web.get("/set-language?lang=zh-TW&next=/")
    assert _lang_of(web.get("/", headers={"Accept-Language": "en"}).text) == "zh-Hant-TW"


def test_the_switch_leaves_a_page_opened_with_lang_in_the_language_chosen(
    web: TestClient,
) -> None:
    """QA: on /assess?lang=zh-TW&task=image&size=7, "English" reloaded the page in 中文: the
    address's lang outranks the cookie the switch had just set. The switch goes back to the
    page without it, every other parameter kept."""
    r = web.get(
        "/set-language",
        params={"lang": "en", "next": "/assess?lang=zh-TW&task=image&size=7#result"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and r.headers["location"] == "/assess?task=image&size=7#result"
    page = web.get(r.headers["location"], headers={"Accept-Language": "zh-TW"})
    assert _lang_of(page.text) == "en"


def test_a_link_with_lang_opens_in_that_language_and_stays_in_it(web: TestClient) -> None:
    # A sales engineer sends "/plan?…&lang=en" to a colleague whose browser asks for zh-TW.
    r = web.get("/plan?example=70b-lora&lang=en", headers={"Accept-Language": "zh-TW"})
    assert _lang_of(r.text) == "en"
    cookie = r.headers["set-cookie"]
    assert "lang=en" in cookie and "Max-Age=31536000" in cookie and "SameSite=lax" in cookie
    # The page's own requests carry no lang: the cookie keeps them in English.
    assert _lang_of(web.get("/", headers={"Accept-Language": "zh-TW"}).text) == "en"
    # A download in a language does not switch the pages (only HTML answers set it).
    api = web.get("/api/v1/validation?lang=zh-TW")
    assert api.status_code == 200 and "set-cookie" not in api.headers
    # A parameter that matches the cookie sets nothing; an unknown one is ignored.
    assert "set-cookie" not in web.get("/?lang=en").headers
    assert _lang_of(web.get("/?lang=fr", headers={"Accept-Language": "zh-TW"}).text) == "en"


def test_a_link_with_lang_to_a_signed_in_page_keeps_the_language_through_sign_in(
    client: TestClient,
) -> None:
    # QA: /plans/1?lang=zh-TW, opened signed out, went to an English /login: the redirect
    # did not remember the language (only HTML answers did).
    c = TestClient(client.app, follow_redirects=False)
    r = c.get("/plans/1?lang=zh-TW", headers={"Accept-Language": "en"})
    assert r.status_code == 303 and r.headers["location"].startswith("/login")
    assert "lang=zh-TW" in r.headers["set-cookie"]
    login = c.get(r.headers["location"], headers={"Accept-Language": "en"})
    assert _lang_of(login.text) == "zh-Hant-TW"


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/", "/\\evil", "evil"])
def test_switch_never_redirects_off_site(web: TestClient, target: str) -> None:
    r = web.get("/set-language", params={"lang": "en", "next": target}, follow_redirects=False)
    assert r.headers["location"] == "/"


def test_currency_switch(web: TestClient) -> None:
    r = web.get("/set-currency?currency=usd&next=/", follow_redirects=False)
    assert r.status_code == 303 and "currency=USD" in r.headers["set-cookie"]
    soup = BeautifulSoup(web.get("/", headers={"Accept-Language": "en"}).text, "html.parser")
    rows = soup.select("table.tier-table tbody tr")
    # NT$50,000 at the list's 32 NT$/US$ = US$1,562.50, a reference rent shown in whole
    # units half up as on /assess and as quotes round: "about US$1,563" (the home page said
    # US$1,562, the money formatter's half to even, beside /assess's US$1,563 — QA)
    assert "about US$1,563" in rows[0].get_text() and "1,562" not in rows[0].get_text()
    on = soup.select_one("nav.switch a[aria-current=true]:not([hreflang])")
    assert on.get_text(strip=True) == "USD"
    bad = web.get("/set-currency?currency=EUR&next=/", follow_redirects=False)
    assert "currency=TWD" in bad.headers["set-cookie"]


@pytest.mark.parametrize(
    "lang, value, currency, expected",
    [
        ("zh-TW", 1234567, "TWD", "NT$1,234,567"),
        ("en", 1234567.4, "TWD", "NT$1,234,567"),
        ("en", 1234.564, "USD", "US$1,234.56"),
        ("zh-TW", 1234.5, "USD", "US$1,234.50"),
        ("en", -2500, "TWD", "−NT$2,500"),  # U+2212, as every table writes a minus
        ("en", None, "TWD", "—"),
        # a quote's money as stored, a string: exact, where a float would print ...992
        ("en", "9007199254740993", "TWD", "NT$9,007,199,254,740,993"),
        ("en", Decimal("9007199254740.99"), "USD", "US$9,007,199,254,740.99"),
        ("en", float("nan"), "TWD", "—"),
    ],
)
def test_money(
    lang: str, value: float | str | Decimal | None, currency: str, expected: str
) -> None:
    i18n.activate(lang)
    assert money(value, currency) == expected


def test_numbers() -> None:
    i18n.activate("en")
    assert number(1234567.891, 1) == "1,234,567.9"
    assert percent(0.256) == "26%"
    assert figure(3.43e18) == "3.43×10¹⁸"
    assert figure(2.5e-5) == "2.50×10⁻⁵"
    assert figure(4.0) == "4"


#: Areas of the UI and the files Babel extracts their msgids from (babel.cfg says the same).
AREAS = {
    "web": [
        ("app/**.py", "python"),
        ("templates/*.html", "jinja2"),
        ("templates/pages/**.html", "jinja2"),
    ],
    **{
        d.name: [(f"templates/{d.name}/**.html", "jinja2"), (f"app/{d.name}/**.py", "python")]
        for d in sorted((ROOT / "templates").iterdir())
        if d.is_dir() and d.name != "pages"
    },
}


def _msgids(method_map: list[tuple[str, str]]) -> set[str]:
    """The msgids Babel extracts with `method_map` (the charts' MSGIDS for the web area)."""
    found: set[str] = set()
    options = {
        pattern: {"extensions": "jinja2.ext.i18n"} for pattern, m in method_map if m == "jinja2"
    }
    for _file, _line, message, _comments, _ctx in extract_from_dir(
        str(ROOT), method_map, options, keywords=KEYWORDS
    ):
        found.add(message[0] if isinstance(message, tuple) else message)
    if any(p == "app/**.py" for p, _m in method_map):
        found.update(charts.MSGIDS)
    return found


@pytest.mark.parametrize("area", sorted(AREAS))
def test_every_msgid_has_a_zh_tw_translation(area: str) -> None:
    """Each area's msgids are translated in one of the merged .po files (messages.po, <area>.po)."""
    i18n.reload()
    trans = i18n.zh_translations()
    msgids = _msgids(AREAS[area])
    if area == "web":
        assert len(msgids) > 300
    missing = sorted(m for m in msgids if m and trans.gettext(m) == m and not _untranslatable(m))
    assert not missing, f"{area}: {len(missing)} msgids without a zh-TW translation: {missing[:20]}"


def _zh_msgstrs() -> list[tuple[str, str]]:
    """(file, msgstr) for every translated entry of the zh-TW catalogues, read with Babel."""
    from babel.messages.pofile import read_po

    found: list[tuple[str, str]] = []
    for po in sorted((ROOT / "app/locale/zh_Hant_TW/LC_MESSAGES").glob("*.po")):
        with po.open("rb") as f:
            for message in read_po(f):
                strings = message.string if isinstance(message.string, tuple) else [message.string]
                found.extend((po.name, s) for s in strings if s)
    return found


def test_chinese_text_uses_full_width_punctuation() -> None:
    """A Taiwanese reader sees 「報價已修訂：第 2 版（含稅），請…」, not 「報價已修訂:第 2 版(含稅),請…」:
    in Chinese text a comma, colon, semicolon, question or exclamation mark, or parenthesis
    next to a Chinese character is the full-width one (教育部《重訂標點符號手冊》). Numbers keep
    theirs (1,000 · 3:0), and a formula keeps ASCII parentheses: 「× (1 − 折扣)」."""
    import re

    han = r"[\u4e00-\u9fff\u3000-\u303f]"
    half_width = re.compile(rf"{han}[,;:!?()]|[,;:!?(]{han}")

    def prose(text: str) -> str:
        """`text` without the formula groups: "(…)" opened right after an operator."""
        out, depth = [], 0
        for i, c in enumerate(text):
            if c == "(" and (depth or re.search(r"[×−+=/] ?$", text[:i])):
                depth += 1
            elif c == ")" and depth:
                depth -= 1
            elif not depth:
                out.append(c)
        return "".join(out)

    wrong = [(f, s) for f, s in _zh_msgstrs() if half_width.search(prose(s))]
    assert len(_zh_msgstrs()) > 1000
    assert not wrong, f"{len(wrong)} zh msgstrs with half-width punctuation: {wrong[:10]}"


def _untranslatable(msgid: str) -> bool:
    """Identical in both languages (product names, units)."""
    return msgid in {
        "API",
        "GPU",
        "JSON API",
        "70B LoRA",
        "Hugging Face config.json",
        "100 GB–1 TB",
        "10–100 GB",
        "1–10 GB",
        "MFU %(mfu)s",
    }


def test_no_english_left_on_chinese_pages(web: TestClient) -> None:
    """Visible text of the Chinese pages: only product names, units and numbers in Latin."""
    import re

    allowed = re.compile(
        r"(NT\$|US\$|GB|TB|kW|BTU/h|H100|NVIDIA|SXM5?|NVLink|PCIe|InfiniBand|NVSwitch|Gbps|Mbps|"
        r"LoRA|QLoRA|NVMe|NAS|GbE|MFU|ZeRO|TP|PP|DP|GPU|CPU|API|JSON|TWD|USD|English|Llama|"
        r"Stratagem|BF16|FP\d+|INT\d|KV|token|epoch|MIG|config\.json|Hugging|Face|SDXL|FLUX|"
        r"rank|Docker|CRM|notebook|OpenAPI|B\b|[\d.,×–\-+/%:()≈])"
    )
    for path in ["/", "/assess?task=lora&size=13&data=10&deadline=30", "/architectures"]:
        soup = BeautifulSoup(
            web.get(path, headers={"Accept-Language": "zh-TW"}).text, "html.parser"
        )
        for el in soup.select("script, [lang=en], [translate=no], option, .formula, .source"):
            el.decompose()
        words = re.findall(r"[A-Za-z][A-Za-z]{2,}", allowed.sub(" ", soup.body.get_text(" ")))
        leftovers = {w for w in words if w not in {"Mistral", "Qwen", "Stable", "Diffusion"}}
        assert not leftovers, (path, sorted(leftovers)[:20])


def test_the_api_answers_in_english_unless_asked_otherwise(web: TestClient) -> None:
    # Pages default to zh-TW; the JSON API defaults to English, so that an integrator's
    # 422 is in one language (FastAPI's own validation messages are English).
    body = {"model": {"preset": "nope"}, "task": "lora"}
    (plain,) = web.post("/api/v1/estimate", json=body).json()["detail"]
    assert plain["msg"].startswith("unknown model preset 'nope'")
    # QA 2026-12-07: "(known: 36 presets)" named neither the presets nor where to find them.
    assert "GET /api/v1/models lists them" in plain["msg"]
    asked = web.post("/api/v1/estimate", json=body, headers={"Accept-Language": "zh-TW"})
    assert any("\u4e00" <= ch <= "\u9fff" for ch in asked.json()["detail"][0]["msg"])


@pytest.mark.parametrize(
    ("lang", "labelled", "annotated"),
    [("zh-TW", "統一編號：22099131", "Q-2026-000001（第 1 版）"),
     ("en", "Tax ID: 22099131", "Q-2026-000001 (version 1)")],
)  # fmt: skip
def test_labels_and_asides_joined_in_the_readers_punctuation(
    lang: str, labelled: str, annotated: str
) -> None:
    """What code and templates put between a label and its value, or around an aside: the
    full-width colon and parentheses in Chinese (no space before them), ASCII in English."""
    from app.web.templating import paren

    i18n.activate(lang)
    label, version = ("統一編號", "第 1 版") if lang == "zh-TW" else ("Tax ID", "version 1")
    assert f"{label}{i18n.colon()}22099131" == labelled
    assert f"Q-2026-000001{i18n.paren(version)}" == annotated
    assert f"Q-2026-000001{paren(version)}" == annotated
    assert str(paren("<b>")).endswith("&lt;b&gt;" + ("）" if lang == "zh-TW" else ")"))
