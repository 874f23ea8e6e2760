"""Engine warnings on pages, in the reader's language.

The engine returns each warning as a template (English, %(name)s placeholders — the gettext
msgid) and its formatted values (`app.engine.notices`); the translations live in
`app/locale/zh_Hant_TW/LC_MESSAGES/engine.po`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

from babel.messages.pofile import read_po
from markupsafe import Markup, escape

from app import i18n
from app.engine.gpus import UNKNOWN_GPU, UNKNOWN_GPU_CLOSE
from app.engine.notices import FIELD_SUFFIX, TERM_SUFFIX, Notice
from app.i18n import N_

if TYPE_CHECKING:
    from app.engine.estimate import InputError

# Refusals of a value that is none of a fixed list, which the API names by id ("unknown GPU
# 'x'. Allowed: a100-pcie-80gb, …"). A page offers that list by name in a select, so only a
# hand-edited form sends another value; it is told to choose one of the listed options, in
# the page's words, rather than shown the API's ids (QA).
CHOICE_TEMPLATES: Final = frozenset({UNKNOWN_GPU, UNKNOWN_GPU_CLOSE})
CHOOSE_LISTED: Final = N_("Choose one of the listed options.")

# How the engine writes a large count in a sentence (`formatting.fmt`: "1e+08", "1.4e+12").
_SCIENTIFIC = re.compile(r"[-+]?\d+(?:\.\d+)?e[-+]\d+")


def _reader_number(value: str) -> str:
    """A count the engine wrote as "1e+08" in the reader's words ("100 million", "1億");
    anything else as it is."""
    # CLDR names counts up to trillions (兆); a FLOP count (4.2e+22) stays scientific.
    if not _SCIENTIFIC.fullmatch(value) or not 1e6 <= abs(float(value)) < 1e15:
        return value
    return i18n.count_words(float(value))


def notice_text(notice: Any, labels: Mapping[str, str] | None = None) -> Markup:
    """The warning in the active language; marked lang="en" when no translation exists.

    `labels`: the page's form labels (msgids) by request field: a `FIELD_SUFFIX` parameter
    (a field the notice names, "gpu_count") is said as its label there ("GPU 數量"), as the
    field's name where the page has no such field. Plain text (a saved plan's result read
    back from JSON holds the English only) is shown as it is."""
    if isinstance(notice, str) and not isinstance(notice, Notice):
        found = _read_back(notice) if i18n.current_language() != "en" else None
        if found is None:
            return Markup(escape(notice))
        notice = found
    template = notice["template"] if isinstance(notice, Mapping) else notice.template
    params = notice["params"] if isinstance(notice, Mapping) else notice.params
    translated = i18n.gettext(template)
    if params:
        params = {k: _said(k, v, labels) for k, v in params.items()}
    text = translated % params if params else translated.replace("%%", "%")
    if translated == template and i18n.current_language() != "en":
        return Markup('<span lang="en">%s</span>') % escape(text)
    return Markup(escape(text))


def _said(name: str, value: str, labels: Mapping[str, str] | None) -> str:
    """A notice's parameter in the page's words: a term or a field label translated, a
    large count in words."""
    if name.endswith(TERM_SUFFIX):
        return i18n.gettext(value)
    if name.endswith(FIELD_SUFFIX):
        label = (labels or {}).get(value)
        return i18n.gettext(label) if label else value
    return _reader_number(value)


@lru_cache(maxsize=1)
def _engine_templates() -> tuple[tuple[re.Pattern[str], str], ...]:
    """The engine's translated templates as patterns that read a notice back from its English.

    A saved plan's result holds a notice as its English text only (JSON keeps no template):
    "NVLink/NVSwitch 900 GB/s per GPU + 10GbE to the warm tier" stayed English on a 中文 plan
    page (QA). Templates without parameters match as they are; a repeated name must match
    the same text each time."""
    with (i18n.LOCALE_DIR / "zh_Hant_TW" / "LC_MESSAGES" / "engine.po").open("rb") as fh:
        catalog = read_po(fh, locale="zh_Hant_TW")
    out = []
    for message in catalog:
        if not isinstance(message.id, str) or not message.id or not message.string:
            continue
        pattern, seen = [], set()
        for i, part in enumerate(re.split(r"%\((\w+)\)s", message.id)):
            if i % 2 == 0:
                pattern.append(re.escape(part.replace("%%", "%")))
            else:
                pattern.append(f"(?P={part})" if part in seen else f"(?P<{part}>.+?)")
                seen.add(part)
        out.append((re.compile("".join(pattern), re.S), message.id))
    return tuple(out)


def _read_back(text: str) -> dict[str, Any] | None:
    """{template, params} of a plain English notice the engine wrote, or None."""
    for pattern, template in _engine_templates():
        match = pattern.fullmatch(text)
        if match is not None:
            return {"template": template, "params": match.groupdict()}
    return None


#: `infra.checkpoint_kind` values as a reader says them.
CHECKPOINT_KINDS: dict[str, str] = {
    "resumable": N_("resumable"),
    "adapter": N_("adapter only"),
    "weights-only": N_("weights only"),
}


def input_error_text(error: InputError, labels: Mapping[str, str] | None = None) -> Markup:
    """An engine `InputError` for a form: its Notice in the active language, the fields it
    names said by their `labels` on the form (msgids by request field), else its text
    (`CHOICE_TEMPLATES` said as `CHOOSE_LISTED`)."""
    if isinstance(error.message, Notice) and error.message.template in CHOICE_TEMPLATES:
        return Markup(escape(i18n.gettext(CHOOSE_LISTED)))
    if isinstance(error.message, Notice):
        return notice_text(error.message, labels)
    return Markup(escape(error.message))


def form_message(message_id: str, params: Mapping[str, Any] | None = None) -> str:
    """A refusal's message id and parameters as a form says it, in the active language:
    `CHOICE_TEMPLATES` as `CHOOSE_LISTED`, anything else translated and filled in."""
    if message_id in CHOICE_TEMPLATES:
        return i18n.gettext(CHOOSE_LISTED)
    text = i18n.gettext(message_id)
    return text % params if params else text
