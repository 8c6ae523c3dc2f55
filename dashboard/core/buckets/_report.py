"""The bucket advisor's answer in words and as files (SPEC §7): the sentence the page and the CLI
print, and the JSON config / CSV an app can apply — one home, so page and shell say the same thing.
"""
from __future__ import annotations

import csv
import io
import json

import numpy as np

from ..groups import format_age_band
from ..text import (
    plural,  # noqa: F401 - part of this module's interface (br.plural)
    share_setting,
)
from ._advisor import Advice


def recommendation_text(advice: Advice) -> str:
    """The recommendation in words, e.g. "Collect age in 10-year groups, height in 10 cm, …"."""
    e = advice.recommended
    if e is None:
        return (f"No configuration on the ladder gives {share_setting(advice.q)} of people an anonymity set of at least "
                f"{advice.k:g}; even withholding everything but sex leaves too few people.")
    c = e.config
    age = {"census": "in the census age groups", "withheld": "not at all (withhold age)"}.get(
        c.age, f"in {c.age}-year groups")
    parts = [f"age {age}"]
    parts.append("height not at all (withhold it)" if c.height is None else f"height in {c.height} cm bands")
    parts.append("weight not at all (withhold it)" if c.weight is None else f"weight in {c.weight} kg bands")
    where = {
        "district": f"with the {advice.district_label}",
        "region": f"with the {advice.region_label} instead of the {advice.district_label}",
        "withheld": f"without any place (withhold the {advice.district_label})",
        "district_or_region": f"with the {advice.district_label}",
    }[c.area]
    text = f"Collect {parts[0]}, {parts[1]}, {parts[2]}, {where}"
    if c.area == "district_or_region":
        n = len(e.short_districts)
        D = len(advice.district_ids)
        dl, rl = advice.district_label, advice.region_label
        if 2 * n > D:  # mostly withheld: say it the other way round
            kept = sorted(set(range(D)) - set(e.short_districts.tolist()), key=lambda d: -advice.district_people[d])
            names = ", ".join(advice.district_names[d] for d in kept[:3]) + (" …" if len(kept) > 3 else "")
            label = dl if len(kept) == 1 else plural(dl)
            text = (f"Collect {parts[0]}, {parts[1]}, {parts[2]}, with the {rl} instead of the {dl}, except in the "
                    f"{len(kept)} {label} where at least {share_setting(advice.q)} stay safe with the {dl} itself ({names})")
        else:
            label = dl if n == 1 else plural(dl)
            text += (f"; in the {n} {label} (of {D}) where fewer than {share_setting(advice.q)} would be safe, withhold the "
                     f"{dl} and give only the {rl}")
    text += (f". Then {e.coverage:.1%} of people have an anonymity set of at least {advice.k:g} "
             f"and the release keeps {e.bits:.1f} bits per person.")
    return text


def export_json(advice: Advice) -> str:
    """The chosen configuration as a JSON config an app can apply (plus the front)."""
    d = advice.to_dict()
    config = {
        "generator": "AnonSet bucket advisor (SPEC §7)",
        "country": advice.code, "study_ages": format_age_band(*advice.study), "k": advice.k,
        "coverage_target": advice.q, "model": advice.body_model,
        "recommended": d["recommended"], "front": d["front"],
    }
    if advice.per_district is not None:
        config["per_district"] = advice.per_district.rows()
    return json.dumps(config, indent=2, ensure_ascii=False, allow_nan=False, default=_json_default)


def _json_default(v):
    if isinstance(v, np.generic):
        return v.item()
    raise TypeError(type(v).__name__)


CSV_COLUMNS = ("recommended", "on_front", "age_group_years", "height_cm", "weight_kg", "area", "bits", "bits_error",
               "coverage", "withheld_districts")


def export_csv(advice: Advice) -> str:
    """Every evaluated configuration as CSV (front members and the recommendation flagged)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    front = {id(e) for e in advice.front}
    for e in sorted(advice.evaluated, key=lambda e: (-e.bits, -e.coverage)):
        d = e.to_dict()
        w.writerow([int(e is advice.recommended), int(id(e) in front), d["age_group_years"], d["height_cm"],
                    d["weight_kg"], d["area"], f"{e.bits:.4f}", f"{e.bits_error:.4f}", f"{e.coverage:.6f}",
                    len(e.short_districts) if e.config.area == "district_or_region" else ""])
    return buf.getvalue()
