"""Engine warnings on pages, in the reader's language.

The engine returns each warning as a template (English, %(name)s placeholders — the gettext
msgid) and its formatted values (`app.engine.notices`); the translations live in
`app/locale/zh_Hant_TW/LC_MESSAGES/engine.po`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from babel.numbers import format_compact_decimal
from markupsafe import Markup, escape

from app import i18n
from app.engine.notices import TERM_SUFFIX, Notice

# How the engine writes a large count in a sentence (`formatting.fmt`: "1e+08", "1.4e+12").
_SCIENTIFIC = re.compile(r"[-+]?\d+(?:\.\d+)?e[-+]\d+")


def _reader_number(value: str) -> str:
    """A count the engine wrote as "1e+08" in the reader's words ("100 million", "1億");
    anything else as it is."""
    # CLDR names counts up to trillions (兆); a FLOP count (4.2e+22) stays scientific.
    if not _SCIENTIFIC.fullmatch(value) or not 1e6 <= abs(float(value)) < 1e15:
        return value
    return format_compact_decimal(float(value), format_type="long", locale=i18n.babel_locale(),
                                  fraction_digits=2)  # fmt: skip


def notice_text(notice: Any) -> Markup:
    """The warning in the active language; marked lang="en" when no translation exists."""
    template = notice["template"] if isinstance(notice, Mapping) else notice.template
    params = notice["params"] if isinstance(notice, Mapping) else notice.params
    translated = i18n.gettext(template)
    if params:
        params = {
            k: i18n.gettext(v) if k.endswith(TERM_SUFFIX) else _reader_number(v)
            for k, v in params.items()
        }
    text = translated % params if params else translated.replace("%%", "%")
    if translated == template and i18n.current_language() != "en":
        return Markup('<span lang="en">%s</span>') % escape(text)
    return Markup(escape(text))


def input_error_text(error: Exception) -> Markup:
    """An engine `InputError` for a form: its Notice in the active language, else its text."""
    message = error.args[0] if error.args else ""
    if isinstance(message, Notice):
        return notice_text(message)
    return Markup(escape(str(error)))
