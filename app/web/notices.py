"""Engine warnings on pages, in the reader's language.

The engine returns each warning as a template (English, %(name)s placeholders — the gettext
msgid) and its formatted values (`app.engine.notices`); the translations live in
`app/locale/zh_Hant_TW/LC_MESSAGES/engine.po`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup, escape

from app import i18n
from app.engine.notices import TERM_SUFFIX, Notice


def notice_text(notice: Any) -> Markup:
    """The warning in the active language; marked lang="en" when no translation exists."""
    template = notice["template"] if isinstance(notice, Mapping) else notice.template
    params = notice["params"] if isinstance(notice, Mapping) else notice.params
    translated = i18n.gettext(template)
    if params:
        params = {k: i18n.gettext(v) if k.endswith(TERM_SUFFIX) else v for k, v in params.items()}
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
