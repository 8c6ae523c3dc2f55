"""The attack lab (SPEC §6): ids, defaults, parsing, render functions and memos of ``/attack``.

The page runs the Narayanan–Shmatikov Scoreboard-RH attack on the MovieLens ratings
(:mod:`dashboard.core.attack`) for a form's settings and shows: identification against
the gallery size and against the number of known ratings, the entropy of the candidate set,
and PYC-MB with its baselines fitted to the measured correctness (largest gallery held out)
and extrapolated to 10⁸ users.  An experiment takes seconds, so the page runs one only when
asked (the Run button), caps its inputs below the CLI's, and memoises each answer on the
validated settings (a frozen :class:`~dashboard.core.attack.AttackConfig`); the default
answer takes 2–3 s on a worker's first visit.
"""
from __future__ import annotations

import logging
import time
from dataclasses import replace

import numpy as np
from dash import dcc, html

from dashboard import forms, ids
from dashboard.components import card, command_block, error_box, field
from dashboard.core import attack as sa
from dashboard.core.errors import InputError
from dashboard.core.memo import Memo
from dashboard.core.text import N_, current_language, format_count, local_number, ngettext, percent_text
from dashboard.core.text import gettext as _
from dashboard.figures import attack as figs
from dashboard.figures.scaling import pct, sci
from dashboard.figures.style import graph_config, message_figure
from dashboard.server import limits
from dashboard.views.scaling_text import formulas_list, models_table, pp

PAGE = "attack"
LOG = logging.getLogger("anonset.attack")

#: Defaults of the page: two known ratings, so that correctness visibly decays over 50–671 users
#: (with eight, nearly every target is identified at every size and there is nothing to extrapolate).
DEFAULT = sa.AttackConfig(known=2, noise_stars=1.0, noise_days=14, wrong_share=0.0,
                          sizes=(50, 100, 200, 400, 671), repeats=5, seed=1)
#: The page's caps (the CLI accepts up to sa.MAX_REPEATS repetitions and sa.MAX_SIZES sizes).
PAGE_MAX_REPEATS = 10
PAGE_MAX_SIZES = 8
STAR_CHOICES = (0.0, 0.5, 1.0, 1.5, 2.0)
DAY_CHOICES = (0, 1, 3, 7, 14, 30, 90)
WRONG_CHOICES = (0.0, 0.125, 0.25, 0.5)
#: The m of the "against known ratings" curve, measured at the largest gallery with one repetition (a gallery
#: of 671 users is 671 targets per point).
KNOWN_CURVE = (1, 2, 3, 4, 6, 8, 12, 20)
KNOWN_CURVE_REPEATS = 1
#: Forecast sizes in the models table, and the curve's grid.
FORECAST_SIZES = np.array(sa.FORECAST_AT)
FORECAST_GRID = np.geomspace(1.0, 1e9, 120)

FORM_KEYS = ("known", "stars", "days", "wrong", "sizes", "repeats", "seed", "phi")
ID = {name: ids.make(PAGE, name) for name in (
    *FORM_KEYS, "run", "message", "attribution", "cards", "n-graph", "m-graph", "entropy-graph", "forecast-graph",
    "measured", "models", "holdout", "formulas", "command", "notes",
)}
RESULT_KEYS = ("cards", "n-graph", "m-graph", "entropy-graph", "forecast-graph", "measured", "models", "holdout",
               "formulas", "command", "notes")
GRAPH_KEYS = ("n-graph", "m-graph", "entropy-graph", "forecast-graph")


# --------------------------------------------------------------------------- parsing (pure)


def _whole(value, what: str, lo: int, hi: int, hint: str = "") -> int:
    """A whole number within [lo, hi]; ``hint`` (after the range) says why the range is what it is."""
    x = forms.number(value, what, required=True)
    if x != int(x):
        raise InputError(_("{field}: please enter a whole number").format(field=what))
    if not lo <= x <= hi:
        message = _("{field}: {value} is outside the range {lo}–{hi}").format(
            field=what, value=local_number(f"{x:g}"), lo=format_count(lo), hi=format_count(hi))
        raise InputError(f"{message} {hint}" if hint else message)
    return int(x)


def parse_sizes(text) -> tuple[int, ...]:
    """Gallery sizes typed as "50, 100, 200" (2 … the number of users, at most PAGE_MAX_SIZES of them)."""
    if text is None or not str(text).strip():
        raise InputError(_("Gallery sizes: please enter sizes separated by commas, e.g. 50, 100, 200"))
    text = str(text)
    if len(text) > 200:
        raise InputError(_("Gallery sizes: that list is too long"))
    parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p.strip()]
    if len(parts) > PAGE_MAX_SIZES:
        raise InputError(_("Gallery sizes: at most {limit} sizes on this page (got {count}); the CLI takes up to "
                           "{cli}").format(limit=PAGE_MAX_SIZES, count=len(parts), cli=sa.MAX_SIZES))
    users = sa.movielens().n_users
    sizes = tuple(_whole(p, _("Gallery size"), sa.MIN_GALLERY, 10**9) for p in parts)
    big = [s for s in sizes if s > users]
    if big:
        raise InputError(_("Gallery size {size} is larger than the data set: it has {users} users").format(
            size=format_count(big[0]), users=format_count(users)))
    if len(set(sizes)) != len(sizes):
        raise InputError(_("Gallery sizes: each size may appear only once"))
    if len(sizes) < 3:
        raise InputError(_("Gallery sizes: give at least three (two to fit the forecast, the largest held out)"))
    return tuple(sorted(sizes))


def parse_form(known, stars, days, wrong, sizes, repeats, seed, phi) -> sa.AttackConfig:
    """The form's values as a validated configuration; InputError naming the field otherwise."""
    m = _whole(known, _("Known ratings m"), 1, sa.MAX_KNOWN, _("(every user has at least {count} ratings)").format(
        count=20))
    s = forms.number(stars, _("Rating error (stars)"), lo=0, hi=sa.MAX_NOISE_STARS, required=True)
    if s * 2 != int(s * 2):
        raise InputError(_("Rating error (stars): please choose a multiple of half a star"))
    d = _whole(days, _("Date error (days)"), 0, sa.MAX_NOISE_DAYS)
    w = forms.number(wrong, _("Wrong items (share)"), lo=0, hi=1, required=True)
    cfg = sa.AttackConfig(
        known=m, noise_stars=s, noise_days=d, wrong_share=w, sizes=parse_sizes(sizes),
        repeats=_whole(repeats, _("Repetitions"), 1, PAGE_MAX_REPEATS, _("on this page (the CLI takes up to {count})")
                       .format(count=format_count(sa.MAX_REPEATS))),
        seed=_whole(seed, _("Seed"), 0, 2**31 - 1),
        phi=forms.number(phi, _("Eccentricity threshold φ"), lo=0.1, hi=10, required=True),
    )
    return sa.check_config(cfg, sa.movielens().n_users)


def form_values(cfg: sa.AttackConfig) -> dict:
    """What the form shows for a configuration (keys of :data:`FORM_KEYS`)."""
    return {"known": cfg.known, "stars": cfg.noise_stars, "days": cfg.noise_days, "wrong": cfg.wrong_share,
            "sizes": ", ".join(str(s) for s in cfg.sizes), "repeats": cfg.repeats, "seed": cfg.seed, "phi": cfg.phi}


def settings_from_link(**query) -> tuple[sa.AttackConfig, tuple[str, ...]]:
    """A link's settings (unknown keys ignored); a part that does not parse is reported and the default kept."""
    values = form_values(DEFAULT)
    given = {k: query[k] for k in FORM_KEYS if k in query}
    if not given:
        return DEFAULT, ()
    try:
        return parse_form(*[given.get(k, values[k]) for k in FORM_KEYS]), ()
    except InputError as exc:
        return DEFAULT, (_("Ignoring the settings in the link: {problem}").format(problem=exc),)


def command(cfg: sa.AttackConfig) -> str:
    """The CLI call that reproduces the experiment."""
    parts = ["anonset attack", f"--known {cfg.known}", f"--noise-days {cfg.noise_days}",
             f"--noise-stars {cfg.noise_stars:g}"]
    if cfg.wrong_share:
        parts.append(f"--wrong {cfg.wrong_share:g}")
    parts += [f"--sizes {','.join(str(s) for s in cfg.sizes)}", f"--repeats {cfg.repeats}", f"--seed {cfg.seed}"]
    if cfg.phi != sa.DEFAULT_PHI:
        parts.append(f"--phi {cfg.phi:g}")
    return " ".join(parts)


def curve_command(cfg: sa.AttackConfig) -> str:
    """The CLI call that reproduces the curve against known ratings (at the largest size, one repetition)."""
    parts = [f"anonset attack --noise-days {cfg.noise_days} --noise-stars {cfg.noise_stars:g}"]
    if cfg.wrong_share:
        parts.append(f"--wrong {cfg.wrong_share:g}")
    parts += [f"--sizes {max(cfg.sizes)} --repeats {KNOWN_CURVE_REPEATS} --seed {cfg.seed}"]
    if cfg.phi != sa.DEFAULT_PHI:
        parts.append(f"--phi {cfg.phi:g}")
    parts.append(f"--by-known {','.join(str(m) for m in KNOWN_CURVE)} --json")
    return " ".join(parts)


# --------------------------------------------------------------------------- what the page shows (pure, memoised)

#: The measurements of a configuration (seconds of work), whatever the language.
_MEASURED = Memo(16, name="views.attack.measured", max_bytes=64 << 20)
#: What the page shows for a configuration in one language (the forecast's and the notes' words are the
#: language's: a fit, a fraction of a second, per language).
_RESULTS = Memo(32, name="views.attack.results", max_bytes=64 << 20)
_KNOWN_CURVES = Memo(16, name="views.attack.known_curves")


def known_curve(cfg: sa.AttackConfig) -> list[dict]:
    """Identification against m at the largest gallery (memoised on everything but m and the other sizes)."""
    base = replace(cfg, known=1, sizes=(max(cfg.sizes),), repeats=min(cfg.repeats, KNOWN_CURVE_REPEATS))
    return _KNOWN_CURVES.get(base, lambda: sa.sweep_known(sa.movielens(), base, KNOWN_CURVE, n=max(cfg.sizes)))


def _measure(cfg: sa.AttackConfig) -> tuple[list, list, float]:
    started = time.perf_counter()
    measured, runs = sa.measure(sa.movielens(), cfg)
    known_curve(cfg)
    return measured, runs, time.perf_counter() - started


def render(cfg: sa.AttackConfig) -> dict:
    """Everything the results area shows for a validated configuration, in the request's language (shared
    between requests: read-only).  Only a configuration not yet measured takes a heavy slot."""
    key = (cfg, current_language())
    known = _RESULTS.peek(key)
    if known is not None:
        return known
    if _MEASURED.peek(cfg) is None:
        with limits.heavy_slot(_("This attack"), command(cfg)):
            _MEASURED.get(cfg, lambda: _measure(cfg))
    return _RESULTS.get(key, lambda: _render(cfg))


def _render(cfg: sa.AttackConfig) -> dict:
    data = sa.movielens()
    at = np.unique(np.concatenate([FORECAST_GRID, FORECAST_SIZES, np.asarray(cfg.sizes, dtype=float)]))
    measured_shares, runs, seconds = _MEASURED.get(cfg, lambda: _measure(cfg))
    exp = sa.finish_experiment(data, cfg, measured_shares, runs, at=at, band=True, measured_in=seconds)
    measured = [m.to_dict() for m in exp.measured]
    curve = known_curve(cfg)
    n_pts, k_pts = figs.forecast_points(measured)
    if exp.forecast is not None:
        fc = exp.forecast
        band = (fc.band.lower, fc.band.upper) if fc.band.available else None
        forecast_fig = figs.forecast_figure(n_pts, k_pts, fc.at, fc.predictions, band, held_out=1)
        models = models_table(fc, FORECAST_SIZES)
        formulas = formulas_list(fc)
    else:
        forecast_fig = message_figure(_("No forecast: {reason}").format(reason=exp.forecast_reason))
        models, formulas = html.P(exp.forecast_reason, className="field-help"), None
    return {
        "cards": summary_cards(exp),
        "n-graph": figs.shares_vs_n_figure(measured, cfg.known),
        "m-graph": figs.shares_vs_m_figure(curve, max(cfg.sizes)),
        "entropy-graph": figs.entropy_figure(measured),
        "forecast-graph": forecast_fig,
        "measured": measured_table(measured),
        "models": models,
        "holdout": holdout_text(exp),
        "formulas": formulas,
        "command": [*command_block(command(cfg) + " --json", _(
            "Measured in {seconds} s on this server; the CLI prints the same numbers.").format(
                seconds=local_number(f"{exp.seconds:.1f}"))),
                    *command_block(curve_command(cfg), _("The curve against known ratings (one gallery per m)."))],
        "notes": [html.Li(n) for n in exp.notes],
    }


def _n(x: float) -> str:
    return format_count(x)


def summary_cards(exp: sa.Experiment) -> list:
    last = exp.measured[-1]
    hold = exp.holdout("PYC-MB")
    cards = [card(_("Identified at n = {n}").format(n=_n(last.n)), pct(last.kappa),
                  ngettext("of {n} targets, over {count} gallery; {no_match} answered “no match”, {wrong} matched "
                           "wrongly.",
                           "of {n} targets, over {count} galleries; {no_match} answered “no match”, {wrong} matched "
                           "wrongly.", last.repeats).format(
                      n=_n(last.n), count=last.repeats, no_match=pct(last.no_match), wrong=pct(last.wrong)),
                  value_id=ids.make(PAGE, "kappa-largest"))]
    title = _("Hold-out error (PYC-MB)")
    if hold is not None and hold.get("forecast") is not None:
        words = {"n": _n(hold["n"]), "forecast": pct(hold["forecast"]), "measured": pct(hold["measured"]),
                 "error": pp(abs(100 * hold["error"]), ".2f")}
        if not hold["error"]:
            explain = _("fitted without n = {n}: forecast and measurement agree ({measured}).").format(**words)
        elif hold["error"] < 0:
            explain = _("forecast minus measured: the forecast was {error} below what was measured (fitted without "
                        "n = {n}: forecast {forecast}, measured {measured}).").format(**words)
        else:
            explain = _("forecast minus measured: the forecast was {error} above what was measured (fitted without "
                        "n = {n}: forecast {forecast}, measured {measured}).").format(**words)
        cards.append(card(title, pp(100 * hold["error"], "+.2f"), explain, value_id=ids.make(PAGE, "holdout-error")))
    else:
        why = (hold or {}).get("reason") or exp.forecast_reason or _("not available")
        cards.append(card(title, "–", why, value_id=ids.make(PAGE, "holdout-error")))
    fc = exp.forecast
    for size in FORECAST_SIZES:
        value, explain = "–", _("PYC-MB is not available for these measurements.")
        if fc is not None and fc.predictions.get("PYC-MB") is not None:
            i = int(np.argmin(np.abs(fc.at - size)))
            value = pct(float(fc.predictions["PYC-MB"][i]))
            explain = _("PYC-MB forecast of the share identified.")
            if fc.band.available:  # the uncertainty stands next to the number, not in small print below
                band = f"{pct(float(fc.band.lower[i]))} – {pct(float(fc.band.upper[i]))}"
                value = [html.Span(value, className="card-number"),
                         html.Span(" " + _("(range {band})").format(band=band), className="card-band")]
                explain = _("PYC-MB forecast of the share identified; in brackets its jackknife range (the forecast "
                            "refitted without each measured gallery size in turn).")
        cards.append(card(_("Forecast at {size} users").format(size=sci(size)), value, explain))
    return cards


def measured_table(measured: list[dict]) -> html.Table:
    head = ["n", _("identified"), "± SD", _("no match"), _("wrong"), _("H(Π) bits"), _("−log₂ Π(r) bits"), "log₂ n"]

    def share(x: float) -> str:
        return percent_text(f"{100 * x:.2f}")

    def cells(m: dict) -> list:
        values = [share(m["kappa"]), share(m["kappa_sd"]), share(m["no_match"]), share(m["wrong"]),
                  local_number(f"{m['entropy']:.3f}"), local_number(f"{m['target_bits']:.3f}"),
                  local_number(f"{m['prior_bits']:.2f}")]
        return [html.Td(v, className="num", **{"data-label": h}) for h, v in zip(head[1:], values)]

    rows = [html.Tr([html.Th(f"n = {_n(m['n'])}", scope="row"), *cells(m)]) for m in measured]
    return html.Table([html.Caption(_("Measured shares, pooled over the repetitions"), style={"textAlign": "left"}),
                       html.Thead(html.Tr([html.Th(h, scope="col", className="num" if i else None)
                                           for i, h in enumerate(head)])),
                       html.Tbody(rows)], className="table models-table stack-on-phone")


def holdout_text(exp: sa.Experiment) -> str:
    hold = exp.holdout("PYC-MB")
    if hold is None:
        return _("No held-out check: {reason}.").format(reason=exp.forecast_reason)
    if hold.get("forecast") is None:
        return _("Held out n = {n} (measured {measured}); PYC-MB fitted on the smaller galleries is not available: "
                 "{reason}.").format(n=_n(hold["n"]), measured=pct(hold["measured"]), reason=hold["reason"])
    return _("Held out n = {n}: PYC-MB fitted on the smaller galleries forecasts {forecast}, measured {measured}, an "
             "error of {error} percentage points. The forecasts beyond use all sizes.").format(
        n=_n(hold["n"]), forecast=pct(hold["forecast"]), measured=pct(hold["measured"]),
        error=local_number(f"{100 * hold['error']:+.2f}".lstrip("+")) if hold["error"] < 0 else
        "+" + local_number(f"{100 * hold['error']:.2f}"))


def run(known, stars, days, wrong, sizes, repeats, seed, phi) -> tuple[dict | None, object]:
    """What the Run button shows: (results, message); bad input gives (None, an error box)."""
    try:
        cfg = parse_form(known, stars, days, wrong, sizes, repeats, seed, phi)
        return render(cfg), None
    except InputError as exc:  # a bad value, or a busy server (limits.CostError)
        return None, error_box(str(exc))


# --------------------------------------------------------------------------- layout


def _dropdown(key: str, value, choices, label) -> dcc.Dropdown:
    return dcc.Dropdown(id=ID[key], value=value, clearable=False, searchable=False,
                        options=[{"label": label(c), "value": c} for c in choices])


def _stars(c: float) -> str:
    return ngettext("± {count} star", "± {count} stars", 1 if c == 1 else 2).format(count=local_number(f"{c:g}"))


def _days(c: int) -> str:
    return ngettext("± {count} day", "± {count} days", c).format(count=format_count(c))


def _wrong(c: float) -> str:
    return _("{percent} of the m").format(percent=percent_text(f"{100 * c:g}"))


def controls(cfg: sa.AttackConfig) -> html.Section:
    v = form_values(cfg)
    stars = sorted(set(STAR_CHOICES) | {cfg.noise_stars})
    days = sorted(set(DAY_CHOICES) | {cfg.noise_days})
    wrong = sorted(set(WRONG_CHOICES) | {cfg.wrong_share})
    return html.Section([
        html.H2(_("The attacker's knowledge"), className="panel-title"),
        field(_("Known ratings m"), dcc.Input(id=ID["known"], type="number", step=1,
                                              value=v["known"], inputMode="numeric"),
              _("How many of the target's ratings the attacker knows ({lo}–{hi}).").format(lo=1, hi=sa.MAX_KNOWN),
              ID["known"]),
        field(_("Rating error"), _dropdown("stars", v["stars"], stars, _stars),
              _("Each known rating may be off by up to this much (half-star steps)."), ID["stars"]),
        field(_("Date error"), _dropdown("days", v["days"], days, _days),
              _("Each known date may be off by up to this many days."), ID["days"]),
        field(_("Wrong items"), _dropdown("wrong", v["wrong"], wrong, _wrong),
              _("Items the target never rated, mixed into the knowledge."), ID["wrong"]),
        html.H2(_("The experiment"), className="panel-title"),
        field(_("Gallery sizes n"), dcc.Input(id=ID["sizes"], type="text", value=v["sizes"], maxLength=200),
              _("Users per gallery, {lo}–{hi} sizes from {smallest} to {largest}, comma-separated. The largest is held "
                "out to check the forecast.").format(lo=3, hi=PAGE_MAX_SIZES, smallest=2, largest=671), ID["sizes"]),
        field(_("Repetitions"), dcc.Input(id=ID["repeats"], type="number", step=1,
                                          value=v["repeats"], inputMode="numeric"),
              _("Random galleries per size ({lo}–{hi}); every user of a gallery is a target.").format(
                  lo=1, hi=PAGE_MAX_REPEATS), ID["repeats"]),
        field(_("Seed"), dcc.Input(id=ID["seed"], type="number", step=1, value=v["seed"], inputMode="numeric"),
              _("The same seed gives the same galleries and knowledge."), ID["seed"]),
        field(_("Eccentricity threshold φ"), dcc.Input(id=ID["phi"], type="number", step=0.1,
                                                       value=v["phi"], inputMode="decimal"),
              _("The best record must stand out from the second by φ standard deviations, else “no match” "
                "({phi} in the paper).").format(phi=local_number("1.5")), ID["phi"]),
        html.Button(_("Run the attack"), id=ID["run"], className="button", n_clicks=0),
        html.Div(id=ID["message"], role="alert"),
    ], className="panel scaling-controls", **{"aria-label": _("Attack settings")})


def _graph(key: str) -> dcc.Graph:
    return dcc.Graph(id=ID[key], config=graph_config(), figure=message_figure(_("Computing…")))


def results() -> html.Section:
    return html.Section([
        dcc.Loading(html.Div([
            html.Div(id=ID["cards"], className="cards readouts", **{"aria-live": "polite"}),
            _graph("n-graph"),
            _graph("m-graph"),
            _graph("entropy-graph"),
            html.Div(id=ID["measured"], className="table-wrap"),
            html.H2(_("Forecast to larger galleries")),
            html.P(id=ID["holdout"], className="field-help"),
            _graph("forecast-graph"),
            html.Div(id=ID["models"], className="table-wrap"),
            html.Ul(id=ID["notes"], className="notes"),
            html.Details([html.Summary(_("Formulas of the forecast models")), html.Div(id=ID["formulas"])],
                         className="details"),
        ]), type="default", delay_show=300),
        html.H2(_("Reproduce this")),
        html.Div(id=ID["command"]),
    ], className="scaling-results", **{"aria-label": _("Attack results")})


#: How the attack and the measurements work (Markdown; ``{phi}`` is the paper's threshold).
EXPLAIN = N_("""
**The attack.** Narayanan and Shmatikov de-anonymised the Netflix Prize data set from a handful of
approximately known ratings. Their *Scoreboard-RH* matcher scores every record of the released data:
each known item the record rated with a rating and date within the tolerances adds
`wt(i) = 1/ln(1 + |supp(i)|)` — rare items count more (`|supp(i)|` is how many records rated item `i`;
the paper's `1/log|supp(i)|` is shifted by one because many movies here have a single rating). The best
record is named only if it stands out from the second best by the *eccentricity* `(max − max₂)/σ ≥ φ`
(σ: the standard deviation of all scores; φ = {phi} as in the paper); otherwise the answer is
“no match”.

**The experiment.** For each gallery size n, random galleries of n MovieLens users; every user is a target
whose m known ratings are drawn at random, each rating moved by up to the rating error (half-star steps),
each date by up to the date error, and a share replaced by movies the user never rated. The matcher's
tolerances equal the errors. *Identified* is the measured correctness κ̂(n).

**Entropy of the candidate set** (the paper's entropic de-anonymisation): the matcher's distribution
`Π(r) ∝ exp(Score(r)/σ)` over the gallery; `H(Π) = −Σ Π log₂ Π` is the uncertainty left without an oracle,
`−log₂ Π(target)` the bits still needed to single out the right record, `log₂ n` what it would be with no
knowledge at all. When one record stands out, σ shrinks like max/√n, so Π sharpens as galleries grow.

**The forecast.** PYC-MB (the Pitman–Yor correctness law) and the ENT, EXP, POL baselines are fitted to κ̂(n)
with the largest n held out, scored on it, then refitted on all sizes and extrapolated.
""")


def explain() -> str:
    """:data:`EXPLAIN` in the request's language."""
    return _(EXPLAIN).format(phi=local_number(f"{sa.DEFAULT_PHI:g}"))


def warm() -> None:
    """Before the server forks: the ratings matrices (0.1 s).  The default experiment (2–3 s) is not run
    here — the master warms while its socket already accepts connections — but on a worker's first visit,
    and memoised from then on."""
    try:
        sa.movielens()
    except InputError as exc:  # no MovieLens in the cache: the page says so on its own
        LOG.warning("attack lab not warmed: %s", exc)


def attribution() -> str:
    return sa.attribution()


def page_status() -> str | None:
    """Why the page cannot run (no data in the cache), or None."""
    try:
        sa.movielens()
    except InputError as exc:
        return str(exc)
    return None


__all__ = ["DEFAULT", "EXPLAIN", "explain", "GRAPH_KEYS", "ID", "LOG", "RESULT_KEYS", "attribution", "command", "controls",
           "page_status", "parse_form", "render", "results", "run", "settings_from_link", "warm"]
