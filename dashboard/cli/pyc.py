"""``anonset pyc kappa|fit|forecast``: the Pitman–Yor correctness law (SPEC §3) from a shell."""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from dashboard import forms
from dashboard.core import scaling
from dashboard.core.errors import InputError
from dashboard.core.text import format_number

from . import CliError, emit

#: Rows accepted in a ``--sizes`` file (give counts of counts, ``size,count``, for more).
MAX_ROWS = 1_000_000
#: k of the k-anonymity shares shown beside κ and Ξ.
K_SHOWN = (2, 5, 10)

_SPLIT = re.compile(r"[,;\t ]+")


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise CliError(f"{what} must be a number (got {text!r})") from None
    if not math.isfinite(value):
        raise CliError(f"{what} must be finite (got {text!r})")
    return value


def _fmt_n(n: float) -> str:
    return f"{n:,.0f}" if n < 1e8 and n == round(n) else f"{n:.4g}"


def _law_rows(n: np.ndarray, d: float, alpha: float, exact=None) -> list[dict]:
    """κ, Ξ and the k-anonymity violation shares at each n, one dict per n."""
    kap = scaling.kappa(n, d, alpha)
    xi = scaling.uniqueness(n, d, alpha)
    viol = {k: scaling.k_violations(n, d, alpha, k) for k in K_SHOWN}
    rows = []
    for i, nn in enumerate(n):
        row = {"n": float(nn), "kappa": float(kap[i]), "uniqueness": float(xi[i])}
        row.update({f"violates_{k}_anonymity": float(viol[k][i]) for k in K_SHOWN})
        if exact is not None:
            row["kappa_exact"] = exact[i]
        rows.append(row)
    return rows


def _rows_table(rows: list[dict]) -> list[str]:
    has_exact = any("kappa_exact" in r for r in rows)
    head = f"{'n':>16} {'kappa':>9}" + (f" {'exact':>9}" if has_exact else "")
    head += f" {'unique':>9}" + "".join(f" {f'<{k}-anon':>9}" for k in K_SHOWN)
    lines = [head]
    for r in rows:
        line = f"{_fmt_n(r['n']):>16} {r['kappa']:>9.4f}"
        if has_exact:
            ex = r.get("kappa_exact")
            line += f" {ex:>9.4f}" if ex is not None else f" {'-':>9}"
        line += f" {r['uniqueness']:>9.4f}"
        line += "".join(f" {r[f'violates_{k}_anonymity']:>9.4f}" for k in K_SHOWN)
        lines.append(line)
    return lines


# ------------------------------------------------------------------ kappa


def _kappa(args) -> int:
    h_bits = _number(args.h_bits, "--h-bits")
    gamma = _number(args.gamma, "--gamma")
    n = np.array([_number(v, "--n") for v in args.n])
    d, alpha = scaling.from_h_gamma(scaling.bits_to_nats(h_bits), gamma)
    result = {
        "h_bits": h_bits, "h_nats": scaling.bits_to_nats(h_bits), "gamma": gamma,
        "d": d, "alpha": alpha, "rows": _law_rows(n, d, alpha),
    }
    return emit(result, args.json, _format_kappa)


def _format_kappa(r: dict) -> str:
    lines = [(f"PYC law: h = {r['h_bits']:g} bits ({r['h_nats']:.4g} nats), gamma = {r['gamma']:g}"
              f"  ->  d = {r['d']:.6g}, alpha = {r['alpha']:.6g}")]
    lines += _rows_table(r["rows"])
    lines.append("kappa: expected correctness of exact matching; unique: share alone in its set; "
                 "<k-anon: share in sets smaller than k")
    return "\n".join(lines)


# ------------------------------------------------------------------ fit


def read_sizes(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """Set sizes from a text/CSV file: one size per line, or two columns ``size,count``.

    Separators: comma, semicolon, tab or spaces; blank lines and ``#`` comments are skipped;
    a first line without any number is taken as a header.  At most :data:`MAX_ROWS` rows.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"no such file: {path}")
    sizes, counts = [], []
    columns = None
    header_allowed = True
    with path.open("r", encoding="utf-8-sig", errors="replace") as fh:
        for lineno, raw in enumerate(fh, start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            cells = [c for c in _SPLIT.split(line) if c]
            values = []
            for c in cells:
                try:
                    values.append(float(c))
                except ValueError:
                    values.append(None)
            if header_allowed and all(v is None for v in values):
                header_allowed = False
                continue
            header_allowed = False
            bad = [c for c, v in zip(cells, values) if v is None]
            if bad:
                raise InputError(f"{path.name}, line {lineno}: {bad[0]!r} is not a number")
            if len(values) not in (1, 2):
                raise InputError(f"{path.name}, line {lineno}: expected one column (size) or two "
                                 f"(size,count), found {len(values)}")
            if columns is None:
                columns = len(values)
            elif len(values) != columns:
                raise InputError(f"{path.name}, line {lineno}: {len(values)} column(s) where earlier "
                                 f"lines have {columns}")
            if len(sizes) >= MAX_ROWS:
                raise InputError(f"{path.name} has more than {MAX_ROWS:,} rows; give counts of "
                                 "counts instead (two columns: size,count)")
            sizes.append(values[0])
            counts.append(values[1] if columns == 2 else 1.0)
    if not sizes:
        raise InputError(f"{path.name} contains no set sizes")
    return np.array(sizes), np.array(counts)


def _fit(args) -> int:
    sizes, counts = read_sizes(args.sizes)
    fit = scaling.fit_partition(sizes, counts)
    big_n = float(fit.n_records)
    n = (np.array([_number(v, "--n") for v in args.n]) if args.n
         else np.array([big_n, 10 * big_n, 100 * big_n]))
    if n.size and n.min() < 1:
        raise CliError("--n must be at least 1")
    inside = n <= big_n
    exact = [None] * n.size
    if inside.any():
        vals = scaling.kappa_finite_population(n[inside], sizes, counts)
        for i, v in zip(np.flatnonzero(inside), np.atleast_1d(vals)):
            exact[i] = float(v)
    result = {"file": str(args.sizes), "fit": fit.to_dict(),
              "rows": _law_rows(n, fit.d, fit.alpha, exact)}
    return emit(result, args.json, _format_fit)


def _format_fit(r: dict) -> str:
    f = r["fit"]
    lines = [
        f"{r['file']}: {f['n_records']:,} records in {f['n_sets']:,} sets",
        f"Pitman-Yor fit: d = {f['d']:.6g}, alpha = {f['alpha']:.6g}"
        + (f" (finite support: {format_number(f['support'], 4)} sets)" if f["support"] is not None else ""),
        (f"  entropy h = {f['h_bits']:.4g} bits ({f['h_nats']:.4g} nats), tail complexity "
         f"gamma = {f['gamma']:.4g}, log-likelihood = {f['log_likelihood']:.6g} ({f['message']})"),
    ]
    lines += _rows_table(r["rows"])
    lines.append("exact: this population's own correctness for galleries drawn without "
                 "replacement (n up to its size)")
    return "\n".join(lines)


# ------------------------------------------------------------------ forecast


def _points_from_csv(path: str) -> tuple[np.ndarray, np.ndarray]:

    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"--csv: cannot read {path}: {exc.strerror if isinstance(exc, OSError) else 'not UTF-8 text'}") \
            from None
    rows = forms.points_from_lines(text.splitlines(), Path(path).name)
    return forms.rows_to_points(rows)


def _forecast(args) -> int:
    n, k = _points_from_csv(args.csv) if args.csv else scaling.parse_points(args.points)
    at = np.array([_number(v, "--at") for v in args.at])
    if args.holdout is None:
        holdout = 1 if n.size >= 3 else 0
    else:
        value = _number(args.holdout, "--holdout")
        if value != int(value) or value < 0:
            raise CliError(f"--holdout must be a whole number of 0 or more (got {args.holdout!r})")
        holdout = int(value)
    fc = scaling.forecast((n, k), at=at, holdout=holdout)
    return emit(fc.to_dict(), args.json, _format_forecast)


def _params_text(name: str, p: dict) -> str:
    if not p:
        return ""
    if name == "PYC-MB":
        return (f"h = {p['h_bits']:.4g} bits, gamma = {p['gamma']:.4g} "
                f"(d = {p['d']:.4g}, alpha = {format_number(p['alpha'], 4)})")
    if name == "ENT":
        return f"h = {p['h_bits']:.4g} bits (K = {format_number(p['K'], 4)} sets)"
    if name == "EXP":
        return f"c = {p['c']:.4g}, lambda = {format_number(p['lambda'], 4)}"
    return f"a = {p['a']:.4g}, b = {p['b']:.4g}"


def _format_forecast(r: dict) -> str:
    pts = r["points"]
    at = np.asarray(r["at"], dtype=float)
    lines = [(f"{len(pts['n'])} measurements, n = {_fmt_n(float(pts['n'][0]))} ... "
              f"{_fmt_n(float(pts['n'][-1]))}; fitted by least squares with weights ln(n)")]
    head = f"{'model':<7} " + "".join(f" {'kappa(' + _fmt_n(a) + ')':>18}" for a in at)
    head += f" {'rmse':>9}  parameters"
    lines.append(head)
    for name, m in r["models"].items():
        pred = r["predictions"][name]
        if pred is None:
            lines.append(f"{name:<7}  not available: {m['reason']}")
            continue
        line = f"{name:<7} " + "".join(f" {v:>18.4f}" for v in pred)
        line += f" {m['rmse']:>9.2g}  {_params_text(name, m['params'])}"
        lines.append(line)
        if m.get("note"):
            lines.append(f"{'':<8}note: {m['note']}")
    band = r["band"]
    if band["available"]:
        lines.append("PYC-MB band " + ", ".join(
            f"n = {_fmt_n(a)}: [{lo:.4f}, {hi:.4f}]"
            for a, lo, hi in zip(at, band["lower"], band["upper"])))
        lines.append(f"  ({band['method']})")
    else:
        lines.append(f"PYC-MB band not available: {band['reason']}")
    if r["holdout"]:
        first = next(iter(r["holdout"].values()))
        held = ", ".join(_fmt_n(float(x)) for x in first["n"])
        lines.append(f"Held out n = {held} (fitted on the smaller n):")
        notes = []
        for name, h in r["holdout"].items():
            if h["available"]:
                lines.append(f"  {name:<7} RMSE {100 * h['rmse']:.2f} percentage points")
                for part in (h.get("note") or "").split("; "):
                    if part and part not in notes:
                        notes.append(part)
            else:
                lines.append(f"  {name:<7} not available: {h['reason']}")
        lines += [f"  Note: {n}." for n in notes]
    lines.append("EXP and POL are our forms (the paper's supplement, which defines its own, is "
                 "not available).")
    return "\n".join(lines)


# ------------------------------------------------------------------ parser


def add_parser(sub) -> None:
    p = sub.add_parser("pyc", help="Pitman-Yor correctness law: kappa(n), fits, forecasts")
    psub = p.add_subparsers(dest="pyc_command", metavar="ACTION")
    psub.required = True

    k = psub.add_parser("kappa", help="kappa, uniqueness and k-anonymity violations at given n")
    k.add_argument("--h-bits", required=True, help="entropy h in bits")
    k.add_argument("--gamma", required=True, help="tail complexity gamma (any real; < 0: finite support)")
    k.add_argument("--n", required=True, nargs="+", metavar="N", help="gallery sizes")
    k.add_argument("--json", action="store_true", help="machine-readable output")
    k.set_defaults(func=_kappa)

    f = psub.add_parser("fit", help="Pitman-Yor likelihood fit to observed anonymity-set sizes")
    f.add_argument("--sizes", required=True, metavar="FILE",
                   help=f"text/CSV: one set size per line, or size,count (at most {MAX_ROWS:,} rows)")
    f.add_argument("--n", nargs="+", metavar="N",
                   help="gallery sizes to predict at (default: the records, 10x and 100x)")
    f.add_argument("--json", action="store_true", help="machine-readable output")
    f.set_defaults(func=_fit)

    fc = psub.add_parser("forecast", help="extrapolate measured correctness (PYC-MB, ENT, EXP, POL)")
    given = fc.add_mutually_exclusive_group(required=True)
    given.add_argument("--points", help='measurements "n:kappa,n:kappa,...", e.g. "100:0.99,1000:0.80"')
    given.add_argument("--csv", metavar="FILE", help="measurements from a CSV file with columns n,kappa "
                                                     "(up to 10,000; the web page fits at most 1,000)")
    fc.add_argument("--at", required=True, action="append", metavar="N",
                    help="gallery size to forecast (repeatable)")
    fc.add_argument("--holdout", default=None,
                    help="largest-n points held out for scoring (default 1 with 3+ points)")
    fc.add_argument("--json", action="store_true", help="machine-readable output")
    fc.set_defaults(func=_forecast)
