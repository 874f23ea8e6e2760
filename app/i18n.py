"""Language choice and translations for the web pages (Babel catalogs, gettext at run time).

Conventions
-----------
* Two languages: ``zh-TW`` (Traditional Chinese, Taiwan) and ``en``. msgids are written in
  English, so English needs no catalog: it is the msgid itself.
* The language of a request: a ``lang`` query parameter > the ``lang`` cookie (set by
  ``/set-language``) > the browser's ``Accept-Language`` > ``settings.default_language``.
* Translations are read at start-up from EVERY ``*.po`` file in
  ``app/locale/zh_Hant_TW/LC_MESSAGES/`` (compiled in memory, merged). A team that adds its
  own pages adds its own ``<area>.po`` beside ``messages.po``; nobody compiles ``.mo`` files.
* Python code translates through :func:`gettext` / :func:`ngettext` (they read the
  request's language from a context variable set by :func:`activate`). Strings defined at
  import time are marked with :func:`N_` and translated when shown.
"""

from __future__ import annotations

import gettext as _gettext
import re
from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from functools import lru_cache
from io import BytesIO
from pathlib import Path
from typing import Any, Final

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_compact_decimal
from starlette.requests import HTTPConnection

LOCALE_DIR: Final = Path(__file__).resolve().parent / "locale"
SUPPORTED: Final = ("zh-TW", "en")
LANG_COOKIE: Final = "lang"
#: Babel locale identifiers for number, date and money formatting.
BABEL_LOCALES: Final = {"zh-TW": "zh_Hant_TW", "en": "en_US"}
#: The name each language is shown under in the language switch (never translated).
LANGUAGE_NAMES: Final = {"zh-TW": "中文", "en": "English"}

_current: ContextVar[str] = ContextVar("stratagem_lang", default="en")


def normalise(value: str | None) -> str | None:
    """'zh-tw', 'zh_TW', 'zh-Hant', 'zh' → 'zh-TW'; 'en-GB' → 'en'; anything else → None."""
    if not value:
        return None
    v = value.strip().replace("_", "-").lower()
    if v.startswith("zh"):
        return "zh-TW"
    if v.startswith("en"):
        return "en"
    return None


def parse_accept_language(header: str) -> str | None:
    """The first supported language in an Accept-Language header, by quality then order."""
    choices: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")):
        piece = part.strip()
        if not piece:
            continue
        tag, _, params = piece.partition(";")
        q = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                q = float(params[2:])
            except ValueError:
                q = 0.0
        lang = normalise(tag)
        if lang and q > 0:
            choices.append((-q, i, lang))
    return min(choices)[2] if choices else None


def choose_language(conn: HTTPConnection, default: str = "zh-TW") -> str:
    """The request's language: a ``lang`` query parameter (a link sent in one language opens
    in it: ``/plan?…&lang=en``) > cookie > Accept-Language > the configured default.

    A ``lang`` given twice with different values chooses nothing (``?lang=en&lang=zh-TW``:
    a route that takes ``lang`` refuses it in the reader's own language,
    app/web/query_once.py)."""
    asked_all = {normalise(v) for v in conn.query_params.getlist(LANG_COOKIE)}
    asked = asked_all.pop() if len(asked_all) == 1 else None
    if asked:
        return asked
    cookie = normalise(conn.cookies.get(LANG_COOKIE))
    if cookie:
        return cookie
    header = parse_accept_language(conn.headers.get("accept-language", ""))
    if header:
        return header
    return normalise(default) or "zh-TW"


@lru_cache(maxsize=1)
def zh_translations() -> _gettext.GNUTranslations:
    """Every .po file under LC_MESSAGES, compiled in memory and merged (first file wins)."""
    merged: _gettext.GNUTranslations | None = None
    folder = LOCALE_DIR / "zh_Hant_TW" / "LC_MESSAGES"
    for po_path in sorted(folder.glob("*.po"), key=lambda p: (p.name != "messages.po", p.name)):
        with po_path.open("rb") as fh:
            catalog = read_po(fh, locale="zh_Hant_TW")
        buf = BytesIO()
        write_mo(buf, catalog)
        buf.seek(0)
        trans = _gettext.GNUTranslations(buf)
        if merged is None:
            merged = trans
        else:
            merged.add_fallback(trans)
    if merged is None:
        empty = BytesIO()
        from babel.messages.catalog import Catalog

        write_mo(empty, Catalog(locale="zh_Hant_TW"))
        empty.seek(0)
        merged = _gettext.GNUTranslations(empty)
    return merged


def reload() -> None:
    """Forget the compiled catalogs (tests and a developer editing a .po file)."""
    zh_translations.cache_clear()


def translations(lang: str) -> _gettext.NullTranslations:
    return zh_translations() if lang == "zh-TW" else _gettext.NullTranslations()


def activate(lang: str) -> None:
    """Make `lang` the language of the current request (a context variable)."""
    _current.set(lang if lang in SUPPORTED else "en")


def current_language() -> str:
    return _current.get()


def babel_locale(lang: str | None = None) -> str:
    return BABEL_LOCALES.get(lang or _current.get(), "en_US")


def count_words(value: float) -> str:
    """A large count in the active language's words: "2 billion" / "20億" (CLDR long compact
    forms, named up to trillions / 兆)."""
    return format_compact_decimal(
        value, format_type="long", locale=babel_locale(), fraction_digits=2
    )


def gettext(message: str) -> str:
    """Translate `message` into the current request's language."""
    return _fillable(translations(_current.get()).gettext(message))


def ngettext(singular: str, plural: str, n: int) -> str:
    return _fillable(translations(_current.get()).ngettext(singular, plural, n))


# Han characters, CJK punctuation and full-width forms: text that takes no space beside its
# neighbour of the same kind (「比自購便宜」), while a Latin word or a number beside it keeps one
# (「比 H100 便宜」, 「每月 730 小時」).
_WIDE = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_GAP_BEFORE = re.compile(rf"(?<=[{_WIDE}]) (%\((\w+)\)s)")
_GAP_AFTER = re.compile(rf"(%\((\w+)\)s) (?=[{_WIDE}])")
_IS_WIDE = re.compile(rf"[{_WIDE}]")


def close_wide_gaps(template: str, values: Mapping[str, Any]) -> str:
    """`template` without the space between a Chinese character and a placeholder whose value
    meets it with a Chinese character too.

    The translations put a space on both sides of each placeholder, as Chinese text does
    around a Latin word or a number (「每月 %(h)s 小時」 → 「每月 730 小時」); a value that is
    itself Chinese would otherwise read 「自此起，自購 比 時租 便宜」. Only the template's
    spaces are touched, never the value's own."""
    if "%(" not in template or not values:
        return template

    def meets(name: str, edge: int) -> bool:
        value = values.get(name)
        text = "" if value is None else str(value)
        return bool(text) and _IS_WIDE.match(text[edge]) is not None

    template = _GAP_BEFORE.sub(lambda m: m[1] if meets(m[2], 0) else m[0], template)
    return _GAP_AFTER.sub(lambda m: m[1] if meets(m[2], -1) else m[0], template)


class _Fillable(str):
    """A Chinese message with placeholders: filled with `%` as any string is, without the
    space between two Chinese neighbours (`close_wide_gaps`)."""

    __slots__ = ()

    def __mod__(self, values: Any) -> str:
        if isinstance(values, Mapping):
            return str.__mod__(close_wide_gaps(str(self), values), values)
        return str.__mod__(str(self), values)


def _fillable(text: str) -> str:
    return _Fillable(text) if "%(" in text and _current.get() == "zh-TW" else text


def pgettext(context: str, message: str) -> str:
    return translations(_current.get()).pgettext(context, message)


def colon() -> str:
    """What follows a label before its value: "：" in Chinese (full width, no space), ": " in
    English — 「統一編號：22099131」, "Tax ID: 22099131"."""
    return "：" if _current.get() == "zh-TW" else ": "


def comma() -> str:
    """Between two parts of one phrase: "，" in Chinese (full width, no space), ", " in
    English — 「NT$33,333 × 數量 3，一次性」, "NT$33,333 × qty 3, one-off"."""
    return "，" if _current.get() == "zh-TW" else ", "


def gap() -> str:
    """Between two sentences, or a sentence and the list it introduces: nothing in Chinese,
    whose full-width 。 and ： carry their own space (「名稱相同：Acme。」), one space in
    English ("same name: Acme. If it is…")."""
    return "" if _current.get() == "zh-TW" else " "


def listing(items: Iterable[str]) -> str:
    """Items of one list in a sentence: "1、3、6" in Chinese (the enumeration comma, no
    space), "1, 3, 6" in English."""
    return ("、" if _current.get() == "zh-TW" else ", ").join(items)


def paren(text: str) -> str:
    """`text` in parentheses after what precedes it: "（第 1 版）" in Chinese (full width, no
    space before), " (version 1)" in English."""
    return f"（{text}）" if _current.get() == "zh-TW" else f" ({text})"


def N_(message: str) -> str:
    """Mark a string for extraction without translating it now (translate when shown)."""
    return message


_ = gettext
