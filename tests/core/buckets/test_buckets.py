"""The bucket advisor (SPEC §7): brute force, the explorer's CDF, the personal page's CAS, monotonicity, bad input."""
from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest
from support.bucket_reference import reference_evaluate, reference_evaluate_many
from support.synthetic import DE_GROUPS, make_population, make_priors

from dashboard.core import personal as cas
from dashboard.core import regions as ag
from dashboard.core.buckets import (
    AGE_LEVELS,
    BITS_TOL,
    Config,
    advise,
    advise_model,
    age_blocks,
    block_bands,
    export_csv,
    export_json,
    partition_refines,
    recommendation_text,
    refines,
    width_refines,
)
from dashboard.core.buckets._advisor import _cell_probs
from dashboard.core.country import CountryModel, load_country_model
from dashboard.core.errors import InputError
from dashboard.core.groups import SEXES
from dashboard.core.regions import Scenario
from dashboard.core.text import plural

# ----------------------------------------------------------------------------- a small synthetic country


def synthetic_model() -> CountryModel:
    """Six districts in two regions, DE-like census groups, one empty age group (ρmin = 0 path)."""
    districts = [
        ("01001", "Alpha", "01", "North", False), ("01002", "Beta", "01", "North", False),
        ("01003", "Epsilon", "01", "North", False), ("02001", "Gamma", "02", "South", True),
        ("02002", "Delta", "02", "South", False), ("02003", "Zeta", "02", "South", False),
    ]
    pop = make_population(DE_GROUPS, districts, seed=7)
    # a district with nobody aged 30–35 among women, and one very small district
    pop.loc[(pop["district_id"] == "01002") & (pop["sex"] == "female") & (pop["age_from"] == 30), "count"] = 0.0
    pop.loc[pop["district_id"] == "02003", "count"] = pop.loc[pop["district_id"] == "02003", "count"] / 40
    return CountryModel.from_frames("SY", pop, make_priors(), name="Synthland")


@pytest.fixture(scope="module")
def synth():
    return synthetic_model()


def partitions(model):
    return {level: age_blocks(model, level) for level in AGE_LEVELS}


def brute_force(model, advice):
    """``{config: (bits, coverage)}`` of every evaluated configuration, each (height, weight, age) release
    materialised once for all its areas (:func:`reference_evaluate_many`)."""
    target = (advice.k, advice.q)
    return reference_evaluate_many(model, [e.config for e in advice.evaluated], [target])[target]


#: The targets (k, q) the synthetic country is checked at by brute force.
BRUTE_FORCE_TARGETS = [(10, 0.95), (50, 0.8), (3, 0.99)]


@pytest.fixture(scope="module")
def synth_brute_force(synth):
    """``{(k, q): (advice, {config: (bits, coverage)})}`` for every brute-force target: the reference is materialised
    once per configuration for all targets together (it does not depend on k or q), not once per target."""
    advices = {t: advise_model(synth, *t) for t in BRUTE_FORCE_TARGETS}
    configs = {e.config for a in advices.values() for e in a.evaluated}
    ref = reference_evaluate_many(synth, configs, BRUTE_FORCE_TARGETS)
    return {t: (advices[t], {e.config: ref[t][e.config] for e in advices[t].evaluated}) for t in BRUTE_FORCE_TARGETS}


# ----------------------------------------------------------------------------- the ladder


def test_age_blocks_cut_at_multiples_and_absorb_a_short_first_group():
    model = CountryModel.from_frames("XX", make_population(DE_GROUPS), make_priors())
    bands = {lvl: block_bands(model, age_blocks(model, lvl)) for lvl in AGE_LEVELS}
    assert bands["census"][0] == (18, 20) and len(bands["census"]) == 11
    assert bands[5][0] == (18, 25)  # 18–20 is shorter than half of 5 years from the start: joins 20–25
    assert bands[10] == [(18, 30), (30, 40), (40, 50), (50, 60), (60, 75)]
    assert bands[15] == [(18, 30), (30, 45), (45, 60), (60, 75)]
    assert bands[20] == [(18, 40), (40, 60), (60, 75)]
    assert bands["withheld"] == [(18, 75)]
    parts = partitions(model)
    assert partition_refines(parts["census"], parts[10]) and partition_refines(parts[5], parts[15])
    assert not partition_refines(parts[10], parts[15]) and not partition_refines(parts[15], parts[10])
    assert width_refines(1, 5) and width_refines(2, 10) and not width_refines(2, 5)
    assert width_refines(20, None) and not width_refines(None, 20)


# ----------------------------------------------------------------------------- exactness by brute force


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
@pytest.mark.parametrize("k,q", BRUTE_FORCE_TARGETS)
def test_every_configuration_matches_brute_force_and_the_recommendation_is_optimal(synth_brute_force, k, q):
    advice, ref = synth_brute_force[(k, q)]
    assert len(advice.evaluated) > 500
    for e in advice.evaluated:
        bits, cov = ref[e.config]
        assert e.coverage == pytest.approx(cov, rel=1e-10, abs=1e-12), e.config
        assert abs(e.bits - bits) <= e.bits_error + 1e-9, e.config
        assert e.bits_error <= BITS_TOL
    feasible = [c for c, (b, cv) in ref.items() if cv >= q - 1e-12]
    assert advice.recommended is not None and ref[advice.recommended.config][1] >= q - 1e-12
    best = max(ref[c][0] for c in feasible)
    assert ref[advice.recommended.config][0] >= best - 2 * BITS_TOL
    # the front: nobody dominates a member, every other configuration is dominated
    pts = list(ref.items())
    front = {e.config for e in advice.front}
    for c, (b, cv) in pts:
        dominated = any((b2 >= b - 2 * BITS_TOL and cv2 >= cv - 1e-12) and (b2 > b + 2 * BITS_TOL or cv2 > cv + 1e-12)
                        for c2, (b2, cv2) in pts if c2 != c)
        if c in front:
            assert not any(b2 > b + 2 * BITS_TOL and cv2 > cv + 1e-9 for c2, (b2, cv2) in pts), c
        elif not dominated:
            # not on the front but not dominated: only possible as a tie with a front member
            assert any(abs(ref[f][0] - b) <= 2 * BITS_TOL and ref[f][1] >= cv - 1e-12 for f in front), c
    coverages = [e.coverage for e in advice.front]
    assert coverages == sorted(coverages) and [e.bits for e in advice.front] == sorted(
        (e.bits for e in advice.front), reverse=True)


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
@pytest.mark.parametrize("code", ["MT", "LI"])
def test_small_real_countries_match_brute_force(cache_root, code):
    model = load_country_model(code)
    advice = advise(code, 10, 0.95)
    ref = brute_force(model, advice)
    for e in advice.evaluated:
        bits, cov = ref[e.config]
        assert e.coverage == pytest.approx(cov, rel=1e-10, abs=1e-12)
        assert abs(e.bits - bits) <= e.bits_error + 1e-9
    feasible = [(b, c) for c, (b, cv) in ref.items() if cv >= 0.95]
    assert ref[advice.recommended.config][0] >= max(feasible, key=lambda t: t[0])[0] - 2 * BITS_TOL


def test_the_withheld_everything_release_has_the_entropy_of_sex(synth):
    advice = advise_model(synth, 1e-9, 0.5, areas=("withheld",), age_levels=("withheld",), widths=(None,))
    (e,) = advice.evaluated
    f, m = synth.counts.sum(axis=(0, 2)) / synth.total
    assert e.bits == pytest.approx(-(f * math.log2(f) + m * math.log2(m)), abs=1e-12)
    assert e.coverage == pytest.approx(1.0)


# ----------------------------------------------------------------------------- monotonicity


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_coarsening_never_lowers_coverage_nor_raises_bits(synth):
    advice = advise_model(synth, 20, 0.9)
    parts = partitions(synth)
    ev = advice.evaluated
    pairs = 0
    for a in ev:
        for b in ev:
            if a is not b and refines(a, b, parts):
                pairs += 1
                assert a.coverage <= b.coverage + 1e-12, (a.config, b.config)
                assert b.bits <= a.bits + a.bits_error + b.bits_error + 1e-12, (a.config, b.config)
    assert pairs > 10_000


def test_every_cas_of_a_coarser_release_is_at_least_the_finer_ones(synth):
    """The property behind monotonicity, per person: CAS(coarse profile) = Σ CAS(fine profiles inside it)."""
    counts = synth.counts
    fine = np.einsum("dsa,saj->dsaj", counts, _cell_probs(synth, 5, 5, "paper"))
    p10 = _cell_probs(synth, 10, 10, "paper")
    blocks = age_blocks(synth, 10)
    coarse = np.stack([np.einsum("dsa,saj->dsj", counts[:, :, list(b)], p10[:, list(b)]) for b in blocks], axis=2)
    paper = synth.with_model("paper")  # the grids of the model the probabilities above come from
    j5, j10 = paper.joint(5, 5), paper.joint(10, 10)
    # map each 5 × 5 cell into its 10 × 10 cell
    hi = np.floor((j5.height.lo - j10.height.start) / 10 + 1e-9).astype(int)
    wi = np.floor((j5.weight.lo - j10.weight.start) / 10 + 1e-9).astype(int)
    target = (hi[:, None] * j10.weight.n + wi[None, :]).ravel()
    block_of = {a: i for i, b in enumerate(blocks) for a in b}
    for a in range(counts.shape[2]):
        c = coarse[:, :, block_of[a], :][:, :, target]
        assert np.all(c >= fine[:, :, a, :] * (1 - 1e-12))


# ----------------------------------------------------------------------------- independent checks


def _region_counts(model):
    rid = np.asarray(model.region_ids).astype(str)
    names, inv = np.unique(rid, return_inverse=True)
    out = np.zeros((len(names),) + model.counts.shape[1:])
    np.add.at(out, inv, model.counts)
    return out


def test_recommendation_checked_with_the_explorers_cdf(cache_root):
    """DE, census age groups, district or region: the explorer's engine gives the same share with CAS ≥ k.

    The explorer leaves cells beyond ±4 SD (and implausible ones) out; with the BMI filter
    switched off (1–1000) its share below k and its covered share sandwich ours:
    plausible − below ≤ coverage ≤ 1 − below.
    """
    k, q = 10, 0.95
    # the explorer's BMI filter switched off is a paper-model construct: compare under the paper model
    advice = advise("DE", k, q, age_levels=("census",), widths=(1, 2, 5, 10, 20), areas=("district", "region"),
                       model="paper")
    rec = advice.recommended
    assert rec is not None and rec.coverage >= q
    c = rec.config
    model = load_country_model("DE").with_model("paper")
    cells = ag.profile_cells(model, True, c.height, c.weight, None)
    N = model.counts if c.area == "district" else _region_counts(model)
    below, _ = ag.cdf_counts(N, cells, [k], strict=True)
    plausible = float((N * cells.Q1[None]).sum())
    T = float(N.sum())
    assert (plausible - below[0]) / T <= rec.coverage + 1e-9
    assert rec.coverage <= 1 - below[0] / T + 1e-9
    assert 1 - below[0] / T >= q  # the explorer agrees: at least q have CAS ≥ k
    if c.area == "district":
        sc = Scenario(countries=("DE",), height_width=c.height, weight_width=c.weight, bmi_range=(1, 1000),
                      model="paper")
        share = ag.share_below(sc, [k])["DE"][float(k)]
        assert share == pytest.approx(below[0] / plausible, rel=1e-9)  # a share of the covered people (SPEC §1.8)


def test_district_level_census_configurations_match_the_explorers_share_below(cache_root):
    advice = advise("DE", 10, 0.95, age_levels=("census",), widths=(2, 5, 10), areas=("district",), model="paper")
    for e in advice.evaluated:
        sc = Scenario(countries=("DE",), height_width=e.config.height, weight_width=e.config.weight, bmi_range=(1, 1000),
                      model="paper")
        below = ag.share_below(sc, [10])["DE"][10.0]
        plaus = ag.country_cdf(sc, "DE").plausible_share
        assert plaus - below - 1e-9 <= e.coverage <= 1 - below + 1e-9


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_de_recommendation_matches_brute_force(cache_root):
    model = load_country_model("DE")
    advice = advise("DE", 10, 0.95)
    rec = advice.recommended
    bits, cov = reference_evaluate(model, rec.config, 10, 0.95)
    assert cov >= 0.95 and rec.coverage == pytest.approx(cov, rel=1e-10)
    assert abs(rec.bits - bits) <= rec.bits_error + 1e-9


def test_merged_age_groups_add_counts_like_the_personal_page(cache_root):
    """A released profile with a merged age group has the CAS the personal page computes for those groups together."""
    model = load_country_model("DE")
    blocks = age_blocks(model, 10)
    block = blocks[1]  # 30–40: two census groups
    lo, hi = block_bands(model, [block])[0]
    d = 17
    for area, counts in (("district", model.counts[d]), ("region", model.counts[model.region_members(d)].sum(axis=0))):
        profile = cas.Profile.build("DE", district=str(model.district_ids[d]), sex="female", age=(f"{lo:g}-{hi:g}",),
                                    height="160-170", weight="60-70", area=area)
        got = cas.compute_cas(model, profile).cas
        p = model.cell_probability((160, 170), (60, 70))  # [s, a]
        mine = sum(counts[0, a] * p[0, a] for a in block)
        assert got == pytest.approx(mine, rel=1e-9)


# ----------------------------------------------------------------------------- per district, global shortfall


@pytest.mark.slow  # an advice and a brute force per district: the full suite runs it
def test_per_district_mode(synth):
    advice = advise_model(synth, 10, 0.9, per_district=True)
    pd_ = advice.per_district
    assert len(pd_.best) == synth.n_districts
    for i, best in enumerate(pd_.best):
        if best is None:
            continue
        assert best.area == "district" and pd_.best_coverage[i] >= 0.9
        # brute force within the district: no district-level configuration with more bits meets q there
        sub = CountryModel.from_frames("SY1", _district_frame(synth, i), make_priors())
        for e in advise_model(sub, 10, 0.9, areas=("district",)).evaluated:
            if e.coverage >= 0.9:
                assert e.bits <= pd_.best_bits[i] + 2 * BITS_TOL
    # the districts falling short under the global recommendation are exactly those below q there
    rec = advice.recommended.config
    short = set(advice.short_under_recommended)
    for d in range(synth.n_districts):
        sub = CountryModel.from_frames("SY1", _district_frame(synth, d), make_priors())
        _, cov = reference_evaluate(sub, Config(rec.age, rec.height, rec.weight, "district"), 10, 0.9)
        assert advice.district_coverage[d] == pytest.approx(cov, rel=1e-10)
        assert (d in short) == (cov < 0.9)


def _district_frame(model, d):
    import pandas as pd

    rows = []
    for s, sex in enumerate(SEXES):
        for a, g in enumerate(model.age_groups):
            rows.append({"district_id": "X", "district_name": "X", "region_id": "R", "region_name": "R", "sex": sex,
                         "age_from": g.lo, "age_to": g.hi, "count": float(model.counts[d, s, a])})
    return pd.DataFrame(rows)


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_district_or_region_pools_the_short_districts(synth):
    advice = advise_model(synth, 30, 0.9)
    mixed = [e for e in advice.evaluated if e.config.area == "district_or_region"]
    assert mixed
    for e in mixed[:40]:
        bits, cov = reference_evaluate(synth, e.config, 30, 0.9)
        assert e.coverage == pytest.approx(cov, rel=1e-10) and abs(e.bits - bits) <= e.bits_error + 1e-9
        assert e.short_districts.size > 0


# ----------------------------------------------------------------------------- exports and words


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_exports_and_words(synth):
    advice = advise_model(synth, 10, 0.95, per_district=True)
    data = json.loads(export_json(advice))
    rec = data["recommended"]
    for key in ("age_group_years", "height_cm", "weight_kg", "bits", "coverage", "age_groups", "area"):
        assert key in rec
    assert data["front"] and all({"age_group_years", "height_cm", "weight_kg", "bits", "coverage"} <= set(f)
                                 for f in data["front"])
    assert len(data["per_district"]) == synth.n_districts
    rows = list(csv.DictReader(io.StringIO(export_csv(advice))))
    assert len(rows) == len(advice.evaluated)
    assert sum(r["recommended"] == "1" for r in rows) == 1
    assert sum(r["on_front"] == "1" for r in rows) == len(advice.front)
    text = recommendation_text(advice)
    assert text.startswith("Collect age") and f"{advice.recommended.coverage:.1%}" in text
    assert plural("county") == "counties" and plural("district") == "districts" and plural("Kreis") == "Kreise"


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_impossible_target_says_so(synth):
    advice = advise_model(synth, 1e9, 0.95)
    assert advice.recommended is None
    assert "No configuration" in recommendation_text(advice)
    assert json.loads(export_json(advice))["recommended"] is None


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("kw,msg", [
    ({"k": 0}, "k must be a positive"), ({"k": -3}, "k must be a positive"), ({"k": float("nan")}, "k must be"),
    ({"k": "ten"}, "is not a number"), ({"q": 0}, "coverage must lie in (0, 1]"), ({"q": 1.5}, "coverage must lie"),
    ({"q": -0.1}, "coverage must lie"), ({"model": "v3"}, "unknown body model 'v3'"),
])
def test_bad_input_gives_clear_messages(synth, kw, msg):
    args = {"k": 10, "q": 0.95, **kw}
    with pytest.raises(InputError, match=None) as exc:
        advise_model(synth, args["k"], args["q"], model=args.get("model", "paper"))
    assert msg in str(exc.value)


def test_unknown_country(cache_root):
    with pytest.raises(InputError) as exc:
        advise("ZZ", 10, 0.95)
    assert "ZZ" in str(exc.value)
    with pytest.raises(InputError):
        advise_model(synthetic_model(), 10, 0.95, areas=("planet",))
    with pytest.raises(InputError):
        advise_model(synthetic_model(), 10, 0.95, widths=(3,))


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_merged_ages_on_germany_match_brute_force(cache_root):
    """400 Kreise with their own age mixes: the binned thresholds of merged blocks stay exact."""
    model = load_country_model("DE")
    advice = advise("DE", 10, 0.95)
    chosen = [e for e in advice.evaluated if e.config.age in (10, "withheld") and e.config.area == "district"
              and (e.config.height, e.config.weight) in ((10, 10), (20, 2), (5, None), (None, 5))]
    assert len(chosen) == 8
    for e in chosen:
        bits, cov = reference_evaluate(model, e.config, 10, 0.95)
        assert e.coverage == pytest.approx(cov, rel=1e-10), e.config
        assert abs(e.bits - bits) <= e.bits_error + 1e-9, e.config


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_words_for_withheld_districts(synth):
    import dataclasses

    advice = advise_model(synth, 30, 0.9)
    mixed = [e for e in advice.evaluated if e.config.area == "district_or_region"]
    few = next(e for e in mixed if 2 * len(e.short_districts) <= synth.n_districts)
    many = next(e for e in mixed if 2 * len(e.short_districts) > synth.n_districts)
    t = recommendation_text(dataclasses.replace(advice, recommended=few))
    n = len(few.short_districts)
    assert f"in the {n} district{'s' if n > 1 else ''} (of 6) where fewer than 90% would be safe, withhold the " \
           f"district and give only the region" in t
    t = recommendation_text(dataclasses.replace(advice, recommended=many))
    kept = synth.n_districts - len(many.short_districts)
    assert f"with the region instead of the district, except in the {kept} district" in t
    assert all(str(synth.district_names[d]) not in t.split("(")[-1] for d in many.short_districts)
