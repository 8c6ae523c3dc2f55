"""Issue 27: the NCD-RisC prior against the NHANES individuals (US) and the Mikrozensus 2017 (DE)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from census_loaders import cache
from dashboard.core.body import validate_prior


@pytest.fixture(scope="module")
def report(cache_root):
    return validate_prior(cache_root)


def test_us_heldout_loglik_beside_v2_and_paper(report):
    us = report["us"]
    ll = us["heldout_loglik_per_person"]
    assert set(ll) == {"ncdrisc", "v2", "paper"} and us["population"] == 4850
    # the prior (built without NHANES' means) loses to v2 fitted on the sample itself, but beats the paper model
    assert ll["v2"] > ll["ncdrisc"] > ll["paper"]
    assert -5.5 < ll["ncdrisc"] < -4.0
    obs = sum(c["observed"] for c in us["cells"])
    assert obs == pytest.approx(1.0)  # every person is in one listed cell
    assert 0 < us["cell_share_total_variation"]["v2"] < us["cell_share_total_variation"]["ncdrisc"] < 0.3
    assert "worse than the own fit" in us["summary"]


def test_de_group_by_group_against_the_mikrozensus(report, cache_root):
    de = report["de"]
    own = cache.body_priors("DE", cache_root)
    assert len(de["groups"]) == len(own) == 24
    g = next(x for x in de["groups"] if x["sex"] == "male" and x["age"] == "40–45")
    row = own[(own["sex"] == "male") & (own["age_from"] == 40)].iloc[0]
    assert g["height_mean_mikrozensus"] == row["height_mean"] and g["weight_mean_mikrozensus"] == row["weight_mean"]
    assert g["prior_groups"] == ["40–45"]
    assert abs(g["height_mean_prior"] - g["height_mean_mikrozensus"]) < 3
    tv = np.array([x["band_total_variation"] for x in de["groups"]])
    js = np.array([x["band_js_divergence_bits"] for x in de["groups"]])
    assert ((tv > 0) & (tv < 1)).all() and ((js > 0) & (js < 1)).all()
    assert "self-reported" in de["summary"]


pytestmark = pytest.mark.cli("dashboard.cli.validate", "validate")


def test_cli_validate_prior(run, cache_root, tmp_path):
    code, out, err = run("prior", "--json", "--cache", str(cache_root))
    assert code == 0 and err == ""
    d = json.loads(out)
    assert set(d) == {"us", "de"} and d["us"]["heldout_loglik_per_person"]["ncdrisc"] < 0
    code, out, _ = run("prior", "--cache", str(cache_root))
    assert code == 0 and "NCD-RisC prior" in out and "Mikrozensus" in out
    code, _, err = run("prior", "--cache", str(tmp_path / "missing"))
    assert code == 2 and err.count("\n") == 1
