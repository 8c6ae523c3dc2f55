"""The non-personal tables the personal page combines in the browser (issue 15).

A person's answers never reach the server: the server hands every visitor the
same tables for a data set, body model and pair of band widths, and
``assets/anonset_engine.js`` does the lookups, multiplications and sums of
:mod:`dashboard.core.personal` on them.  Everything here is public statistics or a
number the body model computes for *every* band — no profile goes in.

What a table holds (:func:`public_tables`, a JSON-ready dict):

* the data set: district ids, names, regions, filled flags; the census age groups
  of the study population (trimmed as SPEC §1.1) with their ``share``; the census
  counts of the kept groups ``[district][sex][age]`` (the browser multiplies by
  ``share`` exactly as :meth:`CountryModel._restricted` does);
* the body model: the mixture weights ``W[sex][age][body group]``, the body
  groups' means and SDs (to choose the range of the what-if bands, as the core
  does), the nearest-group notes, and for every height and weight **interval** a
  page can ask about — every band of the chosen width between the input limits,
  every 5-wide band (the what-if width of a withheld attribute), and every widened
  band (:func:`body_model.widen_band`) — the probability of each body group,
  computed by the model's own :meth:`CountryModel.group_interval` (bitwise the
  numbers the core multiplies);
* the auxiliary presets as fraction arrays on the model's grid (with their gaps
  and notes);
* the constants of the interface (limits, widths, BMI range, advice targets).

Numbers are float64 written with ``repr`` precision (JSON numbers), so the
browser's results equal the core's to rounding (the parity test checks 1e-9).
"""
from __future__ import annotations

import hashlib
import json
import math
from functools import lru_cache
from pathlib import Path

import numpy as np

import census_loaders as cl
from census_loaders.paths import cache_dir

from .. import memo
from ..body import (
    ADULT_HEIGHT_LIMITS,
    BAND_LIMITS,
    BAND_WIDTHS,
    DEFAULT_BMI_RANGE,
    DEFAULT_MODEL,
    MODELS,
    PROFILE_SDS,
    self_report_offsets,
    widen_band,
)
from ..country import CountryModel, census_source, load_country_model, preset_array
from ..errors import InputError
from ..groups import SEXES, open_group_end
from ..parsing import DEFAULT_WIDTH
from ..text import DEFAULT_LANGUAGE, language, plural
from ._profile import DEFAULT_KS

TABLE_VERSION = 1
#: Body models the browser engine can combine: ``paper`` (SPEC §1.1) multiplies each body
#: group's height and weight probabilities, which the interval tables give exactly.  v2
#: (SPEC §1.6) correlates them, so it needs a joint table per pair of intervals; until the
#: tables carry one, the page offers the paper model only (and says so).
ENGINE_MODELS: tuple[str, ...] = ("v2", "paper")


def available_models() -> tuple[str, ...]:
    """The body models both the core and the browser engine offer."""
    return tuple(m for m in MODELS if m in ENGINE_MODELS) or ("paper",)


def default_model() -> str:
    core_default = DEFAULT_MODEL
    return core_default if core_default in available_models() else available_models()[0]


def check_params(code: str, model: str | None, hw, ww, codes, sr=None) -> tuple[str, str, int, int, bool]:
    """Validate a table request; InputError with a message naming the bad parameter.

    ``sr`` (``1``/``0``): the v2 self-report correction (SPEC §1.6); it has no effect on the
    paper model or on measured statistics, so it is normalised to ``False`` there (one table).
    """
    if code not in codes:
        raise InputError(f"unknown data set {str(code)[:40]!r}")
    model = default_model() if model in (None, "") else str(model).strip().lower()
    if model not in available_models():
        raise InputError(f"unknown body model {model[:20]!r}: use {' or '.join(available_models())}")
    widths = []
    for name, value in (("hw", hw), ("ww", ww)):
        if value in (None, ""):
            widths.append(DEFAULT_WIDTH)
            continue
        try:
            w = float(value)
        except (TypeError, ValueError):
            raise InputError(f"{name} {str(value)[:20]!r} is not a number") from None
        if w not in BAND_WIDTHS:
            raise InputError(f"{name} {w:g} is not one of the band widths {', '.join(map(str, BAND_WIDTHS))}")
        widths.append(int(w))
    if sr in (None, "", "0", 0, False):
        correct = False
    elif sr in ("1", 1, True):
        correct = model == "v2" and _self_reported(code)
    else:
        raise InputError(f"sr {str(sr)[:20]!r} must be 1 (correct self-reported body statistics) or 0")
    return code, model, widths[0], widths[1], correct


def _self_reported(code: str) -> bool:
    return bool(load_country_model(code).body.self_reported)


def _num(x: float):
    """A JSON-ready number: whole floats as ints (shorter), others as floats (repr precision)."""
    x = float(x)
    if not math.isfinite(x):
        return None
    if x.is_integer() and abs(x) < 2**53:
        return int(x)
    return x


def _key(lo: float, hi: float) -> str:
    return f"{lo:g},{hi:g}"


def band_intervals(kind: str, width: int) -> list[tuple[float, float]]:
    """Every interval a page with this ``width`` may ask the probability of (see the module notes)."""
    lo_lim, hi_lim = BAND_LIMITS[kind]
    out: dict[str, tuple[float, float]] = {}

    def grid(w: float):
        start = math.ceil(lo_lim / w) * w
        return [(float(s), float(s + w)) for s in np.arange(start, hi_lim - 1e-9, w)]

    for w in sorted({width, DEFAULT_WIDTH}):
        for band in grid(w):
            out[_key(*band)] = band
    for band in grid(width):
        for wider in BAND_WIDTHS:
            if wider <= width:
                continue
            nb = widen_band(band, wider)
            out[_key(*nb)] = nb
    return sorted(out.values())


def _interval_table(model: CountryModel, kind: str, width: int) -> dict:
    bands = band_intervals(kind, width)
    return {_key(*b): [float(x) for x in model.group_interval(kind, b)] for b in bands}


def _edges(kind: str, width: int) -> list[float]:
    """Every finite edge of :func:`band_intervals` (ascending)."""
    return sorted({x for band in band_intervals(kind, width) for x in band})


def _joint_cdf_table(model: CountryModel, hw: int, ww: int) -> dict | None:
    """v2: each body group's slice of :meth:`CountryModel.v2_cdf` the page's bands need.

    ``edges[kind]`` lists every finite edge a band of the page may have; per group,
    ``h[i]`` / ``w[j]`` give the row / column of ``F`` (``nh × nw``, row-major) for edge
    ``i`` / ``j`` — an edge beyond the group's range maps to the −∞ row (0) or the +∞ row
    (last), as in the core — and a withheld band is rows 0 … last.  The browser differences
    these numbers exactly as the core does, so a v2 cell has the same bits on both sides.
    """
    if not getattr(model, "is_v2", False):
        return None
    eh, ew = _edges("height", hw), _edges("weight", ww)
    groups = []
    for g in range(len(model.body)):
        full = model.v2_cdf(g)
        rows = model.v2_rows("height", g, eh)
        cols = model.v2_rows("weight", g, ew)
        if rows is None or cols is None:  # every page edge is a whole unit: cannot happen
            raise RuntimeError(f"{model.code}: a band edge is off the v2 grid")
        keep_r = np.unique(np.concatenate([[0, full.shape[0] - 1], rows]))
        keep_c = np.unique(np.concatenate([[0, full.shape[1] - 1], cols]))
        sub = full[np.ix_(keep_r, keep_c)]
        groups.append({
            "h": np.searchsorted(keep_r, rows).tolist(), "w": np.searchsorted(keep_c, cols).tolist(),
            "nh": int(len(keep_r)), "nw": int(len(keep_c)), "F": [float(x) for x in sub.ravel()],
        })
    return {"edges": {"height": [_num(x) for x in eh], "weight": [_num(x) for x in ew]}, "groups": groups}


def public_tables(code: str, model: str = "paper", hw: int = DEFAULT_WIDTH, ww: int = DEFAULT_WIDTH,
                  root: Path | None = None, self_report_correction: bool = False) -> dict:
    """The tables of one data set, body model and pair of widths (see the module notes);
    ``self_report_correction`` is the v2 option (SPEC §1.6).  Shared by every visitor, so written in English
    whatever the request's language (the page says its notes in its own: ``self_report_offsets``)."""
    with language(DEFAULT_LANGUAGE):
        return _public_tables(code, model, hw, ww, root, self_report_correction)


def _public_tables(code: str, model: str, hw: int, ww: int, root: Path | None, self_report_correction: bool) -> dict:
    m = load_country_model(code, root=root).with_model(model, self_report_correction=self_report_correction)

    info = cl.dataset_info(code) if root is None else {}
    kept = [m.census_groups.index((g.census_lo, g.census_hi)) for g in m.age_groups]
    cc = m.census_counts[:, :, kept]
    region_ids, region_index = np.unique(np.asarray(m.region_ids, dtype=str), return_inverse=True)
    first = {}
    for d, r in enumerate(region_index.tolist()):
        first.setdefault(r, d)
    ages = []
    for g in m.age_groups:
        ages.append({
            "label": g.label, "lo": _num(g.lo), "hi": _num(g.hi), "census_lo": _num(g.census_lo),
            "census_hi": _num(g.census_hi), "share": g.share, "trimmed": g.trimmed,
            "span_hi": _num(open_group_end(g.lo) if math.isinf(g.hi) else g.hi),
        })
    ns, na = len(SEXES), len(m.age_groups)
    nearest_notes = [[m.body_mapping_note(s, a) if m.nearest_body[s, a] else None for a in range(na)] for s in range(ns)]
    nearest_parts = [[m.body_mapping_parts(s, a) if m.nearest_body[s, a] else None for a in range(na)]
                     for s in range(ns)]
    aux = []
    for t in (cl.auxiliary_tables(code) if root is None else []):
        fa = preset_array(m, t["id"])
        aux.append({
            "id": fa.id, "name": fa.name, "note": fa.note, "shape": list(fa.f.shape),
            "f": [_num(x) for x in fa.f.ravel()], "gaps": list(fa.gaps),
        })
    hm, hs = m.body.params("height")
    wm, ws = m.body.params("weight")
    prior = info.get("body_prior", {}) if info else {}
    return {
        "version": TABLE_VERSION,
        "code": m.code,
        "name": m.name,
        "model": m.body_model,
        "self_report_correction": bool(m.self_report_correction and m.body.self_reported),
        "self_reported": bool(m.body.self_reported),
        "hw": hw,
        "ww": ww,
        "study": [_num(m.study[0]), _num(m.study[1])],
        "district_label": m.district_label,
        "district_label_plural": plural(m.district_label),
        "region_label": m.region_label,
        "districts": {
            "ids": [str(x) for x in m.district_ids],
            "names": [str(x) for x in m.district_names],
            "region": region_index.tolist(),
            "filled": [int(x) for x in m.filled],
        },
        "regions": {"ids": region_ids.tolist(), "names": [str(m.region_names[first[r]]) for r in range(len(region_ids))]},
        "ages": ages,
        "census_counts": [_num(x) for x in cc.ravel()],
        "body": {
            "n": len(m.body),
            "weights": [float(x) for x in m.body_weights.ravel()],
            "nearest": [[bool(x) for x in row] for row in m.nearest_body],
            "nearest_notes": nearest_notes,
            "nearest_parts": nearest_parts,
            "height_mean": [float(x) for x in hm], "height_sd": [float(x) for x in hs],
            "weight_mean": [float(x) for x in wm], "weight_sd": [float(x) for x in ws],
            "borrowed_from": m.borrowed_from,
            "body_note": m.body_note or None,
            "height_shift_note": (m.height_shift_note or None) if getattr(m, "is_v2", False) else None,
            "self_report_note": (m.model_notes()[-1] if getattr(m, "is_v2", False) and m.self_report_correction
                                 and m.body.self_reported else None),
            "self_report_offsets": (list(self_report_offsets(m.cache_root)) if getattr(m, "is_v2", False)
                                    and m.self_report_correction and m.body.self_reported else None),
            "model_notes": list(m.model_notes()),
            "prior_country_name": m.prior_country_name,
            "intervals": {"height": _interval_table(m, "height", hw), "weight": _interval_table(m, "weight", ww)},
            "joint_cdf": _joint_cdf_table(m, hw, ww),
        },
        "aux": aux,
        "source": {**census_source(info.get("sources") if info else ()),
                   "reference_date": info.get("reference_date", "") if info else "",
                   "body_source": prior.get("source", ""), "body_year": prior.get("year")},
        "constants": {
            "sexes": list(SEXES),
            "widths": list(BAND_WIDTHS),
            "default_width": DEFAULT_WIDTH,
            "limits": {k: list(v) for k, v in BAND_LIMITS.items()},
            "adult_height": list(ADULT_HEIGHT_LIMITS),
            "whatif_sds": PROFILE_SDS,
            "bmi_range": list(DEFAULT_BMI_RANGE),
            "default_ks": list(DEFAULT_KS),
        },
    }


def tables_json(code: str, model: str, hw: int, ww: int, sr: bool = False) -> bytes:
    """The table as compact JSON bytes (memoised: the same for every visitor)."""
    return _tables_json(code, model, hw, ww, bool(sr), _stamp())


@memo.lru(48, name="dashboard.core.personal._public_tables:_tables_json")  # bytes count towards the process's budget
def _tables_json(code: str, model: str, hw: int, ww: int, sr: bool, stamp: str) -> bytes:
    return table_bytes(code, model, hw, ww, sr)


def table_bytes(code: str, model: str, hw: int, ww: int, sr: bool = False) -> bytes:
    """The table as compact JSON bytes, built afresh (:func:`tables_json` is the memoised way)."""
    data = public_tables(code, model, hw, ww, self_report_correction=sr)
    return json.dumps(data, separators=(",", ":"), allow_nan=False, ensure_ascii=False).encode("utf-8")


def _stamp() -> str:

    try:
        return str((cache_dir() / "manifest.json").stat().st_mtime_ns)
    except FileNotFoundError:
        return "-"


@lru_cache(maxsize=8)
def _manifest_hash(stamp: str) -> str:

    try:
        raw = (cache_dir() / "manifest.json").read_bytes()
    except FileNotFoundError:
        raw = b""
    return hashlib.sha256(raw).hexdigest()[:16]


def manifest_hash() -> str:
    """The data cache's manifest hash (the data a table is made from)."""
    return _manifest_hash(_stamp())


@lru_cache(maxsize=1)
def code_hash() -> str:
    """A hash of the computation core's source files: a table made by other code is another table.

    Tables are served as immutable and kept in the shared server cache, so their version must
    change with the code that makes them, not only when someone remembers :data:`TABLE_VERSION`.
    """
    root = Path(__file__).resolve().parents[1]  # dashboard/core: every subpackage the tables depend on
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def tables_version() -> str:
    """What a table's URL (``v=``), ETag and shared-cache key depend on besides its parameters."""
    return hashlib.sha256(f"{manifest_hash()}|{TABLE_VERSION}|{code_hash()}".encode()).hexdigest()[:16]


def etag(code: str, model: str, hw: int, ww: int, sr: bool = False) -> str:
    h = hashlib.sha256(f"{tables_version()}|{code}|{model}|{hw}|{ww}|{int(sr)}".encode()).hexdigest()[:24]
    return f'"{h}"'
