"""Writes the catalogues from the sources and a table of translations (the translator's tool of this lane).

``python -m support.po_tool TABLE.py`` (run from tests/): extracts the template (``messages.pot``), and for each
language merges the table's translations into ``<lang>/LC_MESSAGES/messages.po``, keeping what a catalogue
already holds.  ``pybabel update``/``compile`` do the same for a translator working in the .po files.
"""
from __future__ import annotations

import runpy
import sys

from babel import Locale
from babel.messages.pofile import read_po, write_po

from dashboard.core.text import LANGUAGES, LOCALE_DIR, catalogue_path
from dashboard.core.text import extract_messages as extract

#: Plural-Forms written into each catalogue: gettext's conventional rules, which agree with CLDR's "one"
#: (Intl.PluralRules in the browser) on whole numbers — Brazilian Portuguese and French count 0 as singular.
PLURAL_FORMS = {"de": "nplurals=2; plural=(n != 1);", "fr": "nplurals=2; plural=(n > 1);",
                "it": "nplurals=2; plural=(n != 1);", "es": "nplurals=2; plural=(n != 1);",
                "pt": "nplurals=2; plural=(n > 1);"}


def main(table_path: str) -> None:
    table = runpy.run_path(table_path)["T"]
    template = extract()
    LOCALE_DIR.mkdir(parents=True, exist_ok=True)
    with (LOCALE_DIR / "messages.pot").open("wb") as f:
        write_po(f, template, omit_header=False, sort_output=True, width=120, include_lineno=False)
    for lang in LANGUAGES[1:]:
        path = catalogue_path(lang)
        old = {}
        if path.exists():
            with path.open("rb") as f:
                old = {(m.context, m.id if isinstance(m.id, str) else m.id[0]): m.string for m in read_po(f) if m.id}
        with (LOCALE_DIR / "messages.pot").open("rb") as f:
            catalog = read_po(f, locale=lang)
        catalog.locale = lang
        catalog.revision_date = catalog.creation_date
        catalog.fuzzy = False  # the header is reviewed: a fuzzy header would hide nothing, but says "unreviewed"
        catalog.project, catalog.version = "AnonSet", "0.1.0"
        catalog.copyright_holder = "the AnonSet contributors"
        catalog.last_translator = catalog.language_team = "the AnonSet contributors (see dashboard/locale/GLOSSARY.md)"
        catalog.header_comment = (f"# {Locale.parse(lang).english_name} messages of AnonSet (issue 31).\n"
                                  "# Terms: dashboard/locale/GLOSSARY.md; upkeep: dashboard/locale/README.md.")
        catalog._num_plurals, catalog._plural_expr = 2, PLURAL_FORMS[lang].split("plural=")[1].rstrip(";")
        for m in catalog:
            if not m.id:
                continue
            key = m.id if isinstance(m.id, str) else m.id[0]
            given = table.get(lang, {}).get((m.context, key) if m.context else key)
            if given is None:
                given = old.get((m.context, key))
            if given is not None:
                m.string = tuple(given) if isinstance(m.id, tuple) else given
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            write_po(f, catalog, sort_output=True, width=120, include_lineno=False)


if __name__ == "__main__":
    main(sys.argv[1])
