"""A shipped record table is read once and shared; its column description is worked out once per table.

The data-set page opens one on every visit and describes it three times per change of source: under a
200-user load that was 15 % of the server's CPU (py-spy, session 10)."""
from __future__ import annotations

import pandas as pd

from dashboard.core import microdata


def test_the_shipped_table_is_made_once_and_its_description_once(cache_root):
    first = microdata.shipped_table("nhanes")
    assert microdata.shipped_table("nhanes") is first
    assert microdata.shipped_table("adult") is not first
    described = first.describe()
    assert described == first._describe()  # the kept description is the one worked out afresh
    described[0]["distinct"] = -1  # a caller's copy: changing it changes nothing kept
    assert first.describe()[0]["distinct"] != -1


def test_an_uploaded_table_is_described_from_its_own_frame():
    a = microdata.Table(frame=pd.DataFrame({"age": [30.0, 40.0, None], "sex": ["f", "m", "m"]}), name="a.csv",
                        source="upload")
    b = microdata.Table(frame=pd.DataFrame({"age": [1.0, 2.0, 3.0, 4.0]}), name="b.csv", source="upload")
    assert [(r["name"], r["distinct"], r["missing"]) for r in a.describe()] == [("age", 2, 1), ("sex", 2, 0)]
    assert [(r["name"], r["distinct"], r["min"], r["max"]) for r in b.describe()] == [("age", 4, 1.0, 4.0)]
