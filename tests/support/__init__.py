"""Helpers the tests share (imported as ``support.<module>``; ``tests/`` is on ``sys.path`` through pytest's
``pythonpath`` setting in pyproject.toml).  Fixtures live in the folder conftests, helpers here.

* ``browser``: the app under gunicorn, Chromium's settings, a page recorder, Dash dropdown helpers
* ``bucket_reference``: the bucket advisor checked the slow way (cached per configuration)
* ``dash_protocol``: the Dash renderer's protocol without a browser (also used by benchmarks/load_test.py)
* ``loaders``: the one check of a damaged published file (``raises_loader_error``), raw-folder mirrors
* ``page_checks``: figure-dict and component-text checks for the page tests
* ``parity_cases``: random profiles and the engine-vs-core comparison (Node and Chromium)
* ``synthetic``: small hand-made populations, body priors, models and a tiny cache folder
"""
from __future__ import annotations

from pathlib import Path

#: The ``tests/`` folder and the repository root.
TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
