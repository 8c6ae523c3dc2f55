"""The message catalogues' upkeep: extract every marked string (Babel, ``babel.cfg``), and say what a
catalogue lacks.  ``tests/core/text/test_catalogues.py`` fails on a missing, untranslated or fuzzy message; a
translator updates the catalogues with ``pybabel`` (``dashboard/locale/README.md``).
"""
from __future__ import annotations

import functools
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir, extract_from_file
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from ._i18n import catalogue_path

ROOT = Path(__file__).resolve().parents[3]
MAPPING = ROOT / "babel.cfg"
#: gettext's keywords as Babel knows them (``_``, ``N_``, ``ngettext``, ``pgettext`` …), and ``Nn_``.
KEYWORDS = {**DEFAULT_KEYWORDS, "Nn_": (1, 2)}  # Nn_: a data-set note's singular/plural pair (census_loaders.notes)


def extract_messages() -> Catalog:
    """Every string marked for translation in the sources ``babel.cfg`` names, as a template catalogue."""
    with MAPPING.open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f)
    template = Catalog(project="AnonSet", msgid_bugs_address=None)
    roots = {pattern.split("/", 1)[0] for pattern, _method in method_map}  # dashboard, assets: not .venv, data_cache

    def wanted(dirpath: str) -> bool:
        rel = Path(dirpath).resolve().relative_to(ROOT)
        return rel == Path(".") or rel.parts[0] in roots

    for filename, lineno, message, comments, context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=KEYWORDS, strip_comment_tags=True,
            directory_filter=wanted):
        template.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return template


@functools.lru_cache(maxsize=8)
def script_messages(*paths: Path) -> list:
    """The msgids a JavaScript file writes (``_("…")``, ``ngettext("…", "…", n)``): singular strings, and
    (singular, plural) pairs.  Read once per process (the files do not change while it runs): shared, read-only."""
    out = []
    for path in paths:
        for _line, message, _comments, _context in extract_from_file("javascript", str(path), keywords=KEYWORDS):
            out.append(tuple(message) if isinstance(message, (tuple, list)) else message)
    return list(dict.fromkeys(out))


def catalogue_problems(lang: str, template: Catalog | None = None) -> list[str]:
    """What the ``lang`` catalogue lacks against the sources: missing, untranslated or fuzzy messages."""
    template = template or extract_messages()
    with catalogue_path(lang).open("rb") as f:
        catalog = read_po(f, locale=lang)
    out = []
    for message in template:
        if not message.id:
            continue
        found = catalog.get(message.id, context=message.context)
        if found is None:
            out.append(f"{lang}: missing {message.id!r}")
        elif found.fuzzy:
            out.append(f"{lang}: fuzzy {message.id!r}")
        elif not all(found.string) if isinstance(found.string, (tuple, list)) else not found.string:
            out.append(f"{lang}: untranslated {message.id!r}")
    return out


__all__ = ["catalogue_problems", "extract_messages", "script_messages"]
