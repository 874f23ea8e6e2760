"""Free text people type: one check for the characters no name, title or note should hold.

Refused (the first one found is named in the message, as ``U+202E``, so the writer can find
an invisible character):

* C0 controls (NUL, BEL, ESC, TAB …), DEL and the C1 controls — they end strings in C
  code, ring terminals, start ANSI colour codes in logs and the CSV export, and draw nothing
  on a page or in the PDF (QA saved a customer name holding a tab, shown as a space on the
  page and kept in every export). Line breaks (LF, CR) and tabs are allowed only in
  multi-line text (notes, an address, a decline reason: a tab indents a pasted list, and
  notes saved with one stay editable), never in a one-line name or title;
* the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069, the
  "Trojan Source" set): they reorder what is shown, so a signature or a customer name could
  read differently from what was stored. The plain marks LRM/RLM (U+200E/U+200F) stay
  allowed: they only nudge punctuation, and names in right-to-left scripts need them;
* in one-line text, the Unicode line and paragraph separators (U+2028, U+2029).

Use `check_line` / `check_text` in services (they raise `app.errors.Invalid` naming the
field, translated by the one error path), `problem` where a form collects its errors in a
dict (the message in the page's language, or ''), and the `PlainLine` / `PlainText`
annotated types (or `plain_line` / `plain_text` in a validator) in pydantic models: a 422
naming the field.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Any, Final

from pydantic import AfterValidator

from app import errors
from app.i18n import N_, gettext

#: The bidirectional formatting characters that reorder text (Unicode UAX #9, table 4).
BIDI_CONTROLS: Final = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: Line breaks other than "\n" / "\r" that a one-line field must not hold.
LINE_SEPARATORS: Final = frozenset("\u2028\u2029")
#: A UTF-16 surrogate: in a decoded `str` it is always a lone one (JSON may spell one as
#: `"\\ud800"`; a valid pair decodes to one character), and no UTF-8 document can carry it.
SURROGATE: Final = re.compile("[\ud800-\udfff]")
MESSAGE: Final = N_("must not contain control or text-direction characters (found %(char)s)")
#: The control character people paste most (from a spreadsheet), said by name.
TAB_MESSAGE: Final = N_("must not contain a tab (found %(char)s): type a space instead")


def bad_character(value: str, *, multiline: bool = False) -> str | None:
    """The first character `value` must not hold (see the module docstring), else None."""
    for ch in value:
        if multiline and ch in "\t\r\n":
            continue
        if ch in BIDI_CONTROLS or (not multiline and ch in LINE_SEPARATORS):
            return ch
        if unicodedata.category(ch) == "Cc":
            return ch
    return None


def trim(value: str) -> str:
    """`value` without the white space and the invisible format characters at its ends (a
    zero-width space, a byte-order mark, a word joiner: `_INVISIBLE`): QA saved a
    customer named "\u200b", which looks empty everywhere it is shown, while "   " was
    refused as empty. Inside a name they stay (some scripts need a joiner)."""
    start, end = 0, len(value)
    while start < end and _invisible(value[start]):
        start += 1
    while end > start and _invisible(value[end - 1]):
        end -= 1
    return value[start:end]


#: Format characters that draw nothing and mean nothing at a name's ends: zero-width space,
#: non-joiner and joiner, word joiner, the invisible math operators, byte-order mark, soft
#: hyphen. Not the direction controls (refused by `bad_character`, never silently removed)
#: nor LRM/RLM (right-to-left names need them).
_INVISIBLE: Final = frozenset("\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad")


def _invisible(ch: str) -> bool:
    return ch.isspace() or ch in _INVISIBLE


def code_point(ch: str) -> str:
    """'\\u202e' → 'U+202E'."""
    return f"U+{ord(ch):04X}"


def message_for(ch: str) -> str:
    """The msgid that refuses the character `ch` (a tab by name)."""
    return TAB_MESSAGE if ch == "\t" else MESSAGE


def problem(value: str, *, multiline: bool = False) -> str:
    """The message for `value` in the active language ('' when it is fine), for forms that
    collect their errors in a dict."""
    ch = bad_character(value, multiline=multiline)
    return gettext(message_for(ch)) % {"char": code_point(ch)} if ch is not None else ""


def check(value: str, *, field: str, multiline: bool = False) -> str:
    """`value` unchanged, or `errors.Invalid` naming `field` and the character (translated)."""
    ch = bad_character(value, multiline=multiline)
    if ch is not None:
        raise errors.Invalid(message_for(ch), field=field, char=code_point(ch))
    return value


def check_line(value: str, *, field: str) -> str:
    """A one-line value (a name, a title): no control, direction or line-break character."""
    return check(value, field=field)


def check_text(value: str, *, field: str) -> str:
    """A multi-line value (notes, a reason): line breaks and tabs allowed."""
    return check(value, field=field, multiline=True)


def _plain(value: str, multiline: bool) -> str:
    ch = bad_character(value, multiline=multiline)
    if ch is not None:
        # pydantic reports a ValueError as a 422 at the field's location, in the request's
        # language like every `errors.Invalid`.
        raise ValueError(gettext(message_for(ch)) % {"char": code_point(ch)})
    return value


def plain_line(value: str) -> str:
    """Validator of `PlainLine` (also usable in `AfterValidator` chains)."""
    return _plain(value, False)


def plain_text(value: str) -> str:
    """Validator of `PlainText`."""
    return _plain(value, True)


#: A one-line string for pydantic models: refused with a 422 naming the field.
PlainLine = Annotated[str, AfterValidator(plain_line)]
#: A multi-line string for pydantic models (line breaks and tabs allowed).
PlainText = Annotated[str, AfterValidator(plain_text)]


def first_surrogate(
    value: Any, loc: tuple[str | int, ...] = ()
) -> tuple[tuple[str | int, ...], str] | None:
    """(location, string) of the first string in a decoded JSON value that holds a lone
    surrogate (keys included), depth first, a dict's keys before its values; None when there
    is none."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [(loc, value)]
    while stack:
        here, v = stack.pop()
        if isinstance(v, str):
            if SURROGATE.search(v):
                return here, v
        elif isinstance(v, dict):
            items = list(v.items())
            for k, child in reversed(items):
                stack.append(((*here, k), child))
            for k, _child in items:
                if SURROGATE.search(k):
                    return (*here, k), k
        elif isinstance(v, list):
            stack.extend(((*here, i), child) for i, child in reversed(list(enumerate(v))))
    return None


#: One dot-separated part of an address: no empty part (``a@b..com``, ``.a@b.com``), none
#: of the characters that split or quote an address in mail headers and CSV (``<>"',;``).
_EMAIL_PART: Final = r"[^@\s<>\"',;.]+"
_EMAIL: Final = re.compile(
    rf"{_EMAIL_PART}(?:\.{_EMAIL_PART})*@"
    # domain labels: letters (any script, for IDN), digits, inner hyphens; a top-level
    # label of two or more letters
    r"(?:[^\W_](?:(?:[^\W_]|-)*[^\W_])?\.)+[^\W\d_]{2,}"
)


def is_email_address(value: str) -> bool:
    """Whether `value` reads as one deliverable address (RFC 5321's shape, kept simple).

    Refused: an empty local part or domain label (``a@b..com`` was accepted, QA A10), a
    domain label that starts or ends with a hyphen, a one-letter or numeric top-level
    domain, more than 254 characters (RFC 5321 §4.5.3.1.3), and any control character (a
    NUL ends strings in the mail tools an address is copied into). Whether the mailbox
    exists is for the mail server to say.
    """
    return (
        len(value) <= 254
        and _EMAIL.fullmatch(value) is not None
        and not any(unicodedata.category(ch) == "Cc" for ch in value)
    )
