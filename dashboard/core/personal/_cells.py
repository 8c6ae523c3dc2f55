"""The CAS over the whole height × weight grid (every cell of the joint bands), other attributes as given."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import body as bm
from ..body import DEFAULT_BMI_RANGE
from ..country import CountryModel
from ..parsing import DEFAULT_WIDTH
from ._profile import Profile, area_counts, resolve, with_body


@dataclass(frozen=True, eq=False)
class CellGrid:
    """The final CAS for every height × weight cell of the joint grid (other attributes as given).

    ``cas[h, w]`` is unrounded; ``plausible`` marks the cells aggregates keep.
    Summed over every cell it gives back the age line of the funnel (the grid
    spans ±10 SD of every body group).
    """

    joint: bm.JointBands
    cas: np.ndarray
    plausible: np.ndarray


def cas_by_cell(
    model: CountryModel,
    profile: Profile,
    height_width: float | None = None,
    weight_width: float | None = None,
    bmi_range: tuple[float, float] | None = DEFAULT_BMI_RANGE,
    *,
    body_model: str | None = None,
) -> CellGrid:
    """The CAS over the whole height × weight grid (widths default to the profile's, else 5)."""
    r = resolve(with_body(model, body_model), profile)
    m, p = r.model, r.profile
    hw = height_width or p.height_width or DEFAULT_WIDTH
    ww = weight_width or p.weight_width or DEFAULT_WIDTH
    joint = m.joint(hw, ww)
    mass = area_counts(m, r.D, [a.f for a in r.aux]) * r.sel
    cas = np.tensordot(mass, joint.prob, axes=([0, 1], [0, 1]))
    return CellGrid(joint, cas, joint.plausible(bmi_range))
