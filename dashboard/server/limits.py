"""The cost model of one request: what a page computes while a person waits, and where it stops.

A worker serves many people; one request must not hold it (or the machine's memory) for
seconds.  Every view that computes on a person's request checks its cost here *before*
computing, and a request beyond a limit is refused with a message that says the limit and
how to get the answer anyway — the exact ``anonset`` command, which has no such limit.

=============================  =======================================  ======================
limit                          what it bounds                            value
=============================  =======================================  ======================
:data:`MAX_DATASETS`           data sets one scenario compares           12
:data:`MAX_BAND_CELLS`         Σ over data sets of age groups × height   2,000,000
                               bands × weight bands (the joint grids a
                               scenario builds; ~1 s of one core)
:data:`MAX_DISTRICT_CELLS`     districts × age groups × height bands ×   500 million
                               weight bands of the *first* data set (its
                               map, district table, census view)
:data:`MAX_FORECAST_POINTS`    measurements one forecast fits            1,000
AnonLand (views.anonland)      people per rerun, test citizens, reruns   10,250,000 / 400 per
                               running at once *per server*              class / 2
:data:`CALLBACK_BUDGET_S`      a callback slower than this is logged     2 s
:func:`heavy_slot`             bucket advice, attack runs and data-set   1 at once per server;
                               analyses not yet in memory (1–9 s of CPU  busy → refused at once
                               each); explorer curves over more than
                               :data:`HEAVY_SCENARIO_CELLS` band cells
                               (:func:`scenario_slot`)
:func:`report_slot`            reports (0.5–3 s of CPU, 5–12 MB each,    1 at once per server;
                               apart from the analysis they show)        busy 2 s → refused
=============================  =======================================  ======================

The band-cell count is the measured driver of a scenario's cost (joint band probabilities
and profile cells per sex × age group).  Measured on this project's shared 2-core machine
under heavy load (so several times slower than a quiet core): a million cells took 1.3 s
with the paper's body model and 2.5–4 s with the v2 model (bivariate normal rectangles);
a quiet core is 3–5 times faster.  The limit allows e.g. three data sets at 1 cm × 1 kg,
twelve at 2 cm × 2 kg or every data set at
5 cm × 5 kg.  Views over every district of one data set (the explorer's map and district
table, the scaling page's census partition) also scale with the districts: US counties at
1 cm × 1 kg (3.3 billion district cells) took 5 s, Germany's 400 districts (0.2 billion) 1 s,
so the first data set of a scenario is held to :data:`MAX_DISTRICT_CELLS` (US at 5 cm × 5 kg,
Germany at 1 cm × 1 kg).  Cached answers cost nothing, but the limit does not depend on the cache: the
same request is always allowed or always refused.

New pages: estimate with :func:`scenario_cells` (or a cost of your own), refuse with
:class:`CostError` (an :class:`~dashboard.core.errors.InputError`, so the page shows its
message like any other input problem).
"""
from __future__ import annotations

import logging
import os
import shlex
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager

from dashboard.core.body import BAND_WIDTHS
from dashboard.core.country import load_country_model
from dashboard.core.errors import InputError
from dashboard.core.text import format_count, local_number, ngettext
from dashboard.core.text import gettext as _

from . import cache as cache_module
from . import jobs

#: Data sets one scenario may compare (the explorer's curves; each data set is one more bound grid).
MAX_DATASETS = 12
#: Σ over the scenario's data sets of (age groups × height bands × weight bands).  2.5 million since issue 27: the
#: NCD-RisC priors' weight grids reach further into the right tail (~650k cells a data set at 1 cm × 1 kg, ~530k
#: with Germany's table), and three data sets at 1 cm × 1 kg stay allowed.
MAX_BAND_CELLS = 2_500_000
#: Districts × age groups × height bands × weight bands of a scenario's first data set (map, census view).
MAX_DISTRICT_CELLS = 500_000_000
#: Measurements one forecast on the page may fit (the CLI takes up to pyc_fit.MAX_POINTS).
MAX_FORECAST_POINTS = 1_000
#: A callback that takes longer than this is logged (class and outputs only) as over its budget.
CALLBACK_BUDGET_S = 2.0
#: Expensive page computations not yet in memory (bucket advice, attack runs, data-set analyses) that
#: the whole server runs at once (``ANONSET_HEAVY_AT_ONCE``).  A request finding them all busy is refused at
#: once (HEAVY_WAIT_S): a worker thread waiting for seconds is the stall the cost model exists to prevent.
HEAVY_AT_ONCE = 1
HEAVY_WAIT_S = 0.0
#: A scenario with more band cells than this (about a second of one core and up) goes through a heavy slot.
HEAVY_SCENARIO_CELLS = 500_000

LOG = logging.getLogger("anonset.limits")


class CostError(InputError):
    """A request beyond a cost limit; the message says the limit and the command that has none."""


def _millions(x: float, beside: float | None = None) -> str:
    """"2.5 million"; with more decimals when one decimal would read as equal to ``beside`` (a limit)."""
    digits = 1
    while beside is not None and digits < 4 and round(x / 1e6, digits) == round(beside / 1e6, digits):
        digits += 1
    return _("{number} million").format(number=local_number(f"{x / 1e6:.{digits}f}".rstrip("0").rstrip(".")))


def band_cells(code: str, ages: Sequence[float], height_width: float, weight_width: float) -> int:
    """Age groups × height bands × weight bands of one data set's joint grid (cheap: grids are memoised)."""
    model = load_country_model(code, tuple(ages))
    n_age = model.counts.shape[2]
    return int(n_age * model.grid("height", height_width).n * model.grid("weight", weight_width).n)


def district_cells(code: str, ages: Sequence[float], height_width: float, weight_width: float,
                   include_body: bool = True) -> int:
    """Districts × age groups (× height bands × weight bands with body measurements) of one data set."""
    model = load_country_model(code, tuple(ages))
    n_d, _, n_age = model.counts.shape
    if not include_body:
        return int(n_d * n_age)
    return int(n_d * band_cells(code, ages, height_width, weight_width))


def scenario_cells(scenario) -> int:
    """The band cells a scenario builds over all its data sets (0 without height × weight)."""
    if not scenario.include_body:
        return 0
    return sum(band_cells(code, scenario.ages, scenario.height_width, scenario.weight_width)
               for code in scenario.countries)


def check_scenario(scenario, command: str | None = None, *, what: str | None = None) -> None:
    """Refuse (CostError) a scenario beyond :data:`MAX_DATASETS` or :data:`MAX_BAND_CELLS`.

    ``command`` is the ``anonset`` command that computes the same without a limit
    (default: the scenario's ``anonset cdf`` command).
    """
    cmd = command or scenario.to_cli("cdf")
    what = what or _("This scenario")
    n = len(scenario.countries)
    if n > MAX_DATASETS:
        raise CostError(_("{what} compares {n} data sets; the page compares at most {limit} at once. Choose fewer, "
                          "or compute them all with: {command}").format(what=what, n=n, limit=MAX_DATASETS,
                                                                        command=cmd))
    first = scenario.countries[0]
    per_district = district_cells(first, scenario.ages, scenario.height_width, scenario.weight_width,
                                  scenario.include_body)
    if per_district > MAX_DISTRICT_CELLS:
        hw, ww = scenario.height_width, scenario.weight_width
        raise CostError(_(
            "{what}: {code} at {height} cm × {weight} kg has {cells} billion district × age × height × weight cells; "
            "the page computes at most {limit} billion for one data set's districts (e.g. Germany at 1 cm × 1 kg, "
            "the US counties at 5 cm × 5 kg). Choose wider bands, or compute it with: {command}").format(
            what=what, code=first, height=local_number(f"{hw:g}"), weight=local_number(f"{ww:g}"),
            cells=local_number(f"{per_district / 1e9:.1f}"), limit=local_number(f"{MAX_DISTRICT_CELLS / 1e9:g}"),
            command=command or scenario.replace(countries=(first,)).to_cli("districts")))
    cells = scenario_cells(scenario)
    if cells > MAX_BAND_CELLS:
        hw, ww = scenario.height_width, scenario.weight_width
        wider = next((w for w in BAND_WIDTHS if w > min(hw, ww) and scenario_cells(
            scenario.replace(height_width=float(max(w, hw)), weight_width=float(max(w, ww)))) <= MAX_BAND_CELLS), None)
        hint = (_("At {height} cm × {weight} kg these data sets fit; choose wider bands or fewer data sets").format(
                    height=local_number(f"{max(wider, hw):g}"), weight=local_number(f"{max(wider, ww):g}"))
                if wider is not None else _("Choose fewer data sets"))
        raise CostError(ngettext(
            "{what} needs {cells} height × weight cells ({n} data set at {height} cm × {weight} kg); the page "
            "computes at most {limit} per request (how many cells a data set needs depends on how spread its heights "
            "and weights are). {hint}, or compute it with: {command}",
            "{what} needs {cells} height × weight cells ({n} data sets at {height} cm × {weight} kg); the page "
            "computes at most {limit} per request (how many cells a data set needs depends on how spread its heights "
            "and weights are). {hint}, or compute it with: {command}", n).format(
            what=what, cells=_millions(cells, MAX_BAND_CELLS), n=n, height=local_number(f"{hw:g}"),
            weight=local_number(f"{ww:g}"), limit=_millions(MAX_BAND_CELLS), hint=hint, command=cmd))


def check_points(n_points: int, what: str | None = None) -> None:
    """Refuse a forecast of more than :data:`MAX_FORECAST_POINTS` measurements (the CLI fits up to 10,000)."""
    if n_points > MAX_FORECAST_POINTS:
        what = what or _("The forecast")
        raise CostError(_("{what} has {count} measurements; the page fits at most {limit}. Fit them all with: "
                          "{command} (a CSV with columns n,kappa)").format(
            what=what, count=format_count(n_points), limit=format_count(MAX_FORECAST_POINTS),
            command="anonset pyc forecast --csv points.csv --at 1e9"))


def anonland_command(scale: float, epsilon: float, height_width: float, weight_width: float,
                     citizens_per_class: int, seed: int, model: str = "v2") -> str:
    """The ``anonset anonland`` command for a rerun's parameters (the CLI runs any size)."""
    args = ["anonset", "anonland", "--scale", f"{scale:g}", "--epsilon", f"{epsilon:g}",
            "--height-width", f"{height_width:g}", "--weight-width", f"{weight_width:g}",
            "--test-citizens", str(int(citizens_per_class) * 5), "--seed", str(int(seed)), "--model", model]
    return shlex.join(args)


def heavy_at_once() -> int:
    try:
        return max(1, int(os.environ.get("ANONSET_HEAVY_AT_ONCE", HEAVY_AT_ONCE)))
    except ValueError:
        return HEAVY_AT_ONCE


class ProcessSlots:
    """The heavy slots of this process alone: what still holds when the server's shared slots cannot
    (a cache folder that cannot be written, Redis down).  Each worker then runs at most
    ``heavy_at_once()`` such computations: the limit is looser (per worker, not per server) but never gone."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._size = 0
        self._semaphore: threading.BoundedSemaphore | None = None

    def acquire(self, n: int, timeout: float) -> threading.BoundedSemaphore | None:
        with self._lock:
            if self._semaphore is None or self._size != n:
                self._semaphore, self._size = threading.BoundedSemaphore(n), n
            semaphore = self._semaphore
        return semaphore if semaphore.acquire(timeout=max(0.0, timeout)) else None


PROCESS_SLOTS = ProcessSlots()
#: Cold public tables (about a second each) have their own pool: they never queue behind a 9-second bucket
#: advice, nor an advice behind them.  A request waits up to :data:`TABLE_WAIT_S` for a free slot.
TABLE_POOL = "tables"
TABLE_WAIT_S = 3.0
TABLE_PROCESS_SLOTS = ProcessSlots()
#: Reports (0.5–3 s of CPU and a 5–12 MB answer each, on top of any analysis they take a heavy slot for) have a
#: pool of their own, so that a hall of people pressing "Download report" cannot take every core.  Its slot is
#: taken first and the analysis's heavy slot inside it: the two pools never wait on each other in reverse order.
REPORT_POOL = "reports"
REPORT_WAIT_S = 2.0
REPORT_PROCESS_SLOTS = ProcessSlots()
_OWN_SLOTS = {"heavy": PROCESS_SLOTS, TABLE_POOL: TABLE_PROCESS_SLOTS, REPORT_POOL: REPORT_PROCESS_SLOTS}


def _busy(what: str, command: str) -> CostError:
    return CostError(ngettext(
        "{what} is not in the server's memory yet, and the server is busy computing another visitor's request (it "
        "runs {n} such computation at a time, so that every other page stays fast). Please try again in a few "
        "seconds, or compute it on your machine with: {command}",
        "{what} is not in the server's memory yet, and the server is busy computing another visitor's request (it "
        "runs {n} such computations at a time, so that every other page stays fast). Please try again in a few "
        "seconds, or compute it on your machine with: {command}", heavy_at_once()).format(
        what=what, n=heavy_at_once(), command=command))


@contextmanager
def heavy_slot(what: str, command: str, wait_s: float | None = None, pool: str = "heavy") -> Iterator[None]:
    """Run a seconds-long computation in one of the server's few heavy slots (all workers together).

    A bucket advice or an attack run costs 1–9 s of CPU on this class of machine; several at once
    would stall every other visitor.  The request waits up to ``wait_s`` for a free slot (waiting
    costs no CPU), then is refused with a CostError naming the command that computes the same on
    the visitor's machine (``wait_s`` default: :data:`HEAVY_WAIT_S`).  When the cache cannot hold the
    shared slots, the limit fails closed: this process's own slots (:data:`PROCESS_SLOTS`) apply.
    ``pool`` names the set of slots (:data:`TABLE_POOL`: cold public tables, apart from the analyses;
    :data:`REPORT_POOL`: reports, see :func:`report_slot`).
    """
    if pool not in _OWN_SLOTS:
        raise ValueError(f"unknown pool {pool!r}; use one of {sorted(_OWN_SLOTS)}")
    own = _OWN_SLOTS[pool]
    deadline = time.monotonic() + (HEAVY_WAIT_S if wait_s is None else wait_s)
    slot = None
    while slot is None:
        try:
            slot = jobs.acquire_slot(pool, heavy_at_once())
        except cache_module.CacheFault as exc:
            LOG.warning("shared heavy slots unavailable (%s): this process's own slots apply", exc)
            local = own.acquire(heavy_at_once(), deadline - time.monotonic())
            if local is None:
                raise _busy(what, command) from None
            try:
                yield
            finally:
                local.release()
            return
        if slot is None:
            if time.monotonic() >= deadline:
                raise _busy(what, command)
            time.sleep(0.1)
    try:
        yield
    finally:
        slot.release()


def report_slot(command: str) -> AbstractContextManager[None]:
    """The slot a report is rendered in (:data:`REPORT_POOL`; busy for :data:`REPORT_WAIT_S` → a CostError naming
    ``command``, the ``anonset report …`` line that writes the same file on the visitor's machine)."""
    return heavy_slot(_("This report"), command, wait_s=REPORT_WAIT_S, pool=REPORT_POOL)


def limits_table() -> list[dict]:
    """The limits as rows (for the README, the about page or ``anonset`` output)."""
    return [
        {"limit": "data sets per scenario", "value": MAX_DATASETS},
        {"limit": "height × weight cells per request", "value": MAX_BAND_CELLS},
        {"limit": "district cells of the first data set", "value": MAX_DISTRICT_CELLS},
        {"limit": "measurements per forecast", "value": MAX_FORECAST_POINTS},
        {"limit": "callback time budget (s)", "value": CALLBACK_BUDGET_S},
        {"limit": "expensive computations at once per server", "value": heavy_at_once()},
    ]



@contextmanager
def scenario_slot(scenario, what: str = "This scenario") -> Iterator[None]:
    """A heavy slot for a scenario over :data:`HEAVY_SCENARIO_CELLS` band cells (the explorer's curves for many
    data sets at fine bands: seconds of CPU), nothing for a cheaper one; busy → the CostError of :func:`heavy_slot`
    with the scenario's ``anonset cdf`` command."""
    if scenario_cells(scenario) <= HEAVY_SCENARIO_CELLS:
        yield
        return
    with heavy_slot(what, scenario.to_cli("cdf")):
        yield
