"""What every paper's analysis shares (its parameters are :mod:`irmeta.reproduce.params`):
the facts about a campaign that a page states, the progress bar and step clock
(:class:`Progress`), Kendall's tau-b, and the :class:`Reproduction` returned by
``reproduce``/``render``.

Nothing here writes a file or draws: the output folder and its page are
:mod:`irmeta.reproduce._session`.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
import pandas as pd

from irmeta.data.campaign import Campaign
from irmeta.data.checks import require_campaign
from irmeta.errors import ParameterError

__all__ = ["COMPARABLE", "CampaignFacts", "Progress", "Provenance", "Reproduction",
           "tau_b"]


@dataclass
class Reproduction:
    """What a reproduction wrote and computed.

    ``paper``: ``innovation``, ``nrg``, ``twist`` or ``gawm``; ``path``: the HTML page;
    ``files``: every file written next to it (TSV, PNG, SVG); ``tables``: the tables by
    name (the DataFrames behind the TSV files); ``timings``: ``{step: (wall s, CPU s)}``;
    ``analysis``: the paper's analysis object the page was rendered from.
    """

    paper: str
    path: Path
    files: list[Path]
    tables: dict[str, pd.DataFrame]
    timings: dict[str, tuple[float, float]]
    analysis: object = None

    @property
    def folder(self) -> Path:
        """The output folder."""
        return self.path.parent


# ---------------------------------------------------------------------- campaign facts
@dataclass(frozen=True)
class CampaignFacts:
    """What a reproduction page says about its campaign (counted once, by the analysis).

    ``analysed_topics``: topics with a relevant document at ``rel_level`` (the campaign
    topic set); ``judged``: qrels rows; ``relevant``: relevant documents at
    ``rel_level``; ``depth``: the longest ranking.
    """

    runs: int
    qrels_topics: int
    rel_level: int
    analysed_topics: int
    judged: int
    relevant: int
    depth: int

    def describe(self) -> str:
        """This campaign in words, for a :class:`Provenance` (``ours``)."""
        return (f"this campaign: {self.runs} runs, {self.analysed_topics} topics with a "
                f"relevant document (grade ≥ {self.rel_level})")

    @classmethod
    def of(cls, campaign, rel_level: int) -> "CampaignFacts":
        """The facts of ``campaign`` at ``rel_level``."""
        return cls(runs=campaign.num_runs, qrels_topics=campaign.num_topics,
                   rel_level=int(rel_level),
                   analysed_topics=int(campaign.topic_set(rel_level).sum()),
                   judged=len(campaign.judged.grades),
                   relevant=int(campaign.num_rel(rel_level).sum()), depth=campaign.depth)


# ---------------------------------------------------------------------- provenance
#: how a table's paper numbers compare with ours: ``exact`` — the paper's own input
#: (a worked example), reproduced digit for digit; ``same-measure-different-data`` —
#: the same measure and procedure on another collection and run set;
#: ``different-setup`` — other data *and* a procedure the paper does not state in full
#: (parameters chosen here, see the page)
COMPARABLE = ("exact", "same-measure-different-data", "different-setup")


@dataclass(frozen=True)
class Provenance:
    """Where the paper's numbers printed beside one of our tables come from.

    ``table``: the page table (its TSV name) that prints a paper column or row;
    ``paper``: the paper's collection and run set; ``ours``: this page's;
    ``comparable``: one of :data:`COMPARABLE`. Why the cells cannot be compared one by
    one is prose, in the paper page's ``TEXT`` block (``TEXT["provenance"][table]``).
    """

    table: str
    paper: str
    ours: str
    comparable: str

    def __post_init__(self):
        if self.comparable not in COMPARABLE:
            raise ParameterError(f"Provenance: comparable must be one of "
                                 f"{', '.join(COMPARABLE)}, got {self.comparable!r}")

    @property
    def exact(self) -> bool:
        """The paper's own input: the numbers must agree cell by cell."""
        return self.comparable == "exact"


# ---------------------------------------------------------------------- progress
def _progress_enabled(progress: bool | None) -> bool:
    if progress is None:
        return sys.stderr.isatty() and not os.environ.get("IRMETA_NO_PROGRESS")
    return bool(progress)


class Progress:
    """The progress bar (tqdm, on stderr) and the step clock of one reproduction:
    ``step(name)`` times a step (wall and CPU seconds, in ``timings``) and advances the
    bar. ``inner`` is the ``progress`` argument for the long loops inside a step.
    ``progress``: True / False, or None = when stderr is a terminal and
    ``IRMETA_NO_PROGRESS`` is not set.

    ``reproduce`` makes one for the analysis and the rendering together; ``analyse``
    and ``render`` called on their own make their own.
    """

    def __init__(self, paper: str, total: int, progress: bool | None = None):
        from tqdm.auto import tqdm

        from irmeta.report.html import StepClock

        enabled = _progress_enabled(progress)
        self.inner = enabled
        self.bar = tqdm(total=total, desc=f"irmeta reproduce {paper}", disable=not enabled,
                        file=sys.stderr, leave=False, dynamic_ncols=True, unit="step")
        self.clock = StepClock(self.bar)
        self.timings = self.clock.timings

    def step(self, name: str):
        """A context manager timing the step ``name``."""
        return self.clock.step(name)

    def close(self) -> None:
        self.bar.close()

    @staticmethod
    @contextlib.contextmanager
    def use(progress, paper: str, total: int):
        """``progress`` itself when it is a :class:`Progress` (left open for the caller),
        else a new one over ``total`` steps, closed at the end."""
        if isinstance(progress, Progress):
            yield progress
            return
        own = Progress(paper, total, progress)
        try:
            yield own
        finally:
            own.close()


# ---------------------------------------------------------------------- numbers
def tau_b(x, y) -> float:
    """Kendall's tau-b between two aligned score vectors (:func:`irmeta.stats.kendall_tau`)."""
    from irmeta.stats import kendall_tau
    return float(kendall_tau(np.asarray(x, float), np.asarray(y, float)))


class _Params(Protocol):
    @property
    def rel_level(self) -> int: ...
    def validate(self) -> Any: ...


P = TypeVar("P", bound=_Params)


def checked_campaign(fn: str, campaign, params: P, min_runs: int) -> tuple[P, np.ndarray]:
    """The checks a campaign reproduction's ``analyse`` starts with, in this order:
    ``campaign`` is a :class:`Campaign`, ``params.validate()``, at least ``min_runs`` runs,
    and :func:`~irmeta.data.checks.require_campaign` at ``params.rel_level``. Returns the
    validated parameters and the campaign topic set (bool [T])."""
    if not isinstance(campaign, Campaign):
        raise ParameterError(f"{fn}: campaign must be a Campaign")
    p = params.validate()
    if campaign.num_runs < min_runs:
        raise ParameterError(f"{fn}: needs at least {min_runs} runs, got {campaign.num_runs}")
    return p, require_campaign(campaign, p.rel_level, fn)
