"""``anonset validate nhanes``: the body models tested on real people (the NHANES adults as a population)."""
from __future__ import annotations

from pathlib import Path

from dashboard.core.body import MODELS, validate_nhanes, validate_prior

from . import CliError, emit


def _fmt(x, spec=".3f") -> str:
    return "–" if x is None else format(x, spec)


def _text(out: dict) -> str:
    lines = [
        f"The NHANES 2017–2018 adults as a population: {out['population']:,} people in {out['groups']} sex × age "
        f"groups, {out['height_width']:g} cm × {out['weight_width']:g} kg bands; {out['people_with_ras_1']:,} are "
        f"alone in their cell, {out['people_with_ras_at_least_10']:,} share it with at least 9 others.",
    ]
    for name, m in out["models"].items():
        lines.append(f"Model {name}:")
        lines.append(f"  held-out log-likelihood per person: {m['heldout_loglik_per_person']:.4f} nats")
        lines.append(f"  median |expected set − real set| / real set, real set ≥ 10: {_fmt(m['median_abs_divergence'])}"
                     f" (CAS instead of the expected set: {_fmt(m['median_abs_divergence_cas'])})")
        lines.append(f"  people its aggregates leave out: {100 * m['left_out_share']:.1f} %")
        lines.append("  real set   people  median (E−RAS)/RAS  median (CAS−RAS)/RAS")
        for r in m["by_ras"]:
            if r["n"]:
                lines.append(f"  {r['range']:>8} {r['n']:>8,}  {_fmt(r['median_divergence_expected'], '+.3f'):>18}  "
                             f"{_fmt(r['median_divergence_cas'], '+.3f'):>20}")
        lines.append("  calibration by decile of the predicted cell probability (observed / predicted): "
                     + ", ".join(_fmt(c["ratio"], ".2f") for c in m["calibration"]))
        if name == "v2":
            rho = [r["rho"] for r in m["correlation"] if r["rho"] is not None]
            lines.append(f"  ρ(height, ln weight) on all people: {min(rho):.2f}–{max(rho):.2f} "
                         f"(each person scored with the other half's ρ)")
    sr = out.get("self_report", {})
    if sr:
        lines.append(f"Self-reported minus measured: height {sr['height_cm']['mean']:+.2f} cm, "
                     f"weight {sr['weight_kg']['mean']:+.2f} kg (means).")
    return "\n".join(lines)


def _run(args) -> int:
    models = MODELS if args.model is None else (args.model,)
    root = Path(args.cache) if args.cache else None
    if root is not None and not root.is_dir():
        raise CliError(f"--cache {args.cache!r}: no such folder")
    out = validate_nhanes(models, root=root)
    return emit(out, args.json, _text)


def _prior_text(out: dict) -> str:
    us, de = out["us"], out["de"]
    ll = us["heldout_loglik_per_person"]
    lines = [
        f"NCD-RisC prior checked where an own table exists ({us['height_width']:g} cm × {us['weight_width']:g} kg cells).",
        f"US ({us['population']:,} NHANES 2017–2018 adults, prior for {us['prior_year']}): held-out log-likelihood per "
        f"person: NCD-RisC prior {ll['ncdrisc']:.4f}, v2 NHANES fit {ll['v2']:.4f}, paper {ll['paper']:.4f} nats.",
        f"  share of people per cell, predicted vs observed (total variation): NCD-RisC prior "
        f"{us['cell_share_total_variation']['ncdrisc']:.1%}, v2 NHANES fit {us['cell_share_total_variation']['v2']:.1%}.",
        "  height    weight   observed  NCD-RisC    v2 fit",
    ]
    for c in us["cells"][:12]:
        lines.append(f"  {c['height']:<9} {c['weight']:<8} {c['observed']:>7.2%} {c['predicted_ncdrisc']:>9.2%} "
                     f"{c['predicted_v2']:>9.2%}")
    lines.append(f"  … {len(us['cells'])} cells in all (--json).")
    lines.append(us["summary"])
    lines.append(f"DE (Mikrozensus 2017, self-reported, against the prior for {de['prior_year']}):")
    lines.append("  sex    age      height cm MZ / prior   weight kg MZ / prior   bands TV   JS bits")
    for g in de["groups"]:
        lines.append(f"  {g['sex']:<6} {g['age']:<8} {g['height_mean_mikrozensus']:>9.1f} / {g['height_mean_prior']:<9.1f}"
                     f"{g['weight_mean_mikrozensus']:>11.1f} / {g['weight_mean_prior']:<9.1f}"
                     f"{g['band_total_variation']:>8.1%} {g['band_js_divergence_bits']:>9.3f}")
    lines.append(de["summary"])
    return "\n".join(lines)


def _run_prior(args) -> int:
    root = Path(args.cache) if args.cache else None
    if root is not None and not root.is_dir():
        raise CliError(f"--cache {args.cache!r}: no such folder")
    return emit(validate_prior(root), args.json, _prior_text)


def add_parser(sub) -> None:
    p = sub.add_parser("validate", help="test the body models on real people (NHANES)",
                       description="Validation of the body models against real anonymity sets.")
    vsub = p.add_subparsers(dest="what", metavar="WHAT")
    vsub.required = True
    n = vsub.add_parser(
        "nhanes",
        help="the NHANES 2017–2018 adults as a population: model CAS vs the real sets",
        description=("Treat the 4,850 NHANES adults (18–74, measured) as a population; for each person compare the "
                     "model's expected anonymity set with the real one (same sex, age group, 5 cm and 5 kg bands); "
                     "held-out log-likelihood, divergence by real-set size, calibration."),
    )
    n.add_argument("--model", default=None, help="v2 or paper (default: both)")
    n.add_argument("--cache", help="cache folder to read (default: data_cache/)")
    n.add_argument("--json", action="store_true", help="machine-readable output")
    n.set_defaults(func=_run)
    pr = vsub.add_parser(
        "prior",
        help="the NCD-RisC body prior against the US NHANES individuals and the German Mikrozensus table",
        description=("Issue 27: the NCD-RisC-built prior where a country's own table exists. US: held-out "
                     "log-likelihood per person beside v2's NHANES fit and the paper model, and the share of people "
                     "per 5 cm × 5 kg cell, predicted against observed. DE: mean height, mean weight and the "
                     "divergence of the band distributions per sex × age group against the Mikrozensus 2017."),
    )
    pr.add_argument("--cache", help="cache folder to read (default: data_cache/)")
    pr.add_argument("--json", action="store_true", help="machine-readable output")
    pr.set_defaults(func=_run_prior)
