"""Issue 31: what AnonSet writes about the body statistics and the body model — the model's notes, the body
statistics' source and notes, the nearest-group note, a trimmed age group's label — in the page's language; the CLI's
English (and the shared public tables) exactly as before."""
from __future__ import annotations

import re

import numpy as np
import pytest

from dashboard.core import country as catalog
from dashboard.core import personal as pt
from dashboard.core.country import load_country_model
from dashboard.core.groups import AgeGroup
from dashboard.core.text import language

#: What the CLI printed before issue 31's last step (the English must stay character for character).
V2_NHANES = ("Body model v2: height and ln(weight) bivariate normal per sex × age group, correlation estimated from "
             "NHANES 2017–2018 (used for every country); weight log-normal with the survey's mean and SD; no cell is "
             "left out.")
V2_NCD = ("Body model v2: height and ln(weight) bivariate normal per sex × age group; weight log-normal with the mean "
          "and SD of BMI × height² (NCD-RisC BMI, NHANES height–BMI dependence), correlation of that model; no cell "
          "is left out.")
PAPER = ("Body model: paper (height and weight independent normals; cells with a BMI outside 17–30 at their centre "
         "are left out of aggregates).")
NOT_CORRECTED = "The body statistics are self-reported (not corrected; the option corrects them)."
CORRECTED = ("Self-reported body statistics corrected to measured ones (NHANES: self-reported height +1.5 cm, weight "
             "-0.8 kg against measured).")
NCD_SOURCE = ("NCD-RisC: mean height by birth cohort (eLife 2016) and BMI gamma 2022 (Lancet 2024); spread and "
              "height–BMI dependence from the measured NHANES 2017–2018 adults")
#: English words of these notes that no translation keeps.
ENGLISH = re.compile(r"\b(the|and|of|is|are|from|with|group|statistics|reaches|beyond|nearest|cohorts)\b")


def _english_free(texts, lang):
    for t in texts:
        assert not ENGLISH.search(t), f"{lang}: English left in {t!r}"


@pytest.mark.parametrize("lang", ["de", "fr", "it", "es", "pt"])
def test_model_notes_in_every_language(cache_root, lang):
    de = load_country_model("DE", model="v2")
    fixed = de.with_model("v2", self_report_correction=True)
    fr = load_country_model("FR", model="v2")
    paper = de.with_model("paper")
    assert de.model_notes() == (V2_NHANES, NOT_CORRECTED)
    assert fixed.model_notes() == (V2_NHANES, CORRECTED)
    assert fr.model_notes() == (V2_NCD,)
    assert paper.model_notes() == (PAPER,)
    with language(lang):
        said = [*de.model_notes(), *fixed.model_notes(), *fr.model_notes(), *paper.model_notes()]
    assert len(set(said)) == 5 and not set(said) & {V2_NHANES, V2_NCD, PAPER, NOT_CORRECTED, CORRECTED}
    _english_free(said, lang)
    corrected = said[3]
    assert "+1,5" in corrected and "−0,8" in corrected and "1.5" not in corrected  # the language's digits
    assert "17–30" in said[-1] and "v2" in said[0] and "paper" in said[-1]  # the models' names stay


def test_public_tables_stay_english_in_a_german_request(cache_root):
    """The public tables are shared by every visitor: built in English whatever the request's language, with the
    values the page words its own notes from (the self-report offsets, the nearest groups)."""
    with language("de"):
        t = pt.public_tables("DE", "v2", 5, 5, self_report_correction=True)
    assert t["body"]["self_report_note"] == CORRECTED and t["body"]["model_notes"] == [V2_NHANES, CORRECTED]
    dh, dw = t["body"]["self_report_offsets"]
    assert f"{dh:+.1f}" == "+1.5" and f"{dw:+.1f}" == "-0.8"
    assert pt.public_tables("DE", "v2", 5, 5)["body"]["self_report_offsets"] is None


def test_body_statistics_english_unchanged_and_translated(cache_root):
    """``anonset body`` (English) as before; the personal page's body panel in German words, German digits."""
    de, fr = catalog.body_statistics("DE"), catalog.body_statistics("FR")
    assert de["note"] == "Body statistics of DE: DE's own table (Statistisches Bundesamt (Destatis), 12211-9018, 2017)."
    assert de["groups_below_18"] == "Census ages below 18 use the 18–20 group (the nearest body group), flagged as such."
    assert de["open_group"] == "70+ and beyond: the oldest body group."
    assert fr["source"] == NCD_SOURCE
    assert fr["open_group"] == ("85+: the cohorts born 85–99 years before the reference year, NCD-RisC's 85+ BMI, the "
                                "spread of the NHANES 80+ (ages top-coded at 80).")
    with language("de"):
        de_de, fr_de = catalog.body_statistics("DE"), catalog.body_statistics("FR")
    assert de_de["note"] == ("Körperstatistik für DE: eigene Tabelle des Landes (Statistisches Bundesamt (Destatis), "
                             "12211-9018, 2017).")
    assert de_de["open_group"] == "70+ und darüber: die älteste Körpergruppe."
    assert fr_de["source"].startswith("NCD-RisC: mittlere Größe je Geburtsjahrgang")
    _english_free([de_de["note"], de_de["groups_below_18"], de_de["open_group"], fr_de["note"], fr_de["source"],
                   fr_de["open_group"]], "de")
    assert de_de["groups"] == de["groups"]  # the numbers are values, not words


def test_nearest_body_group_note(cache_root):
    m = load_country_model("DE", study=(10, 90), model="v2")
    s, a = (int(x[-1]) for x in np.nonzero(m.nearest_body))
    assert m.body_mapping_note(s, a) == ("male 75–90 (of 75+) reaches beyond the body statistics (18–75); the nearest "
                                         "body group is used (male 70–75)")
    assert m.body_mapping_parts(s, a) == {"range": [18.0, 75.0], "used": [["male", 70.0, 75.0]]}
    with language("de"):
        said = m.body_mapping_note(s, a)
    assert said == ("männlich, 75–90 (von 75+): außerhalb der Körperstatistik (18–75); verwendet wird die "
                    "nächstgelegene Körpergruppe (männlich 70–75)")


def test_a_trimmed_age_groups_label():
    g = AgeGroup(18.0, 20.0, 15.0, 20.0, 0.4)
    assert g.label == g.shown_label == "18–20 (of 15–20)"
    shown = {}
    for lang in ("de", "fr", "it", "es", "pt"):
        with language(lang):
            shown[lang] = g.shown_label
    assert shown == {"de": "18–20 (von 15–20)", "fr": "18–20 (sur 15–20)", "it": "18–20 (di 15–20)",
                     "es": "18–20 (de 15–20)", "pt": "18–20 (de 15–20)"}
    whole = AgeGroup(20.0, 25.0, 20.0, 25.0, 1.0)
    with language("de"):
        assert whole.shown_label == whole.label == "20–25"
