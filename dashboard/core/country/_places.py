"""The district search: what a person types → our districts, best first (issue 28).

A person types a district's name, their town, their city part, or their city's English name, often
without accents ("Forli", "Munchen").  The candidates are the data set's districts (their published
names and search variants) and the GeoNames places the build assigned to them
(:mod:`census_loaders.places`).  Every candidate gets a tier for its best name:

0. a name equals what was typed;
1. a word of the name starts with it (whole word or prefix: "Forli" → "Forlimpopoli" is tier 1);
2. the name contains it;
3. every typed word occurs somewhere in the candidate's names ("berlin stadt").

Case and accents are ignored (:func:`search_fold`).  One option per district: its best candidate;
on a tie a main name wins over an alternate one (GeoNames lists "Brooklyn" among Oshkosh's names),
then the district itself over a place inside it, then the larger population, then the label.  A place that *is* its district (Roma, Munich → "München, Landeshauptstadt") leads to the
district's own option; a place below it (Neukölln) to a line that says so, in the data set's own
district word ("Neukölln is part of Berlin, published as one Kreis").

assets/personal_page.js ``rankDistricts`` is the browser's copy of this rule; tests/js checks that both
give the same options on real names.
"""
from __future__ import annotations

import unicodedata
from typing import Sequence

#: How many options the dropdown shows at most (Dash indexes each option it holds: 0.2 s for 3,144).
SHOWN = 100
#: Between folded names in one candidate's text (never typed: a query cannot span two names).
SEPARATOR = "\n"


def search_fold(text: str) -> str:
    """Lower case without accents, as the browser folds (NFD, combining marks U+0300–U+036F dropped)."""
    decomposed = unicodedata.normalize("NFD", str(text))
    return "".join(ch for ch in decomposed if not 0x300 <= ord(ch) <= 0x36F).lower()


def name_tier(name: str, query: str) -> int | None:
    """The tier of one folded name for a folded, non-empty query (0 exact, 1 word start, 2 inside), or None."""
    i = name.find(query)
    if i < 0:
        return None
    if name == query:
        return 0
    while i >= 0:
        if i == 0 or not name[i - 1].isalnum():
            return 1
        i = name.find(query, i + 1)
    return 2


def candidate_tier(names: Sequence[str], joined: str, query: str, words: Sequence[str]) -> tuple[int, int] | None:
    """The best tier of a candidate's folded names (``joined``: them, SEPARATOR-joined) and whether only another
    name than the first reaches it (1) or the first does (0), or None."""
    best = None
    if query in joined:
        for i, n in enumerate(names):
            t = name_tier(n, query)
            if t is not None and (best is None or t < best[0]):
                best = (t, 0 if i == 0 else 1)
                if t == 0:
                    break
    if best is None and len(words) > 1 and all(w in joined for w in words):
        best = (3, 1)
    return best


def part_of_line(place: str, district: str, district_word: str) -> str:
    """The option of a place below district level: where its people are counted."""
    return f"{place} is part of {district}, published as one {district_word}"


def query_words(query: str) -> tuple[str, list[str]]:
    """What was typed, folded and with runs of spaces made one, and its words."""
    words = search_fold(query).split()
    return " ".join(words), words


def rank_districts(query: str, districts: Sequence[dict], places: Sequence[Sequence], district_word: str,
                   limit: int = SHOWN) -> tuple[list[dict], int]:
    """The options for ``query`` best first, at most ``limit``, and how many districts matched in all.

    ``districts``: the form's options ({"value", "label", "name", "search", "pop"}); ``places``: rows
    (name, names "|"-separated, district_id, population, is_district).  Each option returned is
    {"value", "label", "tier", "place"}: ``place`` is the matched place's name when the option leads
    from a place below district level to its district, else None.
    """
    q, words = query_words(query)
    if not q:
        return [], 0
    by_id = {str(d["value"]): d for d in districts}
    best: dict[str, tuple] = {}  # district id → sort key, option
    for d in districts:
        names = [search_fold(x) for x in (d["label"], *str(d.get("search", "")).split(" | "))]
        found = candidate_tier(names, SEPARATOR.join(names), q, words)
        if found is not None:
            t = found[0]
            key = (t, 0, 0, -float(d.get("pop") or 0), str(d["label"]))
            best[str(d["value"])] = (key, {"value": str(d["value"]), "label": str(d["label"]), "tier": t, "place": None})
    for name, alternates, district_id, population, is_district in places:
        d = by_id.get(str(district_id))
        if d is None:
            continue
        names = [search_fold(x) for x in (name, *(str(alternates).split("|") if alternates else ()))]
        found = candidate_tier(names, SEPARATOR.join(names), q, words)
        if found is None:
            continue
        t, alternate = found
        if is_district:
            option = {"value": str(d["value"]), "label": str(d["label"]), "tier": t, "place": None}
            key = (t, alternate, 0, -float(d.get("pop") or 0), str(d["label"]))
        else:
            option = {"value": str(d["value"]), "label": part_of_line(str(name), str(d.get("name") or d["label"]),
                                                                      district_word),
                      "tier": t, "place": str(name)}
            key = (t, alternate, 1, -float(population or 0), option["label"])
        old = best.get(option["value"])
        if old is None or key < old[0]:
            best[option["value"]] = (key, option)
    ranked = [o for _, o in sorted(best.values(), key=lambda ko: ko[0])]
    return ranked[:limit], len(ranked)


def place_rows(code: str) -> list[list]:
    """A data set's place index as the browser gets it (``/_places/<code>.json``): rows of
    [name, names, district_id, population, is_district]; [] for a data set without one."""
    import census_loaders as cl

    table = cl.place_index(code)
    if table is None:
        return []
    return [[str(n), str(a), str(d), int(p), bool(i)] for n, a, d, p, i in
            table[["name", "names", "district_id", "population", "is_district"]].itertuples(index=False)]
