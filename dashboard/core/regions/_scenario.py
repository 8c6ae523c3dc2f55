"""What the regional explorer shows, as one frozen, hashable value.

Every view of the explorer is a shareable link, so a :class:`Scenario` is parsed
from a URL query (:meth:`Scenario.from_query`), written back to one
(:meth:`Scenario.to_query`, a round trip) and turned into the ``anonset``
command that reproduces it (:meth:`Scenario.to_cli`).  Being hashable, it keys
the memoised aggregates in :mod:`dashboard.core.regions`.

Query keys (all optional; a missing key takes its default, a present but empty
or malformed one is an :class:`~dashboard.core.errors.InputError`)::

    country       DE,US            data set codes, comma-separated
    sex           female,male      a non-empty subset
    ages          18-75            the study population [from, to); "18+" = open
    body          1                0 = district × sex × age only (no height × weight)
    height_width  5                1, 2, 5, 10 or 20 cm
    weight_width  5                1, 2, 5, 10 or 20 kg
    aux           de_wearables;Runs marathons=2.5;Gadget=18-30:10,30+:5
                                   preset ids and user percentages, ';'-separated
    bmi           17-30            plausible BMI range at the cell centre (paper model only)
    model         v2               the body model: v2 (default) or paper (SPEC §1.6)
    k             5                threshold of the district share "CAS below k"
    stat          person_mean      the statistic the map shows

Keys the scenario does not know are ignored, so a page can add its own.
Nothing here imports Dash.
"""
from __future__ import annotations

import itertools
import math
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from census_loaders import cache
from census_loaders.auxiliary import user_fraction

from ..body import BAND_WIDTHS, DEFAULT_BMI_RANGE, DEFAULT_MODEL, check_model
from ..errors import InputError
from ..groups import DEFAULT_STUDY, OPEN_GROUP_END, SEXES, format_age_band
from ..parsing import OPEN_PATTERN, RANGE_PATTERN, SEX_ALIASES
from ..text import gettext as _

#: Countries shown when a link names none.
DEFAULT_COUNTRIES: tuple[str, ...] = ("DE",)
#: Default band widths (SPEC §1.1: 5 cm, 5 kg).
DEFAULT_WIDTH: int = 5
#: Default threshold of the district share "CAS below k".
DEFAULT_K: float = 5.0
#: Statistics a district map can show (columns of ``aggregates.district_statistics``).
STATS: tuple[str, ...] = ("person_mean", "cell_mean", "min", "max", "share_below")
DEFAULT_STAT: str = "person_mean"
#: The census data end here (an open oldest group is taken to span up to 100).
AGE_LIMIT: float = OPEN_GROUP_END

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _num(x: float) -> str:
    """Shortest exact text of a number: ``5``, ``2.5``, ``0.1``."""
    x = float(x)
    return str(int(x)) if x.is_integer() else repr(x)


def _parse_number(text: str, what: str) -> float:
    try:
        value = float(str(text).strip())
    except ValueError:
        raise InputError(_("{what} {value} is not a number").format(what=what, value=repr(text))) from None
    if not math.isfinite(value):
        raise InputError(_("{what} {value} is not a finite number").format(what=what, value=repr(text)))
    return value


def parse_range(text: str, what: str, allow_open: bool = False) -> tuple[float, float]:
    """``"18-75"`` → ``(18.0, 75.0)``; ``"18+"`` → ``(18.0, inf)`` when ``allow_open``."""
    text = str(text)
    m = RANGE_PATTERN.match(text)
    if m:
        lo, hi = float(m.group(1)), float(m.group(2))
        if hi <= lo:
            raise InputError(_("{what} {value} is reversed or empty: give from-to with from < to, e.g. 18-75").format(
                what=what, value=repr(text.strip())))
        return lo, hi
    m = OPEN_PATTERN.match(text)
    if m and allow_open:
        return float(m.group(1)), math.inf
    example = _("18-75 or 18+") if allow_open else "17-30"
    raise InputError(_("{what} {value} is not a range like {example}").format(
        what=what, value=repr(text.strip()), example=example))


def format_range(r: tuple[float, float]) -> str:
    lo, hi = r
    return f"{_num(lo)}+" if math.isinf(hi) else f"{_num(lo)}-{_num(hi)}"


def check_ages(ages) -> tuple[float, float]:
    """A study age range inside the census data (ages 0–100), as ``(lo, hi)``."""
    try:
        lo, hi = (float(x) for x in ages)
    except (TypeError, ValueError):
        raise InputError(_("the age range must be two ages, e.g. 18-75, not {value}").format(value=repr(ages))) from None
    if math.isnan(lo) or math.isnan(hi):
        raise InputError(_("the age range must be two ages, e.g. 18-75"))
    if hi <= lo:
        raise InputError(_("the age range {ages} is reversed or empty: give from-to with from < to").format(
            ages=f"{_num(lo)}-{_num(hi)}"))
    if lo < 0 or lo >= AGE_LIMIT or (math.isfinite(hi) and hi > AGE_LIMIT):
        raise InputError(_("the age range {ages} lies outside the census data (ages 0–{limit}; use e.g. 85+ for the "
                           "oldest)").format(ages=format_age_band(lo, hi), limit=_num(AGE_LIMIT)))
    return lo, hi


def _check_width(value, what: str) -> int:
    try:
        w = float(value)
    except (TypeError, ValueError):
        raise InputError(_("{what} {value} is not a number").format(what=what, value=repr(value))) from None
    if not any(abs(w - x) < 1e-9 for x in BAND_WIDTHS):
        raise InputError(_("{what} {value} is not offered; choose {choices}").format(
            what=what, value=repr(value), choices=", ".join(map(str, BAND_WIDTHS))))
    return round(w)




@dataclass(frozen=True)
class UserPercent:
    """A percentage typed into the explorer: of everyone, or one per age band.

    ``by_age`` holds ``(age_from, age_to, percent)`` with ``age_to`` inf for an
    open band.  The text form (:attr:`spec`, :meth:`parse`) is what links and the
    CLI's ``--aux-percent`` carry: ``Runs marathons=2.5`` or
    ``Gadget=18-30:10,30+:5``.
    """

    name: str
    percent: float | None = None
    by_age: tuple[tuple[float, float, float], ...] = ()

    def __post_init__(self):
        name = str(self.name).strip()
        if not name:
            raise InputError(_("give your auxiliary knowledge a name, e.g. 'Runs marathons=2.5'"))
        if ";" in name:
            raise InputError(_("the name {name} may not contain ';'").format(name=repr(name)))
        object.__setattr__(self, "name", name)
        if (self.percent is None) == (not self.by_age):
            raise InputError(_("{name}: give either one percentage or one per age band").format(name=repr(name)))
        if self.percent is not None:
            object.__setattr__(self, "percent", self._pct(self.percent))
        rows = []
        for row in self.by_age:
            try:
                lo, hi, pct = row
            except (TypeError, ValueError):
                raise InputError(f"{name!r}: each age band needs (from, to, percent), not {row!r}") from None
            lo, hi = float(lo), math.inf if hi is None else float(hi)
            if not (0 <= lo < hi) or math.isnan(hi):
                raise InputError(_("{name}: age band {band} is not a valid band [from, to)").format(
                    name=repr(name), band=format_age_band(lo, hi)))
            rows.append((lo, hi, self._pct(pct)))
        rows.sort()
        for (l0, h0, _p0), (l1, h1, _p1) in itertools.pairwise(rows):
            if l1 < h0:
                raise InputError(_("{name}: age bands {first} and {second} overlap").format(
                    name=repr(name), first=format_age_band(l0, h0), second=format_age_band(l1, h1)))
        object.__setattr__(self, "by_age", tuple(rows))

    def _pct(self, value) -> float:
        v = _parse_number(value, _("{name}: the percentage").format(name=repr(self.name))) if isinstance(value, str) else float(value)
        if not (math.isfinite(v) and 0 <= v <= 100):
            raise InputError(_("{name}: a percentage must lie between 0 and 100, not {value}").format(
                name=repr(self.name), value=repr(value)))
        return v

    @property
    def spec(self) -> str:
        if self.percent is not None:
            return f"{self.name}={_num(self.percent)}"
        return f"{self.name}=" + ",".join(f"{format_range((lo, hi))}:{_num(p)}" for lo, hi, p in self.by_age)

    @classmethod
    def parse(cls, text: str) -> UserPercent:
        name, sep, value = str(text).rpartition("=")
        if not sep or not name.strip():
            raise InputError(_("auxiliary knowledge {value} must look like NAME=PERCENT or NAME=18-30:10,30+:5").format(
                value=repr(text)))
        value = value.strip()
        if ":" not in value:
            return cls(name, percent=_parse_number(value.rstrip("%"), _("{name}: the percentage").format(
                name=repr(name.strip()))))
        rows = []
        for part in value.split(","):
            band, colon, pct = part.rpartition(":")
            if not colon:
                raise InputError(_("{name}: {value} must look like 18-30:10").format(name=repr(name.strip()), value=repr(part)))
            lo, hi = parse_range(band, _("{name}: age band").format(name=repr(name.strip())), allow_open=True)
            rows.append((lo, hi, _parse_number(pct.strip().rstrip("%"), _("{name}: the percentage").format(
                name=repr(name.strip())))))
        return cls(name, by_age=tuple(rows))

    def table(self):
        """The :class:`~census_loaders.schema.FractionTable` the CAS core multiplies in."""

        try:
            if self.percent is not None:
                return user_fraction(self.name, percent=self.percent)
            return user_fraction(
                self.name, by_age={(lo, None if math.isinf(hi) else hi): p for lo, hi, p in self.by_age}
            )
        except ValueError as exc:
            raise InputError(f"{self.name!r}: {exc}") from None


def _aux_item(item) -> str | UserPercent:
    if isinstance(item, UserPercent):
        return item
    text = str(item).strip()
    if not text:
        raise InputError(_("an empty auxiliary-knowledge entry"))
    if "=" in text:
        return UserPercent.parse(text)
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+", text):
        raise InputError(_("auxiliary knowledge {value} is neither a preset id nor NAME=PERCENT").format(value=repr(text)))
    return text




@dataclass(frozen=True)
class Scenario:
    """The settings of one regional-explorer view (frozen, hashable, validated).

    * ``countries``: data set codes (``DE``, ``US``, ``AU-SA2`` …), at least one;
    * ``sexes``: a non-empty subset of :data:`~dashboard.core.body.SEXES`,
      kept in that order;
    * ``ages``: the study population ``[lo, hi)`` (default 18–75), applied to the
      census groups by overlap (SPEC §1.1);
    * ``include_body``: whether height × weight bands are part of the profile;
    * ``height_width`` / ``weight_width``: band widths (1, 2, 5, 10, 20);
    * ``aux``: preset ids (``de_wearables``) and :class:`UserPercent` entries;
    * ``bmi_range``: cells whose centre BMI lies outside are implausible and left
      out of every aggregate;
    * ``k``: the district map's "share of people with CAS below k";
    * ``stat``: which district statistic the map shows (one of :data:`STATS`);
    * ``model``: the body model, ``v2`` (default: correlated, log-normal weight, no
      cell left out; the BMI range is then unused) or ``paper`` (SPEC §1.6);
    * ``self_report``: v2 only — correct self-reported body statistics to measured
      ones with the NHANES offsets (SPEC §1.6); always False under ``paper``.
    """

    countries: tuple[str, ...] = DEFAULT_COUNTRIES
    sexes: tuple[str, ...] = SEXES
    ages: tuple[float, float] = DEFAULT_STUDY
    include_body: bool = True
    height_width: int = DEFAULT_WIDTH
    weight_width: int = DEFAULT_WIDTH
    aux: tuple = ()
    bmi_range: tuple[float, float] = DEFAULT_BMI_RANGE
    k: float = DEFAULT_K
    stat: str = DEFAULT_STAT
    model: str = DEFAULT_MODEL
    self_report: bool = False
    _key: tuple = field(init=False, repr=False, compare=False, hash=False, default=())

    def __post_init__(self):
        set_ = lambda name, value: object.__setattr__(self, name, value)
        countries = (self.countries,) if isinstance(self.countries, str) else tuple(self.countries)
        countries = tuple(dict.fromkeys(str(c).strip().upper() for c in countries if str(c).strip()))
        if not countries:
            raise InputError(_("choose at least one country"))
        set_("countries", countries)
        sexes = (self.sexes,) if isinstance(self.sexes, str) else tuple(self.sexes)
        chosen = set()
        for s in sexes:
            sex = SEX_ALIASES.get(str(s).strip().lower())
            if sex is None:
                raise InputError(_("unknown sex {value}: use female and/or male").format(value=repr(s)))
            chosen.add(sex)
        if not chosen:
            raise InputError(_("choose at least one sex"))
        set_("sexes", tuple(s for s in SEXES if s in chosen))
        set_("ages", check_ages(self.ages))
        if not isinstance(self.include_body, bool):
            raise InputError(f"include_body must be True or False, not {self.include_body!r}")
        set_("height_width", _check_width(self.height_width, _("height width")))
        set_("weight_width", _check_width(self.weight_width, _("weight width")))
        aux = (self.aux,) if isinstance(self.aux, (str, UserPercent)) else tuple(self.aux)
        set_("aux", tuple(dict.fromkeys(_aux_item(a) for a in aux)))
        try:
            lo, hi = (float(x) for x in self.bmi_range)
        except (TypeError, ValueError):
            raise InputError(_("the BMI range must be two numbers, e.g. 17-30, not {value}").format(
                value=repr(self.bmi_range))) from None
        if not (math.isfinite(lo) and math.isfinite(hi) and 0 < lo < hi):
            raise InputError(_("the BMI range {range} must satisfy 0 < from < to").format(range=f"{lo:g}-{hi:g}"))
        set_("bmi_range", (lo, hi))
        k = _parse_number(self.k, "k") if isinstance(self.k, str) else self.k
        try:
            k = float(k)
        except (TypeError, ValueError):
            raise InputError(_("k {value} is not a number").format(value=repr(self.k))) from None
        if not math.isfinite(k) or k <= 0:
            raise InputError(_("k must be a positive number of people, not {value}").format(value=f"{k:g}"))
        set_("k", k)
        if self.stat not in STATS:
            raise InputError(_("unknown statistic {value}; choose one of {choices}").format(
                value=repr(self.stat), choices=", ".join(STATS)))
        set_("model", check_model(self.model))
        if not isinstance(self.self_report, bool):
            raise InputError(f"self_report must be True or False, not {self.self_report!r}")
        set_("self_report", self.self_report and self.model == "v2")
        set_("_key", (self.sexes, self.ages, self.include_body,
                      self.height_width if self.include_body else None,
                      self.weight_width if self.include_body else None,
                      self.aux, self.bmi_range if self.include_body and self.model == "paper" else None,
                      self.model if self.include_body else None,
                      self.self_report if self.include_body else None))

    # ---- derived

    @property
    def profile_key(self) -> tuple:
        """The fields every number depends on (not countries, k or stat): a memo key.

        Widths and the BMI range drop out when height × weight are not in the profile.
        """
        return self._key

    @property
    def presets(self) -> tuple[str, ...]:
        return tuple(a for a in self.aux if isinstance(a, str))

    @property
    def user_aux(self) -> tuple[UserPercent, ...]:
        return tuple(a for a in self.aux if isinstance(a, UserPercent))

    def replace(self, **changes) -> Scenario:
        return replace(self, **changes)

    # ---- links

    @classmethod
    def from_query(cls, query: Mapping[str, str], root: Path | None = None, check_data: bool = True) -> Scenario:
        """Parse a URL query (``{"country": "DE,US", "ages": "18-75", …}``).

        With ``check_data`` the countries and preset ids are checked against the
        data cache at ``root`` (default ``data_cache/``): unknown codes, unknown
        presets and presets for another country are InputErrors.
        """
        q = {str(k): ("" if v is None else str(v)) for k, v in dict(query).items()}
        kw: dict = {}

        def items(key: str, sep: str = ",") -> list[str]:
            parts = [p.strip() for p in q[key].split(sep)]
            return [p for p in parts if p]

        if "country" in q:
            kw["countries"] = tuple(items("country"))
            if not kw["countries"]:
                raise InputError(_("choose at least one country"))
        if "sex" in q:
            kw["sexes"] = tuple(items("sex"))
            if not kw["sexes"]:
                raise InputError(_("choose at least one sex"))
        if "ages" in q:
            kw["ages"] = parse_range(q["ages"], _("age range"), allow_open=True)
        if "body" in q:
            v = q["body"].strip().lower()
            if v not in _TRUE | _FALSE:
                raise InputError(_("body {value} must be 1 (height × weight included) or 0").format(value=repr(q["body"])))
            kw["include_body"] = v in _TRUE
        for key in ("height_width", "weight_width"):
            if key in q:
                kw[key] = _check_width(q[key].strip(), _("height width") if key == "height_width" else _("weight width"))
        if "aux" in q:
            kw["aux"] = tuple(_aux_item(a) for a in items("aux", ";"))
        if "bmi" in q:
            kw["bmi_range"] = parse_range(q["bmi"], _("BMI range"))
        if "k" in q:
            kw["k"] = _parse_number(q["k"], "k")
        if "stat" in q:
            kw["stat"] = q["stat"].strip()
        if "model" in q:
            kw["model"] = q["model"]
        if "sr" in q:
            v = q["sr"].strip().lower()
            if v not in _TRUE | _FALSE:
                raise InputError(_("sr {value} must be 1 (self-reported body statistics corrected) or 0").format(
                    value=repr(q["sr"])))
            kw["self_report"] = v in _TRUE
        scenario = cls(**kw)
        if check_data:
            scenario.check_data(root)
        return scenario

    def check_data(self, root: Path | None = None) -> Scenario:
        """Check countries and presets against the cache; return ``self``."""

        for code in self.countries:
            try:
                cache.canonical_code(code, root)
            except cache.UnknownDataset as exc:  # names the closest codes
                raise InputError(str(exc)) from None
        presets = {t["id"]: t for t in cache.auxiliary_tables(None, root)}
        for pid in self.presets:
            if pid not in presets:
                raise InputError(
                    f"unknown auxiliary knowledge {pid!r}; the cache has: {', '.join(sorted(presets)) or 'none'}"
                )
            owner = presets[pid].get("country")
            for code in self.countries:
                if owner is not None and owner not in (code, code.split("-")[0]):
                    raise InputError(
                        f"auxiliary knowledge {pid!r} describes {owner}, not {code}; "
                        f"choose it with {owner} only"
                    )
        return self

    def to_query(self) -> dict[str, str]:
        """The URL query of this view; default values are left out (``from_query`` restores them)."""
        default = Scenario()
        q = {"country": ",".join(self.countries)}
        if self.sexes != default.sexes:
            q["sex"] = ",".join(self.sexes)
        if self.ages != default.ages:
            q["ages"] = format_range(self.ages)
        if self.include_body != default.include_body:
            q["body"] = "1" if self.include_body else "0"
        if self.height_width != default.height_width:
            q["height_width"] = str(self.height_width)
        if self.weight_width != default.weight_width:
            q["weight_width"] = str(self.weight_width)
        if self.aux:
            q["aux"] = ";".join(a.spec if isinstance(a, UserPercent) else a for a in self.aux)
        if self.bmi_range != default.bmi_range:
            q["bmi"] = format_range(self.bmi_range)
        if self.k != default.k:
            q["k"] = _num(self.k)
        if self.stat != default.stat:
            q["stat"] = self.stat
        if self.model != default.model:
            q["model"] = self.model
        if self.self_report:
            q["sr"] = "1"
        return q

    def profile_cli_args(self) -> list[str]:
        """The options that choose the cells (sexes, body bands, body model, auxiliary knowledge),
        shared by every ``anonset`` command that takes a scenario (districts, cdf, pyc census)."""
        args: list[str] = []
        if self.sexes != SEXES:
            args += ["--sex", ",".join(self.sexes)]
        if not self.include_body:
            args.append("--no-body")
        else:
            args += ["--height-width", str(self.height_width), "--weight-width", str(self.weight_width)]
            if self.bmi_range != DEFAULT_BMI_RANGE:
                args += ["--bmi", format_range(self.bmi_range)]
            if self.model != DEFAULT_MODEL:
                args += ["--model", self.model]
            if self.self_report:
                args.append("--self-report-correction")
        for a in self.aux:
            args += ["--aux-percent", a.spec] if isinstance(a, UserPercent) else ["--aux", a]
        return args

    def to_cli(self, command: str = "districts", at: tuple[float, ...] = (5, 20, 100), *, grain: str = "census",
               below: bool = False) -> str:
        """The ``anonset`` command that reproduces this view ("reproduce this").

        ``command`` is ``districts`` (the map), ``cdf`` (the curves' shares of people
        with CAS at most each of ``at``; ``below``: CAS < x, the explorer's readouts, on the age
        ``grain`` ``"5"`` or ``"census"``) or ``country-table``.
        """
        if command not in ("districts", "cdf", "country-table"):
            raise InputError(f"unknown command {command!r}; use districts, cdf or country-table")
        args = ["anonset", command]
        for code in self.countries:
            args += ["--country", code]
        args += ["--ages", format_range(self.ages)]
        if command != "country-table":
            args += self.profile_cli_args()
        if command == "districts":
            args += ["--stat", self.stat]
            if self.stat == "share_below" or self.k != DEFAULT_K:
                args += ["--k", _num(self.k)]
        elif command == "cdf":
            args += ["--at", ",".join(_num(x) for x in at)]
            if grain != "census":
                args += ["--grain", grain]
            if below:
                args.append("--below")
        return shlex.join(args)
