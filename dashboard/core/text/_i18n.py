"""The visitor's language: gettext catalogues (Babel), one current language per request, never per process.

The catalogues are ``dashboard/locale/<lang>/LC_MESSAGES/messages.po`` (template ``messages.pot``), managed with
Babel (``pybabel extract -F babel.cfg``, see ``dashboard/locale/README.md``).  They are compiled on load, in
memory, by Babel's own ``write_mo``: the ``.po`` is the one file a translator edits and git holds, so no
compiled ``.mo`` can go stale beside it.

The current language is a :class:`contextvars.ContextVar` (default English): the server sets it for each
request (:mod:`dashboard.server.language`), so one worker answers a German and a French request at the same
time; the CLI never sets it and stays English.
"""
from __future__ import annotations

import contextlib
import gettext as _gettext
import io
import threading
from contextvars import ContextVar
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from babel import Locale, UnknownLocaleError
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

#: The languages AnonSet speaks, English first (the source language and the fallback).
LANGUAGES = ("en", "de", "fr", "it", "es", "pt")
DEFAULT_LANGUAGE = "en"
#: Each language in its own words (the switch shows these).
LANGUAGE_NAMES = {"en": "English", "de": "Deutsch", "fr": "Français", "it": "Italiano", "es": "Español",
                  "pt": "Português"}
#: Where the catalogues live.
LOCALE_DIR = Path(__file__).resolve().parents[2] / "locale"
DOMAIN = "messages"

_CURRENT: ContextVar[str] = ContextVar("anonset_language", default=DEFAULT_LANGUAGE)
_CATALOGUES: dict[str, _gettext.NullTranslations] = {}
_LOCK = threading.Lock()


def known_language(lang) -> str | None:
    """``lang`` when AnonSet speaks it ("DE", "de-AT" → "de"), else None (an unknown language is English)."""
    if not isinstance(lang, str) or not 0 < len(lang) <= 35:
        return None
    base = lang.strip().replace("_", "-").split("-", 1)[0].lower()
    return base if base in LANGUAGES else None


def negotiate(preferred) -> str:
    """The first of ``preferred`` (an Accept-Language's languages, best first) AnonSet speaks, else English.

    Babel's ``Locale.negotiate`` matches "de-CH" to "de" and "pt-BR" to "pt"; anything it cannot parse is skipped.
    """
    wanted = [p for p in (preferred or ()) if isinstance(p, str) and 0 < len(p) <= 35 and p != "*"]
    try:
        found = Locale.negotiate(wanted, list(LANGUAGES), sep="-")
    except (ValueError, UnknownLocaleError, TypeError):
        found = None
    return str(found.language) if found is not None and found.language in LANGUAGES else DEFAULT_LANGUAGE


def current_language() -> str:
    """The language of the request being answered (English outside a request: the CLI, the build)."""
    return _CURRENT.get()


def set_language(lang) -> object:
    """Make ``lang`` (English when unknown) the current language; returns the token :func:`reset_language` takes."""
    return _CURRENT.set(known_language(lang) or DEFAULT_LANGUAGE)


def reset_language(token) -> None:
    _CURRENT.reset(token)


@contextlib.contextmanager
def language(lang):
    """``with language("de"): …`` — German inside, the previous language after (tests, the static export)."""
    token = set_language(lang)
    try:
        yield current_language()
    finally:
        _CURRENT.reset(token)


def catalogue_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def translations(lang: str) -> _gettext.NullTranslations:
    """The compiled catalogue of ``lang`` (English: the msgids themselves), compiled once per process."""
    if lang == DEFAULT_LANGUAGE or lang not in LANGUAGES:
        return _gettext.NullTranslations()
    found = _CATALOGUES.get(lang)
    if found is None:
        with _LOCK:
            found = _CATALOGUES.get(lang)
            if found is None:
                with catalogue_path(lang).open("rb") as f:
                    catalog = read_po(f, locale=lang)
                buf = io.BytesIO()
                write_mo(buf, catalog, use_fuzzy=False)  # a fuzzy entry is not a translation: English it stays
                buf.seek(0)
                found = _CATALOGUES[lang] = _gettext.GNUTranslations(buf)
    return found


def gettext(message: str) -> str:
    """``message`` in the current language."""
    return translations(current_language()).gettext(message)


def translate_marked(message: str) -> str:
    """A message marked where it is written (:func:`N_`), translated where a run-time value holds it.

    A name of its own, not ``gettext``: the extractor reads calls of ``gettext``/``_``, and Babel 2.18 took a
    subscript's key inside one (``gettext(page["name"])``) for a message; run-time lookups go through here.
    """
    return gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n`` in the current language (its own plural rule)."""
    return translations(current_language()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, where ``context`` tells two meanings of one English word apart."""
    return translations(current_language()).pgettext(context, message)


def N_(message: str) -> str:  # noqa: N802 - gettext's name for "mark for extraction, translate later"
    """Marks a constant for extraction; it is translated where it is used (:func:`gettext`)."""
    return message


def plural_index(n: int, lang: str | None = None) -> int:
    """Which plural form ``n`` takes (0: singular) in ``lang``: the catalogue's Plural-Forms rule."""
    lang = lang or current_language()
    rule = getattr(translations(lang), "plural", None)  # GNUTranslations: the Plural-Forms expression
    return int(rule(int(n))) if rule is not None else int(int(n) != 1)


def client_catalogue(msgids) -> dict:
    """The translations of ``msgids`` in the current language, for the browser (plurals as [singular, plural]);
    none in English, where the browser writes the msgids themselves."""
    if current_language() == DEFAULT_LANGUAGE:
        return {}
    t = translations(current_language())
    out = {}
    for m in msgids:
        if isinstance(m, tuple):
            out[m[0]] = [t.ngettext(m[0], m[1], 1), t.ngettext(m[0], m[1], 2)]
        else:
            out[m] = t.gettext(m)
    return out


# --------------------------------------------------------------------------- pages, links and the switch

#: The pages whose every word is in the catalogues: only these are shown in another language.  Any other page
#: is English, shell included, whatever was asked (never half and half); its links still carry the language
#: asked, so the next translated page speaks it again.  One source of truth for the server, the shell's links,
#: the switch and the tests.
TRANSLATED_PATHS: tuple[str, ...] = ("/", "/explore", "/explore/buckets", "/explore/world", "/about", "/scaling",
                                     "/attack", "/anonland", "/dataset", "/real-people")

#: The language the visitor asked for (``?lang=``, else Accept-Language), carried in every internal link;
#: None: nothing to carry (English asked, and the browser asks for English anyway).
_CARRIED: ContextVar[str | None] = ContextVar("anonset_carried_language", default=None)


def page_is_translated(path) -> bool:
    """Whether the page at ``path`` ("/explore", "/explore/") is offered in other languages than English."""
    p = "/" + str(path or "/").strip("/")
    return p in TRANSLATED_PATHS


def language_for_page(path, asked) -> str:
    """The language a page is shown in: the one asked when the page is translated, else English."""
    lang = known_language(asked) or DEFAULT_LANGUAGE
    return lang if page_is_translated(path) else DEFAULT_LANGUAGE


def set_carried_language(lang) -> object:
    """The language internal links carry (None: none); returns a token for :func:`reset_carried_language`."""
    return _CARRIED.set(known_language(lang))


def reset_carried_language(token) -> None:
    _CARRIED.reset(token)


def carried_language() -> str | None:
    return _CARRIED.get()


def with_language(href: str, lang: str | None = None) -> str:
    """An internal link carrying the visitor's language: ``/explore?country=DE`` → ``…&lang=de``
    (unchanged when there is no language to carry; a link's own ``lang=`` is replaced)."""

    lang = known_language(lang) if lang else carried_language()
    if not lang:
        return href
    parts = urlsplit(href)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "lang"] + [("lang", lang)]
    return urlunsplit(parts._replace(query=urlencode(query)))
