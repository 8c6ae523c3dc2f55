"""From a CAS to probabilities of re-identification (SPEC §2).

With ``λ`` = CAS (people expected to share the profile, the person included) and
the population size ``N``, the profile's probability is ``p = λ / N``:

* individual uniqueness   ``ξ = (1 − p)^(N − 1)``  — nobody else shares the profile;
* individual correctness  ``κ = (1 − (1 − p)^N) / (N p)`` — an exact-matching
  attacker who picks one of the matches at random picks the right person
  (it equals ``E[1 / (1 + X)]`` with ``X ~ Binomial(N − 1, p)`` the others);
* the probability of a correct guess ``1 / max(λ, 1)``: the plug-in version of
  the same idea — with about ``λ`` people matching, a random pick among them is
  right with probability ``1/λ``; below one expected person the target is most
  likely alone, so the guess is taken as certain.  It ignores the spread of the
  number of matches, which is what ``κ`` accounts for;
* k-indistinguishability in a released dataset of ``m`` records drawn from the
  population: ``Pr[Binomial(m − 1, p) ≥ k − 1]`` (the person's record shares its
  profile with at least ``k − 1`` others).

Powers are evaluated as ``exp(n · log1p(−p))`` and ``1 − (1 − p)^N`` as
``−expm1(N · log1p(−p))``, which stay accurate for ``N`` up to 1e10 and tiny
``p``; for large ``N`` they tend to ``e^(−λ)`` and ``(1 − e^(−λ)) / λ``.
Edge cases: ``λ ≥ N`` means everyone shares the profile (``p = 1``:
``ξ = 0`` unless ``N = 1``, ``κ = 1/N``); ``λ = 0`` is the limit ``p → 0``
(``ξ = κ = 1``: a person with a profile nobody else is expected to have is unique).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from scipy.stats import binom

from ..errors import InputError

#: The k shown for k-indistinguishability (SPEC §2).
INDISTINGUISHABILITY_KS: tuple[int, ...] = (2, 5, 10)


def _check(lam: float, population: float) -> tuple[float, float]:
    try:
        lam, population = float(lam), float(population)
    except (TypeError, ValueError):
        raise InputError("the anonymity set and the population must be numbers") from None
    if not math.isfinite(population) or population < 1:
        raise InputError(f"the population size must be at least 1, not {population:g}")
    if not math.isfinite(lam) or lam < 0:
        raise InputError(f"the anonymity set size must be a non-negative number, not {lam:g}")
    return lam, population


def profile_probability(lam: float, population: float) -> float:
    """``p = λ / N``, capped at 1 (a profile cannot be more common than everyone)."""
    lam, population = _check(lam, population)
    return min(1.0, lam / population)


def uniqueness(lam: float, population: float) -> float:
    """Individual uniqueness ``ξ = (1 − p)^(N − 1)``."""
    lam, population = _check(lam, population)
    p = min(1.0, lam / population)
    if p >= 1.0:
        return 1.0 if population <= 1.0 else 0.0
    return math.exp((population - 1.0) * math.log1p(-p))


def correctness(lam: float, population: float) -> float:
    """Individual correctness ``κ = (1 − (1 − p)^N) / (N p)``."""
    lam, population = _check(lam, population)
    p = min(1.0, lam / population)
    if p == 0.0:
        return 1.0
    if p >= 1.0:
        return 1.0 / population
    return -math.expm1(population * math.log1p(-p)) / (population * p)


def expected_anonymity_set(lam: float, population: float) -> float:
    """The expected size of the person's own anonymity set, ``1 + (N − 1) · p`` (SPEC §1.7).

    A person who has the profile is one of its people for certain; the others are
    ``Binomial(N − 1, p)`` with ``p = λ / N``.  Never below 1; ``λ = 0`` gives 1.
    """
    lam, population = _check(lam, population)
    p = min(1.0, lam / population)
    return max(1.0, 1.0 + (population - 1.0) * p)


def correct_guess(lam: float) -> float:
    """``1 / max(λ, 1)``: a random pick among about λ matches (see the module notes)."""
    lam = float(lam)
    if not math.isfinite(lam) or lam < 0:
        raise InputError(f"the anonymity set size must be a non-negative number, not {lam:g}")
    return 1.0 / max(lam, 1.0)


def k_indistinguishability(lam: float, population: float, users: int, k: int) -> float:
    """``Pr[Binomial(m − 1, p) ≥ k − 1]``: the record hides among ≥ k − 1 others of ``m``."""
    lam, population = _check(lam, population)
    m = _check_users(users)
    if int(k) != k or k < 1:
        raise InputError(f"k must be a whole number of at least 1, not {k!r}")
    p = min(1.0, lam / population)
    return float(binom.sf(int(k) - 2, m - 1, p))


def _check_users(users) -> int:
    try:
        m = int(users)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"the number of users must be a whole number, not {users!r}") from None
    if m != users or m < 1:
        raise InputError(f"the number of users must be a whole number of at least 1, not {users!r}")
    return m


@dataclass(frozen=True)
class Reidentification:
    """Every SPEC §2 figure for one profile; ``k_indistinguishable`` is empty without ``users``."""

    cas: float
    population: float
    p: float
    uniqueness: float
    correctness: float
    correct_guess: float
    users: int | None = None
    k_indistinguishable: dict[int, float] = field(default_factory=dict)
    #: ``1 + (N − 1) · p``: the person and about ``(N − 1) · p`` others (SPEC §1.7).
    expected_anonymity_set: float = math.nan

    @property
    def others(self) -> float:
        """``(N − 1) · p``: the others expected to share the person's profile."""
        return self.expected_anonymity_set - 1.0

    def to_dict(self) -> dict:
        return {
            "cas": self.cas,
            "population": self.population,
            "p": self.p,
            "uniqueness": self.uniqueness,
            "correctness": self.correctness,
            "correct_guess": self.correct_guess,
            "users": self.users,
            "k_indistinguishable": {str(k): v for k, v in self.k_indistinguishable.items()},
            "expected_anonymity_set": self.expected_anonymity_set,
            "others": self.others,
        }


def reidentification(
    lam: float, population: float, users: int | None = None, ks: tuple[int, ...] = INDISTINGUISHABILITY_KS
) -> Reidentification:
    """All re-identification figures for a CAS ``λ`` in a population of ``N``.

    ``users`` (``m``) is the size of a released dataset drawn from the population;
    with it, the k-indistinguishability probabilities for every ``k`` in ``ks``.
    """
    lam, population = _check(lam, population)
    kind = {}
    if users is not None:
        m = _check_users(users)
        kind = {int(k): k_indistinguishability(lam, population, m, k) for k in ks}
    return Reidentification(
        cas=lam,
        population=population,
        p=min(1.0, lam / population),
        uniqueness=uniqueness(lam, population),
        correctness=correctness(lam, population),
        correct_guess=correct_guess(lam),
        users=None if users is None else int(users),
        k_indistinguishable=kind,
        expected_anonymity_set=expected_anonymity_set(lam, population),
    )
