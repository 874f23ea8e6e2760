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


def one_or_many(count: object, one: str, many: str) -> str:
    """The template whose nouns agree with `count` as the notice writes it: `one` where it is
    exactly 1 ("Rents 1 GPU to cover 0.3."), `many` for any other count ("Rents 4 GPUs to
    cover 3."), never "GPU(s)". Both are whole msgids of engine.po: a page translates the
    sentence, not a noun inside it (tests/web/test_engine_notices.py reads both)."""
    return one if str(count) == "1" else many


#: Parameters whose name ends so are phrases from `TERMS`, which a page translates like the
#: template itself (a task or a recomputation mode reads "完整微調", never "full_finetune").
TERM_SUFFIX = "_term"

#: Parameters whose name ends so are request field names ("gpu_count", "tp"): the API says
#: them as they are (the names it takes), while a page says the label its form shows for that
#: field, in its language (`app.web.notices.input_error_text`): "GPU 數量 8 必須是…", never
#: "gpu_count 8" on a page that has no field called gpu_count (QA).
FIELD_SUFFIX = "_field"

#: The engine's vocabulary that a notice names by value: every phrase has a zh-TW translation
#: (tests/web/test_engine_notices.py), so no enum value reaches a reader.
TERMS: dict[str, str] = {
    "pretrain": "pre-training",
    "full_finetune": "full fine-tuning",
    "lora": "LoRA fine-tuning",
    "qlora": "QLoRA fine-tuning",
    "inference": "serving",
    "image": "image generation",
    "none": "no activation recomputation",
    "selective": "selective activation recomputation",
    "full": "full activation recomputation",
}


def term(value: str) -> str:
    """The readable phrase of an engine value (a task, a recomputation mode)."""
    return TERMS.get(value, value)


class Sentences(str):
    """Sentences joined by spaces (one English string), each kept apart as a `Notice` (or
    plain text) so that a page translates them one by one: a cost option's note."""

    parts: tuple[str, ...]

    def __new__(cls, *parts: str) -> Sentences:
        flat: list[str] = []
        for p in parts:
            if isinstance(p, Sentences):
                flat.extend(p.parts)
            elif p:
                flat.append(p)
        obj = super().__new__(cls, " ".join(flat))
        obj.parts = tuple(flat)
        return obj


def sentence_pairs(text: str) -> list[dict[str, object]]:
    """{template, params} per sentence of a note (one plain string is one sentence)."""
    parts = text.parts if isinstance(text, Sentences) else ((text,) if text else ())
    return [as_pair(p) for p in parts]


def template_and_params(text: str) -> tuple[str, dict[str, str]]:
    """(template, params) for any warning; a plain string is its own template."""
    if isinstance(text, Notice):
        return text.template, dict(text.params)
    return text.replace("%", "%%"), {}


def as_pair(text: str) -> dict[str, object]:
    """{template, params} for any warning, as JSON."""
    template, params = template_and_params(text)
    return {"template": template, "params": params}
