"""Which columns to coarsen: each column's contribution to uniqueness and a coarsening plan (SPEC §5).

Each quasi-identifier has a ladder of generalisations: a numeric column's bins widened (×2, ×4, ×8,
×16 the chosen width, or the spacing of its values when exact), a categorical column's rare values
merged into "(other)" (those under 1 %, 5 %, then 20 % of the records), and at the top the column
withheld.  Missing values stay their own value when the policy keeps them.

* :func:`contributions` — per column, the share of unique records and of records in a class below
  k with the column withheld, and with it generalised one step.
* :func:`plan` — a greedy coarsening plan: starting from the release as chosen, repeatedly take the
  one-step generalisation that removes the most records-below-k per bit of information lost (ties:
  the most information kept), until the share of records in a class below ``k`` is at most the
  target.  Information is the entropy in bits of the released records' value combinations (as the
  bucket advisor measures a release).  At least one column stays released (withholding everything
  is no release); when no plan reaches the target, it says so and shows how far it got.  Greedy, not exhaustive (the ladders of 12
  columns have 5¹² combinations): it is a good plan, not a proven smallest one.

The risk measure is empirical (classes of the records themselves): it needs no model fit per
candidate, so a plan over every column's ladder runs in seconds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..text import gettext, ngettext
from ._records import Table, class_ids, prepare
from ._words import num, pct

#: Rare-value thresholds (share of records) of a categorical column's generalisation steps.
MERGE_SHARES = (0.01, 0.05, 0.20)
#: Bin-width multipliers of a numeric column's generalisation steps.
WIDEN = (2, 4, 8, 16)
OTHER = "(other)"
DEFAULT_K = 5
DEFAULT_TARGET = 0.05


def check_k(value) -> int:
    try:
        k = int(value)
    except (TypeError, ValueError):
        raise InputError(gettext("k must be a whole number, not {value}").format(value=repr(str(value)[:20]))) from None
    if not 2 <= k <= 1000:
        raise InputError(gettext("k must lie between 2 and {most}, not {value}").format(most=num(1000), value=k))
    return k


def check_target(value) -> float:
    try:
        t = float(value)
    except (TypeError, ValueError):
        raise InputError(gettext("the target share must be a number, not {value}").format(
            value=repr(str(value)[:20]))) from None
    if not (math.isfinite(t) and 0 <= t < 1):
        raise InputError(gettext("the target share must lie in [0, 1) (e.g. {example}), not {value}").format(
            example=num(0.05, "g"), value=str(value)[:20]))
    return t


@dataclass
class _Ladder:
    name: str
    levels: list[np.ndarray]   # codes per level (the last: withheld, all zero)
    labels: list[str]          # what each level releases


def _ladder(table: Table, column: str, rows: np.ndarray, width: float | None) -> _Ladder:
    s = table.frame[column].to_numpy()[rows]
    miss = table.frame[column].isna().to_numpy()[rows]
    levels, labels = [], []
    if table.numeric(column):
        v = s.astype(float)
        finite = v[~miss]
        if width is None:
            uniq = np.unique(finite)
            gaps = np.diff(uniq)
            base = float(gaps.min()) if gaps.size else 1.0
            if np.all(finite == np.round(finite)):
                base = max(base, 1.0)
        else:
            base = float(width)
        widths = ([width] if width is not None else [None]) + [base * m for m in WIDEN]
        for w in widths:
            codes = np.empty(v.size, dtype=np.int64)
            if w is None:
                _, inv = np.unique(finite, return_inverse=True)
                labels.append(gettext("exact values"))
            else:
                _, inv = np.unique(np.floor(finite / w), return_inverse=True)
                labels.append(gettext("bins of {width}").format(width=num(w, "g")))
            codes[~miss] = inv
            codes[miss] = -1
            levels.append(codes)
    else:
        text = np.array([str(x) for x in s[~miss]], dtype=object)
        uniq, inv, counts = np.unique(text, return_inverse=True, return_counts=True)
        share = counts / max(rows.size, 1)
        base = np.empty(s.size, dtype=np.int64)
        base[~miss] = inv
        base[miss] = -1
        levels.append(base)
        labels.append(gettext("every value"))
        for t in MERGE_SHARES:
            rare = share < t
            if not rare.any():
                continue
            mapped = np.where(rare, uniq.size, np.arange(uniq.size))
            codes = np.where(base >= 0, mapped[np.maximum(base, 0)], -1)
            levels.append(codes)
            labels.append(gettext("values under {share} merged").format(share=pct(t)))
    levels.append(np.zeros(rows.size, dtype=np.int64))
    labels.append(gettext("withheld"))
    # dense codes (missing = its own value), and no level repeated
    out_levels, out_labels = [], []
    for codes, lab in zip(levels, labels):
        _, dense = np.unique(codes, return_inverse=True)
        if out_levels and np.array_equal(dense, out_levels[-1]):
            continue
        out_levels.append(dense.astype(np.int64))
        out_labels.append(lab)
    return _Ladder(column, out_levels, out_labels)


def _measure(codes: np.ndarray, k: int) -> dict:
    _, counts = class_ids(codes)
    n = codes.shape[0]
    size = counts  # per class
    p = counts / n
    return {"uniqueness": float(np.sum(size == 1) / n), "share_below_k": float(np.sum(size[size < k]) / n),
            "bits": float(-(p * np.log2(p)).sum())}


def _ladders(table: Table, columns, bins, missing) -> tuple[list[_Ladder], int]:
    prep = prepare(table, columns, bins, missing)  # same checks and the same kept records as the analysis
    bins = dict(bins or {})
    return [_ladder(table, c, prep.row_index, bins.get(c)) for c in prep.columns], prep.n


def _stack(ladders: list[_Ladder], level: list[int]) -> np.ndarray:
    return np.column_stack([lad.levels[lv] for lad, lv in zip(ladders, level)])


def contributions(table: Table, columns, bins=None, missing: str = "drop", k: int = DEFAULT_K) -> dict:
    """Per column: the uniqueness and share below k with the column withheld, and generalised one step."""
    k = check_k(k)
    ladders, n = _ladders(table, columns, bins, missing)
    base = [0] * len(ladders)
    out = {"n_records": n, "k": k, "release": _measure(_stack(ladders, base), k), "columns": []}
    for j, lad in enumerate(ladders):
        withheld = base.copy()
        withheld[j] = len(lad.levels) - 1
        row = {"column": lad.name, "now": lad.labels[0], "withheld": _measure(_stack(ladders, withheld), k)}
        if len(lad.levels) > 2:
            one = base.copy()
            one[j] = 1
            row["generalised"] = {"step": lad.labels[1], **_measure(_stack(ladders, one), k)}
        else:
            row["generalised"] = None
        out["columns"].append(row)
    return out


def plan(table: Table, columns, bins=None, missing: str = "drop", k: int = DEFAULT_K,
         target: float = DEFAULT_TARGET) -> dict:
    """A greedy coarsening plan bringing the share of records in a class below k to at most ``target``."""
    k = check_k(k)
    target = check_target(target)
    ladders, n = _ladders(table, columns, bins, missing)
    level = [0] * len(ladders)
    now = _measure(_stack(ladders, level), k)
    start = dict(now)
    steps = []
    while now["share_below_k"] > target:
        best = None
        released = sum(lv < len(lad.levels) - 1 for lad, lv in zip(ladders, level))
        for j, lad in enumerate(ladders):
            if level[j] + 1 >= len(lad.levels):
                continue
            if level[j] + 2 == len(lad.levels) and released == 1:  # one column at least stays released
                continue
            trial = level.copy()
            trial[j] += 1
            m = _measure(_stack(ladders, trial), k)
            gain = now["share_below_k"] - m["share_below_k"]
            lost = max(now["bits"] - m["bits"], 1e-9)
            key = (m["share_below_k"] <= target, gain / lost, m["bits"])
            if best is None or key > best[0]:
                best = (key, j, m)
        if best is None:
            break
        _, j, m = best
        level[j] += 1
        now = m
        steps.append({"column": ladders[j].name, "action": ladders[j].labels[level[j]], **m})
    reached = now["share_below_k"] <= target
    release = {lad.name: lad.labels[lv] for lad, lv in zip(ladders, level)}
    if not steps and reached:
        message = gettext("The release as chosen already meets the target: {share} of records are in a class below "
                          "k = {k} (target {target}).").format(share=pct(start["share_below_k"], 1), k=k,
                                                               target=pct(target, 1))
    elif reached:
        message = ngettext(
            "{steps} generalisation step brings the records in a class below k = {k} from {before} to {after} "
            "(target {target}), keeping {bits} of {all_bits} bits.",
            "{steps} generalisation steps bring the records in a class below k = {k} from {before} to {after} "
            "(target {target}), keeping {bits} of {all_bits} bits.", len(steps)).format(
            steps=len(steps), k=k, before=pct(start["share_below_k"], 1), after=pct(now["share_below_k"], 1),
            target=pct(target, 1), bits=num(now["bits"], ".1f"), all_bits=num(start["bits"], ".1f"))
    else:
        message = gettext("No plan reaches the target: with every column generalised as far as it goes, one column "
                          "at least still released ({release}), {share} of records are in a class below k = {k} "
                          "(target {target}). Lower k, raise the target, or release fewer records.").format(
            release=", ".join(f"{c}: {v}" for c, v in release.items()), share=pct(now["share_below_k"], 1), k=k,
            target=pct(target, 1))
    return {"k": k, "target": target, "n_records": n, "before": start, "after": now, "reached": reached,
            "steps": steps, "release": release, "message": message}

