"""Random profiles and the comparison of an engine report with the core's (shared by the Node
and the Chromium parity tests: tests/test_engine_parity.py, tests/test_browser_engine_parity.py)."""
from __future__ import annotations

import math
import random

from census_loaders.auxiliary import user_fraction
from dashboard.core.country import load_country_model
from dashboard.core.personal import Profile, profile_report, public_tables

COUNTRIES = ("DE", "US", "GB", "US-ZCTA", "FR")
N_PROFILES = 500
REL = 1e-9


def close(a, b, what):
    if a is None or b is None:
        assert a == b, what
        return
    a, b = float(a), float(b)
    if math.isinf(a) or math.isinf(b):
        assert a == b, what
        return
    assert abs(a - b) <= REL * max(abs(a), abs(b)) + 1e-300, f"{what}: engine {a!r} vs core {b!r}"


def random_case(rng: random.Random, code: str, hw: int, ww: int, table: dict, model):
    ids = table["districts"]["ids"]
    na = len(model.age_groups)
    district = rng.choice(ids) if rng.random() < 0.85 else None
    area = "region" if district is not None and rng.random() < 0.15 else "district"
    sex = rng.choice(["female", "male", None, "female", "male"])
    r = rng.random()
    if r < 0.6:
        ages = [rng.randrange(na)]
    elif r < 0.85:
        a0 = rng.randrange(na)
        ages = sorted({a0, min(na - 1, a0 + 1), rng.randrange(na)})
    else:
        ages = []
    height = None if rng.random() < 0.12 else rng.uniform(140, 205)
    weight = None if rng.random() < 0.12 else rng.uniform(40, 140)
    presets = [t["id"] for t in table["aux"] if rng.random() < 0.5]
    user = None
    r = rng.random()
    if r < 0.2:
        user = {"name": "Runs marathons", "percent": round(rng.uniform(0.1, 60), 2)}
    elif r < 0.3:
        user = {"name": "Owns a gadget", "by_age": [[18, 30, 20.0], [30, None, 5.5]]}
    users = rng.choice([None, 1, 2, 50, 10_000, 2_000_000])
    ks = rng.sample([2, 5, 10, 20, 50, 100, 1000], rng.randint(1, 3))

    hb = None if height is None else [math.floor(height / hw) * hw, math.floor(height / hw) * hw + hw]
    wb = None if weight is None else [math.floor(weight / ww) * ww, math.floor(weight / ww) * ww + ww]
    js_profile = {"district": district, "area": area, "sex": sex, "ages": ages, "height": hb, "weight": wb,
                  "aux": presets + ([user] if user else [])}
    groups = [model.age_groups[a] for a in ages]
    aux = list(presets)
    if user is not None:
        if "percent" in user:
            aux.append(user_fraction(user["name"], percent=user["percent"]))
        else:
            aux.append(user_fraction(user["name"], by_age={(lo, hi): p for lo, hi, p in user["by_age"]}))
    py_profile = Profile(code, district=district, sex=sex,
                         ages=tuple((g.lo, None if math.isinf(g.hi) else g.hi) for g in groups),
                         height=None if hb is None else tuple(hb), weight=None if wb is None else tuple(wb),
                         aux=tuple(aux), area=area)
    return js_profile, py_profile, users, ks


def compare(js: dict, py: dict, label: str):
    close(js["cas"], py["cas"], f"{label} cas")
    close(js["population"], py["population"], f"{label} population")
    assert [l["step"] for l in js["funnel"]] == [l["step"] for l in py["funnel"]], label
    for a, b in zip(js["funnel"], py["funnel"]):
        assert a["value"] == b["value"], f"{label} funnel value {a['value']!r} vs {b['value']!r}"
        close(a["count"], b["count"], f"{label} funnel {a['step']}")
    assert sorted(w["code"] for w in js["warnings"]) == sorted(w["code"] for w in py["warnings"]), label
    ri, rp = js["reidentification"], py["reidentification"]
    for key in ("p", "uniqueness", "correctness", "correct_guess"):
        close(ri[key], rp[key], f"{label} {key}")
    close(ri["expected_anonymity_set"], max(1.0, 1.0 + (rp["population"] - 1.0) * rp["p"]), f"{label} expected set")
    assert set(ri["k_indistinguishable"]) == set(rp["k_indistinguishable"]), label
    for k, v in rp["k_indistinguishable"].items():
        close(ri["k_indistinguishable"][k], v, f"{label} {k}-indistinguishability")
    wj, wp = js["what_ifs"], py["what_ifs"]
    close(wj["cas"], wp["cas"], f"{label} what-if cas")
    for attr in ("district", "sex", "age", "height", "weight"):
        rows_j = {str(r["key"]): r for r in wj[attr]}
        rows_p = {str(r["key"]) if attr != "height" and attr != "weight" else str(int(r["key"]) if float(r["key"]).is_integer() else r["key"]): r
                  for r in wp[attr]}
        assert rows_j.keys() == rows_p.keys(), f"{label} {attr} what-if keys"
        for k, rp_ in rows_p.items():
            rj = rows_j[k]
            close(rj["cas"], rp_["cas"], f"{label} what-if {attr} {k}")
            assert rj["chosen"] == rp_["chosen"], f"{label} what-if {attr} {k} chosen"
            assert rj["label"] == rp_["label"], f"{label} what-if {attr} label"
            assert rj.get("plausible") == rp_.get("plausible"), f"{label} what-if {attr} {k} plausible"
        # ranking: the engine's order equals the core's wherever values are not within rounding of each other
        order_j = [str(r["key"]) for r in wj[attr]]
        order_p = [k for k in rows_p]
        if attr == "district":
            vals = [rows_p[k]["cas"] for k in order_p]
            for i, (a, b) in enumerate(zip(order_j, order_p)):
                if a != b:
                    assert abs(rows_p[a]["cas"] - vals[i]) <= REL * max(abs(vals[i]), 1e-300), f"{label} district rank {i}"
        else:
            assert order_j == order_p, f"{label} {attr} order"
    for kind in ("widen", "withhold"):
        assert [c["label"] for c in wj[kind]] == [c["label"] for c in wp[kind]], f"{label} {kind} labels"
        for a, b in zip(wj[kind], wp[kind]):
            close(a["cas"], b["cas"], f"{label} {kind} {b['label']}")
    assert len(js["advice"]) == len(py["advice"]), label
    for a, b in zip(js["advice"], py["advice"]):
        close(a["k"], b["k"], f"{label} advice k")
        close(a["cas"], b["cas"], f"{label} advice cas")
        assert a["met"] == b["met"], f"{label} advice met"
        assert [o["changes"] for o in a["options"]] == [o["changes"] for o in b["options"]], f"{label} advice k={b['k']}"
        for oa, ob in zip(a["options"], b["options"]):
            close(oa["cas"], ob["cas"], f"{label} advice option cas")
            bits_a = math.inf if oa["bits"] == "Infinity" else oa["bits"]
            bits_b = ob["bits"]
            if bits_b is None or (isinstance(bits_b, float) and math.isinf(bits_b)):
                assert bits_a == math.inf
            else:
                assert abs(bits_a - bits_b) <= 1e-9 * max(1.0, abs(bits_b)), f"{label} advice bits"


def build_cases(rng: random.Random, n: int = N_PROFILES, countries=COUNTRIES):
    """``(tables, cases, expected)``: n random profiles over both body models (v2 70 %, a fifth of those with
    the self-report correction), random widths."""
    tables, cases, expected = {}, [], []
    per_country = n // len(countries)
    for code in countries:
        base = load_country_model(code)
        models = {"v2": base.with_model("v2"), "paper": base.with_model("paper"),
                  "v2sr": base.with_model("v2", self_report_correction=True)}
        for _ in range(per_country):
            hw, ww = rng.choice([(5, 5), (5, 5), (1, 1), (2, 5), (10, 2), (20, 10)])
            r = rng.random()
            body = "v2" if r < 0.56 else "v2sr" if r < 0.7 else "paper"
            model = models[body]
            name = f"{code}-{body}-{hw}-{ww}"
            if name not in tables:
                tables[name] = public_tables(code, body[:2] if body == "v2sr" else body, hw, ww,
                                             self_report_correction=body == "v2sr")
            js_p, py_p, users, ks = random_case(rng, code, hw, ww, tables[name], model)
            cases.append({"table": name, "profile": js_p, "users": users, "ks": ks})
            expected.append(profile_report(model, py_p, ks=ks, users=users).to_dict(max_districts=None))
    return tables, cases, expected


def check_results(results: list, cases: list, expected: list) -> None:
    assert len(results) == len(cases) == len(expected)
    for i, (res, exp, case) in enumerate(zip(results, expected, cases)):
        assert res["ok"], f"case {i} ({case['table']}): {res.get('error')}"
        compare(res["report"], exp, f"case {i} {case['table']} {case['profile']}")


#: Parts of a table that repeat between the tables of one data set (the same body model at other widths, the
#: self-report variant of a data set without self-reported statistics): the largest are the v2 ``joint_cdf`` slices
#: of the 1 cm × 1 kg tables, about half of the Node payload's 210 MB when each is written out in full.
SHARED_DEPTH = 3


def shared_tables(tables: dict) -> dict:
    """``tables`` for the Node runner with each repeated part written once: a part (a value at most
    :data:`SHARED_DEPTH` keys deep) equal (``==``, exact) to one at the same keys in an earlier table becomes
    ``{"$same": [that table's name, *keys]}``, which tests/js/parity_runner.js replaces by a deep copy of that value
    before any table reaches the engine.  The engine so receives tables equal to ``tables``, each with its own
    objects; only the JSON's float formatting (10 s in Python, more in Node's parser) is not repeated."""
    first: dict[tuple, list[tuple[str, object]]] = {}  # keys -> [(table name, value)], the values sent in full

    def walk(name, keys, value, depth):
        if isinstance(value, dict) and depth < SHARED_DEPTH:
            return {k: walk(name, (*keys, k), v, depth + 1) for k, v in value.items()}
        if not isinstance(value, (list, dict)) or not value:
            return value
        for other, seen in first.setdefault(keys, []):
            if seen == value:
                return {"$same": [other, *keys]}
        first[keys].append((name, value))
        return value

    return {name: walk(name, (), table, 0) for name, table in tables.items()}
