"""The two models of a data set's uniqueness side by side, and which one to show by default (SPEC §5).

Both give a record's cell probability ``p(x)`` (``cell_prob``), the model of a subset of the
columns (``sub``), and so the same ξ, κ and Ξ(N).  Both are validated the same way (fit on a
fraction, predict the whole data set: :func:`~._copula.validate`), and the default for a data set
is the one whose validation error is smaller — the page and the CLI say which and why.
"""
from __future__ import annotations

import functools

from ..errors import InputError
from ..text import N_, local_number, translate_marked
from ..text import gettext as _
from . import _copula as copula
from . import _latent as latent
from ._words import pct

COPULA = "copula"
LATENT_CLASS = "latent-class"
MODELS = (COPULA, LATENT_CLASS)
#: "auto" = the model that validates better on this data set.
MODEL_CHOICES = ("auto", *MODELS)
MODEL_NAMES = {COPULA: N_("Gaussian copula"), LATENT_CLASS: N_("latent class model")}


def check_model(value) -> str:
    if value in (None, ""):
        return "auto"
    if value not in MODEL_CHOICES:
        raise InputError(f"the model must be one of {', '.join(MODEL_CHOICES)}, not {str(value)[:20]!r}")
    return str(value)


def check_classes_rule(value) -> str:
    """The latent class model's rule for its number of classes (default: the validated one)."""
    if value in (None, ""):
        return latent.DEFAULT_SELECTION
    if value not in latent.SELECTIONS:
        raise InputError(f"the number of classes is chosen by {', '.join(latent.SELECTIONS)}, "
                         f"not {str(value)[:20]!r}")
    return str(value)


def fitter(model: str, classes_rule: str = latent.DEFAULT_SELECTION):
    """``fit(codes, cards, seed=…)`` of the named model (the latent class model's classes chosen by ``classes_rule``)."""
    if model == COPULA:
        return copula.fit
    if model == LATENT_CLASS:
        return functools.partial(latent.fit, selection=check_classes_rule(classes_rule))
    raise InputError(f"unknown model {str(model)[:20]!r}")


def fit_model(model: str, codes, cards, seed: int = 0, classes_rule: str = latent.DEFAULT_SELECTION):
    return fitter(model, classes_rule)(codes, cards, seed=seed)


def validate_model(model: str, codes, cards, unique_in_data, fraction: float, trials: int, seed: int = 0,
                   classes_rule: str = latent.DEFAULT_SELECTION) -> dict:
    return copula.validate(codes, cards, unique_in_data, fraction, trials, seed=seed,
                           fitter=fitter(model, classes_rule))


def choose(validations: dict[str, dict], ordinal: list[bool]) -> tuple[str, str]:
    """The model to show by default and why: the smaller validation MAE (ties: the higher AUC).

    Without a validation of both (too few records), the latent class model when a chosen column is
    unordered (it needs no order of its values), else the copula.
    """
    ok = {m: v for m, v in validations.items() if v.get("mae") is not None}
    if len(ok) == len(MODELS):
        best = min(MODELS, key=lambda m: (round(ok[m]["mae"], 4), -(ok[m].get("auc") or 0.0)))
        other = next(m for m in MODELS if m != best)
        v, w = ok[best], ok[other]
        return best, _("{model}: it validates better here — fitted {trials}× on {fraction} of the records to predict "
                       "the whole data set's share of unique records, its mean absolute error is {mae} against "
                       "{other_mae} for the {other} (AUC of ξ {auc} against {other_auc})").format(
            model=model_name(best), trials=v["trials"], fraction=pct(v["fraction"]),
            mae=_fmt(v["mae"]), other_mae=_fmt(w["mae"]), other=model_name(other), auc=_fmt(v.get("auc")),
            other_auc=_fmt(w.get("auc")))
    if not all(ordinal):
        return LATENT_CLASS, _("{model}: the validation could not run, and a chosen column is unordered, which the "
                               "latent class model represents without an arbitrary order").format(
            model=model_name(LATENT_CLASS))
    return COPULA, _("{model}: the validation could not run, and every chosen column is ordered (the copula's "
                     "setting)").format(model=model_name(COPULA))


def model_name(model: str) -> str:
    """The model's name in the current language (the CLI's English: :data:`MODEL_NAMES`)."""
    return translate_marked(MODEL_NAMES[model])


def _fmt(x) -> str:
    return "–" if x is None else local_number(f"{x:.3f}")
