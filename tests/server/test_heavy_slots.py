"""Seconds-long page computations (bucket advice, attack runs, data-set analyses) share the
server's heavy slots: an answer in memory is served at once, a new one waits briefly for a slot
and is then refused with the command that computes it elsewhere (issue 14)."""
from __future__ import annotations

import time

import pytest
from support import ROOT

from dashboard import settings
from dashboard.server import cache, jobs, limits


@pytest.fixture
def slots(tmp_path, monkeypatch):
    """The file-lock slots in a fresh cache folder, with a short wait."""
    monkeypatch.setenv("ANONSET_FLASK_CACHE_DIR", str(tmp_path / "fc"))
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("ANONSET_HEAVY_AT_ONCE", raising=False)
    monkeypatch.setattr(cache, "SETTINGS", settings.load())
    monkeypatch.setattr(limits, "HEAVY_WAIT_S", 0.3)
    return tmp_path


def test_a_free_slot_runs_the_computation_and_is_released(slots):
    with limits.heavy_slot("This", "anonset x"):
        assert jobs.acquire_slot("heavy", 1) is None  # held while it runs
    again = jobs.acquire_slot("heavy", 1)
    assert again is not None
    again.release()


def test_the_slot_is_released_when_the_computation_fails(slots):
    with pytest.raises(ZeroDivisionError), limits.heavy_slot("This", "anonset x"):
        1 / 0
    again = jobs.acquire_slot("heavy", 1)
    assert again is not None
    again.release()


def test_a_busy_server_refuses_after_the_wait_and_names_the_command(slots):
    held = jobs.acquire_slot("heavy", 1)
    try:
        t0 = time.monotonic()
        with pytest.raises(limits.CostError, match=r"busy computing.*anonset buckets --country DE"), \
                limits.heavy_slot("This advice", "anonset buckets --country DE"):
            pytest.fail("ran without a slot")
        assert time.monotonic() - t0 >= 0.25  # it waited for a slot first (a lower bound: never flaky)
    finally:
        held.release()


def test_a_slot_freed_during_the_wait_is_taken(slots):
    import threading

    held = jobs.acquire_slot("heavy", 1)
    threading.Timer(0.1, held.release).start()
    with limits.heavy_slot("This", "anonset x", wait_s=2.0):
        pass


def test_more_slots_from_the_environment(slots, monkeypatch):
    monkeypatch.setenv("ANONSET_HEAVY_AT_ONCE", "2")
    held = jobs.acquire_slot("heavy", 1)
    try:
        with limits.heavy_slot("This", "anonset x"):  # the second slot
            pass
    finally:
        held.release()
    monkeypatch.setenv("ANONSET_HEAVY_AT_ONCE", "many")
    assert limits.heavy_at_once() == limits.HEAVY_AT_ONCE


def test_an_unwritable_cache_still_limits_each_process(tmp_path, monkeypatch, caplog):
    """Shared slots unavailable: the computation runs, but only heavy_at_once() at a time in this process."""
    import threading

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ANONSET_FLASK_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("ANONSET_HEAVY_AT_ONCE", raising=False)
    monkeypatch.setattr(cache, "SETTINGS", settings.load())
    monkeypatch.setattr(limits, "PROCESS_SLOTS", limits.ProcessSlots())
    ran = []
    with limits.heavy_slot("This", "anonset x"):
        ran.append(1)
    assert ran == [1]
    assert "this process's own slots apply" in caplog.text
    # one computation holds the process's slot: a second is refused after its wait, naming the command
    inside, leave = threading.Event(), threading.Event()

    def first():
        with limits.heavy_slot("This", "anonset x"):
            inside.set()
            leave.wait(5)

    t = threading.Thread(target=first)
    t.start()
    try:
        assert inside.wait(5)
        with pytest.raises(limits.CostError, match=r"busy computing.*anonset buckets --country FR"), \
                limits.heavy_slot("This advice", "anonset buckets --country FR", wait_s=0.2):
            pytest.fail("ran beside another heavy computation")
    finally:
        leave.set()
        t.join()
    with limits.heavy_slot("This", "anonset x", wait_s=0.2):  # free again once the first is done
        ran.append(2)
    assert ran == [1, 2]


@pytest.mark.slow  # a full German bucket advice, twice: the full suite runs it
def test_bucket_advice_in_memory_is_served_while_the_server_is_busy(slots):
    from dashboard.views import buckets as B

    s = B.Settings("DE", 10.0, 0.9, False)
    first = B.advice(s)  # computed (a free slot)
    held = jobs.acquire_slot("heavy", 1)
    try:
        assert B.advice(s) is first  # from memory: no slot needed
        new = B.Settings("DE", 7.0, 0.9, False)
        with pytest.raises(limits.CostError, match="anonset buckets --country DE --k 7"):
            B.advice(new)
        with pytest.raises(limits.CostError):
            B.render(new)
    finally:
        held.release()


def test_attack_runs_and_dataset_analyses_share_the_slots(slots):
    from dashboard.core import attack as sa
    from dashboard.views import attack as A
    from dashboard.views import dataset as D

    cfg = A.parse_form(5, 0, 3, 0, "20, 40, 80", 1, 12345, sa.DEFAULT_PHI)
    held = jobs.acquire_slot("heavy", 1)
    try:
        with pytest.raises(limits.CostError, match="anonset attack"):
            A.render(cfg)
        out, message = A.run(5, 0, 3, 0, "20, 40, 80", 1, 12345, sa.DEFAULT_PHI)
        assert out is None and "busy computing" in str(message)
        req = D.parse_request("nhanes", ["sex", "age", "race", "education"], [], [], "drop", None, None, "7")
        with pytest.raises(limits.CostError, match="anonset dataset nhanes"):
            D.analyse(req, D.table_for("nhanes", None, None))
    finally:
        held.release()
    assert A.render(cfg)["cards"]
    assert D.analyse(req, D.table_for("nhanes", None, None)) is not None


def test_gunicorn_gives_each_request_one_blas_thread_unless_the_operator_says_otherwise():
    import os
    import subprocess
    import sys

    root = ROOT
    code = ("import os, runpy; runpy.run_path('dashboard/gunicorn_conf.py'); "
            "print(os.environ['OPENBLAS_NUM_THREADS'], os.environ['OMP_NUM_THREADS'])")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["1", "1"], out.stderr[-500:]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env={**env, "OPENBLAS_NUM_THREADS": "4"},
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["4", "1"], out.stderr[-500:]


def test_the_largest_explorer_curves_take_a_heavy_slot_and_small_ones_do_not(slots, cache_root):
    """Issue 29: explorer curves over more than HEAVY_SCENARIO_CELLS band cells (seconds of CPU) go through the
    heavy slots — refused with their ``anonset cdf`` command while another visitor's heavy work runs — and
    an ordinary comparison is computed whatever is running."""
    from dashboard.core.regions import Scenario
    from dashboard.views.explorer import comparable_curves

    small = Scenario.from_query({"country": "MT,LU"})
    large = Scenario.from_query({"country": "DE,FR", "height_width": "1", "weight_width": "1"})
    assert limits.scenario_cells(small) <= limits.HEAVY_SCENARIO_CELLS < limits.scenario_cells(large)
    limits.check_scenario(large)  # allowed: the page computes it, rationed
    held = jobs.acquire_slot("heavy", 1)
    try:
        assert comparable_curves(small, "5")
        with pytest.raises(limits.CostError, match=r"This comparison is not in the server.s memory yet.*busy.*anonset cdf --country DE --country FR"):
            comparable_curves(large, "5")
    finally:
        held.release()
    assert comparable_curves(large, "5")


def test_reports_have_a_pool_of_their_own(slots, monkeypatch):
    """Issue 29: a hall pressing "Download report" takes one report slot, not every core.  A report waits for
    neither a running advice nor a table, takes its analysis's heavy slot inside its own, and a second report is
    refused with the ``anonset report`` line that writes the same file on the visitor's machine."""
    monkeypatch.setattr(limits, "REPORT_WAIT_S", 0.2)
    command = "anonset report buckets --country MT --out anonset-report-buckets.html"
    advice = jobs.acquire_slot("heavy", 1)
    try:
        with limits.report_slot(command):
            pass
    finally:
        advice.release()
    with limits.report_slot(command):
        with limits.heavy_slot("This advice", "anonset buckets --country MT"):
            pass
        t0 = time.monotonic()
        with pytest.raises(limits.CostError, match=r"This report .*busy.*anonset report buckets --country MT"), \
                limits.report_slot(command):
            pytest.fail("two reports ran at once")
        assert time.monotonic() - t0 >= 0.15
    with limits.report_slot(command):  # free again
        pass
    with pytest.raises(ValueError, match="unknown pool"), limits.heavy_slot("This", "anonset x", pool="typo"):
        pass


def test_anonland_reruns_take_at_most_half_the_cores(monkeypatch):
    """A rerun keeps a core busy in the background: by default half the cores run them (at least one),
    so the visits' own requests keep the rest; ANONSET_MAX_RERUNS still decides when set."""
    from dashboard import settings

    monkeypatch.delenv("ANONSET_MAX_RERUNS", raising=False)
    for cores, reruns in ((None, 1), (1, 1), (2, 1), (3, 1), (8, 4)):
        monkeypatch.setattr(settings.os, "cpu_count", lambda cores=cores: cores)
        assert settings.default_max_reruns() == reruns
        assert settings.load().max_reruns == reruns
    monkeypatch.setenv("ANONSET_MAX_RERUNS", "3")
    assert settings.load().max_reruns == 3
