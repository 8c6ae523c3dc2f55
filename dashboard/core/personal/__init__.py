"""One person's anonymity set (SPEC §1.1–1.3, §1.7, §2): profile → funnel, what-ifs, advice, risk.

:class:`Profile` is what the person tells; :func:`compute_cas` gives the funnel and the final
CAS, :func:`what_ifs` every other value of each attribute, :func:`advise` the least revealing
changes that reach a crowd of k, :func:`reidentification` ξ, κ and k-indistinguishability, and
:func:`profile_report` all of them as a page calls them. :func:`public_tables` are the
non-personal tables the browser combines to compute the same numbers locally.
"""
from ._advice import advise
from ._cells import cas_by_cell
from ._funnel import compute_cas
from ._profile import DEFAULT_KS, Profile
from ._public_tables import (
    available_models,
    band_intervals,
    check_params,
    code_hash,
    default_model,
    etag,
    public_tables,
    table_bytes,
    tables_json,
    tables_version,
)
from ._reidentification import (
    INDISTINGUISHABILITY_KS,
    correct_guess,
    correctness,
    expected_anonymity_set,
    k_indistinguishability,
    profile_probability,
    reidentification,
    uniqueness,
)
from ._report import profile_report
from ._what_ifs import what_ifs

__all__ = [
    "DEFAULT_KS",
    "INDISTINGUISHABILITY_KS",
    "Profile",
    "advise",
    "available_models",
    "band_intervals",
    "cas_by_cell",
    "check_params",
    "code_hash",
    "compute_cas",
    "correct_guess",
    "correctness",
    "default_model",
    "etag",
    "expected_anonymity_set",
    "k_indistinguishability",
    "profile_probability",
    "profile_report",
    "public_tables",
    "reidentification",
    "table_bytes",
    "tables_json",
    "tables_version",
    "uniqueness",
    "what_ifs",
]
