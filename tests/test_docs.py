"""Docs are tests too: the README states every setting and the two set-up commands."""

from __future__ import annotations

from pathlib import Path

from app.settings import Settings

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_every_setting_is_in_the_readme() -> None:
    for name, field in Settings.model_fields.items():
        assert field.alias and f"`{field.alias}`" in README, f"{name} ({field.alias}) missing"


def test_first_section_gives_exactly_the_two_commands() -> None:
    first = README.split("\n## ", 2)[1]
    blocks = [b.strip() for b in first.split("```")[1::2]]
    assert blocks == ["make run", "make test"]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert "make test" in ci
