"""Damaged data is refused at start (issue 29): the manifest records a sha256 per file; ``anonset data
summary`` verifies them and exits 1 with one line per damaged file; ``anonset serve`` and
``create_app`` refuse the same cache with the same lines before anything binds a port; a truncated
``manifest.json`` is one clear line everywhere, never a traceback."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from support.browser import free_port  # one helper for a free loopback port

from census_loaders import build as cache_build
from census_loaders import checksums
from census_loaders.registry import LoaderEntry
from dashboard.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cache_copy(cache_root, tmp_path):
    """A private copy of the shipped data cache (the files the build wrote, and its manifest)."""
    out = tmp_path / "data_cache"
    shutil.copytree(cache_root, out, ignore=shutil.ignore_patterns("anonland"))
    return out


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _summary(capsys, root: Path) -> tuple[int, list[str], str]:
    code = main(["data", "summary", "--cache", str(root)])
    out = capsys.readouterr()
    return code, out.err.strip().splitlines(), out.out


def _port_is_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _serve(root: Path, port: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "ANONSET_DATA_CACHE": str(root)}
    return subprocess.run([sys.executable, "-m", "dashboard", "serve", "--port", str(port)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


# --------------------------------------------------------------------------- the manifest's checksums


def test_the_shipped_manifest_records_every_built_file(cache_root):
    manifest = checksums.read(cache_root)
    files = manifest[checksums.FILES_KEY]
    assert set(files) == set(checksums.built_files(cache_root))
    for code in manifest["datasets"]:
        assert f"population/{code}.parquet" in files
    assert "body_priors.parquet" in files and "manifest.json" not in files
    assert not any(f.startswith("anonland/") for f in files)  # written by `anonset anonland`, not the build
    assert checksums.verify(cache_root) == []


def test_record_reproduces_the_shipped_manifest(cache_copy, cache_root):
    """The shipped checksums were written by the build's own code path (record), byte for byte."""
    manifest = json.loads((cache_copy / "manifest.json").read_text(encoding="utf-8"))
    del manifest[checksums.FILES_KEY]
    (cache_copy / "manifest.json").write_text(checksums.dumps(manifest), encoding="utf-8")
    assert not checksums.recorded(checksums.read(cache_copy)) and checksums.verify(cache_copy) == []
    checksums.record(cache_copy)
    assert (cache_copy / "manifest.json").read_bytes() == (cache_root / "manifest.json").read_bytes()


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_the_build_records_the_checksums(raw_root, tmp_path, monkeypatch):
    monkeypatch.setattr(cache_build, "POPULATION_LOADERS", [LoaderEntry("census_loaders.destatis", "de")])
    monkeypatch.setattr(cache_build, "NATIONAL_MODEL", None)  # the WPP check and the world map: test_wpp.py
    monkeypatch.setattr(cache_build, "WORLD_MAP", None)
    out = tmp_path / "cache"
    (out / "anonland").mkdir(parents=True)
    (out / "anonland" / "summary.json").write_text("{}")  # carried over, not sealed
    manifest = cache_build.build(raw_root, out, log=lambda m: None)
    files = manifest[checksums.FILES_KEY]
    assert files == checksums.compute(out) and "population/DE.parquet" in files
    assert json.loads((out / "manifest.json").read_text(encoding="utf-8"))[checksums.FILES_KEY] == files
    assert checksums.verify(out) == []


# --------------------------------------------------------------------------- anonset data summary


def test_summary_of_an_intact_cache(cache_copy, capsys):
    code, err, out = _summary(capsys, cache_copy)
    assert code == 0 and err == [] and "DE:400" in out


def test_summary_names_each_damaged_file(cache_copy, capsys):
    _truncate(cache_copy / "population" / "DE.parquet")
    code, err, out = _summary(capsys, cache_copy)
    assert code == 1 and out == ""
    assert err == [f"anonset: error: {cache_copy / 'population' / 'DE.parquet'}: checksum mismatch"]

    (cache_copy / "boundaries" / "FR.geojson").unlink()
    (cache_copy / "body_priors.parquet").unlink()
    (cache_copy / "body_priors.parquet").mkdir()  # cannot be read as a file
    code, err, _ = _summary(capsys, cache_copy)
    assert code == 1 and len(err) == 3
    assert f"{cache_copy / 'boundaries' / 'FR.geojson'}: missing" in err[1]
    assert f"{cache_copy / 'body_priors.parquet'}: unreadable" in err[0]
    assert "Traceback" not in "\n".join(err)


def test_a_truncated_manifest_is_one_line(cache_copy, capsys):
    _truncate(cache_copy / "manifest.json")
    code, err, _ = _summary(capsys, cache_copy)
    assert code == 1 and len(err) == 1
    assert "manifest.json: unreadable (not valid JSON" in err[0] and "Traceback" not in err[0]
    # any other command reading the cache says the same in one line
    assert main(["cas", "--country", "DE", "--sex", "female", "--cache", str(cache_copy)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "manifest.json: unreadable" in err[0]


# --------------------------------------------------------------------------- anonset serve and create_app


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_serve_refuses_a_damaged_cache_before_binding(cache_copy, capsys):
    _truncate(cache_copy / "population" / "DE.parquet")
    _, expected, _ = _summary(capsys, cache_copy)
    port = free_port()
    out = _serve(cache_copy, port)
    assert out.returncode == 1, out.stderr[-2000:]
    assert out.stderr.strip().splitlines() == expected  # the same lines as the summary
    assert "AnonSet on http" not in out.stdout and "Traceback" not in out.stderr and _port_is_free(port)


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_serve_refuses_a_truncated_manifest_in_one_line(cache_copy):
    _truncate(cache_copy / "manifest.json")
    port = free_port()
    out = _serve(cache_copy, port)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 1 and len(lines) == 1 and "manifest.json: unreadable" in lines[0], out.stderr[-2000:]
    assert "Traceback" not in out.stderr and _port_is_free(port)


def test_create_app_refuses_a_damaged_cache(cache_copy, monkeypatch):
    from dashboard import settings
    from dashboard.app import create_app
    from dashboard.server.preflight import StartRefused

    _truncate(cache_copy / "population" / "DE.parquet")
    monkeypatch.setenv("ANONSET_DATA_CACHE", str(cache_copy))
    with pytest.raises(StartRefused) as err:
        create_app(settings.load())
    assert err.value.lines == [f"{cache_copy / 'population' / 'DE.parquet'}: checksum mismatch"]
    assert isinstance(err.value, RuntimeError)  # gunicorn prints a RuntimeError while loading as "Error: …", no traceback


@pytest.mark.slow  # gunicorn imports the app before it refuses: seconds
def test_gunicorn_refuses_a_damaged_cache_before_binding(cache_copy, tmp_path):
    _truncate(cache_copy / "population" / "DE.parquet")
    port = free_port()
    env = {**os.environ, "ANONSET_DATA_CACHE": str(cache_copy), "ANONSET_BIND": f"127.0.0.1:{port}",
           "ANONSET_WORKERS": "1", "ANONSET_FLASK_CACHE_DIR": str(tmp_path / "fc")}
    env.pop("REDIS_URL", None)
    out = subprocess.run([sys.executable, "-m", "gunicorn", "-c", "dashboard/gunicorn_conf.py", "dashboard.wsgi:server"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=180, check=False)
    assert out.returncode == 1
    assert f"Error: {cache_copy / 'population' / 'DE.parquet'}: checksum mismatch" in out.stderr
    assert "Traceback" not in out.stderr and "Listening at" not in out.stderr and _port_is_free(port)
