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
