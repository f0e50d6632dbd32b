"""The options of the campaign report: :class:`ReportOptions` (every parameter, all
printed in the report), their validation, and the section names (``SECTIONS``: the
report's sections in page order, each can be skipped; defined in
:mod:`irmeta.report.section_names`, which the command line reads without this module's
imports)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from irmeta.constraints import (
    ALPHA,
    CUTOFF,
    DEPTH,
    NONNEGATIVE,
    PROBABILITY,
    REL_LEVEL,
    SEED,
    TRIALS,
    Choice,
    Constraint,
    Flag,
    Integer,
    ListOf,
)
from irmeta.errors import ParameterError
from irmeta.report.section_names import SECTIONS

__all__ = ["NRG_PRIORS", "OPTION_CONSTRAINTS", "SECTIONS", "ReportOptions",
           "default_background"]

#: values of ``ReportOptions.nrg_prior``
NRG_PRIORS = ("auto", "others", "best_per_group", "earlier")


def _option_constraints() -> dict[str, Constraint]:
    from irmeta.stats.leaderboard import LEADERBOARD_TESTS
    from irmeta.stats.significance import CORRECTIONS
    return {
        "rel_level": REL_LEVEL, "seed": SEED, "discpower_trials": TRIALS,
        "stability_trials": TRIALS,
        "level": PROBABILITY, "fuzziness": NONNEGATIVE,
        "alphas": ListOf(ALPHA, min_items=2), "rare_cutoff": CUTOFF, "nrg_cutoff": CUTOFF,
        "nrg_prior": Choice(NRG_PRIORS), "twist_depth": replace(DEPTH, optional=True),
        "examples": Integer(low=1), "progress": Flag(optional=True),
        "background": Integer(low=0, optional=True),
        "test": Choice(LEADERBOARD_TESTS), "correction": Choice(CORRECTIONS, optional=True),
        "ci_level": PROBABILITY, "ci_trials": TRIALS,
    }


#: the constraint of every checked field of :class:`ReportOptions` (``irmeta report``
#: declares its options from these: one vocabulary for the API and the CLI)
OPTION_CONSTRAINTS: dict[str, Constraint] = _option_constraints()


@dataclass
class ReportOptions:
    """Parameters of the campaign report (all printed in the report). Each field is the
    ``irmeta report`` option of the same name (``rare_cutoff`` is ``--rare-cutoff``),
    except ``examples`` and ``background``, set from Python only.

    ``rel_level``: minimum grade counted relevant by binary measures; ``seed``: seed of
    every random procedure; ``discpower_trials``: resamples of the paired bootstrap test
    (discriminative power); ``stability_trials``: topic-subsampling trials of the
    stability analysis; ``level``: significance level; ``fuzziness``: absolute difference
    below which two means tie (stability); ``alphas``: the alpha grid of the innovation
    curves; ``rare_cutoff``: cutoff K of P_rare / AP_rare and of the unique-document
    count; ``nrg_cutoff``: cutoff of NRG and nDCG in the NRG section; ``nrg_prior``:
    NRG prior set (``auto`` = ``best_per_group`` when groups are given, else ``others``);
    ``twist_depth``: depth N of Twist (None: the runs' depth, the longest ranking of the
    campaign); ``gain``:
    gain measure of the effort/gain grid and ``matrix_measure``: measure of the GAWM/HITS
    matrix (None: the primary measure, so that every one-measure section follows it);
    ``examples``: example documents per run;
    ``skip``: sections left out; ``progress``: show a progress bar on stderr (None:
    when stderr is a terminal); ``background``: figures drawn at once in forked child
    processes while the next section is computed (0: all in this process; same files;
    ``None``: :func:`default_background`); ``primary``: the measure that ranks the
    leaderboard, the rank changes, the summary and leads the trust section (None: chosen
    from the campaign by :func:`irmeta.report.analysis.choose_defaults`); ``test`` and
    ``correction``: the paired test and the multiple-comparison correction of the
    leaderboard's significance markers; ``ci_level`` and ``ci_trials``: the bootstrap
    confidence intervals of the primary measure's means; ``run_info``: run attributes
    (a TSV path, :func:`irmeta.io.runinfo.read_run_info`, or a DataFrame indexed by run,
    one column per attribute) shown as leaderboard columns and filters, the first
    attribute colouring the figures coloured by group (None: none); ``campaign_info``:
    what the campaign is (a TOML path, :func:`irmeta.io.campaign_info.read_campaign_info`,
    a mapping of its keys or a :class:`~irmeta.io.campaign_info.CampaignInfo`), shown at
    the top of the page, its title the page's default title (None: none); ``baseline``:
    the run of the campaign the risk section compares every run with (topics won, lost,
    tied, URisk and TRisk at alpha = 1, a win/loss figure; :mod:`irmeta.stats.risk`), None:
    the risk section shows only the campaign-wide ZRisk and GeoRisk.
    """

    rel_level: int = 1
    seed: int = 0
    discpower_trials: int = 1000
    stability_trials: int = 1000
    level: float = 0.05
    fuzziness: float = 0.05
    alphas: tuple = tuple(np.round(np.linspace(0.0, 1.0, 11), 10))
    rare_cutoff: int = 100
    nrg_cutoff: int = 10
    nrg_prior: str = "auto"
    twist_depth: int | None = None
    gain: str | None = None
    matrix_measure: str | None = None
    examples: int = 3
    skip: frozenset = field(default_factory=frozenset)
    progress: bool | None = None
    background: int | None = None
    primary: str | None = None
    test: str = "paired_t"
    correction: str | None = "holm"
    ci_level: float = 0.95
    ci_trials: int = 10000
    run_info: Any = None
    campaign_info: Any = None
    baseline: str | None = None

    def validate(self) -> "ReportOptions":
        """These options checked against :data:`OPTION_CONSTRAINTS` (a
        :class:`~irmeta.errors.ParameterError` names the first bad one) and in their
        canonical types (``numpy.int64(5)`` -> 5, ``alphas`` a tuple of floats),
        ``background=None`` replaced by :func:`default_background`."""
        fn = "ReportOptions"
        canonical: dict[str, Any] = {}
        for name, constraint in OPTION_CONSTRAINTS.items():
            canonical[name] = constraint.check(getattr(self, name), name, fn)
        canonical["alphas"] = tuple(canonical["alphas"])
        if self.twist_depth is not None:
            from irmeta.measures.twist import check_depth
            check_depth(canonical["twist_depth"], f"{fn}: twist_depth")
        from irmeta.measures.parse import one_measure
        if self.primary is not None:
            if not isinstance(self.primary, str) or not self.primary.strip():
                raise ParameterError(f"{fn}: primary must be a measure string, got "
                                     f"{self.primary!r}")
            one_measure(self.primary, f"{fn}: primary")   # one numeric per-topic measure
        if self.baseline is not None and (not isinstance(self.baseline, str)
                                          or not self.baseline):
            raise ParameterError(f"{fn}: baseline must be the name of a run of the campaign, "
                                 f"got {self.baseline!r}")
        for name in ("gain", "matrix_measure"):   # one measure each, as primary
            if getattr(self, name) is not None:
                one_measure(getattr(self, name), f"{fn}: {name}")
        unknown = set(self.skip) - set(SECTIONS)
        if unknown:
            raise ParameterError(f"{fn}: skip names unknown section(s) "
                                 f"{', '.join(sorted(unknown))} "
                                 f"(known: {', '.join(SECTIONS)})")
        info = self.run_info
        if info is not None and not isinstance(info, (str, os.PathLike)):
            import pandas as pd
            if not isinstance(info, pd.DataFrame):
                raise ParameterError(f"{fn}: run_info must be a path (a TSV: run, then one "
                                     "column per attribute) or a DataFrame indexed by run, "
                                     f"got {type(info).__name__}")
        from irmeta.io.campaign_info import campaign_info
        canonical["campaign_info"] = campaign_info(self.campaign_info, fn)
        if canonical["background"] is None:
            canonical["background"] = default_background()
        return replace(self, **canonical)

    def items(self) -> list[tuple[str, str]]:
        """(name, value) pairs as printed in the report."""
        out = []
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "alphas":
                v = ", ".join(f"{float(a):g}" for a in v)
            elif f.name == "skip":
                v = ", ".join(s for s in SECTIONS if s in v) or "none"
            elif f.name in ("progress", "background"):
                continue
            elif f.name == "run_info":
                v = ("none" if v is None else os.path.basename(os.fspath(v))
                     if isinstance(v, (str, os.PathLike))
                     else f"a table of {v.shape[1]} attribute(s)")
            elif f.name == "campaign_info":
                source = v if isinstance(v, (str, os.PathLike)) else getattr(v, "source", None)
                v = ("none" if v is None else os.path.basename(os.fspath(source)) if source
                     else "given in Python")
            elif f.name == "baseline":
                v = "none" if v is None else v
            elif v is None:
                v = "auto"
            out.append((f.name, str(v)))
        return out


def default_background() -> int:
    """Figures drawn at once in the background: the CPUs this process may use, at most
    4 (the main process and the trust tests' child use the others' share; with eight
    figures more children gain nothing)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))
