"""AnonSet's text in every language, both faces (issue 31): ``tests/js/golden_i18n.json`` holds, per language,
the text data the page ships (``client_text()``) and what the sentences and numbers must read; pytest checks the
Python face here, node the browser's (``tests/js/golden_i18n.test.js``: the engine fed with that language's data,
Intl.NumberFormat and Intl.PluralRules against Babel and the catalogue's Plural-Forms).

``python tests/core/text/test_i18n_golden.py`` rewrites the table (only when a text is meant to change).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from dashboard.core import text  # noqa: E402

GOLDEN = ROOT / "tests" / "js" / "golden_i18n.json"
#: The page's scripts whose messages the page config ships (dashboard/views/personal.py PAGE_SCRIPTS).
SCRIPTS = (ROOT / "assets" / "personal_page.js", ROOT / "assets" / "anonset_engine.js")
#: Numbers that reach every rule: grouping (4 digits: Spanish and Italian group them too, as Babel does), decimals,
#: the percent floor and ceiling, a billion; sentences at each threshold.
COUNTS = (0.0, 1.0, 999.0, 1234.0, 12345.6, 1234567.0, 987654321.0)
SHARES = (0.0, 1e-9, 0.00041234, 0.004, 0.418, 0.9995, 1.0)
BANDS = (((170.0, 175.0), "height"), ((62.5, 65.0), "weight"), (None, "height"))
SHORT = (0.5, 20.0, 5000.0, 2.5e6, 8e9)
OTHERS = (0.3, 1.4, 2.0, 4567.3, 1234567.0)
VERDICTS = ((0.5, 0.0, 0.9), (3.0, 2.0, 0.33), (12.0, 11.0, 0.1), (60.0, 59.0, 0.02), (5000.0, 4999.0, 0.0002))
PLURAL_NS = (*range(0, 25), 100, 101, 1000, 1000000)


def build_cases() -> list[dict]:
    cases = [{"fn": "format_count", "args": [x]} for x in COUNTS]
    cases += [{"fn": "format_percent", "args": [x]} for x in SHARES]
    cases += [{"fn": "format_people", "args": [x]} for x in (0.2, 1234.0)]
    cases += [{"fn": "format_band", "args": [list(b) if b else None, k]} for b, k in BANDS]
    cases += [{"fn": "short_number", "args": [v]} for v in SHORT]
    cases += [{"fn": "log_ticks", "args": [1.0, 2e9]}]
    cases += [{"fn": "own_headline", "args": [x]} for x in OTHERS]
    cases += [{"fn": "verdict", "args": list(v)} for v in VERDICTS]
    cases += [{"fn": "first_question", "args": [b]} for b in (False, True)]
    cases += [{"fn": "adult_height_refusal", "args": [60.5, 100, 250, "cm"]}]
    cases += [{"fn": "plural_index", "args": [n]} for n in PLURAL_NS]
    return cases


def python_face(case: dict):
    fn, args = case["fn"], case["args"]
    if fn == "format_band":
        return text.format_band(tuple(args[0]) if args[0] else None, args[1])
    if fn == "log_ticks":
        return text.log_ticks(*args)[1]
    return getattr(text, fn)(*args)


def table() -> dict:
    out = {}
    for lang in text.LANGUAGES:
        with text.language(lang):
            cases = build_cases()
            for case in cases:
                case["expected"] = python_face(case)
            out[lang] = {"text": text.client_text(text.script_messages(*SCRIPTS)), "cases": cases}
    return out


def write() -> None:
    GOLDEN.write_text(json.dumps({
        "about": "AnonSet's text in every language, input -> expected: read by tests/core/text/test_i18n_golden.py "
                 "(dashboard.core.text) and tests/js/golden_i18n.test.js (assets/anonset_engine.js fed with each "
                 "language's client_text()). Regenerate with `python tests/core/text/test_i18n_golden.py`.",
        "languages": table(),
    }, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def test_the_python_face_prints_the_golden_table_in_every_language():
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))["languages"]
    assert sorted(golden) == sorted(text.LANGUAGES)
    assert golden == json.loads(json.dumps(table(), ensure_ascii=False))


def test_the_languages_write_their_own_conventions():
    """Spot values from CLDR: German groups with a dot, French with a narrow no-break space, percent signs."""
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))["languages"]

    def said(lang, fn, arg):
        return next(c["expected"] for c in golden[lang]["cases"] if c["fn"] == fn and c["args"][0] == arg)

    assert said("en", "format_count", 1234567.0) == "1,234,567"
    assert said("de", "format_count", 1234567.0) == "1.234.567"
    assert said("fr", "format_count", 1234567.0) == "1\u202f234\u202f567"
    assert said("es", "format_count", 1234.0) == "1.234"
    assert said("en", "format_percent", 0.418) == "41.8 %"  # the CLI's text is unchanged
    assert said("de", "format_percent", 0.418) == "41,8\u00a0%"
    assert said("it", "format_percent", 0.418) == "41,8%"
    assert said("pt", "own_headline", 4567.3) == "Você e cerca de 4.567 outras pessoas compartilham estes atributos"
    assert said("de", "plural_index", 1) == 0 and said("de", "plural_index", 0) == 1
    assert said("fr", "plural_index", 0) == 0 and said("pt", "plural_index", 0) == 0  # "0 personne", "0 pessoa"


def test_an_unknown_language_is_english_completely():
    for lang in ("xx", "", None, "de-" + "x" * 40, "klingon"):
        with text.language(lang):
            assert text.current_language() == "en"
            assert text.own_headline(4567.3) == "You and about 4,567 others share these attributes"


def test_the_language_is_per_context_never_global():
    """A German request does not leak into the next (contextvars: one language per request)."""
    import contextvars

    seen = []
    ctx = contextvars.copy_context()
    ctx.run(lambda: (text.set_language("de"), seen.append(text.format_count(1234))))
    assert seen == ["1.234"] and text.current_language() == "en" and text.format_count(1234) == "1,234"


def test_accept_language_negotiation():
    assert text.negotiate(["de-CH", "en"]) == "de"
    assert text.negotiate(["pt-BR"]) == "pt"
    assert text.negotiate(["xx", "fr;q=bad"]) == "en"
    assert text.negotiate(["ja", "es"]) == "es"
    assert text.negotiate([]) == "en"


if __name__ == "__main__":
    write()
