"""What the node unit tests need from the Python side, as JSON on stdout: the personal page's config
(views.personal.page_config(): the field contract and core/text's data) and one public table.

Run by tests/js/harness.js (through $ANONSET_PYTHON, else python3) unless $ANONSET_JS_FIXTURES names a
file holding this JSON already (tests/test_js_unit.py writes one per session).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def fixtures() -> dict:
    from dashboard.core import personal as pt
    from dashboard.views.personal import page_config

    return {"config": page_config(), "table": pt.public_tables("DE", "v2", 5, 5)}


if __name__ == "__main__":
    json.dump(fixtures(), sys.stdout, allow_nan=False)
