"""Twist (Ferro et al.): avoidable effort, from Relative Position (RP) and Cumulated
Relative Position (CRP) curves — vectorised over runs x topics x ranks.

Notation for one topic and a ranking of length ``N`` (1-based ranks ``j``):

* degrees: the grades present in the qrels that are relevant (``grade >= L``, ``L`` the
  relevance level, default 1), plus non-relevant ``nr`` (grades below ``L``, negative
  grades, documents not in the qrels, padding). ``RB`` = relevant documents in the qrels.
* ideal run: relevant documents by grade, highest first, then ``nr``. ``lo(g)``,
  ``hi(g)``: first and last position of degree ``g`` in it; ``lo(nr) = RB + 1``,
  ``hi(nr) = N``. For a relevant grade: ``hi(g) = #{docs with grade >= g}``,
  ``lo(g) = hi(g) - #{docs with grade g} + 1``.
* ``RP[j] = min(0, j - lo(g_j)) + max(0, j - hi(g_j))`` (0 inside the ideal interval,
  ``j - lo`` before it, ``j - hi`` after it); ``CRP[j] = RP[1] + ... + RP[j]``.
* first crossing ``x`` (``crossing=matters``, the default, as MATTERS ``twist.m``): the
  first ``j < N`` with ``CRP[j] <= 0 < CRP[j+1]`` or ``CRP[j+1] <= 0 < CRP[j]``.
  ``crossing=formal`` (the paper's printed Definition 3): the first ``j < N`` with
  ``CRP[j] <= 0 <= CRP[j+1]`` or ``CRP[j] >= 0 >= CRP[j+1]``.
* ``beta = max(RB, x)``, ``rho = RB / beta``; with no crossing ``rho = 0`` — except, under
  ``matters``, ``rho = 1`` when ``CRP`` is identically 0 (the ideal run).
* ``s+ = sum_{RP>0} RP``, ``s- = sum_{RP<0} |RP|``; the full-scale run ``fs`` is the ideal
  run reversed (length N). ``sigma+ = 1 - s+/s+_fs``, ``sigma- = 1 - s-/s-_fs`` (1 when the
  denominator is 0), ``sigma = 2 sigma+ sigma- / (sigma+ + sigma-)`` (0 when both are 0).
* ``Twist = (rho + sigma) / 2``.

Undefined (NaN): topics with ``RB = 0``, and topics with ``RB > N`` (Definition 12 needs
``N >= RB``; a warning names them). Rankings shorter than N are padded with ``nr``.
When ``RB <= N < 2 RB`` the full-scale run is not an extreme run (Definition 14 needs
``N >= 2 RB``) and a space ratio could fall below 0; it is clipped to ``[0, 1]``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from irmeta.constraints import DEPTH, Choice, Integer
from irmeta.data.campaign import Campaign
from irmeta.errors import MeasureError, ParameterError
from irmeta.errors import warn as irmeta_warn
from irmeta.measures.kernel import REL, memo, relevance_level, topic_blocks
from irmeta.measures.registry import register
from irmeta.measures.spec import EvalContext, Measure, MeasureDef, Param

#: default depth N of ``Twist`` without ``@``
DEFAULT_DEPTH = 1000
#: largest depth N accepted: Twist pads every ranking to N and holds runs x N cells per
#: topic (about 40 bytes a cell), so N = 100,000 already costs ~250 MB on 63 runs. 100
#: times the paper's depth and deeper than any recall base of a TREC topic; a value
#: beyond it is refused (it is not equivalent to a smaller one: padding changes Twist).
MAX_DEPTH = 100_000
CROSSING_RULES = ("matters", "formal")


# ------------------------------------------------------------------ degrees
@dataclass
class DegreeTable:
    """Per-topic ideal intervals of every degree, for a depth N and relevance level L.

    ``values``: the relevant grades of the campaign (ascending), column ``k`` of the
    tables; the last column (index ``K = len(values)``) is ``nr``. ``lo[t, k]``,
    ``hi[t, k]``: first/last ideal position (1-based) of degree k on topic t
    (``lo = hi + 1`` for a grade absent from the topic). ``rb[t]``: recall base.
    """

    values: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    rb: np.ndarray
    depth: int
    level: int

    @property
    def nr(self) -> int:
        return len(self.values)

    def columns(self, grades: np.ndarray) -> np.ndarray:
        """Degree column of each grade (``nr`` for grades below the level, NOT_IN_QRELS)."""
        rel = grades >= self.level
        idx = np.searchsorted(self.values, np.where(rel, grades, self.level))
        return np.where(rel, idx, self.nr).astype(np.int16 if self.nr < 32000 else np.int32)

    def ideal_columns(self) -> np.ndarray:
        """int [T, N]: degree column at each position of the ideal run."""
        N = self.depth
        k = np.arange(1, N + 1)
        # relevant columns in descending grade order; hi increases along them
        hi_desc = self.hi[:, : self.nr][:, ::-1]
        n_before = (hi_desc[:, None, :] < k[None, :, None]).sum(axis=2)
        col = self.nr - 1 - n_before
        return np.where(k[None, :] <= self.rb[:, None], col, self.nr)

    def full_scale_columns(self) -> np.ndarray:
        """int [T, N]: degree column at each position of the full-scale run."""
        return self.ideal_columns()[:, ::-1]


def degree_table(campaign: Campaign, depth: int, level: int = 1) -> DegreeTable:
    """Ideal intervals of every degree per topic (see :class:`DegreeTable`)."""
    j = campaign.judged
    rel = j.grades >= level
    values = np.unique(j.grades[rel])
    T, K = campaign.num_topics, len(values)
    counts = np.zeros((T, K), dtype=np.int64)
    np.add.at(counts, (j.topic[rel], np.searchsorted(values, j.grades[rel])), 1)
    hi_rel = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]          # docs with grade >= g
    lo_rel = hi_rel - counts + 1
    rb = counts.sum(axis=1)
    lo = np.concatenate([lo_rel, (rb + 1)[:, None]], axis=1)
    hi = np.concatenate([hi_rel, np.full((T, 1), depth)], axis=1)
    return DegreeTable(values, lo, hi, rb, depth, level)


def relative_position(columns: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """RP for degree columns ``[..., N]`` given ``lo``/``hi`` tables broadcast to the same
    leading shape plus the degree axis: ``RP[j] = min(0, j - lo) + max(0, j - hi)``."""
    N = columns.shape[-1]
    j = np.arange(1, N + 1, dtype=np.int64)
    lo_c = np.take_along_axis(lo, columns.astype(np.intp), axis=-1)
    hi_c = np.take_along_axis(hi, columns.astype(np.intp), axis=-1)
    rp: np.ndarray = np.minimum(0, j - lo_c) + np.maximum(0, j - hi_c)
    return rp


def first_crossing(crp: np.ndarray, rule: str = "matters") -> np.ndarray:
    """1-based first crossing ``j`` along the last axis (0 where there is none).

    ``matters``: ``CRP[j]`` and ``CRP[j+1]`` fall on different sides of the split
    ``CRP <= 0`` / ``CRP > 0``. ``formal``: ``(CRP[j] <= 0 and CRP[j+1] >= 0) or
    (CRP[j] >= 0 and CRP[j+1] <= 0)``.
    """
    a, b = crp[..., :-1], crp[..., 1:]
    if rule == "matters":
        cross = (a > 0) != (b > 0)
    elif rule == "formal":
        cross = ((a <= 0) & (b >= 0)) | ((a >= 0) & (b <= 0))
    else:
        raise ParameterError(f"first_crossing: rule must be one of {CROSSING_RULES}, got {rule!r}")
    if cross.shape[-1] == 0:
        return np.zeros(crp.shape[:-1], dtype=np.int64)
    return np.where(cross.any(axis=-1), np.argmax(cross, axis=-1) + 1, 0)


def _ratio(s: np.ndarray, s_fs: np.ndarray) -> np.ndarray:
    out = np.ones(np.broadcast(s, s_fs).shape)
    np.divide(s, s_fs, out=out, where=s_fs > 0)
    return np.clip(np.where(s_fs > 0, 1.0 - out, 1.0), 0.0, 1.0)


def space_ratio(sigma_plus: np.ndarray, sigma_minus: np.ndarray) -> np.ndarray:
    """Harmonic mean ``2 a b / (a + b)`` of the two space ratios, 0 when both are 0."""
    den = sigma_plus + sigma_minus
    out = np.zeros(np.broadcast(sigma_plus, sigma_minus).shape)
    np.divide(2.0 * sigma_plus * sigma_minus, den, out=out, where=den > 0)
    return out


# --------------------------------------------------------------- components
@dataclass
class TwistComponents:
    """Everything Twist is made of, for every run and topic of a campaign.

    ``[R, T]`` arrays (NaN / -1 on undefined topics): ``twist``, ``rho``, ``sigma``,
    ``sigma_plus``, ``sigma_minus``, ``s_plus``, ``s_minus``, ``crossing`` (1-based first
    crossing, 0 = none), ``crp_zero`` (CRP identically 0), ``n_relevant`` (relevant
    documents in the top N), ``full_scale`` (relevance vector equals the full-scale one).
    ``[T]`` arrays: ``rb``, ``s_plus_fs``, ``s_minus_fs``, ``crp_min_fs`` (=
    ``-RB(RB+1)/2`` when ``N >= 2RB``), ``crp_max_fs``, ``defined`` (0 < RB <= N).
    """

    runs: tuple[str, ...]
    topics: tuple[str, ...]
    depth: int
    crossing_rule: str
    level: int
    twist: np.ndarray
    rho: np.ndarray
    sigma: np.ndarray
    sigma_plus: np.ndarray
    sigma_minus: np.ndarray
    s_plus: np.ndarray
    s_minus: np.ndarray
    crossing: np.ndarray
    crp_zero: np.ndarray
    n_relevant: np.ndarray
    full_scale: np.ndarray
    rb: np.ndarray
    s_plus_fs: np.ndarray
    s_minus_fs: np.ndarray
    crp_min_fs: np.ndarray
    crp_max_fs: np.ndarray
    defined: np.ndarray


def depth_limit_text(depth: int) -> str:
    """Why a Twist depth is refused (shared by the API, measure strings and the CLI)."""
    return (f"Twist depth N = {depth:,} exceeds the limit of {MAX_DEPTH:,}: every ranking is "
            f"padded to N ranks in memory (runs x N cells per topic). Use N at least the "
            f"number of relevant documents of a topic, typically 1000")


def check_depth(depth: int, fn: str) -> None:
    """A ParameterError naming ``fn`` when ``depth`` exceeds :data:`MAX_DEPTH`."""
    if depth > MAX_DEPTH:
        raise ParameterError(f"{fn}: {depth_limit_text(depth)}")


def _check_args(fn: str, depth: object, crossing: str, level: object) -> None:
    check_depth(DEPTH.check(depth, "depth", fn), fn)
    Choice(CROSSING_RULES).check(crossing, "crossing", fn)
    Integer(low=1).check(level, "rel_level", fn)


def block_columns(campaign: Campaign, table: DegreeTable, t0: int, t1: int,
                  runs: slice | np.ndarray = slice(None)) -> np.ndarray:
    """Degree columns ``[R, t1-t0, N]`` of the top N of every ranking, padded with nr."""
    N = table.depth
    g = campaign.grades[runs, t0:t1, :N]
    cols = table.columns(g)
    if cols.shape[2] < N:
        pad = np.full(cols.shape[:2] + (N - cols.shape[2],), table.nr, dtype=cols.dtype)
        cols = np.concatenate([cols, pad], axis=2)
    return cols


def components(campaign: Campaign, depth: int = DEFAULT_DEPTH, crossing: str = "matters",
               rel_level: int = 1, warn: bool = True) -> TwistComponents:
    """Compute rho, sigma, Twist and their parts for all runs and topics at once.

    Works on blocks of topics (bounded memory); per block: degree columns
    ``[R, Tc, N]`` -> RP (one vectorised formula) -> CRP (``cumsum`` over ranks) ->
    first crossing (``argmax`` over a boolean crossing mask). See the module docstring
    for the formulas and the undefined cases.

    The result is kept on the campaign for its two most recent settings (the Twist
    measures, the archetypes and the CRP plots of one analysis share it); its arrays
    are read-only. ``warn``: warn about topics with more relevant documents than N.
    """
    _check_args("twist.components", depth, crossing, rel_level)
    depth, level = int(depth), int(rel_level)
    memo = campaign.__dict__.setdefault("_twist_components", {})
    key = (depth, crossing, level)
    comp: TwistComponents | None = memo.get(key)
    if comp is None:
        comp = _components(campaign, depth, crossing, level)
        for name, value in vars(comp).items():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
        while len(memo) >= 2:                      # the two most recent settings
            memo.pop(next(iter(memo)))
        memo[key] = comp
    too_deep = np.flatnonzero(comp.rb > depth)
    if warn and len(too_deep):
        names = ", ".join(campaign.topics[i] for i in too_deep[:20])
        irmeta_warn(f"Twist@{depth}: {len(too_deep)} topic(s) have more relevant documents "
                    f"than the depth and are undefined (NaN): {names}"
                    f"{', ...' if len(too_deep) > 20 else ''}; use a depth >= the recall base")
    return comp


def _components(campaign: Campaign, depth: int, crossing: str, level: int) -> TwistComponents:
    table = degree_table(campaign, depth, level)
    R, T = campaign.num_runs, campaign.num_topics
    rb = table.rb
    defined = (rb > 0) & (rb <= depth)

    # full-scale run, per topic
    fs_cols = table.full_scale_columns()
    rp_fs = relative_position(fs_cols, table.lo, table.hi)
    crp_fs = np.cumsum(rp_fs, axis=1)
    s_plus_fs = np.where(rp_fs > 0, rp_fs, 0).sum(axis=1)
    s_minus_fs = np.where(rp_fs < 0, -rp_fs, 0).sum(axis=1)

    out = {k: np.zeros((R, T)) for k in ("rho", "sigma", "sigma_plus", "sigma_minus",
                                          "s_plus", "s_minus")}
    cross = np.zeros((R, T), dtype=np.int64)
    crp_zero = np.zeros((R, T), dtype=bool)
    n_rel = np.zeros((R, T), dtype=np.int64)
    full = np.zeros((R, T), dtype=bool)
    for t0, t1 in topic_blocks(R, T, depth):
        cols = block_columns(campaign, table, t0, t1)
        rp = relative_position(cols, table.lo[None, t0:t1], table.hi[None, t0:t1])
        crp = np.cumsum(rp, axis=2)
        sp = np.where(rp > 0, rp, 0).sum(axis=2)
        sm = np.where(rp < 0, -rp, 0).sum(axis=2)
        x = first_crossing(crp, crossing)
        zero = ~np.any(crp != 0, axis=2)
        cross[:, t0:t1] = x
        crp_zero[:, t0:t1] = zero
        n_rel[:, t0:t1] = (cols != table.nr).sum(axis=2)
        full[:, t0:t1] = np.all(cols == fs_cols[None, t0:t1], axis=2)
        rbb = rb[None, t0:t1].astype(float)
        beta = np.maximum(rbb, x)
        rho = np.where(x > 0, rbb / np.where(beta > 0, beta, 1.0), 0.0)
        if crossing == "matters":
            rho = np.where(zero, 1.0, rho)
        spl = _ratio(sp, s_plus_fs[None, t0:t1])
        smi = _ratio(sm, s_minus_fs[None, t0:t1])
        out["rho"][:, t0:t1] = rho
        out["sigma_plus"][:, t0:t1] = spl
        out["sigma_minus"][:, t0:t1] = smi
        out["sigma"][:, t0:t1] = space_ratio(spl, smi)
        out["s_plus"][:, t0:t1] = sp
        out["s_minus"][:, t0:t1] = sm
    bad = ~defined[None, :]
    for k in out:
        out[k] = np.where(bad, np.nan, out[k])
    cross = np.where(bad, -1, cross)
    twist = (out["rho"] + out["sigma"]) / 2.0
    return TwistComponents(campaign.runs, campaign.topics, depth, crossing, level, twist,
                           out["rho"], out["sigma"], out["sigma_plus"], out["sigma_minus"],
                           out["s_plus"], out["s_minus"], cross, crp_zero & ~bad, n_rel,
                           full & ~bad, rb, s_plus_fs, s_minus_fs,
                           crp_fs.min(axis=1), crp_fs.max(axis=1), defined)


# ------------------------------------------------------------------- kernels
def _cached(campaign: Campaign, measure: Measure, ctx: EvalContext) -> TwistComponents:
    depth = measure.cutoff or DEFAULT_DEPTH
    level = relevance_level(measure, ctx)
    comp: TwistComponents = memo(
        ctx, ("twist.components", campaign, depth, measure["crossing"], level),
        lambda: components(campaign, depth, measure["crossing"], level))
    return comp


def twist_kernel(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """Twist@N = (rho + sigma) / 2 (NaN when RB = 0 or RB > N)."""
    return _cached(campaign, measure, ctx).twist


def rho_kernel(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """Recovery ratio rho = RB / max(RB, first crossing) (0 without a crossing)."""
    return _cached(campaign, measure, ctx).rho


def sigma_kernel(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """Space ratio sigma = harmonic mean of 1 - s+/s+_fs and 1 - s-/s-_fs."""
    return _cached(campaign, measure, ctx).sigma


def _validate(measure: Measure) -> None:
    """A depth beyond :data:`MAX_DEPTH` is refused when the measure string is parsed."""
    if measure.cutoff is not None and measure.cutoff > MAX_DEPTH:
        raise MeasureError(depth_limit_text(measure.cutoff))


_PARAMS = (
    Param("crossing", "str", "matters", "first-crossing rule: matters (the authors' MATTERS "
          "code, default) or formal (the paper's printed Definition 3)", choices=CROSSING_RULES),
    replace(REL, doc="minimum relevant grade; lower grades are non-relevant (default: the "
            "evaluation's relevance level)", low=1),
)

register(MeasureDef("Twist", "Twist: avoidable effort, (rho + sigma)/2 over the top N "
                    "(Ferro et al.); graded", twist_kernel, _PARAMS, cutoff_default=DEFAULT_DEPTH,
                    family="twist", validate=_validate, formula="(RB/max(RB, first CRP crossing) + "
                    "H(1 - s+/s+_fs, 1 - s-/s-_fs)) / 2"))
register(MeasureDef("Twist.rho", "Twist's recovery ratio RB / max(RB, first crossing of CRP)",
                    rho_kernel, _PARAMS, cutoff_default=DEFAULT_DEPTH, family="twist",
                    validate=_validate,
                    formula="RB / max(RB, min crossing); 0 without crossing"))
register(MeasureDef("Twist.sigma", "Twist's space ratio: harmonic mean of the forward and "
                    "backward space ratios", sigma_kernel, _PARAMS,
                    cutoff_default=DEFAULT_DEPTH, family="twist", validate=_validate,
                    formula="2 s+r s-r / (s+r + s-r), s+r = 1 - s+/s+_fs, s-r = 1 - s-/s-_fs"))
