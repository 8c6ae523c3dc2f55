"""Figures of the real-people validation (plain dicts): calibration by decile, divergence by real-set size."""
from __future__ import annotations

from dashboard.core.text import N_, local_number, translate_marked
from dashboard.core.text import gettext as _

from .style import QUALITATIVE, axis, base_layout, figure, narrow_titles, separators

#: One colour per body model, the same in every figure of the page.
MODEL_COLOURS = {"v2": QUALITATIVE[0], "paper": QUALITATIVE[1]}
MODEL_NAMES = {"v2": N_("v2 (default)"), "paper": N_("paper model")}


def _name(model: str) -> str:
    return translate_marked(MODEL_NAMES[model]) if model in MODEL_NAMES else model


def _count(n: int) -> str:
    return local_number(f"{n:,}")


def calibration_figure(report: dict) -> dict:
    """Observed against predicted cell probability, by decile of the prediction; the diagonal is perfect."""
    traces = []
    top = 0.0
    for name, m in report["models"].items():
        xs = [c["mean_predicted"] * 100 for c in m["calibration"]]
        ys = [c["mean_observed"] * 100 for c in m["calibration"]]
        top = max(top, *xs, *ys)
        traces.append(dict(
            type="scatter", mode="lines+markers", x=xs, y=ys, name=_name(name),
            line=dict(color=MODEL_COLOURS.get(name), width=3), marker=dict(size=9),
            hovertemplate=_("{model}<br>predicted {predicted} %<br>observed {observed} %").format(
                model=_name(name), predicted="%{x:.2f}", observed="%{y:.2f}") + "<extra></extra>"))
    top *= 1.08
    traces.insert(0, dict(type="scatter", mode="lines", x=[0, top], y=[0, top], name=_("perfect calibration"),
                          line=dict(color="#9AA5B1", dash="dash", width=1.5), hoverinfo="skip"))
    x_title, y_title = _("predicted cell probability (%)"), _("observed (%)")
    return figure(traces, narrow_titles(base_layout(
        height=400, margin=dict(l=10, r=10, t=60, b=10), separators=separators(),
        xaxis=axis(x_title, rangemode="tozero"),
        yaxis=axis(y_title, rangemode="tozero"),
        legend=dict(orientation="h", x=0, y=1.02, yanchor="bottom"),
    ), xaxis=x_title, yaxis=y_title))


def divergence_figure(report: dict) -> dict:
    """Median (expected set − real set) / real set per real-set range, one bar per model."""
    traces = []
    for name, m in report["models"].items():
        rows = [r for r in m["by_ras"] if r["n"]]
        traces.append(dict(
            type="bar", x=[f"{r['range']} ({_count(r['n'])})" for r in rows],
            y=[100 * r["median_divergence_expected"] for r in rows], name=_name(name),
            marker=dict(color=MODEL_COLOURS.get(name)),
            hovertemplate=_("{model}<br>real set {range}<br>median {median} %").format(
                model=_name(name), range="%{x}", median="%{y:+.0f}") + "<extra></extra>"))
    x_title, y_title = _("real anonymity set (people in it)"), _("median divergence (%)")
    return figure(traces, narrow_titles(base_layout(
        height=380, barmode="group", margin=dict(l=10, r=10, t=60, b=10), separators=separators(),
        xaxis=axis(x_title),
        yaxis=axis(y_title, zeroline=True, zerolinecolor="#4a5562"),
        legend=dict(orientation="h", x=0, y=1.02, yanchor="bottom"),
    ), xaxis=x_title, yaxis=y_title))
