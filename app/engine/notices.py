"""Engine warnings that a page can translate.

A `Notice` is a `str` (its English text, so every caller that joins or prints warnings keeps
working) that also carries its `template` — an English sentence with %(name)s placeholders,
used as the gettext msgid — and the formatted `params`. The web layer renders
`gettext(template) % params`; the JSON API returns both the text and the pair.
"""

from __future__ import annotations


class Notice(str):
    """An English warning with the template and parameters it was made from."""

    template: str
    params: dict[str, str]

    def __new__(cls, template: str, **params: object) -> Notice:
        values = {k: str(v) for k, v in params.items()}
        obj = super().__new__(cls, template % values if values else template.replace("%%", "%"))
        obj.template = template
        obj.params = values
        return obj


def template_and_params(text: str) -> tuple[str, dict[str, str]]:
    """(template, params) for any warning; a plain string is its own template."""
    if isinstance(text, Notice):
        return text.template, dict(text.params)
    return text.replace("%", "%%"), {}


def as_pair(text: str) -> dict[str, object]:
    """{template, params} for any warning, as JSON."""
    template, params = template_and_params(text)
    return {"template": template, "params": params}
