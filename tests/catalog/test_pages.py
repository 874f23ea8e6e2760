"""Catalog pages: tables with search and sort, forms with inline 422 errors, import preview."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.extract import extract_from_file
from fastapi.testclient import TestClient

from app import i18n
from app.settings import REPO_ROOT
from tests.accounts.helpers import make_account, sign_in

from .helpers import csrf, post_form, soup

KIND_PAGES = ["offers", "gpus", "servers", "cloud", "energy", "fx", "buy", "gpu-prices"]


def _draft(client: TestClient, name: str = "Draft A") -> int:
    """A new draft copied from the current list, made through the page's form."""
    r = post_form(
        client,
        "/catalog/price-lists/new",
        {"name": name, "effective_date": "2027-01-01", "source_list": _current_id(client)},
    )
    assert r.status_code == 303, r.text
    return int(r.headers["location"].rsplit("=", 1)[1])


def _current_id(client: TestClient) -> str:
    return str(client.get("/api/v1/price-lists/current").json()["id"])


def _rows(html: str) -> list[list[str]]:
    table = soup(html).select_one("#catalog-table table")
    assert table is not None
    return [[td.get_text(strip=True) for td in tr.select("td")] for tr in table.select("tbody tr")]


def test_overview_shows_the_current_list(catalog_client: TestClient) -> None:
    r = catalog_client.get("/catalog")
    assert r.status_code == 200
    page = soup(r.text)
    assert page.select_one("#list-summary h2").get_text(strip=True) == "2026-11 list"
    counts = {
        tr.select("td")[0].get_text(strip=True): tr.select("td")[1].get_text(strip=True)
        for tr in page.select("#kind-counts tbody tr")
    }
    assert counts["Rental offers"] == "17"
    assert page.select_one('a[href^="/catalog/offers?price_list="]') is not None
    assert page.select_one('nav.main-nav a[aria-current="page"]').get_text(strip=True) == "Catalog"


@pytest.mark.parametrize("slug", KIND_PAGES)
def test_every_kind_page_renders_a_table(catalog_client: TestClient, slug: str) -> None:
    r = catalog_client.get(f"/catalog/{slug}")
    assert r.status_code == 200
    assert _rows(r.text), slug
    # One column a heading: the Source column once (QA: GPU purchase prices had two).
    heads = [th.get_text(strip=True) for th in soup(r.text).select("#catalog-table thead th")]
    assert len(heads) == len(set(heads)), heads


def test_offers_table_sorts_with_links_that_work_without_js(catalog_client: TestClient) -> None:
    page = soup(catalog_client.get("/catalog/offers").text)
    assert len(page.select("#catalog-table tbody tr")) == 17
    link = page.select_one('th a.sort[href*="sort=monthly_price"]')
    assert link is not None and "dir=asc" in link["href"]
    asc = catalog_client.get(link["href"])
    first = _rows(asc.text)[0]
    assert first[0] == "runpod-secure-l4-x1"  # the cheapest figure (US$313.90)
    header = soup(asc.text).select_one('th[aria-sort="ascending"] a')
    assert header is not None and "dir=desc" in header["href"]  # the link now flips
    desc = catalog_client.get(header["href"])
    assert _rows(desc.text)[0][0] == "stratagem-tpe-h100-x16-ib"
    mig = next(r for r in _rows(desc.text) if r[0] == "stratagem-tpe-h100-mig-1of4")
    assert mig[3] == "0.25 (MIG)" and mig[4] == "NT$15,000"


def test_search_fragment_returns_only_the_table(catalog_client: TestClient) -> None:
    r = catalog_client.get(
        "/catalog/offers",
        params={"q": "runpod", "sort": "monthly_price", "dir": "desc"},
        headers={"HX-Request": "true", "HX-Target": "catalog-table"},
    )
    assert r.status_code == 200
    assert "<html" not in r.text and "<form" not in r.text
    fragment = soup(r.text)
    tops = [el for el in fragment.children if getattr(el, "name", None)]
    assert tops[0].name == "div" and tops[0]["id"] == "sort-state"  # out-of-band sort state
    assert tops[0]["hx-swap-oob"] == "true"
    assert [el["id"] for el in tops[1:]] == ["catalog-table"]
    rows = _rows(r.text)
    assert len(rows) == 11 and all(row[1] == "RunPod" for row in rows)
    full = soup(catalog_client.get("/catalog/offers", params={"q": "runpod"}).text)
    assert len(full.select("#catalog-table tbody tr")) == 11  # the same without JavaScript
    search = full.select_one("#f-q")
    assert search["hx-trigger"] == "keyup changed delay:300ms, search"
    assert search["hx-target"] == "#catalog-table"


def test_invalid_form_is_422_with_errors_beside_the_fields(catalog_client: TestClient) -> None:
    draft = _draft(catalog_client)
    form = soup(catalog_client.get(f"/catalog/offers/new?price_list={draft}").text)
    assert form.select_one("#row-form") is not None
    data = {
        "id": "tpe-h100-x3", "provider": "Stratagem Taipei", "gpu_id": "h100-sxm-80gb",
        "gpu_count": "3", "monthly_price": "-5", "currency": "TWD", "interconnect": "nvlink",
        "includes_power": "true", "lead_time_hours": "2", "source": "",
    }  # fmt: skip
    r = post_form(catalog_client, f"/catalog/offers/new?price_list={draft}", data)
    assert r.status_code == 422
    page = soup(r.text)
    assert page.select_one("#err-monthly_price").get_text(strip=True) == "Must be at least 0."
    assert page.select_one("#f-monthly_price")["aria-invalid"] == "true"
    assert page.select_one("#err-source").get_text(strip=True)  # required: a source
    assert page.select_one("#err-provider").get_text(strip=True) == ""
    assert page.select_one("#f-provider")["value"] == "Stratagem Taipei"  # input kept
    fragment = post_form(
        catalog_client, f"/catalog/offers/new?price_list={draft}", data,
        headers={"HX-Request": "true"},
    )  # fmt: skip
    assert fragment.status_code == 422 and "<html" not in fragment.text
    assert soup(fragment.text).select_one("form#row-form #err-monthly_price").get_text(strip=True)


def test_create_edit_and_delete_a_row(catalog_client: TestClient) -> None:
    draft = _draft(catalog_client)
    data = {
        "id": "tpe-h100-x3", "provider": "Stratagem Taipei", "gpu_id": "h100-sxm-80gb",
        "gpu_count": "3", "monthly_price": "150000", "currency": "TWD", "interconnect": "nvlink",
        "includes_power": "true", "lead_time_hours": "2", "term_discounts": "6:0.1;12:0.2",
        "source": "test quote 2027-01",
    }  # fmt: skip
    created = post_form(catalog_client, f"/catalog/offers/new?price_list={draft}", data)
    assert created.status_code == 303
    assert created.headers["location"] == f"/catalog/offers?price_list={draft}"
    row = next(r for r in _rows(catalog_client.get(created.headers["location"]).text)
               if r[0] == "tpe-h100-x3")  # fmt: skip
    assert row[4] == "NT$150,000" and "6 mo −10%" in row[6]
    edit_url = f"/catalog/offers/tpe-h100-x3/edit?price_list={draft}"
    form = soup(catalog_client.get(edit_url).text)
    assert form.select_one("#f-monthly_price")["value"] == "150000"
    edited = post_form(catalog_client, edit_url, {**data, "monthly_price": "140000"})
    assert edited.status_code == 303
    # Saved again unchanged: no entry (QA: an empty "Changed" entry was written).
    unchanged = post_form(catalog_client, edit_url, {**data, "monthly_price": "140000"})
    assert unchanged.status_code == 303
    api = catalog_client.get("/api/v1/offers", params={"price_list": draft}).json()
    assert next(o for o in api if o["id"] == "tpe-h100-x3")["monthly_price"] == 140_000
    deleted = post_form(
        catalog_client, f"/catalog/offers/tpe-h100-x3/delete?price_list={draft}", {}
    )
    assert deleted.status_code == 303
    assert "tpe-h100-x3" not in catalog_client.get(f"/catalog/offers?price_list={draft}").text
    # Named in the page's language, not the stored words (QA read "publish", "price_lists")
    audit = soup(catalog_client.get("/catalog/audit", headers={"Accept-Language": "en"}).text)
    rows = audit.select("#audit > tbody > tr")
    actions = [tr.select("td")[2].get_text(strip=True) for tr in rows]
    assert actions[:4] == ["Deleted", "Changed", "Created", "Copied"]
    assert [tr.select("td")[3].get_text(strip=True) for tr in rows[:4]] == [
        "Rental offers", "Rental offers", "Rental offers", "Price lists"
    ]  # fmt: skip
    zh = soup(catalog_client.get("/catalog/audit", headers={"Accept-Language": "zh-TW"}).text)
    first = zh.select("#audit > tbody > tr")[0].select("td")
    assert (first[2].get_text(strip=True), first[3].get_text(strip=True)) == ("已刪除", "租賃方案")
    # The change is said by the field's label and the value as a number (QA: "monthly_price",
    # "150000.0 → 140000.0" on a 中文 page).
    changed = zh.select("#audit > tbody > tr")[1].select("details tbody tr")
    assert [[td.get_text(strip=True) for td in tr.select("td")] for tr in changed] == [
        ["每月價格", "150,000", "140,000"]
    ]


def test_fx_rows_have_a_two_part_key(catalog_client: TestClient) -> None:
    draft = _draft(catalog_client)
    url = f"/catalog/fx/USD/TWD/edit?price_list={draft}"
    assert catalog_client.get(url).status_code == 200
    r = post_form(
        catalog_client, url,
        {"base": "USD", "quote": "TWD", "rate": "31.5", "as_of": "2027-01-01", "source": "t"},
    )  # fmt: skip
    assert r.status_code == 303
    fx = catalog_client.get(f"/api/v1/price-lists/{draft}").json()["fx"]
    assert fx[0]["rate"] == 31.5


def test_published_lists_are_read_only_pages(catalog_client: TestClient) -> None:
    current = _current_id(catalog_client)
    view = soup(catalog_client.get("/catalog/offers/stratagem-tpe-h100-x1/edit").text)
    assert view.select_one("#row-form fieldset")["disabled"] is not None
    assert view.select_one("#row-form button[type=submit]") is None
    r = post_form(
        catalog_client,
        f"/catalog/offers/stratagem-tpe-h100-x1/edit?price_list={current}",
        {"monthly_price": "1"},
    )
    assert r.status_code == 409
    page = soup(r.text)
    assert "frozen" in page.select_one("#refused").get_text()
    assert page.select_one("#refused a")["href"] == f"/catalog/price-lists/new?from={current}"
    assert page.select_one("#row-form fieldset")["disabled"] is not None
    assert catalog_client.get(f"/catalog/offers/new?price_list={current}").status_code == 409


OFFER = {
    "id": "stratagem-tpe-h100-x1", "provider": "Stratagem Taipei", "gpu_id": "h100-sxm-80gb",
    "gpu_count": "1", "monthly_price": "123456", "currency": "TWD", "interconnect": "nvlink",
    "includes_power": "true", "lead_time_hours": "2", "source": "typed by the admin",
}  # fmt: skip


def _unsaved(html: str) -> dict[str, str]:
    box = soup(html).select_one(".unsaved-values")
    assert box is not None, html
    return dict(zip((dt.get_text(strip=True) for dt in box.select("dt")),
                    (dd.get_text(strip=True) for dd in box.select("dd")), strict=True))  # fmt: skip


def test_a_row_form_whose_list_was_published_meanwhile_keeps_what_was_typed(
    catalog_client: TestClient,
) -> None:
    # QA: an admin edits a draft's row while a colleague publishes the list; Save answered the
    # error page and every typed value was gone. Now the form comes back with the refusal,
    # the way on (a new draft from the list) and what was typed, readable and copyable.
    draft = _draft(catalog_client, "Published meanwhile")
    url = f"/catalog/offers/stratagem-tpe-h100-x1/edit?price_list={draft}"
    assert catalog_client.get(url).status_code == 200
    published = post_form(catalog_client, f"/catalog/price-lists/{draft}/publish", {})
    assert published.status_code == 303
    r = post_form(catalog_client, url, OFFER, headers={"Accept-Language": "en"})
    assert r.status_code == 409
    page = soup(r.text)
    assert page.select_one("#refused strong").get_text(strip=True) == "Not saved."
    assert "“Published meanwhile” is published:" in page.select_one("#refused").get_text()
    assert page.select_one("#refused a")["href"] == f"/catalog/price-lists/new?from={draft}"
    typed = _unsaved(r.text)
    assert typed["Monthly price"] == "123456" and typed["Source"] == "typed by the admin"
    assert typed["Includes power"] == "yes"  # the option's words, not "true"
    api = catalog_client.get("/api/v1/offers", params={"price_list": draft}).json()
    assert next(o for o in api if o["id"] == OFFER["id"])["monthly_price"] != 123_456
    zh = post_form(catalog_client, url, OFFER, headers={"Accept-Language": "zh-TW"})
    assert soup(zh.text).select_one("#refused strong").get_text(strip=True) == "未儲存。"
    assert (
        soup(zh.text).select_one(".unsaved-values p").get_text(strip=True)
        == "您輸入的內容（未儲存）："
    )


def test_a_row_deleted_meanwhile_comes_back_as_a_new_row_filled_in(
    catalog_client: TestClient,
) -> None:
    draft = _draft(catalog_client, "Row deleted meanwhile")
    url = f"/catalog/offers/stratagem-tpe-h100-x1/edit?price_list={draft}"
    gone = post_form(
        catalog_client, f"/catalog/offers/stratagem-tpe-h100-x1/delete?price_list={draft}", {}
    )
    assert gone.status_code == 303
    r = post_form(catalog_client, url, OFFER, headers={"Accept-Language": "en"})
    assert r.status_code == 404
    page = soup(r.text)
    assert "was deleted after this form was opened" in page.select_one("#refused").get_text()
    form = page.select_one("#row-form")
    assert form["action"] == f"/catalog/offers/new?price_list={draft}"
    assert form.select_one("fieldset[disabled]") is None
    assert page.select_one("#f-monthly_price")["value"] == "123456"
    again = post_form(catalog_client, f"/catalog/offers/new?price_list={draft}", OFFER)
    assert again.status_code == 303
    api = catalog_client.get("/api/v1/offers", params={"price_list": draft}).json()
    assert next(o for o in api if o["id"] == OFFER["id"])["monthly_price"] == 123_456


def test_a_row_form_whose_list_was_deleted_meanwhile_keeps_what_was_typed(
    catalog_client: TestClient,
) -> None:
    draft = _draft(catalog_client, "Deleted meanwhile")
    deleted = post_form(catalog_client, f"/catalog/price-lists/{draft}/delete", {})
    assert deleted.status_code == 303
    new = {**OFFER, "id": "tpe-new-row"}
    r = post_form(catalog_client, f"/catalog/offers/new?price_list={draft}", new,
                  headers={"Accept-Language": "en"})  # fmt: skip
    assert r.status_code == 404
    page = soup(r.text)
    assert page.select_one("#refused a")["href"] == "/catalog/price-lists"
    assert _unsaved(r.text)["Monthly price"] == "123456"


def test_a_price_list_form_whose_list_changed_meanwhile_keeps_what_was_typed(
    catalog_client: TestClient,
) -> None:
    draft = _draft(catalog_client, "Renamed meanwhile")
    typed = {"name": "Renamed by me", "effective_date": "2027-02-01", "notes": "my notes"}
    assert post_form(catalog_client, f"/catalog/price-lists/{draft}/publish", {}).status_code == 303
    r = post_form(catalog_client, f"/catalog/price-lists/{draft}/edit", typed,
                  headers={"Accept-Language": "en"})  # fmt: skip
    assert r.status_code == 409
    page = soup(r.text)
    assert page.select_one("#refused a")["href"] == f"/catalog/price-lists/new?from={draft}"
    assert page.select_one("#f-name")["value"] == "Renamed by me"
    assert page.select_one("#f-notes").get_text().strip() == "my notes"
    other = _draft(catalog_client, "Deleted before save")
    assert post_form(catalog_client, f"/catalog/price-lists/{other}/delete", {}).status_code == 303
    r = post_form(catalog_client, f"/catalog/price-lists/{other}/edit", typed,
                  headers={"Accept-Language": "en"})  # fmt: skip
    assert r.status_code == 404
    page = soup(r.text)
    assert page.select_one("#price-list-form")["action"] == "/catalog/price-lists/new"
    assert page.select_one("#f-name")["value"] == "Renamed by me"
    # and a copy whose source list went away names the field
    gone = _draft(catalog_client, "Source gone")
    assert post_form(catalog_client, f"/catalog/price-lists/{gone}/delete", {}).status_code == 303
    r = post_form(
        catalog_client, "/catalog/price-lists/new",
        {"name": "Copy of a gone list", "effective_date": "2027-03-01", "source_list": str(gone)},
        headers={"Accept-Language": "en"},
    )  # fmt: skip
    assert r.status_code == 422  # a wrong value of the field, not a missing page
    page = soup(r.text)
    assert page.select_one("#err-source_list").get_text(strip=True)
    assert page.select_one("#f-name")["value"] == "Copy of a gone list"


def test_posts_need_the_csrf_token(catalog_client: TestClient) -> None:
    csrf(catalog_client)
    r = catalog_client.post(
        "/catalog/price-lists/new", data={"name": "x", "effective_date": "2027-01-01"}
    )
    assert r.status_code == 403


def test_price_list_pages_copy_publish_and_validate(catalog_client: TestClient) -> None:
    page = soup(catalog_client.get("/catalog/price-lists/new").text)
    assert page.select_one("#f-source_list option[selected]")["value"] == _current_id(
        catalog_client
    )
    dupe = post_form(
        catalog_client, "/catalog/price-lists/new",
        {"name": "2026-11 list", "effective_date": "2027-01-01"},
    )  # fmt: skip
    assert dupe.status_code == 422
    assert "already exists" in soup(dupe.text).select_one("#err-name").get_text()
    draft = _draft(catalog_client, "2027-01 list")
    published = post_form(catalog_client, f"/catalog/price-lists/{draft}/publish", {})
    assert published.status_code == 303
    lists = soup(catalog_client.get("/catalog/price-lists").text)
    row = next(tr for tr in lists.select("#price-lists tbody tr") if "2027-01 list" in tr.text)
    assert "Published" in row.get_text()


def test_import_errors_read_in_the_admins_language(catalog_client: TestClient) -> None:
    # The same negative price as below, on a zh-TW page: the row and the rule in Chinese
    # (they were English on a Chinese page); the field keeps its column name.
    csv_text = catalog_client.get(
        "/api/v1/catalog/export", params={"format": "csv", "kind": "offers"}
    ).text
    bad = csv_text.replace(",50000,120,", ",-5,120,").encode("utf-8")
    r = catalog_client.post(
        "/catalog/import",
        data={"kind": "offers", "target": "new", "csrf_token": csrf(catalog_client)},
        files={"file": ("offers.csv", bad, "text/csv")},
        headers={"Accept-Language": "zh-TW"},
        follow_redirects=False,
    )
    assert r.status_code == 422
    errors = [li.get_text(strip=True) for li in soup(r.text).select("#import-errors li")]
    assert errors == ["第 3 列：monthly_price 必須 ≥ 0（收到 -5）"]


def test_import_page_rejects_a_bad_csv_and_applies_a_good_one(
    catalog_client: TestClient,
) -> None:
    csv_text = catalog_client.get(
        "/api/v1/catalog/export", params={"format": "csv", "kind": "offers"}
    ).text
    lists_before = catalog_client.get("/api/v1/price-lists").json()
    bad = csv_text.replace(",50000,120,", ",-5,120,")
    r = post_form(
        catalog_client, "/catalog/import", {"kind": "offers", "target": "new"},
        files={"file": ("offers.csv", bad.encode("utf-8"), "text/csv")},
    )  # fmt: skip
    assert r.status_code == 422
    page = soup(r.text)
    errors = [li.get_text(strip=True) for li in page.select("#import-errors li")]
    assert errors == ["row 3: monthly_price must be ≥ 0 (got -5)"]
    assert page.select_one("#apply-form") is None
    assert catalog_client.get("/api/v1/price-lists").json() == lists_before

    good = csv_text.replace(",50000,120,", ",52000,120,")
    preview = post_form(
        catalog_client, "/catalog/import",
        {"kind": "offers", "target": "new", "name": "From the page"},
        files={"file": ("offers.csv", good.encode("utf-8"), "text/csv")},
    )  # fmt: skip
    assert preview.status_code == 200
    page = soup(preview.text)
    assert page.select_one("#n-changed").get_text(strip=True) == "1"
    cells = [td.get_text(strip=True) for td in page.select("#changed-rows tbody td")]
    # amounts in their currency, and the move: 52,000 / 50,000 = +4 %
    assert cells[2:] == [
        "stratagem-tpe-h100-x1",
        "Monthly price",
        "NT$50,000",
        "NT$52,000",
        "+4%",
    ]
    apply_form = page.select_one("#apply-form")
    fields = {el["name"]: el.get("value", el.get_text()) for el in apply_form.select("[name]")}
    applied = catalog_client.post("/catalog/import/apply", data=fields, follow_redirects=False)
    assert applied.status_code == 303
    landing = soup(catalog_client.get(applied.headers["location"]).text)
    assert landing.select_one(".notice.ok") is not None
    assert landing.select_one("#list-summary h2").get_text(strip=True) == "From the page"


def test_unknown_pages_and_lists_are_404(catalog_client: TestClient) -> None:
    assert catalog_client.get("/catalog/widgets").status_code == 404
    assert catalog_client.get("/catalog/offers?price_list=99999").status_code == 404
    assert catalog_client.get("/catalog/offers/nope/edit").status_code == 404


def test_pages_speak_traditional_chinese(catalog_client: TestClient) -> None:
    r = catalog_client.get("/catalog/offers", headers={"Accept-Language": "zh-TW"})
    page = soup(r.text)
    assert page.select_one("h1").get_text(strip=True) == "租賃方案"
    headers = [th.get_text(strip=True) for th in page.select("#catalog-table thead th")]
    assert "供應商" in headers
    assert page.select_one("#catalog-table caption").get_text(strip=True).startswith("17 項")
    form = soup(
        catalog_client.get(
            "/catalog/offers/stratagem-tpe-h100-x1/edit", headers={"Accept-Language": "zh-TW"}
        ).text
    )
    assert form.select_one('label[for="f-provider"]').get_text(strip=True) == "供應商"
    assert form.select_one("#row-form legend").get_text(strip=True) == "租賃方案"
    imp = soup(catalog_client.get("/catalog/import", headers={"Accept-Language": "zh-TW"}).text)
    assert imp.select_one('#f-target option[value="new"]').get_text(strip=True).startswith("新草稿")


def _catalog_msgids() -> set[str]:
    keywords = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}
    ids: set[str] = set()
    opts = {"extensions": "jinja2.ext.i18n", "trim_blocks": "true", "lstrip_blocks": "true"}
    for path in sorted((REPO_ROOT / "templates" / "catalog").glob("*.html")):
        for _line, msg, _c, _ctx in extract_from_file("jinja2", str(path), keywords, options=opts):
            ids.add(msg[0] if isinstance(msg, tuple) else msg)
    for name in ("pages.py", "views.py", "forms.py", "kinds.py"):
        path = Path(REPO_ROOT / "app" / "catalog" / name)
        for _line, msg, _c, _ctx in extract_from_file("python", str(path), keywords):
            ids.add(msg[0] if isinstance(msg, tuple) else msg)
    return ids


def test_every_catalog_string_has_a_chinese_translation() -> None:
    ids = _catalog_msgids()
    assert len(ids) > 150
    i18n.reload()
    zh = i18n.zh_translations()
    # msgids that read the same in both languages (units, acronyms)
    same = {"GPU"}
    missing = sorted(m for m in ids if zh.gettext(m) == m and m not in same)
    assert missing == [], missing


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_fast_cell_format_matches_the_shared_filters(lang: str) -> None:
    """The table's fast formatter prints exactly what the Babel-based filters print."""
    from app.catalog.views import CellFormat
    from app.web import templating

    i18n.activate(lang)
    try:
        fmt = CellFormat()
        assert fmt.fast
        values = [0, 0.125, 2.675, 1.005, 15_000, 2_182.7, 0.0862, 12e6, -5, -0.004, 1e15 / 7]
        for v in values:
            for digits in (0, 1, 2, 4):
                assert fmt.number(v, digits) == templating.number(v, digits), (v, digits)
                assert fmt.percent(v, digits) == templating.percent(v, digits), (v, digits)
            for ccy in ("TWD", "USD"):
                assert fmt.money(v, ccy) == templating.money(v, ccy), (v, ccy)
                assert fmt.money(v, ccy, 4) == templating.money(v, ccy, 4), (v, ccy)
    finally:
        i18n.activate("en")


def test_fractions_below_one_print_the_places_they_need() -> None:
    """A RunPod lead time of 0.25 h reads '0.25', not '0.2500'; 4 places stay for values
    that need them (0.0862, a tariff-sized fraction)."""
    from types import SimpleNamespace

    from app.catalog.views import CellFormat

    fmt = CellFormat()
    for v, shown in ((0.25, "0.25"), (0.5, "0.50"), (0.125, "0.125"), (0.0862, "0.0862")):
        assert fmt.cell("lead_time_hours", SimpleNamespace(lead_time_hours=v)) == shown
    assert fmt.cell("lead_time_hours", SimpleNamespace(lead_time_hours=240.0)) == "240"


def test_choice_columns_read_as_their_makers_write_them(catalog_client: TestClient) -> None:
    """QA of stop 32: the interconnect column read `pcie`, `nvlink`, `infiniband`."""
    page = soup(catalog_client.get("/catalog/offers").text)
    headers = [th.get_text(strip=True) for th in page.select("#catalog-table thead th")]
    col = headers.index("Interconnect")
    shown = {
        tr.select("td")[col].get_text(strip=True) for tr in page.select("#catalog-table tbody tr")
    }
    assert shown <= {"PCIe", "NVLink", "InfiniBand"} and "NVLink" in shown
    form = soup(catalog_client.get("/catalog/offers/stratagem-tpe-h100-x1/edit").text)
    options = {
        o["value"]: o.get_text(strip=True)
        for o in form.select("#f-interconnect option")
        if o["value"]
    }
    assert options == {"pcie": "PCIe", "nvlink": "NVLink", "infiniband": "InfiniBand"}


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_an_empty_list_is_not_published_and_a_publish_or_archive_says_what_is_current(
    catalog_client: TestClient, lang: str
) -> None:
    # QA 2026-12-07: an empty list (no offers, servers or cloud instances) was published with
    # one click and priced every page at NT$0 / "quoted per project"; archiving the current
    # list made a back-dated one current without a word; each action took one click.
    h = {"Accept-Language": lang}
    empty = post_form(
        catalog_client, "/catalog/price-lists/new",
        {"name": f"Empty {lang}", "effective_date": "2026-12-01", "source_list": ""},
    )  # fmt: skip
    assert empty.status_code == 303, empty.text
    empty_id = int(empty.headers["location"].rsplit("=", 1)[1])
    r = post_form(catalog_client, f"/catalog/price-lists/{empty_id}/publish", {}, headers=h)
    assert r.status_code == 409
    said = soup(r.text).get_text(" ", strip=True)
    assert (
        f"「Empty {lang}」沒有任何租用方案、雲端執行個體或伺服器" in said
        if lang == "zh-TW"
        else f"“Empty {lang}” has no rental offers, cloud instances or servers" in said
    )
    lists = catalog_client.get("/api/v1/price-lists").json()
    assert next(pl for pl in lists if pl["id"] == empty_id)["status"] == "draft"  # unchanged
    # Each irreversible action asks first, in the page's language.
    page = soup(catalog_client.get("/catalog/price-lists", headers=h).text)
    for action in ("publish", "delete"):
        form = page.select_one(f"form[action='/catalog/price-lists/{empty_id}/{action}']")
        assert form is not None and f"Empty {lang}" in form["data-confirm"]
    # A list dated in the future is published, and the page says when it takes over.
    future = _draft(catalog_client, f"Future {lang}")  # effective 2027-01-01
    r = post_form(catalog_client, f"/catalog/price-lists/{future}/publish", {}, headers=h)
    assert r.status_code == 303 and r.headers["location"].endswith(f"?published={future}")
    shown = soup(catalog_client.get(r.headers["location"], headers=h).text)
    notice = shown.select_one("#status-change").get_text(strip=True)
    assert notice == (
        f"「Future {lang}」已發布，將於 2027年1月1日成為現行價目表。"
        if lang == "zh-TW"
        else f"“Future {lang}” is published and becomes current on Jan 1, 2027."
    )


@pytest.mark.parametrize("role", ["sales", None])
def test_readers_who_may_not_edit_the_catalog_are_not_offered_its_actions(
    catalog_client: TestClient, role: str | None
) -> None:
    # QA 2026-12-07: a sales user was shown New price list, Publish, Delete, Archive, Import,
    # Audit trail and each row's Edit, every one answering "you have no access to this page".
    # The catalog stays readable; its actions are the admins'.
    draft = _draft(catalog_client, f"Readers' draft {role}")
    reader = TestClient(catalog_client.app)
    reader.headers["Accept-Language"] = "en"
    if role is not None:
        sign_in(reader, make_account(reader, role).user)
    admin_only = ("/catalog/import", "/catalog/audit", "/catalog/price-lists/new",
                  "/publish", "/archive", "/delete", "/edit", "/new")  # fmt: skip
    for path in ("/catalog", "/catalog/price-lists", "/catalog/offers",
                 f"/catalog/offers?price_list={draft}", f"/catalog?price_list={draft}"):  # fmt: skip
        page = soup(reader.get(path).text)
        main = page.select_one("main")
        assert main is not None
        offered = [a.get("href") or a.get("action") for a in main.select("a[href], form[action]")]
        assert not [x for x in offered if x and any(p in x for p in admin_only)], (path, offered)
    # The admin still has them.
    page = soup(catalog_client.get("/catalog/price-lists").text)
    assert page.select_one(f"form[action='/catalog/price-lists/{draft}/publish']") is not None


def test_a_long_table_is_drawn_a_page_at_a_time(catalog_client: TestClient) -> None:
    # QA 2026-12-07: 19,864 imported offers were drawn on one page, 15–23 s. A table draws
    # views.ROWS_PER_PAGE rows; its caption counts them all and says which page it is.
    from app.catalog.views import ROWS_PER_PAGE

    doc = catalog_client.get("/api/v1/catalog/export").json()
    first = doc["offers"][0]
    n = 2 * ROWS_PER_PAGE + 50
    offers = [{**first, "id": f"bulk-{i:04d}"} for i in range(n)]
    r = catalog_client.post(
        "/api/v1/catalog/import",
        params={"dry_run": "false", "name": "Long list"},
        json={"offers": offers},
    )
    assert r.status_code == 201, r.text
    url = f"/catalog/offers?price_list={r.json()['price_list_id']}&sort=id"
    page = soup(catalog_client.get(url).text)
    assert len(page.select("#catalog-table tbody tr")) == ROWS_PER_PAGE
    caption = page.select_one("#catalog-table caption").get_text(" ", strip=True)
    assert caption == f"{n:,} rows · page 1 of 3"
    nxt = page.select_one("#catalog-table nav a")
    assert (
        nxt.get_text(strip=True) == "Next" and "page=2" in nxt["href"] and "sort=id" in nxt["href"]
    )
    last = soup(catalog_client.get(f"{url}&page=3").text)
    ids = [tr.select("td")[0].get_text(strip=True) for tr in last.select("#catalog-table tbody tr")]
    assert ids == [f"bulk-{i:04d}" for i in range(2 * ROWS_PER_PAGE, n)]  # the last 50, in order
    # Past the last page: the last page.
    assert (
        len(soup(catalog_client.get(f"{url}&page=99").text).select("#catalog-table tbody tr")) == 50
    )


def test_an_imports_audit_entry_lists_a_few_rows_and_counts_the_rest(
    catalog_client: TestClient,
) -> None:
    # QA 2026-12-07: the entry of an import of 19,847 rows printed every key as a Python list
    # and the audit page grew to 427 KB. The entry shows the first ten and counts the rest.
    from app.catalog.views import AUDIT_LIST_SHOWN

    first = catalog_client.get("/api/v1/catalog/export").json()["offers"][0]
    offers = [{**first, "id": f"bulk-{i:04d}"} for i in range(AUDIT_LIST_SHOWN + 25)]
    r = catalog_client.post(
        "/api/v1/catalog/import",
        params={"dry_run": "false", "name": "Audit list"},
        json={"offers": offers},
    )
    assert r.status_code == 201, r.text
    page = soup(catalog_client.get("/catalog/audit", headers={"Accept-Language": "en"}).text)
    entry = next(tr for tr in page.select("#audit > tbody > tr") if "Imported" in tr.get_text())
    cells = {
        tr.select("td")[0].get_text(strip=True): tr.select("td")[2].get_text(strip=True)
        for tr in entry.select("details tbody tr")
    }
    shown = ", ".join(f"offers:bulk-{i:04d}" for i in range(AUDIT_LIST_SHOWN))
    assert cells["Added"] == f"{shown} … and 25 more"
    assert "[" not in cells["Added"] and "'" not in cells["Added"]


def test_a_list_published_for_later_does_not_price_before_its_date(
    catalog_client: TestClient,
) -> None:
    # QA: with the only current list archived, a list published for 2027 became current at
    # once ("published and current"), and December's quotes were priced with next year's
    # prices, while the archive notice said the pages would price with the shipped catalog.
    shipped = catalog_client.get("/api/v1/price-lists/current").json()
    future = _draft(catalog_client, "Next year")  # effective 2027-01-01
    text = catalog_client.get(
        "/api/v1/catalog/export", params={"format": "csv", "kind": "offers"}
    ).text
    assert text.count(",50000,120,") == 1  # seed 003 T8's one H100: NT$50,000 a month
    r = catalog_client.post(
        "/api/v1/catalog/import",
        params={"dry_run": "false", "price_list": future, "mode": "upsert"},
        files={"file": ("offers.csv", text.replace(",50000,120,", ",55000,120,"), "text/csv")},
    )
    assert r.status_code == 201, r.text
    archived = post_form(catalog_client, f"/catalog/price-lists/{shipped['id']}/archive", {})
    assert archived.status_code == 303
    published = post_form(catalog_client, f"/catalog/price-lists/{future}/publish", {})
    notice = soup(catalog_client.get(published.headers["location"]).text)
    assert notice.select_one("#status-change").get_text(strip=True) == (
        "“Next year” is published and becomes current on Jan 1, 2027."
    )
    none = catalog_client.get("/api/v1/price-lists/current")
    assert none.status_code == 404
    assert "no published price list is in effect today" in none.text
    # Estimates price with the shipped catalog meanwhile (NT$50,000 a month for one H100),
    # never with the 2027 list's NT$55,000.
    est = catalog_client.post(
        "/api/v1/estimate",
        json={"model": {"preset": "llama-2-7b"}, "task": "lora", "dataset_gb": 1},
    ).json()
    monthly = next(
        o for o in est["cost"]["options"] if o["key"] == "rent_monthly:stratagem-tpe-h100-x1"
    )
    assert monthly["monthly_rate"] == 50000


@pytest.mark.parametrize(
    ("lang", "start", "kinds"),
    [
        ("en", "“h100-sxm-80gb” cannot be deleted:", ("rental offers", "cloud instances")),
        ("zh-TW", "無法刪除「h100-sxm-80gb」：", ("台伺服器", "個租賃方案", "種雲端執行個體")),
    ],
)
def test_deleting_a_gpu_in_use_says_what_uses_it_on_its_form(
    catalog_client: TestClient, lang: str, start: str, kinds: tuple[str, ...]
) -> None:
    # QA: a generic "Something went wrong" page read "2 gpu_prices, 8 servers, 14 offers".
    h = {"Accept-Language": lang}
    r = post_form(catalog_client, "/catalog/gpus/h100-sxm-80gb/delete", {}, headers=h)
    assert r.status_code == 409
    page = soup(r.text)
    assert page.select_one("#row-form") is not None  # the GPU's form, filled in
    title = page.select_one("#refused strong").get_text(strip=True)
    assert title == ("Not deleted." if lang == "en" else "未刪除。")
    notice = page.select_one("#refused p").get_text(" ", strip=True)
    assert notice.startswith(start) and all(k in notice for k in kinds), notice
    assert "gpu_prices" not in notice and " offers" not in notice.replace("rental offers", "")
    gpus = {g["id"] for g in catalog_client.get("/api/v1/gpus").json()}
    assert "h100-sxm-80gb" in gpus  # nothing deleted
