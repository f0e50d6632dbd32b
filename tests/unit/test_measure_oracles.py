"""Every registered measure has an oracle (docs/development.md, "Adding a measure"; its
docs row is checked by tests/unit/test_measure_docs.py).

An oracle is a test that checks the kernel against something independent: a slow
reference implementation written from the definition, or a peer tool's values (trec_eval,
ir_measures, pytrec_eval, ndeval). A measure declares its oracle here, in :data:`ORACLES`
(measure name -> the test files that check it); the test fails when a registered measure
has no entry, when an entry names a file that does not exist or does not name the
measure, and when an entry names no registered measure.
"""

from __future__ import annotations

import re
from pathlib import Path

from irmeta.measures import registry

ROOT = Path(__file__).resolve().parents[2]
CLASSIC = "tests/oracles/test_classic_oracle.py"
TREC = "tests/oracles/test_trec_oracle.py"
IR_MEASURES = "tests/oracles/test_ir_measures_oracle.py"
IR_MEASURES_ONLY = "tests/oracles/test_ir_measures_only_oracle.py"
DIVERSITY = "tests/oracles/test_diversity_oracle.py"
CONTEXT = "tests/context/test_reference.py"
TWIST = "tests/twist/test_reference.py"
#: trec_eval parity on its own test suite: every measure with a trec_eval name in
#: ``all_trec`` is compared (per topic and ``all``) without being named in the file
TREC_SUITE = "tests/reference/test_trec_eval_suite.py"

#: measure -> the test files holding its oracle (slow reference or peer comparison)
ORACLES: dict[str, tuple[str, ...]] = {
    **{name: (CLASSIC, TREC_SUITE) for name in (
        "AP", "P", "R", "nDCG", "RR", "Rprec", "bpref", "Success", "RBP", "num_ret",
        "num_rel", "num_rel_ret", "num_q")},
    "dcg": (CLASSIC, TREC), "ideal_dcg": (TREC,),
    **{name: (TREC, TREC_SUITE) for name in (
        "relative_P", "Rprec_mult", "SetP", "SetRelP", "SetR", "SetAP", "SetF", "utility",
        "num_nonrel_judged_ret", "ndcg_rel", "Rndcg", "G", "binG", "infAP",
        "unj", "rbp_resid", "relstring", "11pt_avg")},
    "IPrec": (IR_MEASURES, TREC_SUITE),
    "yaap": ("tests/oracles/test_yaap_oracle.py",),
    "GMAP": (TREC_SUITE,), "gm_bpref": (TREC_SUITE,), "runid": (TREC_SUITE,),
    "P_rare": (CONTEXT,), "AP_rare": (CONTEXT,), "NRG": (CONTEXT,),
    "TaSC": ("tests/oracles/test_tasc_oracle.py",),
    "Twist": (TWIST,), "Twist.rho": (TWIST,), "Twist.sigma": (TWIST,),
    **{name: (IR_MEASURES_ONLY,) for name in (
        "Judged", "ERR", "nERR", "INST", "INSQ", "SDCG", "Compat")},
    **{name: (DIVERSITY,) for name in (
        "alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA", "StRecall",
        "AP_IA")},
}


def _names(definition) -> set[str]:
    """How a test file may name the measure: its name, aliases and trec_eval names; for
    Twist's components, the component (``rho``)."""
    names = {definition.name, *definition.aliases, *(t.name for t in definition.trec)}
    return names | {definition.name.split(".")[-1]}


def _in_trec_suite(definition) -> bool:
    return any("all_trec" in t.nicknames for t in definition.trec)


def oracle_problems(oracles: dict[str, tuple[str, ...]]) -> list[str]:
    """What is wrong with ``oracles`` against the registry (empty: nothing)."""
    problems = []
    registered = {d.name: d for d in registry.all_measures()}
    for name, definition in registered.items():
        files = oracles.get(name)
        if not files:
            problems.append(f"{name} ({definition.family}): no oracle declared in ORACLES")
            continue
        for file in files:
            path = ROOT / file
            if not path.is_file():
                problems.append(f"{name}: oracle file {file} does not exist")
            elif file == TREC_SUITE:
                if not _in_trec_suite(definition):
                    problems.append(f"{name}: has no trec_eval name in all_trec, so "
                                    f"{file} does not compare it")
            elif not any(re.search(rf"(?<![\w.]){re.escape(n)}(?![\w])", path.read_text())
                         for n in _names(definition)):
                problems.append(f"{name}: {file} never names it")
    problems += [f"{name}: in ORACLES but not registered" for name in oracles
                 if name not in registered]
    return problems


def test_every_registered_measure_has_an_oracle():
    assert oracle_problems(ORACLES) == []


def test_every_registry_family_is_covered():
    """Each family of the registry has at least one oracle file of its own."""
    families = {d.family for d in registry.all_measures()}
    assert families <= set(registry.FAMILIES)
    covered = {registry.get(name).family for name in ORACLES}
    assert covered == families


def test_a_missing_or_wrong_oracle_is_reported():
    """The check can fail: a measure left out, a file that does not name the measure, a
    file that does not exist, a stale entry."""
    broken = dict(ORACLES)
    del broken["AP_IA"]
    broken["ERR"] = (TWIST,)
    broken["TaSC"] = ("tests/oracles/test_no_such_oracle.py",)
    broken["NoSuchMeasure"] = (CLASSIC,)
    broken["NRG"] = (TREC_SUITE,)
    problems = oracle_problems(broken)
    assert any(p.startswith("AP_IA (diversity): no oracle") for p in problems)
    assert any(p.startswith("ERR: tests/twist/test_reference.py never names")
               for p in problems)
    assert any(p.startswith("TaSC: oracle file") for p in problems)
    assert any(p.startswith("NoSuchMeasure: in ORACLES but not registered") for p in problems)
    assert any(p.startswith("NRG: has no trec_eval name") for p in problems)
