"""CI fails when a catalogue misses a string (issue 31): Babel extracts every marked message from the sources
(``babel.cfg``: the dashboard's Python and the page's JavaScript) and each language's catalogue must translate
it — no missing, empty or fuzzy entry — and keep every ``{placeholder}`` the English has."""
from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from dashboard.core import text

FIELD = re.compile(r"\{(\w+)\}")


@pytest.fixture(scope="module")
def template():
    return text.extract_messages()


def test_every_marked_string_is_translated_in_every_language(template):
    assert len(template) > 40  # the extraction found the sources
    found = [p for lang in text.LANGUAGES[1:] for p in text.catalogue_problems(lang, template)]
    assert not found, "\n".join(found[:40])


def test_translations_keep_the_placeholders():
    for lang in text.LANGUAGES[1:]:
        with text.catalogue_path(lang).open("rb") as f:
            for m in read_po(f, locale=lang):
                if not m.id:
                    continue
                ids = m.id if isinstance(m.id, tuple) else (m.id,)
                strings = m.string if isinstance(m.string, tuple) else (m.string,)
                want = set(FIELD.findall(ids[-1]))
                for s in strings:
                    assert set(FIELD.findall(s)) == want, (lang, m.id, s)


def test_the_page_scripts_messages_are_extracted():
    """The JavaScript's ``_("…")`` calls are found (shipped to the browser in the page config)."""
    from support import ROOT

    found = text.script_messages(ROOT / "assets" / "anonset_engine.js")
    assert "Auxiliary fractions are multiplied: they are assumed independent of each other." in found
