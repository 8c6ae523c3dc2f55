"""Everything the personal page shows for one profile, computed at once: funnel, what-ifs, risk, advice."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..body import DEFAULT_BMI_RANGE
from ..country import CountryModel
from ..text import first_question, has_answer, own_headline, verdict
from ._advice import advise
from ._funnel import CasResult, compute_cas
from ._profile import DEFAULT_KS, Profile, with_body
from ._reidentification import Reidentification, reidentification
from ._what_ifs import WhatIfs, what_ifs


@dataclass(frozen=True, eq=False)
class ProfileReport:
    """What the personal page shows for one profile."""

    result: CasResult
    what_ifs: WhatIfs
    reidentification: Reidentification
    advice: tuple  # of advice.Advice
    #: Whether the profile gives any attribute; without one the headline asks the first question (the page shows
    #: no count then: the number would be the whole study population, an answer to no question).
    answered: bool = True
    national: bool = False

    def to_dict(self, max_districts: int | None = 20) -> dict:

        ri = self.reidentification
        return {
            **self.result.to_dict(),
            "headline": own_headline(ri.others) if self.answered else first_question(self.national),
            "verdict": verdict(self.result.cas, ri.others, ri.correctness),
            "reidentification": ri.to_dict(),
            "advice": [a.to_dict() for a in self.advice],
            "what_ifs": self.what_ifs.to_dict(max_districts=max_districts),
        }


def profile_report(
    model: CountryModel,
    profile: Profile,
    ks: Iterable[float] = DEFAULT_KS,
    users: int | None = None,
    bmi_range: tuple[float, float] = DEFAULT_BMI_RANGE,
    *,
    body_model: str | None = None,
) -> ProfileReport:
    """compute_cas + what_ifs + re-identification (N = the data set's study population) + advice.

    ``body_model`` (``v2`` / ``paper``) overrides the model's own.
    """

    model = with_body(model, body_model)
    result = compute_cas(model, profile, bmi_range)
    return ProfileReport(
        result,
        what_ifs(model, profile, bmi_range),
        reidentification(result.cas, result.population, users),
        advise(model, profile, ks),
        answered=has_answer(profile.district, profile.sex, profile.ages, profile.height, profile.weight, profile.aux),
        national=model.n_districts <= 1,
    )
