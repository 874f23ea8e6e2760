"""A stacked table's labels (`data-label`, drawn by CSS on a phone) wrap before their closing
parenthetical, never inside it: "Total for the period (excl. / tax)" on the share page at
390 px (QA)."""

from __future__ import annotations

from app.web.templating import paren_kept, templates

NBSP = "\u00a0"


def test_the_closing_parenthetical_keeps_its_spaces() -> None:
    assert (
        paren_kept("Total for the period (excl. tax)") == f"Total for the period (excl.{NBSP}tax)"
    )
    assert paren_kept("Up front (excl. tax)") == f"Up front (excl.{NBSP}tax)"
    assert paren_kept("期間總額（未稅）") == "期間總額（未稅）"  # no space to keep
    assert paren_kept("Option") == "Option"


def test_every_stacked_label_with_a_parenthetical_keeps_it_whole() -> None:
    # Each template that stacks a table on a phone passes its parenthesised labels through it.
    loader = templates.env.loader
    assert loader is not None
    for name in ("_costs.html", "_tier_table.html", "sharing/shared.html"):
        source, _, _ = loader.get_source(templates.env, name)
        labels = [part.split('"')[0] for part in source.split('data-label="{{ _("')[1:]]
        with_paren = [label for label in labels if "(" in label]
        assert with_paren, name
        for label in with_paren:
            assert f'data-label="{{{{ _("{label}")|paren_kept }}}}"' in source, (name, label)
