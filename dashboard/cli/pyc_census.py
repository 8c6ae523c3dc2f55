"""``anonset pyc census``: the Pitman–Yor law fitted to the anonymity sets a census implies.

A scenario (the same options, and the same :class:`~dashboard.core.regions.Scenario`, as
``anonset cdf`` and the regional explorer) defines a partition of a country's population
into plausible cells; this prints its fitted (h, γ) and (d, α) and, at each gallery size n,
the population's exact correctness (galleries drawn without replacement) beside the law's.
It lives in its own module and attaches itself to the ``pyc`` command that
:mod:`dashboard.cli.pyc` creates (so it must come after it in ``COMMAND_MODULES``).
"""
from __future__ import annotations

import argparse
import math

import numpy as np

from dashboard.core import scaling as cp
from dashboard.core.text import format_count, format_number

from . import CliError, emit
from .regions import add_scenario_options, cache_root, scenario_from_args

#: Gallery sizes printed when --n is not given (the population itself is added).
DEFAULT_N = (1e3, 1e4, 1e6, cp.WORLD)


def _ns(values, records: int) -> np.ndarray:
    if not values:
        return np.unique(np.array([*DEFAULT_N, float(records)]))
    out = []
    for v in values:
        for part in str(v).split(","):
            part = part.strip().replace("_", "")
            if not part:
                continue
            try:
                x = float(part)
            except ValueError:
                raise CliError(f"--n {part!r} is not a number (give gallery sizes, e.g. --n 1e4 1e6)") from None
            if not math.isfinite(x) or x < 1:
                raise CliError(f"--n values must be gallery sizes of at least 1, not {part!r}")
            out.append(x)
    if not out:
        raise CliError("--n needs at least one gallery size")
    return np.array(out)


def run(args) -> int:
    scenario = scenario_from_args(args)
    if len(scenario.countries) != 1:
        raise CliError("give exactly one --country: the partition is of one population")
    code = scenario.countries[0]
    part = cp.census_partition(scenario, code, root=cache_root(args))
    ns = _ns(args.n, part.records)
    sc = cp.census_scaling(scenario, code, ns, root=cache_root(args))
    fit = sc.fit
    result = {
        "command": cp.to_cli(scenario, code, None if not args.n else ns),
        "partition": part.to_dict(),
        "fit": fit.to_dict(),
        "rows": sc.rows(),
    }
    return emit(result, args.json, _text)


def _fmt_n(n: float) -> str:
    return f"{n:,.0f}" if n < 1e8 and float(n).is_integer() else f"{n:.4g}"


def _text(r: dict) -> str:
    p, f = r["partition"], r["fit"]
    lines = [
        (f"{p['name']} ({p['country']}): {format_count(p['records'])} people in {p['sets']:,} anonymity sets "
         f"(plausible cells with at least one whole person; {p['cells']:,} cells, {p['zero_cells']:,} round to 0 "
         f"and hold {p['zero_mass']:,.0f} expected people)"),
        (f"  largest set {p['largest_set']:,}, {p['singletons']:,} sets of one, {p['distinct_sizes']:,} distinct "
         f"sizes; built in {p['seconds']:.2f} s"),
        (f"Pitman-Yor fit: h = {f['h_bits']:.4g} bits ({f['h_nats']:.4g} nats), gamma = {f['gamma']:.4g}"
         f"  <->  d = {f['d']:.6g}, alpha = {f['alpha']:.6g}"
         + (f" (finite support: {format_number(f['support'], 4)} sets)" if f["support"] is not None else "")
         + f"; {f['message']}"),
        f"{'n':>16} {'exact kappa':>12} {'PYC kappa':>10} {'PYC - exact':>12}",
    ]
    for row in r["rows"]:
        ex = row["kappa_exact"]
        if ex is None:
            lines.append(f"{_fmt_n(row['n']):>16} {'-':>12} {row['kappa_pyc']:>10.4f} {'-':>12}")
        else:
            lines.append(f"{_fmt_n(row['n']):>16} {ex:>12.4f} {row['kappa_pyc']:>10.4f} "
                         f"{row['kappa_pyc'] - ex:>+12.4f}")
    lines.append("exact: expected share of a gallery of n residents (drawn without replacement) that exact "
                 "matching identifies correctly; '-' beyond the population, where only the law extrapolates.")
    return "\n".join(lines)


def _pyc_actions(sub) -> argparse._SubParsersAction:
    parser = sub.choices.get("pyc")
    if parser is None:
        raise RuntimeError("dashboard.cli.pyc_census must follow dashboard.cli.pyc in COMMAND_MODULES")
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    raise RuntimeError("the pyc command has no actions to extend")


def add_parser(sub) -> None:
    c = _pyc_actions(sub).add_parser(
        "census", help="fit the law to the anonymity sets a census scenario implies; exact vs PYC kappa",
        description=("Each plausible district x sex x age x height x weight cell of the scenario is one "
                     "anonymity set of expected size CAS (rounded to whole people); the Pitman-Yor law is "
                     "fitted to their counts of counts (SPEC 3, 'From a census')."),
    )
    add_scenario_options(c)
    c.add_argument("--n", nargs="+", metavar="N",
                   help="gallery sizes (default 1e3 1e4 1e6 8e9 and the population itself)")
    c.set_defaults(func=run)
