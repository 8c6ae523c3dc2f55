"""What every report shares: version, manifest checksum, date, the papers, the known limits, the sources."""
from __future__ import annotations

import datetime as dt
import hashlib
from importlib import metadata
from pathlib import Path

import census_loaders as cl
from census_loaders.paths import cache_dir

PAPERS = {
    "cas": ("Berrang, P., Gerhart, P. & Schröder, D. Measuring Conditional Anonymity — A Global Study "
            "(the conditional anonymity set, CAS; SPEC §1)."),
    "copula": ("Rocher, L., Hendrickx, J. M. & de Montjoye, Y.-A. (2019). Estimating the success of "
               "re-identifications in incomplete datasets using generative models. Nature Communications 10, 3069. "
               "doi:10.1038/s41467-019-10933-3 (SPEC §5)."),
    "pyc": ("Rocher, L., Hendrickx, J. M. & de Montjoye, Y.-A. (2025). A scaling law to model the effectiveness of "
            "identification techniques. Nature Communications. doi:10.1038/s41467-024-55296-6 (SPEC §3)."),
    "tfrr": ("Yang, Z., Wang, R., Wu, D. et al. Re-identification risk prediction paradigm using incomplete "
             "statistical information and recursive hypergeometric distribution (TFRR; SPEC §5)."),
}


def version() -> str:
    try:
        return metadata.version("anonset")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree without installing
        return "unknown"


def manifest_sha256(root: Path | None = None) -> str:
    """sha256 of the data cache's ``manifest.json`` (which itself records the sha256 of every built file)."""
    path = Path(root or cache_dir()) / "manifest.json"
    return hashlib.sha256(path.read_bytes()).hexdigest()


def today() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _source(what: str, s: dict) -> dict:
    return {"what": what, **{k: s.get(k) for k in ("publisher", "table_id", "reference_date", "licence", "citation")}}


def dataset_sources(code: str) -> list[dict]:
    """The census tables, the boundaries and the body statistics' source of one data set (from the manifest)."""
    info = cl.dataset_info(code)
    name = f"{info['name']} ({code})"
    out = [_source(f"{name}: population counts", s) for s in info.get("sources", ())]
    for s in (info.get("boundaries") or {}).get("sources", ()):
        out.append(_source(f"{name}: district boundaries", s))
    bp = info.get("body_prior") or {}
    if bp:
        kind = bp.get("kind", "")
        borrowed = f", borrowed from {bp['borrowed_from']}" if bp.get("borrowed_from") else ""
        out.append({"what": f"{name}: body statistics (height and weight by sex and age; {kind}{borrowed})",
                    "publisher": bp.get("source"), "reference_date": bp.get("year")})
    return out


def microdata_sources(dataset_id: str) -> list[dict]:
    entry = (cl.manifest().get("microdata") or {}).get(dataset_id) or {}
    return [_source(entry.get("name", dataset_id), s) for s in entry.get("sources", ())]


def small_sets_limit() -> str:
    """AnonLand's measured error for small sets: the explorer's own caveat (one text for one number), with where
    the check comes from."""
    from dashboard.views import explorer

    caveat = explorer.small_sets_caveat()
    if not caveat:
        return "AnonLand's check of small sets is not in this data cache: small numbers are unvalidated here."
    return caveat + " (SPEC §4: the full-scale AnonLand shipped in the data cache, made by `anonset anonland`.)"


def body_model_limit() -> str:
    """The body models tested on real measured people (the Real people page's numbers)."""
    from dashboard.core.errors import InputError
    from dashboard.views import real_people

    try:
        r = real_people.report()
    except InputError as exc:
        return f"The body model's validation on real people is not available in this data cache: {exc}."
    v2, paper = r["models"]["v2"], r["models"]["paper"]
    return (f"Body model validation on the NHANES adults as a real population (`{real_people.COMMAND}`): the median "
            f"error |expected set − real set| / real set for real sets of 10 or more is "
            f"{100 * v2['median_abs_divergence']:.0f} % for body model v2 and "
            f"{100 * paper['median_abs_divergence']:.0f} % for the paper model; the paper model leaves "
            f"{100 * paper['left_out_share']:.0f} % of people out of its aggregates, v2 "
            f"{100 * v2['left_out_share']:.0f} %.")
