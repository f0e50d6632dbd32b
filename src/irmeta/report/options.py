"""The options of the campaign report: :class:`ReportOptions` (every parameter, all
printed in the report), their validation, and the section names (``SECTIONS``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace

import numpy as np

from irmeta.errors import ParameterError

__all__ = ["NRG_PRIORS", "SECTIONS", "ReportOptions", "default_background"]

#: the report's sections, in page order (each can be skipped, ``ReportOptions.skip``)
SECTIONS = ("leaderboard", "innovation", "nrg", "effort", "topics", "trust")
#: values of ``ReportOptions.nrg_prior``
NRG_PRIORS = ("auto", "others", "best_per_group", "earlier")


@dataclass
class ReportOptions:
    """Parameters of the campaign report (all printed in the report).

    ``rel_level``: minimum grade counted relevant by binary measures; ``seed``: seed of
    every random procedure; ``bootstrap``: samples of the paired bootstrap test;
    ``trials``: topic-subsampling trials of the stability analysis; ``level``:
    significance level; ``fuzziness``: absolute difference below which two means tie
    (stability); ``alphas``: the alpha grid of the innovation curves; ``rare_k``: cutoff
    K of P_rare / AP_rare and of the unique-document count; ``nrg_k``: cutoff of NRG and
    nDCG in the NRG section; ``nrg_prior``: NRG prior set (``auto`` =
    ``best_per_group`` when groups are given, else ``others``); ``twist_depth``: depth N
    of Twist (None: the runs' depth, the longest ranking of the campaign); ``gain``:
    gain measure of the effort/gain grid; ``matrix_measure``: measure of the GAWM/HITS
    matrix; ``examples``: example documents per run;
    ``skip``: sections left out; ``progress``: show a progress bar on stderr (None:
    when stderr is a terminal); ``background``: figures drawn at once in forked child
    processes while the next section is computed (0: all in this process; same files;
    ``None``: :func:`default_background`); ``primary``: the measure that ranks the
    leaderboard, the rank changes, the summary and leads the trust section (None: chosen
    from the campaign by :func:`irmeta.report.analysis.choose_primary`); ``test`` and
    ``correction``: the paired test and the multiple-comparison correction of the
    leaderboard's significance markers; ``ci_level`` and ``ci_trials``: the bootstrap
    confidence intervals of the primary measure's means.
    """

    rel_level: int = 1
    seed: int = 0
    bootstrap: int = 1000
    trials: int = 1000
    level: float = 0.05
    fuzziness: float = 0.05
    alphas: tuple = tuple(np.round(np.linspace(0.0, 1.0, 11), 10))
    rare_k: int = 100
    nrg_k: int = 10
    nrg_prior: str = "auto"
    twist_depth: int | None = None
    gain: str = "AP"
    matrix_measure: str = "AP"
    examples: int = 3
    skip: frozenset = field(default_factory=frozenset)
    progress: bool | None = None
    background: int | None = None
    primary: str | None = None
    test: str = "paired_t"
    correction: str | None = "holm"
    ci_level: float = 0.95
    ci_trials: int = 10000

    def validate(self) -> "ReportOptions":
        """These options checked (a :class:`~irmeta.errors.ParameterError` names the
        first bad one), ``background=None`` replaced by :func:`default_background`."""
        fn = "ReportOptions"
        for name in ("bootstrap", "trials", "rare_k", "nrg_k", "twist_depth", "examples",
                     "ci_trials"):
            v = getattr(self, name)
            if v is None and name == "twist_depth":
                continue
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ParameterError(f"{fn}: {name} must be a positive integer, got {v!r}")
        from irmeta.measures.twist import check_depth
        if self.twist_depth is not None:
            check_depth(self.twist_depth, f"{fn}: twist_depth")
        if self.primary is not None and (not isinstance(self.primary, str)
                                         or not self.primary.strip()):
            raise ParameterError(f"{fn}: primary must be a measure string, got "
                                 f"{self.primary!r}")
        from irmeta.stats.leaderboard import LEADERBOARD_TESTS
        from irmeta.stats.significance import CORRECTIONS
        if self.test not in LEADERBOARD_TESTS:
            raise ParameterError(f"{fn}: test must be one of {', '.join(LEADERBOARD_TESTS)}, "
                                 f"got {self.test!r}")
        if self.correction is not None and self.correction not in CORRECTIONS:
            raise ParameterError(f"{fn}: correction must be None or one of "
                                 f"{', '.join(CORRECTIONS)}, got {self.correction!r}")
        if not 0.0 < float(self.ci_level) < 1.0:
            raise ParameterError(f"{fn}: ci_level must be in (0, 1), got {self.ci_level!r}")
        if self.background is None:
            return replace(self, background=default_background()).validate()
        if isinstance(self.background, bool) or not isinstance(self.background, (int, np.integer)) \
                or self.background < 0:
            raise ParameterError(f"{fn}: background must be an integer >= 0, got "
                                 f"{self.background!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) \
                or self.seed < 0:
            raise ParameterError(f"{fn}: seed must be a non-negative integer, got {self.seed!r}")
        if not 0.0 < float(self.level) < 1.0:
            raise ParameterError(f"{fn}: level must be in (0, 1), got {self.level!r}")
        if not float(self.fuzziness) >= 0.0:
            raise ParameterError(f"{fn}: fuzziness must be >= 0, got {self.fuzziness!r}")
        if self.nrg_prior not in NRG_PRIORS:
            raise ParameterError(f"{fn}: nrg_prior must be one of {', '.join(NRG_PRIORS)}, "
                                 f"got {self.nrg_prior!r}")
        if len(self.alphas) < 2 or any(not 0.0 <= float(a) for a in self.alphas):
            raise ParameterError(f"{fn}: alphas must hold at least two values >= 0, got "
                                 f"{self.alphas!r}")
        unknown = set(self.skip) - set(SECTIONS)
        if unknown:
            raise ParameterError(f"{fn}: skip names unknown section(s) "
                                 f"{', '.join(sorted(unknown))} "
                                 f"(known: {', '.join(SECTIONS)})")
        return self

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
