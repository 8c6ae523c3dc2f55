"""Figures of the real-people validation (plain dicts): calibration by decile, divergence by real-set size."""
from __future__ import annotations

from .style import QUALITATIVE, axis, base_layout, figure

#: One colour per body model, the same in every figure of the page.
MODEL_COLOURS = {"v2": QUALITATIVE[0], "paper": QUALITATIVE[1]}
MODEL_NAMES = {"v2": "v2 (default)", "paper": "paper model"}


def calibration_figure(report: dict) -> dict:
    """Observed against predicted cell probability, by decile of the prediction; the diagonal is perfect."""
    traces = []
    top = 0.0
    for name, m in report["models"].items():
        xs = [c["mean_predicted"] * 100 for c in m["calibration"]]
        ys = [c["mean_observed"] * 100 for c in m["calibration"]]
        top = max(top, *xs, *ys)
        traces.append(dict(
            type="scatter", mode="lines+markers", x=xs, y=ys, name=MODEL_NAMES.get(name, name),
            line=dict(color=MODEL_COLOURS.get(name), width=3), marker=dict(size=9),
            hovertemplate=(f"{MODEL_NAMES.get(name, name)}<br>predicted %{{x:.2f}} %<br>"
                           "observed %{y:.2f} %<extra></extra>")))
    top *= 1.08
    traces.insert(0, dict(type="scatter", mode="lines", x=[0, top], y=[0, top], name="perfect calibration",
                          line=dict(color="#9AA5B1", dash="dash", width=1.5), hoverinfo="skip"))
    return figure(traces, base_layout(
        height=400, margin=dict(l=10, r=10, t=60, b=10),
        xaxis=axis("predicted cell probability (%)", rangemode="tozero"),
        yaxis=axis("observed (%)", rangemode="tozero"),
        legend=dict(orientation="h", x=0, y=1.02, yanchor="bottom"),
    ))


def divergence_figure(report: dict) -> dict:
    """Median (expected set − real set) / real set per real-set range, one bar per model."""
    traces = []
    for name, m in report["models"].items():
        rows = [r for r in m["by_ras"] if r["n"]]
        traces.append(dict(
            type="bar", x=[f"{r['range']} ({r['n']:,})" for r in rows],
            y=[100 * r["median_divergence_expected"] for r in rows], name=MODEL_NAMES.get(name, name),
            marker=dict(color=MODEL_COLOURS.get(name)),
            hovertemplate=f"{MODEL_NAMES.get(name, name)}<br>real set %{{x}}<br>median %{{y:+.0f}} %<extra></extra>"))
    return figure(traces, base_layout(
        height=380, barmode="group", margin=dict(l=10, r=10, t=60, b=10),
        xaxis=axis("real anonymity set (people in it)"),
        yaxis=axis("median divergence (%)", zeroline=True, zerolinecolor="#4a5562"),
        legend=dict(orientation="h", x=0, y=1.02, yanchor="bottom"),
    ))
