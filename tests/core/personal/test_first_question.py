"""Issue 28: an empty form is a question, not an answer — on the Python face as on the page's (hasAnswer)."""
from __future__ import annotations

from dashboard.core import text


def test_no_answer_no_count_on_both_faces():
    """Issue 28: before any attribute the page asks; the core's report says the same (the engine: hasAnswer)."""
    from dashboard.core.country import load_country_model
    from dashboard.core.personal import Profile, profile_report

    assert not text.has_answer() and text.has_answer(sex="female") and text.has_answer(ages=("40-45",))
    model = load_country_model("DE")
    empty = profile_report(model, Profile("DE")).to_dict()
    assert empty["headline"] == text.first_question(False) and not any(c.isdigit() for c in empty["headline"])
    assert profile_report(model, Profile("DE", sex="male")).to_dict()["headline"].startswith("You and about")
