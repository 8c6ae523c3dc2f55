"""The words and the number rules AnonSet says, as data: one home for both faces.

Python (:mod:`dashboard.core.text`) formats with these; the personal page's JavaScript
(``assets/anonset_engine.js`` ``useText``, ``assets/personal_page.js``) receives the same
dict in the page config (:func:`dashboard.views.personal.page_config`) and interpolates
from it.  ``tests/js/golden_text.json`` holds what both faces must print.

Templates use ``{name}`` placeholders; thresholds are "below" bounds read in order
(``None``: everything else).
"""
from __future__ import annotations

from ._i18n import N_

#: What a missing or non-finite number reads as.
MISSING = "\u2013"

#: The unit of each body measurement.
UNITS = {"height": "cm", "weight": "kg"}

#: A number of people for a sentence: whole people, or this below one.
FEWER_THAN_ONE = N_("fewer than one")

#: The percent rule (format_percent / formatPercent): never "0 %" for a tiny chance, never "1e-6 %".
PERCENT = {
    "zero": "0 %",
    "floor": 1e-4,                       # below this many percent …
    "below_floor": "less than 0.0001 %",  # … a share reads this
    "near_whole": 99.9,                   # between this and 100 …
    "above_near_whole": "more than 99.9 %",
    "suffix": " %",
}

#: The personal page's lead (SPEC §1.7), by the people expected besides the person.  The number is a count of
#: people like every other on the page (the funnel, the tables, the advice): whole people, rounded down
#: (SPEC §1.1, format_count), so the headline and the funnel's last line never show two numbers for one crowd.
HEADLINE = (
    (1, N_("You \u2014 and probably nobody else: fewer than one other person is expected to share these "
           "attributes")),
    (2, N_("You and about 1 other person share these attributes")),
    (None, N_("You and about {count} others share these attributes")),
)

#: What the personal page asks before any attribute is given (no count until then: a number for an empty
#: form would be the whole country's population, an answer to no question).  ``national``: a data set
#: without districts, where the first question is the sex or the age.
FIRST_QUESTION = {
    "district": N_("Where do you live? Type your town or district \u2014 or start with your sex, age, height or "
                   "weight."),
    "national": N_("Are you a woman or a man, and how old are you? Start with any of your answers."),
}

#: The verdict, by the size of the anonymity set (CAS); {percent}: κ in whole percent; {crowd}: the own set.
VERDICT = (
    (1, N_("You are likely unique: anyone who links a data set holding these attributes to a "
           "list of names can probably single you out.")),
    (5, N_("Very few people look like you: exact matching would pick you out with probability about "
           "{percent}. Consider giving less precise values.")),
    (20, N_("A small group: matching narrows you down to a handful of people, which many "
            "re-identification attacks can finish with one more fact.")),
    (100, N_("A modest crowd: you are not unique on these attributes, but one or two more facts "
             "(a birth date, a postcode) could change that.")),
    (None, N_("You blend into a crowd of about {crowd}, you included: exact matching on these attributes alone "
              "would pick you with probability about 1 in {crowd}.")),
)

#: The one refusal of a height no adult has (the study population is adults, SPEC §1.1; the limits are
#: ``core.body.ADULT_HEIGHT_LIMITS``): the core's and the CLI's error and the personal page's field message.
#: {value}: what was typed (a value or a band); {lo}–{hi}: the limits, all in {unit} (cm, or inches on the page).
ADULT_HEIGHT_REFUSAL = N_("Height {value} {unit} is not a plausible adult height; give {lo}\u2013{hi} {unit}")

#: Log-axis ticks: 1-2-5 steps from ``floor``; with more than ``crowded`` ticks only the labels
#: starting with one of ``keep_when_crowded`` stay.  ``tolerance``: relative slack at both ends.
LOG_TICKS = {"floor": 1e-3, "mantissas": (1, 2, 5), "crowded": 9, "keep_when_crowded": ("1", "0.001"),
             "tolerance": 1e-12}

#: Compact axis labels: 5k, 2M, 8B (never "10m", "1G").
SHORT_SUFFIXES = ((1e9, "B"), (1e6, "M"), (1e3, "k"))


#: The body-model choice in plain words, then its details (the method's section, self-report correction) for the
#: details layer under it: one text for every page that offers the switch (issue 28: "SPEC §1.6" on lay pages).
BODY_MODEL_PLAIN = N_("v2, the default, is tested on real people (the Real people page); paper reproduces the "
                      "published numbers.")
BODY_MODEL_DETAILS = N_("The two body models are defined in section 1.6 of the method (SPEC §1.6 in the project). "
                        "Most countries' body statistics are self-reported: people over-state their height and "
                        "under-state their weight. The correction subtracts the mean differences measured on the "
                        "NHANES adults; it has no effect under paper or on measured statistics.")

