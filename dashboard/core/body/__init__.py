"""Body models (SPEC §1.1, §1.6, §1.9): height and weight of a sex × age group, as band probabilities.

Two models: *paper* (independent normals and the BMI 17–30 filter, as published) and *v2*
(height and ln(weight) bivariate normal with the NHANES correlation, log-normal weight, a
coverage mask instead of a BMI filter, optional self-report correction). Here: the band grid
(:class:`BandGrid`, :func:`band_matrix`, :class:`JointBands`), the priors per body group
(:class:`BodyPriors`), the v2 pieces (cohort height shift, coverage, correlation), the
:class:`BandProbabilities` mixin the country model inherits, and the test of both models on
the NHANES adults (:func:`validate_nhanes`).
"""
from ._bands import (
    ADULT_HEIGHT_LIMITS,
    BAND_LIMITS,
    BAND_WIDTHS,
    DEFAULT_BMI_RANGE,
    HEIGHT_LIMITS,
    PROFILE_SDS,
    WEIGHT_LIMITS,
    BandGrid,
    JointBands,
    band_of,
    bmi_plausible,
    cell_bmi,
    interval_probability,
    widen_band,
)
from ._correlation import RHO_GROUPS, correlation_table, nhanes_correlation, rho_for_groups
from ._ncdrisc import (
    BODY_SOURCES_TEXT,
    NHANES_GROUPS,
    OWN_BODY_TABLES,
    PRIOR_GROUPS,
    cached_bmi,
    cached_cohorts,
    correlation_from_prior,
    ncdrisc_prior,
    ncdrisc_prior_frame,
    nhanes_body_stats,
    nhanes_people,
    nhanes_stats,
    weight_moments,
)
from ._prior_validation import de_summary, us_summary, validate_de, validate_prior, validate_us
from ._priors import BodyPriors, body_group_weights
from ._probabilities import V2_EDGE_SDS, BandProbabilities
from ._v2 import (
    COVERAGE,
    DEFAULT_MODEL,
    MODEL_LABELS,
    MODELS,
    cached_cohort_arrays,
    check_model,
    cohort_height_shift,
    lognormal_params,
    safe_log,
    self_report_offsets,
)
from ._validation import validate_nhanes

__all__ = [
    "ADULT_HEIGHT_LIMITS",
    "BAND_LIMITS",
    "BAND_WIDTHS",
    "BandGrid",
    "BandProbabilities",
    "BodyPriors",
    "COVERAGE",
    "DEFAULT_BMI_RANGE",
    "DEFAULT_MODEL",
    "HEIGHT_LIMITS",
    "JointBands",
    "MODELS",
    "MODEL_LABELS",
    "BODY_SOURCES_TEXT",
    "NHANES_GROUPS",
    "OWN_BODY_TABLES",
    "PRIOR_GROUPS",
    "PROFILE_SDS",
    "RHO_GROUPS",
    "V2_EDGE_SDS",
    "WEIGHT_LIMITS",
    "band_of",
    "bmi_plausible",
    "body_group_weights",
    "cached_bmi",
    "cached_cohorts",
    "correlation_from_prior",
    "cached_cohort_arrays",
    "cell_bmi",
    "check_model",
    "cohort_height_shift",
    "correlation_table",
    "interval_probability",
    "lognormal_params",
    "ncdrisc_prior",
    "ncdrisc_prior_frame",
    "nhanes_body_stats",
    "nhanes_people",
    "nhanes_stats",
    "nhanes_correlation",
    "rho_for_groups",
    "safe_log",
    "self_report_offsets",
    "de_summary",
    "us_summary",
    "validate_de",
    "validate_nhanes",
    "validate_prior",
    "validate_us",
    "weight_moments",
    "widen_band",
]
