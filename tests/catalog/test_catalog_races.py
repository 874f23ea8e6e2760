"""Changes to one draft price list that race each other, on SQLite and PostgreSQL (race QA).

A publish or a delete is held open by the test (tests/races.py) while the catalog service,
in threads with sessions of their own, tries to change the same draft; then it commits.
Before the fix, measured over 20 rounds of real requests: an edit was committed into the
list just published in 6–18 rounds (its prices are frozen once published), a delete removed
the list just published, and a delete racing an edit answered 500 (StaleDataError,
IntegrityError; a deadlock on PostgreSQL). A staged import could be applied twice.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from sqlalchemy import Engine, delete, update
from sqlmodel import Session, col, select

from app.catalog import io, service
from app.catalog.models import FxRate, ImportUpload, PriceList
from app.catalog.service import CatalogError, Conflict, NotFound
from tests.races import Background, holding, wait_until_blocked


def _draft(engine: Engine) -> tuple[int, str]:
    """A new draft copied from the current list, and the key of one of its FX rows."""
    with Session(engine) as s:
        current = service.current_price_list(session=s)
        assert current is not None and current.id is not None
        draft = service.new_price_list_from(
            session=s,
            source_id=current.id,
            name=f"draft {id(s)}",
            effective_date=date.today(),
            actor="t",
        )
        assert draft.id is not None
        fx = s.exec(select(FxRate).where(FxRate.price_list_id == draft.id)).first()
        assert fx is not None
        return draft.id, service.kind("fx").key_of(service.row_values(service.kind("fx"), fx))


def _fx_csv(session: Session, list_id: int) -> str:
    """The list's FX rates as the CSV export writes them (an import that changes nothing)."""
    csv, _media, _name = service.export_file(
        session=session, price_list_id=list_id, fmt="csv", kind="fx"
    )
    return csv


def _staged_fx(engine: Engine, list_id: int) -> str:
    """The token of a previewed import of the list's own FX rates back into it."""
    with Session(engine) as s:
        staged = service.StagedImport(
            data=_fx_csv(s, list_id).encode(), format="csv", kind="fx", target=list_id,
            mode="upsert", name="",
        )  # fmt: skip
        return service.stage_import(session=s, staged=staged, actor="admin")


def _edit_fx(engine: Engine, list_id: int, key: str, rate: float) -> Any:
    """The catalog's row edit, as the edit form and the API make it, in its own session."""
    with Session(engine) as s:
        k = service.kind("fx")
        row = service.get_row(session=s, kind_name="fx", price_list_id=list_id, key=key)
        values = service.row_values(k, row) | {"rate": rate}
        data = service.validate_row(kind_name="fx", values=values)
        try:
            service.update_row(
                session=s, kind_name="fx", price_list_id=list_id, key=key, data=data, actor="b"
            )
        except (Conflict, NotFound) as e:
            return e
        return "written"


def _delete(engine: Engine, list_id: int) -> Any:
    with Session(engine) as s:
        try:
            service.delete_price_list(session=s, price_list_id=list_id, actor="b")
        except (Conflict, NotFound) as e:
            return e
        return "deleted"


def _rates(engine: Engine, list_id: int) -> list[float]:
    with Session(engine) as s:
        return sorted(r.rate for r in s.exec(select(FxRate).where(FxRate.price_list_id == list_id)))


def _publishing(list_id: int) -> Any:
    return (
        update(PriceList)
        .where(col(PriceList.id) == list_id)
        .values(status="published", revision=PriceList.revision + 1)
    )


def test_an_edit_that_waited_on_a_publish_is_refused_and_the_prices_stay_frozen(
    engine: Engine,
) -> None:
    list_id, key = _draft(engine)
    before = _rates(engine, list_id)
    edits = Background()
    with holding(engine, _publishing(list_id)):
        edits.start(lambda: _edit_fx(engine, list_id, key, 99.0))
        wait_until_blocked(engine, 1)
    (outcome,) = edits.results()
    assert isinstance(outcome, Conflict), outcome
    assert outcome.field == "price_list"
    assert _rates(engine, list_id) == before


def test_a_delete_that_waited_on_a_publish_leaves_the_published_list(engine: Engine) -> None:
    list_id, _key = _draft(engine)
    deletes = Background()
    with holding(engine, _publishing(list_id)):
        deletes.start(lambda: _delete(engine, list_id))
        wait_until_blocked(engine, 1)
    (outcome,) = deletes.results()
    assert isinstance(outcome, Conflict), outcome
    with Session(engine) as s:
        kept = s.get(PriceList, list_id)
        assert kept is not None and kept.status == "published"


def test_an_edit_that_waited_on_a_delete_is_a_404_not_a_500(engine: Engine) -> None:
    """The draft is deleted (its rows with it) while an edit of one of its rows waits."""
    list_id, key = _draft(engine)
    edits = Background()
    with holding(engine, delete(FxRate).where(col(FxRate.price_list_id) == list_id)) as conn:
        conn.execute(delete(PriceList).where(col(PriceList.id) == list_id))
        edits.start(lambda: _edit_fx(engine, list_id, key, 99.0))
        wait_until_blocked(engine, 1)
    (outcome,) = edits.results()
    assert isinstance(outcome, NotFound), outcome
    assert outcome.field == "price_list"


def test_two_edits_of_one_draft_both_land_and_count_two_revisions(engine: Engine) -> None:
    """Held edits go one after the other: both written, the list's revision up by two
    (before, the two read the same revision and it went up by one)."""
    list_id, key = _draft(engine)
    with Session(engine) as s:
        start = s.get(PriceList, list_id).revision  # type: ignore[union-attr]
    edits = Background()
    claim = update(PriceList).where(col(PriceList.id) == list_id).values(notes=PriceList.notes)
    with holding(engine, claim):
        edits.start(lambda: _edit_fx(engine, list_id, key, 31.0))
        edits.start(lambda: _edit_fx(engine, list_id, key, 32.0))
        wait_until_blocked(engine, 2)
    assert edits.results() == ["written", "written"]
    with Session(engine) as s:
        assert s.get(PriceList, list_id).revision == start + 2  # type: ignore[union-attr]


def test_a_staged_import_applied_twice_at_once_is_applied_once(engine: Engine) -> None:
    """A double click on "Apply": one import, and the second click is told it was applied."""
    list_id, _key = _draft(engine)
    token = _staged_fx(engine, list_id)

    def apply() -> Any:
        with Session(engine) as s:
            try:
                return service.apply_staged_import(session=s, token=token, actor="admin")
            except CatalogError as e:
                return e

    applies = Background()
    claim = update(ImportUpload).values(mode=ImportUpload.mode)
    with holding(engine, claim):
        applies.start(apply)
        applies.start(apply)
        wait_until_blocked(engine, 2)
    outcomes = applies.results()
    applied = [o for o in outcomes if isinstance(o, io.ImportPreview) and o.applied]
    refused = [o for o in outcomes if isinstance(o, CatalogError)]
    assert len(applied) == 1 and len(refused) == 1, outcomes
    assert isinstance(refused[0], service.AlreadyApplied)
    assert refused[0].field == "token" and refused[0].price_list_id == list_id
    with Session(engine) as s:
        audit = service.list_audit(session=s, price_list_id=list_id)
        assert [e.action for e in audit].count("import") == 1


def test_a_second_click_on_apply_after_the_first_finished_names_the_list_it_went_into(
    engine: Engine,
) -> None:
    """Not a 422 "this preview has expired": the page sends the second click to the result."""
    list_id, _key = _draft(engine)
    token = _staged_fx(engine, list_id)
    with Session(engine) as s:
        assert service.apply_staged_import(session=s, token=token, actor="admin").applied
    with Session(engine) as s:
        with pytest.raises(service.AlreadyApplied) as again:
            service.apply_staged_import(session=s, token=token, actor="admin")
        assert again.value.price_list_id == list_id
        with pytest.raises(CatalogError) as unknown:
            service.apply_staged_import(session=s, token="not-a-token", actor="admin")
        assert not isinstance(unknown.value, service.AlreadyApplied)
        assert unknown.value.message.startswith("This preview has expired")


def test_imports_without_a_name_get_names_of_their_own(engine: Engine) -> None:
    """Two imports into new drafts in the same second: the second is "Import … (2)", not a
    422 for a name the first just took."""
    with Session(engine) as s:
        current = service.current_price_list(session=s)
        assert current is not None
        assert current.id is not None
        csv = _fx_csv(s, current.id)

    def apply() -> Any:
        with Session(engine) as s:
            parsed = io.parse(csv.encode(), fmt="csv", kind="fx")
            return service.apply_import(
                session=s, parsed=parsed, target=None, actor="admin", mode="upsert"
            )

    imports = Background()
    claim = update(PriceList).where(col(PriceList.id) == current.id).values(notes=PriceList.notes)
    with holding(engine, claim):
        imports.start(apply)
        imports.start(apply)
        wait_until_blocked(engine, 2)
    results = imports.results()
    assert all(r.applied for r in results), [r.model_dump() for r in results]
    with Session(engine) as s:
        names = sorted(s.get(PriceList, r.price_list_id).name for r in results)  # type: ignore[union-attr]
    first, second = names
    assert first.startswith("Import ") and len(set(names)) == 2
    # Same second: "Import … (2)"; a second later: a stamp of its own.
    assert second == f"{first} (2)" or not second.startswith(first)


def test_a_double_clicked_publish_or_archive_does_it_once(engine: Engine) -> None:
    """The second click waits for the first, then finds the list published (archived): it
    changes nothing and writes no second audit entry (before: two "publish" entries)."""
    list_id, _key = _draft(engine)

    def act(action: str) -> Any:
        with Session(engine) as s:
            call = service.publish_price_list if action == "publish" else service.archive_price_list
            return call(session=s, price_list_id=list_id, actor="b").status

    for action, status in (("publish", "published"), ("archive", "archived")):
        clicks = Background()
        claim = update(PriceList).where(col(PriceList.id) == list_id).values(notes=PriceList.notes)
        with holding(engine, claim):
            clicks.start(lambda action=action: act(action))  # type: ignore[misc]
            clicks.start(lambda action=action: act(action))  # type: ignore[misc]
            wait_until_blocked(engine, 2)
        assert clicks.results() == [status, status]
        with Session(engine) as s:
            audit = service.list_audit(session=s, price_list_id=list_id)
            assert [e.action for e in audit].count(action) == 1
