"""Complete a table that covers only some districts of a region (SPEC §1.4).

For each region (a US state) the people the table does not place in a district — the
region's published total minus its covered districts — are spread evenly over the region's
uncovered districts, and those rows are marked ``filled=True``.

As SPEC §1.8 says, the remainder is taken **cell by cell**: for each sex × age cell ``c``,
``R_c = T_c − Σ_covered c``, and each of the ``n`` uncovered districts gets ``R_c / n``.
Covered + filled therefore reproduces both the region's total and each of its sex × age cells
exactly (the filled districts get the age mix the covered districts left over, not the whole
region's).

A negative remainder in a cell can only come from noise between separately estimated tables (a
survey's state row against its county rows).  It is clamped to 0 rather than raised, because it
is a known property of such data rather than a broken file; the clamp is recorded: a
:class:`FillWarning` is issued and the message is kept in ``result.attrs["fill_warnings"]``.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .schema import POPULATION_COLUMNS

#: A sex × age cell; ``age_to`` is NaN for the open group, so merges use a filled copy.
CELL = ["sex", "age_from", "age_to"]
DISTRICT_COLUMNS = ["district_id", "district_name", "region_id", "region_name"]


class FillWarning(UserWarning):
    """A region's covered districts exceed its total; the remainder was clamped to 0."""


def _cell_key(df: pd.DataFrame) -> pd.DataFrame:
    out = df[CELL].copy()
    out["age_to"] = out["age_to"].fillna(np.inf)
    return out


def _require(df: pd.DataFrame, columns: list[str], what: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} lacks column(s) {missing}")


def fill_missing_districts(
    partial: pd.DataFrame, region_totals: pd.DataFrame, all_districts: pd.DataFrame
) -> pd.DataFrame:
    """Add evenly spread rows, cell by cell, for every district of a region that ``partial`` leaves out.

    * ``partial`` — population rows (schema columns) of the covered districts; returned unchanged.
    * ``region_totals`` — ``region_id``, ``sex``, ``age_from``, ``age_to``, ``count``: each
      region's published count per sex × age cell.  Only these regions are completed.
    * ``all_districts`` — ``district_id``, ``district_name``, ``region_id``, ``region_name`` of
      every district (extra columns and repeated rows, e.g. a whole population table, are fine).

    A region whose districts are all covered gets nothing; one with none covered is spread
    evenly in full.  Regions in ``partial`` without totals are returned as they are.  Filled
    rows carry ``filled=True`` (and a NaN ``moe`` when ``partial`` has margins of error).
    """
    _require(partial, list(POPULATION_COLUMNS), "partial")
    _require(region_totals, ["region_id", *CELL, "count"], "region_totals")
    _require(all_districts, DISTRICT_COLUMNS, "all_districts")

    districts = all_districts[DISTRICT_COLUMNS].drop_duplicates()
    clash = districts["district_id"].duplicated()
    if clash.any():
        raise ValueError(f"all_districts gives district {districts.loc[clash, 'district_id'].iloc[0]} "
                         "two names or regions")
    home = districts.set_index("district_id")["region_id"]
    covered_ids = partial["district_id"].drop_duplicates()
    unknown = covered_ids[~covered_ids.isin(home.index)]
    if len(unknown):
        raise ValueError(f"district {unknown.iloc[0]} of partial is not in all_districts")
    stated = partial.drop_duplicates("district_id").set_index("district_id")["region_id"]
    moved = stated != home.loc[stated.index]
    if moved.any():
        d = stated.index[moved.to_numpy()][0]
        raise ValueError(f"district {d} is in region {stated[d]} in partial but {home[d]} in all_districts")

    totals = region_totals
    dup = pd.concat([totals[["region_id"]], _cell_key(totals)], axis=1).duplicated()
    if dup.any():
        raise ValueError(f"region_totals repeats a cell of region {totals.loc[dup, 'region_id'].iloc[0]}")

    filled_parts: list[pd.DataFrame] = []
    notes: list[str] = []
    for region_id, region_cells in totals.groupby("region_id", sort=True):
        members = districts[districts["region_id"] == region_id]
        uncovered = members[~members["district_id"].isin(covered_ids)]
        if uncovered.empty:
            continue
        cells = region_cells[CELL].reset_index(drop=True)
        key = _cell_key(region_cells).reset_index(drop=True)
        covered_rows = partial[partial["district_id"].isin(members["district_id"])]
        covered_sum = np.zeros(len(cells))
        if not covered_rows.empty:
            sums = (pd.concat([_cell_key(covered_rows), covered_rows[["count"]]], axis=1)
                    .groupby(CELL, dropna=False)["count"].sum())
            lookup = pd.MultiIndex.from_frame(key)
            if set(sums.index) != set(lookup):
                raise ValueError(f"region {region_id}: the covered districts' sex × age cells "
                                 "differ from the region total's cells")
            covered_sum = sums.reindex(lookup).to_numpy(dtype="float64")
        region_counts = region_cells["count"].to_numpy(dtype="float64")
        remainder = region_counts - covered_sum  # cell by cell (SPEC §1.8)
        short = remainder < 0
        if short.any():
            labels = ", ".join(f"{r.sex} {r.age_from:g}{'+' if pd.isna(r.age_to) else f'–{r.age_to:g}'}"
                               for r in cells[short].itertuples())
            message = (f"region {region_id}: the covered districts exceed the region total by "
                       f"{-remainder[short].sum():,.1f} people in {int(short.sum())} sex × age cell(s) ({labels}); "
                       f"those cells of its {len(uncovered)} filled district(s) are set to 0")
            notes.append(message)
            warnings.warn(message, FillWarning, stacklevel=2)
            remainder = np.maximum(remainder, 0.0)
        share = remainder / len(uncovered)
        rows = uncovered.reset_index(drop=True).merge(cells.assign(count=share), how="cross")
        filled_parts.append(rows)

    out = partial.copy()
    if filled_parts:
        filled = pd.concat(filled_parts, ignore_index=True)
        filled["filled"] = True
        if "moe" in out.columns:
            filled["moe"] = np.nan
        out = pd.concat([out, filled[[c for c in out.columns if c in filled.columns]]], ignore_index=True)
    out["filled"] = out["filled"].astype(bool)
    out = out.sort_values(["district_id", "sex", "age_from"], kind="mergesort").reset_index(drop=True)
    out.attrs["fill_warnings"] = notes
    return out
