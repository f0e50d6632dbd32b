"""The parameters of the paper reproductions, each declared once: meaning, default (the
paper's), constraint and ``irmeta reproduce`` option.

A field is :func:`doc`: its one-line meaning is the page's parameter table and the
option's help, its ``constraint`` (:mod:`irmeta.constraints`) is checked by the API
(``validate``, :func:`check_declared`) and by the option's click type, and its
``option`` spellings make the ``irmeta reproduce`` option that fills it
(:func:`irmeta.cli.reproduce.param_options`, which stores into the field of the same
name). This module imports no computing library, so the CLI builds its options from it
without paying for NumPy or pandas.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from irmeta.constraints import (
    ALPHA,
    COUNT,
    CUTOFF,
    DEPTH,
    FRACTION,
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
    Real,
)
from irmeta.errors import ParameterError

__all__ = ["AXIOMS", "CROSSING", "GAWMParams", "InnovationParams", "NRGParams", "TwistParams",
           "check_declared", "doc"]

#: GAWM's axiom sets
AXIOMS = Choice(("A", "B"))
#: Twist's first-crossing rules (``irmeta.measures.twist.CROSSING_RULES``, which imports
#: NumPy; ``tests/unit/test_cli_options.py`` keeps the two equal)
CROSSING = Choice(("matters", "formal"))


def doc(text: str, *, default: Any, option: tuple[str, ...] = (),
        constraint: Constraint | None = None, cli_help: str = "", **click: Any) -> Any:
    """A parameters-dataclass field, declared once for the page, the API and the CLI.

    ``text``: its one-line meaning (the page's parameter table; the CLI help unless
    ``cli_help`` says more). ``default``: the paper's value. ``constraint``: what a value
    must be, checked by :func:`check_declared` (the API) and by the option's click type
    (the CLI). ``option``: the ``irmeta reproduce`` option's spellings
    (``("-k", "--cutoff")``). ``click``: other ``click.option`` keywords (``metavar``,
    ``case_sensitive`` of a choice).
    """
    metadata = {"doc": text, "option": option, "constraint": constraint,
                "cli_help": cli_help, "click": click}
    if isinstance(default, (list, dict, set)):
        return field(default_factory=lambda: type(default)(default), metadata=metadata)
    return field(default=default, metadata=metadata)


def check_declared(params: Any, func: str) -> None:
    """Check every field of a parameters dataclass that declares a ``constraint``
    (:func:`doc`); :class:`ParameterError` ``"<func>: <field> must be <what>, got
    <value>"`` on the first that does not meet it."""
    for f in fields(params):
        constraint = f.metadata.get("constraint")
        if constraint is not None:
            constraint.check(getattr(params, f.name), f.name, func)


@dataclass
class InnovationParams:
    """Parameters of the innovation reproduction (defaults: the paper's)."""

    cutoff: int = doc("cutoff K of P@K, AP@K and of rarity (runs' top K)", default=100,
                      option=("-k", "--cutoff"), constraint=CUTOFF)
    rel_level: int = doc("minimum grade counted relevant (binary measures, rarity)", default=1,
                         constraint=REL_LEVEL)
    alphas: tuple = doc("alpha grid of Figure 2",
                        default=tuple(i / 10 for i in range(11)),
                        option=("--alphas",), constraint=ListOf(ALPHA, min_items=2),
                        cli_help="Alpha grid of Figure 2: a,b,c or START:STOP:STEP.")
    table_alphas: tuple = doc("alphas of Tables 1-2", default=(0.0, 0.5, 1.0),
                              constraint=ListOf(ALPHA))
    levels: tuple = doc("significance levels of Table 1 (95% and 99%)", default=(0.05, 0.01),
                        constraint=ListOf(PROBABILITY))
    stability_trials: int = doc("Table 2: random topic subsets", default=1000,
                                option=("--stability-trials",), constraint=TRIALS)
    fuzziness: float = doc("Table 2: absolute difference of means below which a pair ties",
                           default=0.05, option=("--fuzziness",), constraint=NONNEGATIVE)
    systems_trials: int = doc("Table 3: random system samples per N", default=1000,
                              option=("--systems-trials",), constraint=TRIALS,
                              cli_help="Table 3: random system samples per N (the paper's "
                                       "1000: about 43 s CPU on 63 runs; 100 for a quick "
                                       "look).")
    sizes: tuple = doc("Table 3: numbers of systems N (those above R are skipped)",
                       default=(2, 4, 8, 16, 32, 64), constraint=ListOf(COUNT))
    table3_alpha: float = doc("Table 3: alpha of the measures", default=1.0, constraint=ALPHA)
    table4_runs: int = doc("Table 4: runs with the largest rank gain from P@K to "
                           "P_rare(table3_alpha)@K", default=3,
                           option=("--table4-runs",), constraint=COUNT)
    table4_docs: int = doc("Table 4: rarest relevant documents listed per run", default=5,
                           option=("--table4-docs",), constraint=COUNT)
    figure1_topic: str | None = doc("Figure 1: topic (default: the one whose best run's "
                                    "P@K is the median over topics)", default=None,
                                    option=("--figure1-topic",))
    figure1_max_d: int = doc("Figure 1: largest D (relevant documents retrieved)", default=100,
                             constraint=COUNT)
    figure1_points: int = doc("Figure 1: at most this many values of D", default=40,
                              option=("--figure1-points",), constraint=COUNT)
    figure1_alphas: tuple = doc("Figure 1: alphas", default=(0.0, 0.5, 1.0),
                                constraint=ListOf(ALPHA))
    seed: int = doc("seed of every random procedure", default=0, option=("--seed",),
                    constraint=SEED)

    def validate(self) -> "InnovationParams":
        fn = "reproduce innovation"
        check_declared(self, fn)
        return self


@dataclass
class NRGParams:
    """Parameters of the NRG reproduction (defaults: the paper's)."""

    cutoff: int = doc("cutoff k of nDCG@k and of the chronological / all-others NRG",
                      default=10, option=("-k", "--cutoff"), constraint=CUTOFF)
    pool_depth: int = doc("K of the unique-contribution variants (the pool depth)", default=10,
                          option=("--pool-depth",), constraint=CUTOFF,
                          cli_help="K of the unique-contribution variants (the track's pool "
                                   "depth).")
    alpha: float = doc("alpha of P_rare@k in Figure 4", default=1.0, option=("--alpha",),
                       constraint=ALPHA)
    rel_level: int = doc("minimum grade counted relevant (binary gains, unique, P_rare)",
                         default=1)
    label_top: int = doc("runs named in the scatter plots (highest NRG)", default=5,
                         constraint=Integer(low=0))

    def validate(self) -> "NRGParams":
        check_declared(self, "reproduce nrg")
        return self


@dataclass
class TwistParams:
    """Parameters of the Twist reproduction (defaults: the paper's)."""

    depth: int = doc("depth N of Twist (shorter rankings are padded)", default=1000,
                     option=("--depth",), constraint=DEPTH)
    crossing: str = doc("first-crossing rule of CRP (matters | formal)", default="matters",
                        option=("--crossing",), constraint=CROSSING,
                        cli_help="First-crossing rule of the CRP curve (archetypes).")
    rel_level: int = doc("minimum grade counted relevant by the binary measures", default=1,
                         constraint=REL_LEVEL)
    gains: tuple = doc("gain measures of the effort/gain grids and the correlations; "
                       "nDCG is the paper's (log10 discount, Järvelin & Kekäläinen; "
                       "'nDCG' gives trec_eval's log2 one)",
                       default=("AP", "bpref", "RBP(p=0.8)", "nDCG(discount=jk10)"))
    top_fraction: float = doc("share of runs kept by MAP for Tables 3-4, Figures 13-14",
                              default=0.75, option=("--top-fraction",), constraint=FRACTION)
    filter_all: bool = doc("also restrict Table 2 and the grids to those runs", default=False,
                           option=("--filter-all",), constraint=Flag())
    levels: tuple = doc("Figure 13: pool percentages kept", default=(90, 70, 50, 30, 10),
                        constraint=ListOf(Real(low=0.0, high=100.0, low_open=True)))
    repeats: int = doc("Figure 13: independent downsamplings averaged", default=1,
                       option=("--repeats",), constraint=TRIALS)
    discpower_trials: int = doc("Figure 14: bootstrap resamples B", default=1000,
                                option=("--discpower-trials",), constraint=TRIALS)
    level: float = doc("Figure 14: significance level", default=0.05, option=("--level",),
                       constraint=PROBABILITY)
    seed: int = doc("seed of every random procedure", default=0, option=("--seed",),
                    constraint=SEED)

    def validate(self) -> "TwistParams":
        fn = "reproduce twist"
        check_declared(self, fn)
        from irmeta.measures.twist import check_depth  # NumPy: loaded when a run starts
        check_depth(self.depth, fn)
        if not self.gains:
            raise ParameterError(f"{fn}: gains is empty")
        return self


@dataclass
class GAWMParams:
    """Parameters of the GAWM reproduction (defaults: the paper's)."""

    measure: str = doc("measure of the matrix (campaign input; the paper: AP)", default="AP",
                       option=("-m", "--measure"), metavar="MEASURE",
                       cli_help="Measure whose runs x topics matrix is analysed (campaign "
                                "input).")
    axioms: str = doc("axioms of Tables 2-3 and Figures 3-5 (A | B)", default="A",
                      option=("--axioms",), constraint=AXIOMS, case_sensitive=False,
                      cli_help="Axioms of Tables 2-3 and Figures 3-5 (Figure 6 uses B, as "
                               "the paper).")
    loto_axioms: str = doc("axioms of Figure 6 (leave-one-topic-out)", default="B",
                           constraint=AXIOMS)
    heatmap_means: tuple = doc("GAWM means (M_s = M_t) shown beside the heat map",
                               default=("arithmetic", "geometric"))

    def validate(self) -> "GAWMParams":
        for name in ("axioms", "loto_axioms"):      # a or b: the CLI's choice is case-blind
            value = getattr(self, name)
            if isinstance(value, str):
                setattr(self, name, value.upper())
        check_declared(self, "reproduce gawm")
        return self
