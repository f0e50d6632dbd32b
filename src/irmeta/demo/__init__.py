"""The demo campaign shipped inside irmeta (SIMULATED data, see ``data/README.md``).

30 runs from 9 groups on 50 topics (301-350), 100 documents per topic and run, graded
qrels 0-3 from depth-20 pooling. Made by ``scripts/make_demo_campaign.py`` (seeded,
byte-identical on rerun); described in ``docs/demo-campaign.md``.

>>> from irmeta.demo import demo_paths, load_demo_campaign
>>> paths = demo_paths()
>>> len(paths.runs)
30
>>> load_demo_campaign().num_topics
50
"""

from __future__ import annotations

import atexit
import contextlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from irmeta.errors import CampaignError

__all__ = ["DemoPaths", "demo_paths", "demo_groups", "load_demo_campaign", "toy_inputs",
           "toy_campaign", "toy_scores"]

_STACK = contextlib.ExitStack()
atexit.register(_STACK.close)


@dataclass(frozen=True)
class DemoPaths:
    """Files of the demo campaign: ``qrels`` (TREC qrels), ``runs`` (one gzip TREC run
    file per run, sorted by run name), ``groups`` (``run group`` lines), ``readme``."""

    qrels: Path
    runs: list[Path]
    groups: Path
    readme: Path


def _data_dir() -> Path:
    traversable = resources.files("irmeta.demo") / "data"
    if isinstance(traversable, Path):
        return traversable
    # installed inside a zip file: extract once for the life of the process
    return Path(_STACK.enter_context(resources.as_file(traversable)))


def demo_paths() -> DemoPaths:
    """Paths of the demo campaign's files inside the installed package.

    Raises :class:`~irmeta.errors.CampaignError` when the package was installed without
    its data files (the ``package-data`` of ``pyproject.toml``)."""
    data = _data_dir()
    qrels, groups = data / "qrels.txt", data / "groups.txt"
    runs = sorted((data / "runs").glob("*.txt.gz")) if (data / "runs").is_dir() else []
    if not qrels.is_file() or not groups.is_file() or not runs:
        raise CampaignError(f"demo_paths: the demo campaign is missing from {data} "
                            "(irmeta was installed without its package data)")
    return DemoPaths(qrels=qrels, runs=runs, groups=groups, readme=data / "README.md")


def demo_groups() -> dict[str, str]:
    """The run -> group mapping of the demo campaign (for ``groups=`` of
    :func:`irmeta.evaluate` and ``prior=best_per_group``)."""
    text = demo_paths().groups.read_text(encoding="ascii")
    return dict(line.split() for line in text.splitlines() if line.strip())


def load_demo_campaign(**kwargs):
    """The demo campaign as a :class:`~irmeta.data.campaign.Campaign`:
    ``irmeta.load_campaign(qrels, runs, **kwargs)`` on :func:`demo_paths`."""
    from irmeta.io.load import load_campaign

    paths = demo_paths()
    return load_campaign(paths.qrels, paths.runs, **kwargs)


def toy_inputs() -> tuple[dict, dict]:
    """The toy campaign of the API's examples, as ``(qrels, runs)`` dicts: two topics,
    two runs (run B misses q2's relevant document and ranks q1's graded ones lower).

    Examples
    --------
    >>> qrels, runs = toy_inputs()
    >>> qrels
    {'q1': {'d1': 1, 'd2': 0, 'd3': 2}, 'q2': {'d4': 1}}
    >>> runs["A"]
    {'q1': {'d1': 3.0, 'd2': 2.0, 'd3': 1.0}, 'q2': {'d4': 1.0}}
    >>> runs["B"]
    {'q1': {'d2': 3.0, 'd3': 2.0}, 'q2': {'d5': 1.0}}
    """
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1}}
    runs = {"A": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 1.0}},
            "B": {"q1": {"d2": 3.0, "d3": 2.0}, "q2": {"d5": 1.0}}}
    return qrels, runs


def toy_campaign(**kwargs):
    """:func:`toy_inputs` as a :class:`~irmeta.data.campaign.Campaign`:
    ``irmeta.load_campaign(qrels, runs, **kwargs)``."""
    from irmeta.io.load import load_campaign

    return load_campaign(*toy_inputs(), **kwargs)


def toy_scores():
    """The toy score matrix of the API's examples (systems x topics): a DataFrame of
    three systems ``A, B, C`` on five topics ``0..4``, A best, C worst.

    Examples
    --------
    >>> toy_scores()
         0    1    2    3    4
    A  0.5  0.6  0.7  0.4  0.6
    B  0.3  0.5  0.4  0.2  0.5
    C  0.2  0.1  0.3  0.2  0.4
    """
    import pandas as pd

    return pd.DataFrame([[0.5, 0.6, 0.7, 0.4, 0.6], [0.3, 0.5, 0.4, 0.2, 0.5],
                         [0.2, 0.1, 0.3, 0.2, 0.4]], index=["A", "B", "C"])
