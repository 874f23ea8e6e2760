"""CSV/JSON import with preview, and export: bad files are rejected with row-numbered errors
and change nothing; an export imports back unchanged."""

from __future__ import annotations

import csv
import io as stdio
import json
from datetime import datetime

import pytest
from sqlmodel import Session

from app import i18n
from app.catalog import io, service
from app.catalog.kinds import KINDS, ORDER
from app.catalog.models import utcnow
from app.dates import in_business_tz

from .helpers import audit_count, catalog_counts

HEADER = (
    "id,provider,gpu_id,gpu_count,monthly_price,hourly_price,currency,term_discounts,"
    "lead_time_hours,includes_power,interconnect,source"
)
GOOD = [
    "tpe-x1,Stratagem Taipei,h100-sxm-80gb,1,50000,120,TWD,3:0;6:0.1;12:0.2,2,true,pcie,seed T8",
    "tpe-mig,Stratagem Taipei,h100-sxm-80gb,0.25,15000,,TWD,6:0.1,2,true,pcie,seed T8",
    "runpod-h100,RunPod,h100-sxm-80gb,1,2182.7,2.99,USD,,0.25,true,pcie,runpod.md",
]


def _csv(*rows: str, header: str = HEADER) -> bytes:
    return ("\n".join([header, *rows]) + "\n").encode("utf-8")


def _cur(session: Session) -> int:
    pl = service.current_price_list(session=session)
    assert pl is not None and pl.id is not None
    return pl.id


def _preview(session: Session, data: bytes, *, fmt: io.Format = "csv", kind: str = "offers"):
    parsed = io.parse(data, fmt=fmt, kind=kind)
    return service.preview_import(session=session, parsed=parsed, target=None)


# Each malformed file, and the row-numbered message it must produce (header = row 1).
MALFORMED = [
    pytest.param(
        _csv(*GOOD, header=HEADER.replace("monthly_price,", "")),
        "row 1: missing column: monthly_price",  # one column: singular
        id="missing-column",
    ),
    pytest.param(
        _csv(GOOD[0], GOOD[1], GOOD[2].replace("2182.7", "-5")),
        "row 4: monthly_price must be ≥ 0 (got -5)",
        id="negative-price",
    ),
    pytest.param(
        _csv(GOOD[0], GOOD[1].replace("h100-sxm-80gb", "h900-sxm")),
        "row 3: gpu_id 'h900-sxm' is not a known GPU",
        id="unknown-gpu",
    ),
    pytest.param(
        _csv(GOOD[0], GOOD[1], GOOD[0].replace("50000", "1")),
        "row 4: duplicate id 'tpe-x1' (first on row 2)",
        id="duplicate-id",
    ),
    pytest.param(
        _csv(GOOD[0]).replace(b"seed T8", "戰國策 報價".encode("big5")),
        "row 2: the file is not UTF-8",
        id="big5-encoding",
    ),
    pytest.param(
        _csv(GOOD[0], GOOD[1]).replace(b"Stratagem Taipei", "Société".encode("latin-1"), 2),
        "row 2: the file is not UTF-8",
        id="latin1-encoding",
    ),
    pytest.param(
        _csv(GOOD[0].replace(",TWD,", ",EUR,")),
        "row 2: currency must be one of TWD, USD (got 'EUR')",
        id="bad-currency",
    ),
    pytest.param(
        _csv(GOOD[0].replace("50000", "fifty")),
        "row 2: monthly_price must be a number (got 'fifty')",
        id="not-a-number",
    ),
    pytest.param(
        _csv(GOOD[0].replace("3:0;6:0.1;12:0.2", "six months")),
        "row 2: term_discounts must look like 3:0;6:0.1;12:0.2",
        id="bad-terms",
    ),
    pytest.param(
        _csv(GOOD[0] + ",extra"),
        "row 2: has 13 cells but the header has 12 columns",
        id="extra-cell",
    ),
    pytest.param(
        _csv(GOOD[0], header=HEADER + ",montly_price"),
        "row 1: unknown column: montly_price",
        id="unknown-column",
    ),
    pytest.param(
        _csv(GOOD[0], header=HEADER + ",montly_price,gpu_typo"),
        "row 1: unknown columns: montly_price, gpu_typo",
        id="unknown-columns",
    ),
]


@pytest.mark.parametrize(("data", "message"), MALFORMED)
def test_malformed_csv_is_rejected_and_nothing_changes(
    session: Session, data: bytes, message: str
) -> None:
    before, audits = catalog_counts(session), audit_count(session)
    preview = _preview(session, data)
    assert not preview.ok
    assert any(m.startswith(message) for m in preview.messages), preview.messages
    result = service.apply_import(
        session=session, parsed=io.parse(data, fmt="csv", kind="offers"), target=None, actor="t"
    )
    assert not result.applied and result.price_list_id is None
    assert catalog_counts(session) == before
    assert audit_count(session) == audits


def test_one_bad_row_among_good_ones_imports_nothing(session: Session) -> None:
    """Nothing is half-imported: two good rows and one bad one write no row at all."""
    before = catalog_counts(session)
    data = _csv(GOOD[0], GOOD[1], GOOD[2].replace("2182.7", "-5"))
    preview = _preview(session, data)
    assert [r.row for r in preview.rejected] == [4]
    assert not service.apply_import(
        session=session, parsed=io.parse(data, fmt="csv", kind="offers"), target=None, actor="t"
    ).applied
    assert catalog_counts(session) == before


def test_preview_lists_added_changed_and_removed(session: Session) -> None:
    exported = service.export_rows(session=session, price_list_id=_cur(session), kinds=["offers"])[
        "offers"
    ]
    rows = [dict(r) for r in exported if r["id"] != "runpod-secure-l4-x1"]  # removed
    next(r for r in rows if r["id"] == "stratagem-tpe-h100-x8")["monthly_price"] = 360_000
    rows.append(dict(rows[0], id="new-offer"))
    data = io.to_csv(KINDS["offers"], rows).encode("utf-8")
    preview = _preview(session, data)
    assert preview.ok
    assert [c.key for c in preview.added] == ["new-offer"]
    assert [c.key for c in preview.removed] == ["runpod-secure-l4-x1"]
    (changed,) = preview.changed
    assert changed.key == "stratagem-tpe-h100-x8" and changed.row == 6
    assert [(f.field, f.old, f.new) for f in changed.fields] == [
        ("monthly_price", 350_000, 360_000)
    ]
    upsert = service.preview_import(
        session=session, parsed=io.parse(data, fmt="csv", kind="offers"), target=None,
        mode="upsert",
    )  # fmt: skip
    assert upsert.removed == []


def test_a_sync_file_with_no_rows_of_a_kind_cannot_empty_it(session: Session) -> None:
    """A header-only offers CSV in sync mode would remove all 17 shipped offers (QA: it
    previewed as 'can apply' and emptied the draft); it is refused, nothing is written, and
    upsert mode (which removes nothing) still takes it."""
    counts = catalog_counts(session)
    lists = len(service.list_price_lists(session=session))
    n = len(service.current_price_book(session=session).offers)  # type: ignore[union-attr]
    assert n == 17
    parsed = io.parse(_csv(), fmt="csv", kind="offers")
    preview = service.preview_import(session=session, parsed=parsed, target=None)
    assert not preview.ok and preview.removed == []
    assert preview.messages == [
        "offers: the file has no rows, so syncing would remove all 17 of them from the list; "
        "leave offers out of the file, or upload its rows"
    ]
    applied = service.apply_import(session=session, parsed=parsed, target=None, actor="a")
    assert not applied.applied
    assert catalog_counts(session) == counts
    assert len(service.list_price_lists(session=session)) == lists
    upsert = service.preview_import(session=session, parsed=parsed, target=None, mode="upsert")
    assert upsert.ok and upsert.removed == []


def test_apply_goes_into_a_new_draft_and_leaves_the_current_list(session: Session) -> None:
    current_before = service.current_price_book(session=session)
    data = _csv(*GOOD)
    result = service.apply_import(
        session=session, parsed=io.parse(data, fmt="csv", kind="offers"), target=None,
        actor="importer", new_name="Imported",
    )  # fmt: skip
    assert result.applied and result.price_list_id is not None
    draft = service.get_price_list(session=session, price_list_id=result.price_list_id)
    assert draft.status == "draft" and draft.name == "Imported"
    book = service.price_book_for(session=session, price_list_id=draft.id or 0)
    assert sorted(o.id for o in book.offers) == ["runpod-h100", "tpe-mig", "tpe-x1"]
    assert book.cloud == current_before.cloud  # type: ignore[union-attr]  # other kinds copied
    assert service.current_price_book(session=session) == current_before
    entry = service.list_audit(session=session, price_list_id=draft.id)[0]
    assert entry.action == "import" and entry.actor == "importer"


def test_a_new_drafts_default_name_is_on_taipeis_clock_and_says_so(session: Session) -> None:
    """The default name of an import's new draft was stamped in UTC without saying so: an
    import at 06:30 on 7 December in Taipei was named "Import 2026-12-06 22:30:00"."""
    before = in_business_tz(utcnow()).replace(microsecond=0, tzinfo=None)
    result = service.apply_import(
        session=session, parsed=io.parse(_csv(*GOOD), fmt="csv", kind="offers"), target=None,
        actor="importer",
    )  # fmt: skip
    after = in_business_tz(utcnow()).replace(tzinfo=None)
    draft = service.get_price_list(session=session, price_list_id=result.price_list_id or 0)
    head, _, zone = draft.name.removeprefix("Import ").rpartition(" ")
    assert zone == "UTC+8", draft.name
    assert before <= datetime.strptime(head, "%Y-%m-%d %H:%M:%S") <= after


def test_import_into_a_published_list_is_refused(session: Session) -> None:
    parsed = io.parse(_csv(*GOOD), fmt="csv", kind="offers")
    with pytest.raises(service.Conflict):
        service.apply_import(session=session, parsed=parsed, target=_cur(session), actor="t")


def test_json_export_imports_back_unchanged(session: Session) -> None:
    body, media, _name = service.export_file(
        session=session, price_list_id=_cur(session), fmt="json", kind=None
    )
    assert media == "application/json"
    doc = json.loads(body)
    assert doc["price_list"]["name"] == "2026-11 list"
    assert set(ORDER) <= set(doc)
    preview = _preview(session, body.encode("utf-8"), fmt="json", kind="")
    assert preview.ok and not (preview.added or preview.changed or preview.removed)
    assert preview.unchanged == sum(1 if KINDS[k].single else len(doc[k]) for k in ORDER)
    result = service.apply_import(
        session=session, parsed=io.parse(body, fmt="json"), target=None, actor="t"
    )
    copy = service.price_book_for(session=session, price_list_id=result.price_list_id or 0)
    original = service.price_book_for(session=session, price_list_id=_cur(session))
    assert (copy.offers, copy.cloud, copy.servers, copy.energy, copy.fx, copy.buy) == (
        original.offers, original.cloud, original.servers, original.energy, original.fx,
        original.buy,
    )  # fmt: skip


@pytest.mark.parametrize("kind", ORDER)
def test_csv_export_imports_back_unchanged(session: Session, kind: str) -> None:
    body, media, name = service.export_file(
        session=session, price_list_id=_cur(session), fmt="csv", kind=kind
    )
    assert media.startswith("text/csv") and name.endswith(f"-{kind}.csv")
    header = next(csv.reader(stdio.StringIO(body.removeprefix("\ufeff"))))
    assert tuple(header) == KINDS[kind].columns
    preview = _preview(session, body.encode("utf-8"), kind=kind)
    assert preview.ok, preview.messages
    assert not (preview.added or preview.changed or preview.removed)
    assert preview.unchanged == service.counts(session=session, price_list_id=_cur(session))[kind]


def test_json_errors_name_the_line_and_the_row(session: Session) -> None:
    broken = _preview(session, b'{"offers": [\n  {"id": 1,}\n]}', fmt="json")
    # line 2 is `  {"id": 1,}`: its 12th character, "}", is where a value was expected
    assert broken.messages[0] == "row 2: not valid JSON (look at character 12)"
    i18n.activate("zh-TW")
    try:  # QA: the parser's English ("Expecting value") on the Chinese page
        zh = _preview(session, b'{"offers": [\n  {"id": 1,}\n]}', fmt="json")
        assert zh.messages[0] == "第 2 列：不是有效的 JSON（請檢查第 12 個字元）"
    finally:
        i18n.activate("en")
    doc = {"offers": [{"id": "a"}], "prices": []}
    unknown = _preview(session, json.dumps(doc).encode(), fmt="json")
    assert unknown.messages[0].startswith("unknown key: prices")
    rows = {"offers": [{**dict(zip(HEADER.split(","), GOOD[0].split(","), strict=True)),
                        "term_discounts": {"6": 0.1}, "monthly_price": -1}]}  # fmt: skip
    negative = _preview(session, json.dumps(rows).encode(), fmt="json")
    assert negative.messages == ["offers row 1: monthly_price must be ≥ 0 (got -1)"]


def test_a_file_with_gpus_may_reference_them(session: Session) -> None:
    doc = json.loads(service.export_file(session=session, price_list_id=_cur(session), fmt="json",
                                         kind=None)[0])  # fmt: skip
    gpu = dict(doc["gpus"][0], id="h100-next-gen")
    offer = dict(doc["offers"][0], id="next", gpu_id="h100-next-gen")
    data = json.dumps({"gpus": [gpu], "offers": [offer]}).encode()
    preview = service.preview_import(
        session=session, parsed=io.parse(data, fmt="json"), target=None, mode="upsert"
    )
    assert preview.ok, preview.messages
    assert {(c.kind, c.key) for c in preview.added} == {("gpus", "h100-next-gen"),
                                                        ("offers", "next")}  # fmt: skip
    result = service.apply_import(
        session=session, parsed=io.parse(data, fmt="json"), target=None, actor="t", mode="upsert"
    )
    assert result.applied
    assert "h100-next-gen" in service.gpu_ids(session=session)


def test_terms_round_trip() -> None:
    terms = {1: 0.0, 3: 0.0, 6: 0.1, 12: 0.2}
    text = io.format_terms(terms)
    assert text == "1:0;3:0;6:0.1;12:0.2"
    assert io.parse_terms(text) == (terms, None)
    assert io.parse_terms('{"6": 0.1}') == ({6: 0.1}, None)
