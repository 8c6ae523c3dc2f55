"""``anonset data notes``: the data sets' notes re-written from the loaders without a build (issue 31)."""
from __future__ import annotations

import json
import shutil

import pytest
from support import ROOT

from dashboard.cli import main

pytestmark = pytest.mark.slow  # runs every loader on the raw files (about 40 s)


def test_notes_are_rewritten_in_the_manifest_alone(tmp_path, capsys):
    raw = ROOT.parent / "shared" / "data" / "raw"
    if not raw.is_dir():
        pytest.skip("the raw files are not beside the project")
    cache = tmp_path / "cache"
    shutil.copytree(ROOT / "data_cache", cache)
    shipped = json.loads((cache / "manifest.json").read_text(encoding="utf-8"))
    stripped = json.loads(json.dumps(shipped))
    for entry in stripped["datasets"].values():  # a cache built before the notes had a structure
        entry.pop("note_parts")
        entry.pop("boundary_note_parts", None)
    (cache / "manifest.json").write_text(json.dumps(stripped), encoding="utf-8")

    assert main(["data", "notes", "--cache", str(cache), "--raw", str(raw), "--quiet"]) == 0
    assert "changed:" not in capsys.readouterr().err  # the loaders' English is the shipped English
    rewritten = json.loads((cache / "manifest.json").read_text(encoding="utf-8"))
    assert rewritten == shipped  # the shipped manifest is what the loaders write: structure and all
    assert main(["data", "summary", "--cache", str(cache)]) == 0  # the data files still verify
