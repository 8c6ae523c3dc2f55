"""One golden table of AnonSet's text (tests/js/golden_text.json: input → expected words), read by
pytest here and by node (tests/js/golden_text.test.js, run by tests/test_js_unit.py): the Python face
(dashboard.core.text) and the browser's (assets/anonset_engine.js fed with text.client_text()) must
both print exactly the expected strings — counts, percentages, people, bands, short numbers, log-axis
ticks, and the headline and the verdict at every threshold and its neighbours.

``python tests/test_text_golden.py`` rewrites the table from the Python face (only when a text is
meant to change; review the diff).
"""
from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from dashboard.core import text  # noqa: E402

GOLDEN = ROOT / "tests" / "js" / "golden_text.json"


def encode(x):
    """JSON has no NaN or infinities: they travel as strings (both readers decode them)."""
    if isinstance(x, float) and not math.isfinite(x):
        return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")
    return x


def decode(x):
    return float(x) if x in ("NaN", "Infinity", "-Infinity") else x


def _python(case):
    args = [decode(a) for a in case["args"]]
    fn = case["fn"]
    if fn == "format_band":
        return text.format_band(tuple(args[0]) if args[0] is not None else None, args[1])
    if fn == "log_ticks":
        vals, labels = text.log_ticks(*args)
        return {"labels": labels, "log10": [round(v, 9) for v in vals]}
    return getattr(text, fn)(*args, **case.get("kwargs", {}))


def build_cases() -> list[dict]:
    """The inputs: every branch of every rule, its thresholds and their neighbours."""
    rng = random.Random(25)
    cases = []

    def add(fn, *args, **kwargs):
        case = {"fn": fn, "args": [encode(a) for a in args]}
        if kwargs:
            case["kwargs"] = kwargs
        cases.append(case)

    nan, inf = float("nan"), float("inf")
    for x in (0.0, 0.4, 0.999, 1.0, 1.5, 999.999, 1000.0, 1234.9, 1e6, 60_367_671.2, 8.1e9, 1e21 - 1, -3.0, nan, inf):
        add("format_count", x)
    for x in (0.0, 1e-9, 0.3, 0.999999, 1.0, 2.5, 999.0, 1234.9, 8e9, -1.0, nan, -inf):
        add("format_people", x)
    for band, kind in (((170, 175), "height"), ((70, 75), "weight"), ((172.5, 175), "height"), (None, "weight")):
        add("format_band", list(band) if band else None, kind)
    shares = [0.0, 1e-300, 9.99e-7, 1e-6, 1.0000001e-6, 0.00125, 0.000999996, 0.0099996, 0.00375, 0.01, 0.0225,
              0.5, 0.999, 0.9990001, 0.99999, 1.0, 1.5, -0.25, nan, inf]
    shares += [10 ** rng.uniform(-12, 0) for _ in range(60)]
    for x in shares:
        add("format_percent", x)
        add("format_percent", x, positive=True)
    for v in (0.001, 0.002, 0.005, 0.01, 0.5, 1.0, 2.0, 5.0, 20.0, 999.0, 1000.0, 2500.0, 5e3, 1e5, 1.5e6, 2e6,
              1.23e7, 1e9, 8e9, 7.9e9):
        add("short_number", v)
    for lo, hi in ((1, 1000), (3.2, 870), (1e-3, 8e7), (0.0004, 60), (1, 8), (2, 3), (1e3, 1e9), (0.05, 0.5),
                   (1725, 60_367_671), (12, 12)):
        add("log_ticks", lo, hi)
    for below, _ in text.HEADLINE:
        for o in ([0.0, 1e-9, 0.3, 2.0999, 9.9499, 1e6 + 0.5, 7.9e9] if below is None
                  else [below * (1 - 1e-9), below, below * (1 + 1e-9), below - 0.01, below + 0.01]):
            add("own_headline", o)
    for below, _ in text.VERDICT:
        for cas in ([0.0, 1e-9, 0.5, 250.0, 2418.4, 1e6 + 0.5, 7.9e9] if below is None
                    else [below * (1 - 1e-9), below, below + 0.01, below - 0.01]):
            for kappa in (0.0, 0.004999, 0.005, 0.41, 0.995, 1.0):
                add("verdict", cas, max(cas - 0.5, 0.0), kappa)
    for value, lo, hi, unit in ((60, 100, 250, "cm"), (99.5, 100, 250, "cm"), (250.5, 100, 250, "cm"),
                                (172.123456789, 100, 250, "cm"), ("60–65", 100, 250, "cm"), (24, 40, 98, "inches")):
        add("adult_height_refusal", value, lo, hi, unit)
    return cases


def write() -> None:
    cases = build_cases()
    for case in cases:
        case["expected"] = _python(case)
    GOLDEN.write_text(json.dumps({
        "about": "AnonSet's text, input -> expected: read by tests/test_text_golden.py (dashboard.core.text) and "
                 "tests/js/golden_text.test.js (assets/anonset_engine.js fed with dashboard.core.text.client_text()). "
                 "Regenerate with `python tests/test_text_golden.py` only when a text is meant to change.",
        "cases": cases,
    }, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def _golden():
    return json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("fn", sorted({c["fn"] for c in build_cases()}))
def test_the_python_face_prints_the_golden_table(fn):
    cases = [c for c in _golden() if c["fn"] == fn]
    assert cases
    for case in cases:
        assert _python(case) == case["expected"], case


def test_the_golden_table_covers_every_rule_and_threshold():
    cases = _golden()
    assert len(cases) >= 300
    assert [{k: v for k, v in c.items() if k != "expected"} for c in cases] == build_cases()
    shown = {c["expected"] for c in cases if isinstance(c["expected"], str)}
    for band in (*text.HEADLINE, *text.VERDICT):  # every sentence's template is reached
        head = band[1].split("{")[0]
        assert any(s.startswith(head) for s in shown), head
    for rule in ("zero", "below_floor", "above_near_whole"):
        assert text.PERCENT[rule] in shown
    assert text.FEWER_THAN_ONE in shown and text.MISSING in shown


def test_the_shipped_text_is_the_python_data():
    """What the page config ships (views.personal.page_config()["text"]) is core/text's data, as JSON."""
    data = text.client_text()
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert data["percent"]["below_floor"] == text.PERCENT_FLOOR_TEXT == "less than 0.0001 %"
    assert [b["below"] for b in data["verdict"]] == [1, 5, 20, 100, None]
    assert [b["below"] for b in data["headline"]] == [1, 2, None]


if __name__ == "__main__":
    write()
    print(f"wrote {GOLDEN.relative_to(ROOT)}: {len(_golden())} cases")

