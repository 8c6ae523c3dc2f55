"""The body model: study trimming, census → body mapping, band probabilities, plausibility."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm
from support import ROOT
from support.synthetic import US_GROUPS, make_model, make_population, make_priors

from dashboard.core.body import (
    BAND_WIDTHS,
    PROFILE_SDS,
    band_of,
    bmi_plausible,
    body_group_weights,
    cell_bmi,
    interval_probability,
    widen_band,
)
from dashboard.core.country import load_country_model
from dashboard.core.errors import InputError
from dashboard.core.groups import DEFAULT_STUDY, SEXES, check_study, open_group_end, trim_age_groups

# ----------------------------------------------------------------------------- study trimming


def test_trim_15_20_group_to_study_start():
    kept, groups = trim_age_groups([(10, 15), (15, 20), (20, 25)], (18, 75))
    assert list(kept) == [1, 2]
    g = groups[0]
    assert (g.lo, g.hi, g.census_lo, g.census_hi) == (18, 20, 15, 20)
    assert g.share == pytest.approx(2 / 5)
    assert g.trimmed and g.label == "18–20 (of 15–20)"
    assert groups[1].share == 1.0 and groups[1].label == "20–25"


def test_trimmed_counts_scaled_by_overlap_share():
    model = make_model(US_GROUPS)
    pop = make_population(US_GROUPS)
    a = [g.census_lo for g in model.age_groups].index(15)
    raw = pop[(pop["district_id"] == "01001") & (pop["sex"] == "female") & (pop["age_from"] == 15)]["count"].iloc[0]
    assert model.counts[0, 0, a] == pytest.approx(raw * 2 / 5)
    assert next(g.lo for g in model.age_groups) == 18
    assert model.age_groups[-1].hi == 75  # 75–80 dropped
    assert model.total == pytest.approx(
        pop[(pop["age_from"] >= 20) & (pop["age_from"] < 75)]["count"].sum()
        + 0.4 * pop[pop["age_from"] == 15]["count"].sum()
    )


def test_open_group_spans_to_100():
    _kept, groups = trim_age_groups(US_GROUPS, (18, 90))
    last = groups[-1]
    assert (last.lo, last.hi, last.census_lo, math.isinf(last.census_hi)) == (85, 90, 85, True)
    assert last.share == pytest.approx(5 / 15)
    assert last.label == "85–90 (of 85+)"
    # a study without an upper end keeps the whole open group, still open
    _, groups = trim_age_groups(US_GROUPS, (18, math.inf))
    assert math.isinf(groups[-1].hi) and groups[-1].share == 1.0 and groups[-1].label == "85+"


def test_groups_outside_study_dropped_and_bad_study():
    with pytest.raises(InputError, match="no census age group"):
        trim_age_groups([(0, 10)], (18, 75))
    with pytest.raises(InputError, match="not a valid"):
        check_study((75, 18))
    with pytest.raises(InputError):
        check_study(("a", 3))


@given(lo=st.integers(0, 80), span=st.integers(1, 40))
def test_trim_shares_add_up(lo, span):
    """Trimmed counts equal the study years' share of evenly spread people."""
    study = (lo, lo + span)
    try:
        _kept, groups = trim_age_groups(US_GROUPS, study)
    except InputError:
        pytest.fail("every study range overlaps some group here")
    for g in groups:
        hi = open_group_end(g.census_lo) if math.isinf(g.census_hi) else g.census_hi
        lo_t, hi_t = max(g.census_lo, study[0]), min(hi, study[1])
        assert g.share == pytest.approx((hi_t - lo_t) / (hi - g.census_lo))


# ----------------------------------------------------------------------------- body mapping


def test_census_65_75_mixes_two_body_groups():
    model = make_model()
    a = [g.label for g in model.age_groups].index("65–75")
    for s in range(2):
        w = model.body_weights[s, a]
        used = np.flatnonzero(w)
        assert [model.body.label(g) for g in used] == [f"{SEXES[s]} 65–70", f"{SEXES[s]} 70–75"]
        assert w[used] == pytest.approx([0.5, 0.5])
    assert not model.nearest_body.any()
    assert model.body_weights.sum(axis=2) == pytest.approx(np.ones((2, len(model.age_groups))))


def test_body_group_spanning_census_groups_used_by_each():
    us_priors = make_priors([(18, 20)] + [(a, a + 10) for a in range(20, 80, 10)] + [(80, None)])
    model = make_model(US_GROUPS, priors=us_priors)
    labels = [g.label for g in model.age_groups]
    for lab in ("20–25", "25–30"):
        a = labels.index(lab)
        used = np.flatnonzero(model.body_weights[0, a])
        assert [model.body.label(g) for g in used] == ["female 20–30"]
    a = labels.index("18–20 (of 15–20)")
    assert [model.body.label(g) for g in np.flatnonzero(model.body_weights[1, a])] == ["male 18–20"]


def test_census_group_beyond_body_statistics_uses_nearest_and_is_flagged():
    model = make_model(study=(18, 80))
    a = len(model.age_groups) - 1
    assert model.age_groups[a].label == "75–80 (of 75+)"
    assert model.nearest_body[:, a].all()
    used = np.flatnonzero(model.body_weights[0, a])
    assert [model.body.label(g) for g in used] == ["female 70–75"]
    assert "nearest body group" in model.body_mapping_note(0, a)
    # a group half covered takes the covered half from its own group, the rest from the nearest
    _kept, groups = trim_age_groups([(70, 80)], (18, 80))
    W, nearest = body_group_weights(groups, model.body)
    assert nearest.all()
    assert W[0, 0].sum() == pytest.approx(1.0)
    assert W[0, 0, np.flatnonzero(W[0, 0])] == pytest.approx([1.0])


# ----------------------------------------------------------------------------- bands


@pytest.mark.parametrize(
    "value,width,band",
    [(172, 5, (170, 175)), (175, 5, (175, 180)), (174.99, 5, (170, 175)), (172, 1, (172, 173)),
     (173, 2, (172, 174)), (172, 10, (170, 180)), (172, 20, (160, 180)), (69.5, 5, (65, 70))],
)
def test_band_of(value, width, band):
    assert band_of(value, width) == band


def test_widen_band_contains_original():
    assert widen_band((170, 175), 10) == (170, 180)
    assert widen_band((174, 176), 5) == (170, 180)  # straddles a 5-cm edge: two bands
    assert widen_band((170, 175), 5) == (170, 175)


def test_interval_probability_matches_scipy_in_both_tails():
    for lo, hi in ((100, 101), (160, 165), (230, 231), (-50, -49)):
        got = interval_probability(170.0, 7.0, lo, hi)
        want = norm.sf(lo, 170, 7) - norm.sf(hi, 170, 7) if lo > 170 else norm.cdf(hi, 170, 7) - norm.cdf(lo, 170, 7)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("hw,ww", [(1, 1), (2, 5), (5, 5), (10, 20), (20, 10)])
def test_joint_sums_to_one(hw, ww):
    model = make_model(US_GROUPS, priors=make_priors([(18, 20)] + [(a, a + 10) for a in range(20, 80, 10)] + [(80, None)]))
    joint = model.joint(hw, ww)
    totals = joint.prob.sum(axis=(2, 3))
    assert np.abs(totals - 1).max() < 1e-12
    assert joint.height.start % hw == 0 and joint.weight.start % ww == 0
    assert model.joint(hw, ww) is joint  # memoised


def test_mixture_for_65_75_matches_hand_computation():
    priors = make_priors()
    model = make_model(priors=priors)
    a = [g.label for g in model.age_groups].index("65–75")
    joint = model.joint(5, 5)
    ih, iw = joint.height.index(160), joint.weight.index(70)
    f = priors[priors["sex"] == "female"].set_index("age_from")
    want = 0.0
    for lo in (65.0, 70.0):
        r = f.loc[lo]
        ph = norm.cdf(165, r.height_mean, r.height_sd) - norm.cdf(160, r.height_mean, r.height_sd)
        pw = norm.cdf(75, r.weight_mean, r.weight_sd) - norm.cdf(70, r.weight_mean, r.weight_sd)
        want += 0.5 * ph * pw
    assert joint.prob[0, a, ih, iw] == pytest.approx(want, rel=1e-12)
    assert model.cell_probability((160, 165), (70, 75))[0, a] == pytest.approx(want, rel=1e-12)
    # not the product of the mixed marginals (height and weight are not independent across the mixture)
    mh = model.marginal("height", 5)[0, a, ih]
    mw = model.marginal("weight", 5)[0, a, iw]
    assert joint.prob[0, a].sum(axis=1)[ih] == pytest.approx(mh, rel=1e-12)
    assert joint.prob[0, a].sum(axis=0)[iw] == pytest.approx(mw, rel=1e-12)


def test_bmi_plausibility():
    assert cell_bmi((170, 175), (70, 75)) == pytest.approx(72.5 / 1.725**2)
    mask = bmi_plausible(np.array([172.5, 152.5]), np.array([72.5, 102.5, 42.5]))
    assert mask.tolist() == [[True, False, False], [False, False, True]]
    assert bmi_plausible(np.array([152.5]), np.array([102.5]), (17, 50)).all()
    assert bmi_plausible(np.array([152.5]), np.array([102.5]), None).all()
    joint = make_model().joint(5, 5)
    p = joint.plausible()
    assert p.shape == joint.prob.shape[2:] and p.any() and not p.all()


def _by_hand_core(model, s, a, kind):
    """±PROFILE_SDS of the body groups a census group mixes, straight from the priors."""
    means, sds = model.body.params(kind)
    used = np.flatnonzero(model.body_weights[s, a] > 0)
    return (means[used] - PROFILE_SDS * sds[used]).min(), (means[used] + PROFILE_SDS * sds[used]).max()


@pytest.mark.parametrize("study", [DEFAULT_STUDY, (18, 80)])
@pytest.mark.parametrize("hw,ww", [(5, 5), (2, 10)])
def test_profile_mask_by_group(study, hw, ww):
    model = make_model(study=study)
    joint = model.joint(hw, ww)
    by_group = joint.profile_mask_by_group()
    S, A = model.body_weights.shape[:2]
    assert by_group.shape == (S, A, joint.height.n, joint.weight.n) and by_group.dtype == bool
    plausible = joint.plausible()
    cores = {k: model.group_core_ranges(k) for k in ("height", "weight")}
    for s in range(S):
        for a in range(A):
            h_lo, h_hi = _by_hand_core(model, s, a, "height")
            w_lo, w_hi = _by_hand_core(model, s, a, "weight")
            assert tuple(cores["height"][s, a]) == pytest.approx((h_lo, h_hi), rel=1e-12)
            assert tuple(cores["weight"][s, a]) == pytest.approx((w_lo, w_hi), rel=1e-12)
            # by hand: the cell centre within 4 SD (height and weight combined) of one of its body groups
            near = np.zeros(plausible.shape, bool)
            for g in np.flatnonzero(model.body_weights[s, a] > 0):
                zh = (joint.height.centres - model.body.height_mean[g]) / model.body.height_sd[g]
                zw = (joint.weight.centres - model.body.weight_mean[g]) / model.body.weight_sd[g]
                near |= zh[:, None] ** 2 + zw[None, :] ** 2 <= 16
            assert np.array_equal(by_group[s, a], plausible & near)
            h_in = (joint.height.hi > h_lo) & (joint.height.lo < h_hi)  # the ellipse lies in the bounding box
            w_in = (joint.weight.hi > w_lo) & (joint.weight.lo < w_hi)
            assert not (by_group[s, a] & ~(h_in[:, None] & w_in[None, :])).any()
            # the group's own grid holds nearly all of its plausible mass: only the ±4 SD tails are out
            own = joint.prob[s, a][by_group[s, a]].sum()
            assert own <= joint.prob[s, a][plausible].sum()
            assert joint.prob[s, a][joint.profile_mask_by_group(None)[s, a]].sum() > 0.999  # 1 − e^−8 inside, less the band edges
    # one group's grid is narrower than the union of all (profile_mask)
    assert np.array_equal(joint.profile_mask(), by_group.any(axis=(0, 1)))
    labels = [g.label for g in model.age_groups]
    young_women = by_group[0, labels.index("18–20")]
    assert young_women.sum() < joint.profile_mask().sum()
    tall_heavy = (joint.height.index(195), joint.weight.index(95))  # a young man's cell, ~5 SD for a woman of 18–20
    assert joint.profile_mask()[tall_heavy] and not young_women[tall_heavy]
    assert by_group[1, labels.index("18–20")][tall_heavy]
    # the mixture 65–75 takes the range of both its body groups (female 65–70 and 70–75)
    a = labels.index("65–75")
    f = make_priors().query("sex == 'female' and age_from >= 65")
    want = ((f.height_mean - 4 * f.height_sd).min(), (f.height_mean + 4 * f.height_sd).max())
    assert len(f) == 2 and tuple(model.group_core_ranges("height")[0, a]) == pytest.approx(want, rel=1e-12)
    one = f.iloc[0]
    assert model.group_core_ranges("height")[0, a][0] < one.height_mean - 4 * one.height_sd  # wider than 65–70 alone
    # the nearest-group stand-in (75–80 of 75+) uses its stand-in's range
    if study == (18, 80):
        a = labels.index("75–80 (of 75+)")
        g = np.flatnonzero(model.body_weights[0, a])[0]
        m, sd = model.body.height_mean[g], model.body.height_sd[g]
        assert tuple(model.group_core_ranges("height")[0, a]) == pytest.approx((m - 4 * sd, m + 4 * sd))


@settings(max_examples=40, deadline=None)
@given(
    hw=st.sampled_from(BAND_WIDTHS), ww=st.sampled_from(BAND_WIDTHS),
    d=st.integers(0, 3), s=st.integers(0, 1), a=st.integers(0, 10),
)
def test_all_cells_return_the_census_count(hw, ww, d, s, a):
    """Without the plausibility filter, Σ over every height × weight cell gives back N."""
    model = _MODEL
    joint = model.joint(hw, ww)
    n = model.counts[d, s, a]
    assert (n * joint.prob[s, a]).sum() == pytest.approx(n, rel=1e-9)


_MODEL = make_model()


# ----------------------------------------------------------------------------- the model


def test_model_from_frames_arrays_and_lookups():
    model = make_model()
    assert model.counts.shape == (4, 2, 11)
    assert list(model.district_ids) == ["01001", "01002", "02001", "02002"]
    assert model.filled.tolist() == [False, False, True, False]
    assert list(model.region_members(0)) == [0, 1]
    assert model.district_index("02001") == 2
    assert model.district_index("gamma") == 2
    with pytest.raises(InputError, match="unknown district"):
        model.district_index("99999")
    assert model.age_index(19) == 0 and model.age_index(70) == 10
    with pytest.raises(InputError, match="outside the study population 18–75"):
        model.age_index(75)
    with pytest.raises(InputError):
        model.age_index(17)
    assert model.body.country == "DE" and model.borrowed_from is None


def test_with_study_is_memoised_and_consistent():
    model = make_model()
    wide = model.with_study((15, 80))
    assert wide is model.with_study((15, 80))
    assert wide.with_study(DEFAULT_STUDY) is model
    assert wide.age_groups[0].label == "15–18"
    assert wide.age_groups[-1].label == "75–80 (of 75+)"
    assert wide.counts[:, :, -1] == pytest.approx(model.census_counts[:, :, -1] * 5 / 25)


def test_borrowed_priors_metadata():
    priors = make_priors(country="DE")
    priors.attrs.update(borrowed_from="DE")
    model = make_model(priors=priors, prior_country_name="Germany")
    assert model.borrowed_from == "DE" and model.prior_country_name == "Germany"


# ----------------------------------------------------------------------------- real data


def test_real_germany(cache_root):
    model = load_country_model("DE", root=cache_root)
    assert model is load_country_model("DE", root=cache_root)
    assert model.n_districts == 400
    labels = [g.label for g in model.age_groups]
    assert labels[0] == "18–20" and labels[-1] == "65–75"
    a = labels.index("65–75")
    for s in range(2):
        used = np.flatnonzero(model.body_weights[s, a])
        assert len(used) == 2 and model.body_weights[s, a, used] == pytest.approx([0.5, 0.5])
    assert not model.nearest_body.any()
    joint = model.joint(5, 5)
    assert np.abs(joint.prob.sum(axis=(2, 3)) - 1).max() < 1e-12
    wide = model.with_study((18, 85))
    assert wide.nearest_body[:, -1].all()


def test_real_us_priors(cache_root):
    from census_loaders import cache

    if "US" not in cache.countries(cache_root):
        pytest.skip("no US data set in the cache")
    model = load_country_model("US", root=cache_root)
    assert model.borrowed_from is None
    assert np.abs(model.joint(1, 1).prob.sum(axis=(2, 3)) - 1).max() < 1e-12
    assert model.body_weights.sum(axis=2) == pytest.approx(np.ones(model.body_weights.shape[:2]))


def test_public_memo_api():
    model = make_model()
    calls = []
    make = lambda: calls.append(1) or len(calls)  # noqa: E731
    assert model.memo("x", make) == 1 and model.memo("x", make) == 1 and len(calls) == 1
    with pytest.raises(ValueError):
        model.memo("bad", lambda: (_ for _ in ()).throw(ValueError("no")))
    assert model.memo("bad", lambda: 7) == 7  # a failed make stores nothing
    for i in range(5):
        model.memo_lru("recent", i, lambda i=i: i * 10, maxsize=3)
    hits = []
    assert model.memo_lru("recent", 4, lambda: hits.append(4) or -1, maxsize=3) == 40
    assert model.memo_lru("recent", 0, lambda: hits.append(0) or -1, maxsize=3) == -1  # evicted: made again
    assert hits == [0]
    model.forget("recent")
    assert model.memo_lru("recent", 4, lambda: -4, maxsize=3) == -4
    model.joint(5, 5)
    model.forget("joints")
    model.forget()
    assert model.memo("x", make) == 2
    lookup = model.district_lookup()
    assert lookup["id"][str(model.district_ids[0])] == 0


def test_no_module_reaches_into_a_models_private_memos():
    """Other modules use the public memo API (memo, memo_lru, forget, district_lookup), never ``_cache``."""
    import re

    root = ROOT
    offenders = []
    for path in [*root.glob("dashboard/**/*.py"), *root.glob("census_loaders/**/*.py"), *root.glob("benchmarks/*.py")]:
        if path.name == "body_model.py":
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r"\bmodel\._(cache|memo|district_lookup)\b|\bbm\._LOCK\b", text):
            offenders.append(str(path.relative_to(root)))
    assert offenders == []
