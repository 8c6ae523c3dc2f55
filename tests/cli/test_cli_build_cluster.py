"""``anonset data build|aggregates --scheduler``: where the world aggregates run, and clear words when it cannot."""
from __future__ import annotations

import socket

import pytest

from dashboard.cli import cluster, main


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_scheduler_is_one_line_naming_the_serial_build(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1)
    code = main(["data", "aggregates", "--cache", str(tmp_path), "--scheduler", f"tcp://127.0.0.1:{_closed_port()}"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "cannot reach the Dask scheduler" in err and "--scheduler serial" in err


@pytest.mark.parametrize("value", ["foo", "http://x:1", "8786"])
def test_a_scheduler_that_is_no_address_is_refused(value, tmp_path, capsys):
    code = main(["data", "build", "--out", str(tmp_path / "out"), "--scheduler", value])
    err = capsys.readouterr().err
    assert code == 2 and "give serial, local or a Dask scheduler address" in err
    assert not (tmp_path / "out").exists()


def test_the_serial_mapper_keeps_order():
    with cluster.data_set_mapper("serial") as mapper:
        assert mapper(lambda x: x * x, [3, 1, 2]) == [9, 1, 4]
