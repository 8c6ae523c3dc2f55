"""``anonset export-static DIR`` (issue 30): bad input gets one line, and the site holds every file the page asks for.

The browser half (the page served by a plain static server equals ``anonset cas --json``) is in
``tests/browser/test_browser_static_site.py``.
"""
from __future__ import annotations

import json
import os
import re

import pytest

from dashboard import cli
from dashboard.server import static_site

#: A small data set with a district map (5 districts), and a national-only one (no map).
CODES = ["EE", "NG"]


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main(["export-static", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- bad input, before anything loads


def test_a_non_empty_folder_is_refused_without_force(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    code, out, err = _run(capsys, str(tmp_path), "--countries", "EE")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "is not empty" in err and "--force" in err
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_an_unwritable_folder_gets_one_line(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code, _out, err = _run(capsys, str(blocker / "site"), "--countries", "EE")
    assert code == 2 and err.count("\n") == 1 and err.startswith("anonset: error: cannot write to ")
    code, _out, err = _run(capsys, str(blocker), "--countries", "EE")
    assert code == 2 and err.count("\n") == 1 and "is a file, not a folder" in err
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        code, _out, err = _run(capsys, str(locked), "--countries", "EE")
        assert code == 2 and err.count("\n") == 1 and "cannot write to" in err


@pytest.mark.parametrize("argv, words", [
    (["--countries", "Atlantis"], "is not a data set"),
    (["--countries", ","], "names no data set"),
    (["--widths", "3"], "must be one of 1, 2, 5, 10, 20"),
    (["--widths", "five"], "give band widths"),
])
def test_bad_arguments_get_one_line(tmp_path, capsys, argv, words):
    code, _out, err = _run(capsys, str(tmp_path / "site"), *argv)
    assert code == 2 and err.count("\n") == 1 and words in err, err
    assert not (tmp_path / "site").exists()


# --------------------------------------------------------------------------- the files


@pytest.fixture(scope="module")
def site(tmp_path_factory, cache_root):
    from dashboard.wsgi import app

    target = tmp_path_factory.mktemp("static") / "site"
    result = static_site.export(app, target, CODES)
    return target, result


def _layout_components(node):
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            stack.extend(n)
        elif isinstance(n, dict) and "props" in n:
            yield n
            stack.append(n["props"].get("children"))


def test_every_file_the_index_links_is_in_the_site(site):
    target, result = site
    index = (target / "index.html").read_text(encoding="utf-8")
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', index).group(1)
    assert "connect-src 'self'" in policy and "default-src 'self'" in policy and "frame-ancestors" not in policy
    assert index.index("Content-Security-Policy") < index.index("<script")
    scripts = re.findall(r'<script src="([^"]+)"', index)
    assert scripts[0] == static_site.SHIM_URL, "the shim must run before the renderer asks for the layout"
    for url in re.findall(r'(?:src|href)="(/[^"]+)"', index):
        assert (target / url.split("?")[0].lstrip("/")).is_file(), url
    suites = target / "_dash-component-suites"
    for lazy in ("dash/dcc/async-dropdown.js", "dash/dcc/async-graph.js", "plotly/package_data/plotly.min.js"):
        assert (suites / lazy).is_file(), lazy  # Dash loads these by their plain names when the page needs them
    listed = json.loads((target / static_site.MANIFEST).read_text())
    on_disk = {str(p.relative_to(target)) for p in target.rglob("*") if p.is_file()} - {static_site.MANIFEST}
    assert set(listed["paths"]) == on_disk == set(result.files)
    assert not any(p.endswith(".map") for p in on_disk)


def test_each_country_is_a_page_with_its_tables_and_map(site):
    target, result = site
    for code in CODES:
        layout = json.loads((target / "_layout" / f"{code}.json").read_text(encoding="utf-8"))
        by_id = {c["props"].get("id"): c["props"] for c in _layout_components(layout) if c["props"].get("id")}
        assert by_id["_pages_content"]["children"], "the page router's answer is in the layout"
        assert by_id["_pages_store"]["data"]["title"].startswith("AnonSet")
        assert by_id["me-country"]["value"] == code
        assert {o["value"] for o in by_id["me-country"]["options"] if not o.get("disabled")} == set(CODES)
        config = by_id["me-config"]["data"]["static"]
        assert config["country"] == code and set(config["tables"]) == {"v2|5|5|0", "v2|5|5|1", "paper|5|5|0"}
        for url in config["tables"].values():
            table = json.loads((target / url.lstrip("/")).read_text(encoding="utf-8"))
            assert table["code"] == code
        links = {c["props"].get("href") for c in _layout_components(layout) if c.get("type") == "Link"}
        assert links <= {"/"}, "the pages that compute on a server are not in a static copy"
        base = by_id["me-map-base"]["data"]
        if base:  # the map's geometry is in the site
            assert (target / "geo" / f"{code}.geojson").is_file()
    assert not (target / "geo" / "NG.geojson").exists()
    assert result.tables["NG"]["v2|5|5|1"] == result.tables["NG"]["v2|5|5|0"], "equal tables are written once"


def test_the_dependencies_are_the_pages_clientside_callbacks(site):
    target, _result = site
    deps = json.loads((target / "_dash-dependencies.json").read_text(encoding="utf-8"))
    assert deps and all(d.get("clientside_function") for d in deps), "a static host runs no server callback"
    outputs = " ".join(d["output"] for d in deps)
    assert "me-headline.children" in outputs and "me-table-status.data" in outputs
    assert "_pages_content" not in outputs and "explore" not in outputs


def test_a_second_export_with_force_replaces_its_own_files_only(site, tmp_path, cache_root):
    from dashboard.wsgi import app

    target = tmp_path / "site"
    static_site.export(app, target, ["NG"])
    (target / "README-mine.txt").write_text("keep me")
    (target / "_tables" / "NG.stale.json").write_text("{}")  # not the export's: kept
    with pytest.raises(static_site.ExportError, match="is not empty"):
        static_site.prepare_target(target, force=False)
    static_site.export(app, target, ["EE"], force=True)
    assert (target / "README-mine.txt").read_text() == "keep me" and (target / "_tables" / "NG.stale.json").exists()
    assert not (target / "_layout" / "NG.json").exists() and (target / "_layout" / "EE.json").exists()


def test_the_command_writes_a_site_and_says_what_it_weighs(tmp_path, capsys, cache_root, monkeypatch):
    """The command end to end, for one national-only data set; its tables go to a scratch cache it removes."""
    import tempfile

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    code, out, err = _run(capsys, str(tmp_path / "site"), "--countries", "ng", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["datasets"] == ["NG"] and summary["files"] == len(json.loads(
        (tmp_path / "site" / static_site.MANIFEST).read_text())["paths"])
    assert summary["first_answer_gz_bytes"]["largest"] == "NG"
    assert 0 < summary["first_answer_gz_bytes"]["bytes"] <= static_site.BUDGET_FIRST_ANSWER_GZ_MB * 1e6
    assert (tmp_path / "site" / "_layout" / "NG.json").is_file() and "warning" not in err
    assert list(scratch.iterdir()) == [], "the export's scratch cache is removed"
