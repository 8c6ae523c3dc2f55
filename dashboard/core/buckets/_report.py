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
    current_language,
    district_word,
    local_number,
    ngettext,
    percent_text,
    plural,  # noqa: F401 - part of this module's interface (br.plural)
    share_setting,
)
from ..text import gettext as _
from ._advisor import Advice


def recommendation_text(advice: Advice) -> str:
    """The recommendation in words, e.g. "Collect age in 10-year groups, height in 10 cm, …" (in the current
    language: the CLI's is English)."""
    e = advice.recommended
    if e is None:
        return _("No configuration on the ladder gives {share} of people an anonymity set of at least {k}; even "
                 "withholding everything but sex leaves too few people.").format(
            share=_share(advice.q), k=local_number(f"{advice.k:g}"))
    c = e.config
    dl, rl = district_word(advice.district_label), district_word(advice.region_label)
    if c.age == "census":
        age = _("age in the census age groups")
    elif c.age == "withheld":
        age = _("age not at all (withhold age)")
    else:
        age = _("age in {n}-year groups").format(n=c.age)
    height = _("height not at all (withhold it)") if c.height is None else _("height in {n} cm bands").format(
        n=local_number(f"{c.height:g}"))
    weight = _("weight not at all (withhold it)") if c.weight is None else _("weight in {n} kg bands").format(
        n=local_number(f"{c.weight:g}"))
    where = {
        "district": _("with the {district}"),
        "region": _("with the {region} instead of the {district}"),
        "withheld": _("without any place (withhold the {district})"),
        "district_or_region": _("with the {district}"),
    }[c.area].format(district=dl, region=rl)
    text = _("Collect {age}, {height}, {weight}, {where}").format(age=age, height=height, weight=weight, where=where)
    if c.area == "district_or_region":
        n = len(e.short_districts)
        D = len(advice.district_ids)
        if 2 * n > D:  # mostly withheld: say it the other way round
            kept = sorted(set(range(D)) - set(e.short_districts.tolist()), key=lambda d: -advice.district_people[d])
            names = ", ".join(advice.district_names[d] for d in kept[:3]) + (" …" if len(kept) > 3 else "")
            text = ngettext(
                "Collect {age}, {height}, {weight}, with the {region} instead of the {district}, except in the {n} "
                "{districts} where at least {share} stay safe with the {district} itself ({names})",
                "Collect {age}, {height}, {weight}, with the {region} instead of the {district}, except in the {n} "
                "{districts} where at least {share} stay safe with the {district} itself ({names})", len(kept)).format(
                age=age, height=height, weight=weight, region=rl, district=dl, n=len(kept),
                districts=district_word(advice.district_label, plural=len(kept) != 1), share=_share(advice.q),
                names=names)
        else:
            text += ngettext(
                "; in the {n} {districts} (of {total}) where fewer than {share} would be safe, withhold the "
                "{district} and give only the {region}",
                "; in the {n} {districts} (of {total}) where fewer than {share} would be safe, withhold the "
                "{district} and give only the {region}", n).format(
                n=n, districts=district_word(advice.district_label, plural=n != 1), total=D,
                share=_share(advice.q), district=dl, region=rl)
    text += _(". Then {coverage} of people have an anonymity set of at least {k} and the release keeps {bits} bits per "
              "person.").format(coverage=_percent(e.coverage), k=local_number(f"{advice.k:g}"),
                                bits=local_number(f"{e.bits:.1f}"))
    return text


def _share(q: float) -> str:
    """A coverage someone set, with their digits: "95%" (English, as the CLI always wrote it), "95 %" in German."""
    return share_setting(q) if current_language() == "en" else percent_text(f"{float(f'{100 * float(q):.6g}'):g}")


def _percent(share: float) -> str:
    """A reached coverage to a tenth of a percent: "95.3%" (English, as before), "95,3 %" in German."""
    return f"{share:.1%}" if current_language() == "en" else percent_text(f"{100 * share:.1f}")


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
