"""Issue 31: the data sets' own notes in six languages.

The loaders write each note in English with its structure (``census_loaders.notes``); a page renders it in its
language (``dashboard.core.text.dataset_notes``).  Checked over every note of every shipped data set: English is the
manifest's text character for character (the CLI prints it), every other language translates every sentence and
clause of it, and writes every number in its own digits."""
from __future__ import annotations

import pytest

import census_loaders as cl
from census_loaders.notes import N_, Join, Nn_, Note, Num, and_join, note_json
from dashboard.core import text

OTHER = text.LANGUAGES[1:]


def _datasets() -> dict:
    return cl.manifest()["datasets"]


def _notes(info: dict):
    """``(English text, structure)`` of every note of a manifest entry, the boundary note included."""
    out = list(zip(info.get("notes", ()), info.get("note_parts", ()), strict=True))
    if info.get("boundary_note"):
        out.append((info["boundary_note"], info["boundary_note_parts"]))
    return out


def _walk(parts: dict):
    """Every template of a note (its own and its clauses'), and every number field as (value, fmt)."""
    templates, numbers = [parts], []

    def field(v):
        if isinstance(v, str):
            return
        if "num" in v:
            numbers.append((v["num"], v["fmt"]))
        elif "note" in v:
            t, n = _walk(v["note"])
            templates.extend(t)
            numbers.extend(n)
        else:
            for item in v["join"]:
                field(item)

    for v in parts["fields"].values():
        field(v)
    return templates, numbers


def test_every_shipped_data_set_has_the_structure_of_each_note():
    datasets = _datasets()
    assert len(datasets) == 192
    for code, info in datasets.items():
        assert len(info["note_parts"]) == len(info["notes"]), code
        if info.get("boundaries") is None:
            assert info["boundary_note_parts"], code


def test_english_is_the_manifests_text_exactly():
    """The CLI prints the manifest's notes; the page in English says the very same characters."""
    count = 0
    for code, info in _datasets().items():
        for english, parts in _notes(info):
            assert text.render_note(parts, "en") == english, code
            count += 1
        with text.language("en"):
            assert text.dataset_notes(info) == [(n, None) for n in info["notes"]], code
    assert count > 700  # 192 data sets: the 141 national ones have four notes each


@pytest.mark.parametrize("lang", OTHER)
def test_every_note_is_translated_with_the_languages_numbers(lang):
    """No English sentence or clause is left, and every number is written the language's way (not "2,793,592")."""
    seen = set()
    for code, info in _datasets().items():
        for english, parts in _notes(info):
            said = text.render_note(parts, lang)
            assert said != english, (lang, code, english)
            templates, numbers = _walk(parts)
            with text.language(lang):
                for t in templates:
                    if t["template"] in seen or " " not in t["template"]:
                        continue  # a one-word clause may be the same word ("provisional" in Spanish)
                    own = text.ngettext(t["template"], t["plural"], 2) if t.get("plural") \
                        else text.translate_marked(t["template"])
                    assert own != (t["plural"] or t["template"]), (lang, t["template"])
                    seen.add(t["template"])
                for value, fmt in numbers:
                    if fmt.endswith("%"):
                        local = text.local_number(format(value * 100, fmt[:-1] + "f")) + text.percent_suffix()
                    else:
                        local = text.local_number(format(value, fmt))
                    assert local in said, (lang, code, local, said)
                    english_digits = format(value, fmt)
                    if english_digits != local and any(c in english_digits for c in ",."):
                        assert english_digits not in said, (lang, code, english_digits, said)
    assert len(seen) > 60


def test_the_page_helpers_give_each_note_in_the_page_language():
    info = cl.dataset_info("IT")
    with text.language("de"):
        notes = text.dataset_notes(info)
    assert notes[0] == ("Bevölkerung am 1. Januar 2022: 59.030.133 in 107 NUTS-3-Regionen (Eurostat "
                        "demo_r_pjangrp3, NUTS 2021); UNK (Alter unbekannt): 0 Personen, weggelassen, da sie in keine "
                        "Altersgruppe passen.", None)
    with text.language("fr"):
        said, lang = text.boundary_note(cl.dataset_info("KE-SUB"))
    assert lang is None and said.startswith("Les limites des 345 sub-counties du Kenya")
    with text.language("pt"):
        (india_pct, _), = [n for n in text.dataset_notes(cl.dataset_info("IN")) if "(0,37%)" in n[0]]
    assert india_pct.startswith("Idade não declarada: 4.489.802 pessoas (0,37%)")


def test_a_cache_without_structures_quotes_its_notes_in_english():
    """A cache built before the notes had a structure: its English text, marked as such, never a guess."""
    info = {"notes": ["Some note."], "boundary_note": "No map."}
    with text.language("es"):
        assert text.dataset_notes(info) == [("Some note.", "en")]
        assert text.boundary_note(info) == ("No map.", "en")
    with text.language("en"):
        assert text.dataset_notes(info) == [("Some note.", None)]
    assert text.boundary_note({}) is None


def test_a_note_is_its_english_text_and_keeps_its_structure():
    listed = Join((Note(N_("{name} ({code}, {people} people)"), name="Diu", code="494", people=Num(52074)),))
    note = Note(Nn_("{n} district(s) have no polygon and are in every count but not on the map: {listed}.",
                    "{n} district(s) have no polygon and are in every count but not on the map: {listed}."),
                n=Num(1), listed=listed)
    assert note == "1 district(s) have no polygon and are in every count but not on the map: Diu (494, 52,074 people)."
    assert text.render_note(note_json(note), "en") == note
    assert text.render_note(note_json(note), "de") == ("1 Distrikt hat kein Polygon und ist in jeder Zählung "
                                                       "enthalten, aber nicht auf der Karte: Diu (494, 52.074 Personen).")
    assert and_join(["A", "B", "C"]) == "A and B and C"
    assert text.render_note(note_json(and_join(["A", "B", "C"])), "it") == "A e B e C"
    assert note_json("plain") == {"template": "plain", "plural": None, "fields": {}}


def test_a_note_must_be_given_exactly_its_fields():
    with pytest.raises(ValueError, match="do not match"):
        Note(N_("{name} ({code}, {people} people)"), name="Diu", code="494")
    with pytest.raises(ValueError, match="needs the field n"):
        Note(Nn_("{n} area(s) of the map without census data ({names}) are not drawn.",
                 "{n} area(s) of the map without census data ({names}) are not drawn."), names="x")
    with pytest.raises(TypeError, match="str, Num, Join or Note"):
        note_json(Note(N_("{first} and {second}"), first="a", second=3))
