"""AnonLand (SPEC §4): RAS against brute force, CAS, the noisy census, determinism, CLI."""
from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dashboard import cli
from dashboard.core import anonland as A
from dashboard.core.body import band_of
from dashboard.core.errors import InputError

#: Small enough to materialise every person; two classes so the class split is exercised.
TINY = A.AnonLandConfig(
    classes=(A.DistrictClass("town", 3_000, 2), A.DistrictClass("hamlet", 40, 20)),
    citizens_per_class=40,
    seed=7,
)


@pytest.fixture(scope="module")
def tiny():
    return A.run_anonland(TINY)


@pytest.fixture(scope="module")
def scaled():
    """AnonLand at 5 % of its size: 5.1 million people, every district, 5,000 citizens."""
    return A.run_anonland(A.AnonLandConfig().scaled(0.05))


# --------------------------------------------------------------------------- configuration


def test_defaults_follow_the_spec():
    cfg = A.AnonLandConfig()
    assert cfg.population == 102_500_000
    assert cfg.n_districts == 5 + 25 + 250 + 2_500 + 2_500
    assert cfg.n_citizens == 5_000 and cfg.epsilon == 2.0
    assert cfg.age_groups[0] == (0, 5) and cfg.age_groups[-1] == (85, 90) and len(cfg.age_groups) == 18


def test_age_density():
    cfg = A.AnonLandConfig()
    p = A.age_group_probabilities(cfg)
    assert p.sum() == pytest.approx(1.0)
    assert p[:8] == pytest.approx(np.full(8, 5 / 65))  # flat on [0, 40)
    assert np.all(np.diff(p[8:]) < 0)  # then falling
    u = np.linspace(0, 1, 101)
    assert A.age_cdf(cfg, A.age_quantile(cfg, u)) == pytest.approx(u)


@pytest.mark.parametrize("kwargs", [
    {"epsilon": 0}, {"epsilon": -1}, {"epsilon": math.nan}, {"epsilon": math.inf},
    {"citizens_per_class": 0},
    {"classes": (A.DistrictClass("bad", -5, 3),)},
    {"classes": (A.DistrictClass("bad", 0, 3),)},
    {"classes": (A.DistrictClass("bad", 10, 0),)},
    {"classes": ()},
    {"height_width": 0}, {"weight_width": math.inf},
    {"height_sd": (10.0, -1.0)},
    {"seed": -1},
    {"citizens_per_class": 10_000, "classes": (A.DistrictClass("small", 10, 3),)},
])
def test_bad_input(kwargs):
    with pytest.raises(InputError):
        A.AnonLandConfig(**kwargs)


def test_scaling():
    cfg = A.AnonLandConfig().scaled(0.01)
    assert [c.size for c in cfg.classes] == [50_000, 10_000, 1_000, 100, 10]
    with pytest.raises(InputError, match="empty"):
        A.AnonLandConfig().scaled(1e-4)
    with pytest.raises(InputError):
        A.AnonLandConfig().scaled(0)


# --------------------------------------------------------------------------- RAS and CAS


def _everyone(cfg, census) -> pd.DataFrame:
    frames = [A.district_people(cfg, census.counts, d).assign(district=d) for d in range(cfg.n_districts)]
    return pd.concat(frames, ignore_index=True)


def test_ras_equals_brute_force(tiny):
    """Materialise all of a tiny AnonLand and count each citizen's matches directly."""
    census, cit = tiny.census, tiny.citizens
    people = _everyone(TINY, census)
    assert len(people) == TINY.population
    people["h_lo"] = [band_of(h, TINY.height_width)[0] for h in people["height"]]
    people["w_lo"] = [band_of(w, TINY.weight_width)[0] for w in people["weight"]]
    sizes = people.groupby(["district", "sex", "age_group", "h_lo", "w_lo"]).size()
    sex = cit["sex"].cat.codes.to_numpy()
    age = cit["age_group"].cat.codes.to_numpy()
    for r in range(len(cit)):
        row = cit.iloc[r]
        key = (row["district"], sex[r], age[r], float(row["height_band_lo"]), float(row["weight_band_lo"]))
        assert row["ras"] == sizes[key], r
        cell = people[(people["district"] == row["district"]) & (people["sex"] == sex[r]) & (people["age_group"] == age[r])]
        assert np.float32(row["height"]) in set(cell["height"].astype(np.float32))  # the citizen is one of them
    assert (cit["ras"] >= 1).all()


def test_census_is_a_census_of_the_people(tiny):
    census = tiny.census
    people = _everyone(TINY, census)
    counted = people.groupby(["district", "sex", "age_group"]).size()
    for (d, s, a), n in counted.items():
        assert census.counts[d, s, a] == n
    assert census.counts.sum() == TINY.population
    stats_ = people.groupby(["sex", "age_group"]).agg(
        hm=("height", "mean"), hs=("height", lambda x: x.std(ddof=0)),
        wm=("weight", "mean"), ws=("weight", lambda x: x.std(ddof=0)))
    for (s, a), row in stats_.iterrows():
        assert census.height_mean[s, a] == pytest.approx(row["hm"], rel=1e-10)
        assert census.height_sd[s, a] == pytest.approx(row["hs"], rel=1e-8)
        assert census.weight_mean[s, a] == pytest.approx(row["wm"], rel=1e-10)
        assert census.weight_sd[s, a] == pytest.approx(row["ws"], rel=1e-8)


def test_bands_and_cas(tiny):
    cit, census = tiny.citizens, tiny.census
    for _, row in cit.head(30).iterrows():
        assert band_of(float(row["height"]), TINY.height_width)[0] == pytest.approx(row["height_band_lo"], abs=1e-3)
    s = cit["sex"].cat.codes.to_numpy()
    a = cit["age_group"].cat.codes.to_numpy()
    hm, hs = census.height_mean[s, a], census.height_sd[s, a]
    wm, ws = census.weight_mean[s, a], census.weight_sd[s, a]
    ph = stats.norm.cdf(cit["height_band_hi"], hm, hs) - stats.norm.cdf(cit["height_band_lo"], hm, hs)
    pw = stats.norm.cdf(cit["weight_band_hi"], wm, ws) - stats.norm.cdf(cit["weight_band_lo"], wm, ws)
    n = census.counts[cit["district"], s, a]
    np.testing.assert_allclose(cit["cas_paper"], n * ph * pw, rtol=1e-6)
    # v2 (the default): (H, ln W) bivariate normal, log-normal weight matched to the census moments, NHANES ρ
    rho = A.group_correlations(TINY)[s, a]
    lw = np.log1p((ws / wm) ** 2)
    mu, sigma = np.log(wm) - lw / 2, np.sqrt(lw)
    for i in range(0, len(cit), 7):
        mvn = stats.multivariate_normal(mean=[0, 0], cov=[[1, rho[i]], [rho[i], 1]])
        zh = [(cit["height_band_lo"].iloc[i] - hm[i]) / hs[i], (cit["height_band_hi"].iloc[i] - hm[i]) / hs[i]]
        zw = [(np.log(cit["weight_band_lo"].iloc[i]) - mu[i]) / sigma[i], (np.log(cit["weight_band_hi"].iloc[i]) - mu[i]) / sigma[i]]
        p = mvn.cdf([zh[1], zw[1]]) - mvn.cdf([zh[0], zw[1]]) - mvn.cdf([zh[1], zw[0]]) + mvn.cdf([zh[0], zw[0]])
        assert cit["cas_v2"].iloc[i] == pytest.approx(n[i] * p, rel=1e-4, abs=1e-6 * n[i])
    assert TINY.body_model == "v2"
    np.testing.assert_array_equal(cit["cas"], cit["cas_v2"])
    assert not np.allclose(cit["cas_v2"], cit["cas_paper"], rtol=1e-3)
    np.testing.assert_allclose(cit["divergence"], (cit["cas"] - cit["ras"]) / cit["ras"], rtol=1e-5)


def test_paper_runs_keep_the_independent_normals():
    paper = A.run_anonland(dataclasses.replace(TINY, body_model="paper")).citizens
    np.testing.assert_array_equal(paper["cas"], paper["cas_paper"])
    with pytest.raises(InputError, match="unknown body model"):
        dataclasses.replace(TINY, body_model="v3")


def test_citizens_per_class(tiny):
    per_class = tiny.citizens.groupby("district_class", observed=True).size()
    assert per_class.to_dict() == {"town": 40, "hamlet": 40}
    key = tiny.citizens[["district", "sex", "age_group", "height", "weight"]]
    assert not key.duplicated().any()  # distinct people


def test_median_divergence_for_large_ras_is_near_zero(scaled):
    m = scaled.summary["median_divergence_large_ras"]
    assert m["n"] >= 500
    assert abs(m["plain"]) < 0.05 and abs(m["noisy"]) < 0.05


def test_summary_shape(scaled):
    s = scaled.summary
    assert sum(r["n"] for r in s["by_ras_range"]) == 5_000
    assert [r["range"] for r in s["by_ras_range"]] == ["1", "2–4", "5–9", "10–24", "25–99", "100–999", "≥1000"]
    box = A.box_frame(s)
    assert box["ras"].between(1, 24).all() and (box["q1"] <= box["median"]).all() and (box["median"] <= box["q3"]).all()
    assert s["noisy_vs_plain"]["max"] == pytest.approx(float(scaled.citizens["noisy_minus_plain"].max()), rel=1e-6)
    assert len(s["census_body"]) == 36
    assert s["run"]["runtime_seconds"] > 0 and s["run"]["peak_memory_mb"] > 0
    json.dumps(s, allow_nan=False)


# --------------------------------------------------------------------------- the noisy census


def test_noise_is_laplace_of_scale_one_over_epsilon(scaled):
    census = scaled.census
    noise = census.noise.ravel()
    b = 1 / 2.0
    assert noise.size == 5_280 * 36
    assert abs(noise.mean()) < 5 * math.sqrt(2) * b / math.sqrt(noise.size)
    assert np.abs(noise).mean() == pytest.approx(b, rel=0.02)
    assert stats.kstest(noise, "laplace", args=(0, b)).pvalue > 1e-3
    np.testing.assert_array_equal(census.noisy_counts, np.maximum(census.counts + census.noise, 0))
    cit = scaled.citizens
    np.testing.assert_allclose(cit["cas_noisy"] / cit["cas"], cit["noisy_count"] / cit["census_count"], rtol=1e-6)


@pytest.mark.parametrize("eps", [0.5, 4.0])
def test_noise_scale_follows_epsilon(eps):
    noise = A.draw_noise(A.AnonLandConfig(epsilon=eps), (200_000,))
    assert np.abs(noise).mean() == pytest.approx(1 / eps, rel=0.02)


# --------------------------------------------------------------------------- determinism, progress, files


def test_deterministic_for_a_seed(tiny):
    again = A.run_anonland(TINY)
    pd.testing.assert_frame_equal(tiny.citizens, again.citizens)
    np.testing.assert_array_equal(tiny.census.noise, again.census.noise)
    other = A.run_anonland(A.AnonLandConfig(**{**{f: getattr(TINY, f) for f in TINY.__dataclass_fields__}, "seed": 8}))
    assert not other.citizens[["ras", "height"]].equals(tiny.citizens[["ras", "height"]])


def test_progress_is_reported_and_can_cancel():
    seen = []
    A.run_anonland(TINY, progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0 and fractions == sorted(fractions)
    assert all(isinstance(m, str) and m for _, m in seen)

    class Stop(Exception):
        pass

    def stop(f, m):
        if f > 0.5:
            raise Stop

    with pytest.raises(Stop):
        A.run_anonland(TINY, progress=stop)


def test_write_and_load(tiny, tmp_path):
    A.write_result(tiny, tmp_path)
    back = A.load_result(tmp_path)
    pd.testing.assert_frame_equal(back.citizens, tiny.citizens)
    assert back.summary == json.loads(json.dumps(tiny.summary))
    with pytest.raises(FileNotFoundError):
        A.load_result(tmp_path / "nowhere")


def test_precomputed_full_scale_result():
    """The committed full-scale run: SPEC parameters, within 10 minutes and 4 GB."""
    try:
        res = A.load_result()
    except FileNotFoundError:
        pytest.skip("no precomputed AnonLand in the data cache")
    p = res.summary["parameters"]
    assert p["population"] == 102_500_000 and p["n_citizens"] == 5_000 and p["seed"] == 2026
    assert len(res.citizens) == 5_000
    assert res.summary["run"]["runtime_seconds"] <= 600 and res.summary["run"]["peak_memory_mb"] <= 4096
    assert abs(res.summary["median_divergence_large_ras"]["plain"]) < 0.02


# --------------------------------------------------------------------------- CLI


pytestmark = pytest.mark.cli("dashboard.cli.anonland", "anonland")  # the run fixture (tests/conftest.py): anonset with this topic only


def test_registered():
    assert "dashboard.cli.anonland" in cli.COMMAND_MODULES


def test_cli_writes_both_files(run, tmp_path):
    code, out, err = run("--scale", "0.001", "--test-citizens", "100", "--seed", "3", "--out", str(tmp_path), "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["n_citizens"] == 100 and data["parameters"]["seed"] == 3
    assert (tmp_path / "citizens.parquet").is_file() and (tmp_path / "summary.json").is_file()
    assert len(pd.read_parquet(tmp_path / "citizens.parquet")) == 100
    code, out, err = run("--scale", "0.001", "--test-citizens", "100", "--epsilon", "1", "--height-width", "10")
    assert code == 0 and "median divergence" in out and "ε = 1" in out


@pytest.mark.parametrize("argv, words", [
    (["--epsilon", "0"], "ε must be positive"),
    (["--epsilon", "abc"], "not a number"),
    (["--test-citizens", "0"], "must be positive"),
    (["--test-citizens", "12"], "multiple of 5"),
    (["--scale", "-1"], "scale must be positive"),
    (["--scale", "0.00001"], "would be empty"),
    (["--height-width", "0"], "height width"),
])
def test_cli_bad_input_is_one_line(run, argv, words):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("anonset: error:") and words in err


def test_own_expected_set_beside_cas_on_the_shipped_citizens(cache_root):
    """SPEC §1.7: the real set is compared with the expected own set 1 + (N − 1)·CAS/N as well as with CAS."""
    import pandas as pd

    from dashboard.core import anonland as A

    c = pd.read_parquet(cache_root / "anonland" / "citizens.parquet")
    e = A.expected_sets(c)
    assert (e >= 1).all()
    n = c["census_count"].to_numpy(float)
    assert e[0] == pytest.approx(max(1.0, 1 + (n[0] - 1) * c["cas"].iloc[0] / n[0]))
    rows = {r["range"]: r for r in A.own_set_divergence(c)}
    # most of CAS's divergence at RAS = 1 is the conditioning: the expected set is much closer
    one = rows["1"]
    assert one["median_divergence_cas"] < -0.5 and abs(one["median_divergence_expected"]) < abs(one["median_divergence_cas"])
    assert sum(r["n"] for r in rows.values()) == len(c)
