"""District labels in the plural: one rule for every page, the CLI and the browser's tables."""
import pytest

from dashboard.core.personal import public_tables
from dashboard.core.text import plural


@pytest.mark.parametrize("label, expected", [
    ("county", "counties"), ("municipality", "municipalities"), ("territorial authority", "territorial authorities"),
    ("ZIP code area (ZCTA)", "ZIP code areas (ZCTA)"), ("Kreis", "Kreise"), ("comune", "comuni"), ("commune", "communes"), ("SA2", "SA2s"), ("NUTS-3 region", "NUTS-3 regions"),
    ("local authority district", "local authority districts"), ("key", "keys"),
])
def test_plural(label, expected):
    assert plural(label) == expected


def test_the_browser_table_carries_the_plural():
    t = public_tables("US", "paper", 5, 5)
    assert t["district_label"] == "county" and t["district_label_plural"] == "counties"


def test_a_coverage_target_keeps_its_digits():
    """Issue 28: coverage 99.99 % was shown as "target 100%"."""
    from dashboard.core.text import share_setting

    assert share_setting(0.9999) == "99.99%" and share_setting(0.95) == "95%" and share_setting(0.9) == "90%"
    assert share_setting(1) == "100%" and share_setting(0.123456) == "12.3456%"


@pytest.mark.parametrize("lang, value, spec, expected", [
    ("en", 0.0037, ".2%", "0.37%"),          # English: Python's format, exactly what the CLI prints
    ("en", 1234.5, ",.1f", "1,234.5"),
    ("de", 0.0037, ".2%", "0,37\u00a0%"),    # the language's digits and percent sign
    ("de", 1234.5, ",.1f", "1.234,5"),
    ("it", 0.25, ".0%", "25%"),
    ("fr", 1234567, ",", "1\u202f234\u202f567"),
])
def test_one_formatter_for_numbers_in_sentences(lang, value, spec, expected):
    """The data-set notes and the data-set sentences format their numbers through one rule."""
    from dashboard.core.microdata._words import num, pct
    from dashboard.core.text import format_in_language, language

    with language(lang):
        assert format_in_language(value, spec) == expected
        if spec.endswith("%"):
            assert pct(value, int(spec[1:-1])) == expected
        else:
            assert num(value, spec) == expected
