"""What the cache holds, as rows for the About page and the CLI, and as the pages' country choices
(pure, from the manifest)."""
from __future__ import annotations


def country_options(manifest: dict) -> list[dict]:
    """Every data set as a dropdown option, "Germany (DE)", in code order."""
    return [{"label": f"{d['name']} ({code})", "value": code} for code, d in sorted(manifest["datasets"].items())]


def source_rows(manifest: dict) -> list[dict]:
    """One row per (data set, source file): what was used, by whom, under which licence, and the
    file's sha256 (so anyone can check that a cited file is the one the cache was built from)."""
    rows = []
    for code, d in sorted(manifest["datasets"].items()):
        for kind, sources in (("population", d["sources"]), ("boundaries", (d.get("boundaries") or {}).get("sources", []))):
            for s in sources:
                rows.append(
                    {
                        "data set": f"{d['name']} ({code})",
                        "kind": kind,
                        "publisher": s["publisher"],
                        "table": s["table_id"],
                        "date": s["reference_date"],
                        "licence": s["licence"],
                        "file": s["file"],
                        "sha256": s["sha256"],
                    }
                )
    for country, p in sorted(manifest.get("body_priors", {}).items()):
        for s in p["sources"]:
            rows.append(
                {
                    "data set": f"height and weight ({country})",
                    "kind": "body statistics",
                    "publisher": s["publisher"],
                    "table": s["table_id"],
                    "date": s["reference_date"],
                    "licence": s["licence"],
                    "file": s["file"],
                    "sha256": s["sha256"],
                }
            )
    for key, a in sorted(manifest.get("auxiliary", {}).items()):
        for s in a["sources"]:
            rows.append(
                {
                    "data set": a["name"],
                    "kind": "auxiliary knowledge",
                    "publisher": s["publisher"],
                    "table": s["table_id"],
                    "date": s["reference_date"],
                    "licence": s["licence"],
                    "file": s["file"],
                    "sha256": s["sha256"],
                }
            )
    for key, m in sorted(manifest.get("microdata", {}).items()):
        for s in m["sources"]:
            rows.append(
                {
                    "data set": m["name"],
                    "kind": "individual records",
                    "publisher": s["publisher"],
                    "table": s["table_id"],
                    "date": s["reference_date"],
                    "licence": s["licence"],
                    "file": s["file"],
                    "sha256": s["sha256"],
                }
            )
    for key, m in sorted(manifest.get("microdata", {}).items()):
        for s in m["sources"]:
            rows.append({"data set": m["name"], "kind": "record-level data", "publisher": s["publisher"],
                         "table": s["table_id"], "date": s["reference_date"], "licence": s["licence"],
                         "file": s["file"]})
    return rows


def dataset_rows(manifest: dict) -> list[dict]:
    """One row per data set: coverage, date, sources, map, and whose body statistics it uses.

    The About page's table and ``anonset data summary`` both show these rows.
    """
    rows = []
    for code, d in sorted(manifest["datasets"].items()):
        prior = d["body_prior"]
        rows.append(
            {
                "code": code,
                "name": d["name"],
                "districts": d["districts"],
                "district_label": d["district_label"],
                "population": round(d["population"]),
                "reference_date": d["reference_date"],
                "source": "; ".join(f"{s['publisher']} {s['table_id']}" for s in d["sources"]),
                "body_prior_source": prior["source"]
                + (f" (borrowed from {prior['borrowed_from']})" if prior.get("borrowed_from") else ""),
                "map": d.get("boundaries") is not None,
            }
        )
    return rows
