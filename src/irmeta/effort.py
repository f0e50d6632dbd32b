"""Effort analysis around Twist: RP/CRP curves, run archetypes, effort/gain grids.

Builds on :mod:`irmeta.measures.twist` (formulas there). Everything here works on a
:class:`~irmeta.data.campaign.Campaign` and returns NumPy arrays or pandas DataFrames.

* :func:`curve_arrays` / :func:`curves` — RP and CRP of (run, topic) pairs, optionally
  normalised to ``[-1, 1]`` against the full-scale run (negative values divided by
  ``|min|`` of the full-scale curve, positive ones by its ``max``; by Propositions 1-2
  every run lies inside these bounds when ``N >= 2 RB``), with the DCG curve of the same
  ranking (``DCG[j] = sum_{i<=j} gain_i / log2(i + 1)``, gain = grade for relevant
  grades, 0 otherwise) and the ideal DCG beside it.
* :func:`archetypes` / :func:`archetype_table` — the archetype of every (run, topic)
  (paper's Figure 3) and the campaign's percentages (Table 2).
* :func:`effort_gain` / :func:`effort_gain_summary` — the 4x4 effort/gain grid of Twist
  against a gain measure (paper's Figures 7-10), with the shares on the diagonal and in
  the four high-high cells.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.constraints import Flag, Integer, validated
from irmeta.data.campaign import NOT_IN_QRELS, Campaign
from irmeta.errors import CampaignError, ParameterError
from irmeta.measures import twist as tw

#: archetype labels, in the order of precedence used by :func:`archetypes`
ARCHETYPES = ("ideal", "worst", "full_scale", "excellent", "typical_A", "typical_B")
#: the gain measures of the paper's effort/gain plots (AP, bpref, RBP p=0.8, nDCG)
GAIN_MEASURES = ("AP", "bpref", "RBP(p=0.8)", "nDCG")
#: Twist column edges of the effort/gain grid
TWIST_EDGES = (0.0, 0.25, 0.5, 0.75, 1.0)

#: Table 2 of the paper (percent of run x topic curves per archetype)
PAPER_TABLE2 = pd.DataFrame(
    {"total": [4750, 3700, 1850, 1350],
     "ideal": [0.17, 0.00, 0.11, 0.00], "worst": [3.09, 1.86, 8.86, 4.15],
     "full_scale": [0.0, 0.0, 0.0, 0.0],
     "excellent": [0.15, 0.00, 0.16, 0.00],
     "typical_A": [83.87, 80.24, 60.70, 64.59], "typical_B": [12.72, 17.89, 30.16, 31.26]},
    index=["TREC10", "TREC14", "TREC20", "TREC21"])

#: shares (percent) of (run, topic) points in the diagonal and high-high cells that the
#: paper's text reports (NaN: not given; the bpref and nDCG grids are said to be "the
#: same as" AP's, apart from TREC 20 bpref diagonal, printed as 1.24%)
PAPER_SHARES = pd.DataFrame(
    [("AP", "TREC10", 28, 44), ("AP", "TREC14", np.nan, 37), ("AP", "TREC20", 26, 50),
     ("AP", "TREC21", 25, 50), ("bpref", "TREC20", 1.24, np.nan),
     ("RBP(p=0.8)", "TREC10", 31, 44), ("RBP(p=0.8)", "TREC14", 38, 37.4),
     ("RBP(p=0.8)", "TREC20", 33, 50), ("RBP(p=0.8)", "TREC21", 33, 50)],
    columns=["gain", "collection", "diagonal", "high_high"])


def _check(fn: str, depth, crossing, rel_level) -> None:
    tw._check_args(fn, depth, crossing, rel_level)


def _index(campaign: Campaign, fn: str, which, names: tuple, kind: str) -> list[int]:
    if which is None:
        return list(range(len(names)))
    if isinstance(which, (str, int, np.integer)):
        which = [which]
    if isinstance(which, (bytes, Mapping)) or not isinstance(which, Iterable):
        raise ParameterError(f"{fn}: {kind}s must be a {kind} name, an index or a list of "
                             f"them, got {which!r}")
    out = []
    for w in which:
        if isinstance(w, (int, np.integer)) and not isinstance(w, bool):
            if not 0 <= int(w) < len(names):
                raise ParameterError(f"{fn}: {kind} index {w} out of range [0, {len(names)})")
            out.append(int(w))
        elif str(w) in names:
            out.append(names.index(str(w)))
        else:
            raise CampaignError(f"{fn}: no {kind} {w!r} in the campaign")
    return out


# ===================================================================== curves
@dataclass
class CurveArrays:
    """RP, CRP and DCG curves of selected runs x topics (axes ``[r, t, rank]``).

    ``rp``, ``crp`` (int64), ``dcg``, ``grades`` (qrels grade, ``NOT_IN_QRELS`` for
    unjudged and padding); ``[t, rank]``: ``rp_fs``, ``crp_fs``, ``ideal_dcg``; ``[t]``:
    ``rb``. ``runs`` / ``topics`` name the axes; ``depth`` is N.
    """

    runs: tuple
    topics: tuple
    depth: int
    rp: np.ndarray
    crp: np.ndarray
    dcg: np.ndarray
    grades: np.ndarray
    rp_fs: np.ndarray
    crp_fs: np.ndarray
    ideal_dcg: np.ndarray
    rb: np.ndarray

    def normalised(self, method: str = "piecewise") -> tuple[np.ndarray, np.ndarray]:
        """``(rp_norm, crp_norm)`` in ``[-1, 1]`` against the full-scale curves' bounds
        (see :func:`normalise`: by default negative values over ``|min|``, positive
        values over ``max``)."""
        return (normalise(self.rp, self.rp_fs.min(axis=1), self.rp_fs.max(axis=1), method),
                normalise(self.crp, self.crp_fs.min(axis=1), self.crp_fs.max(axis=1), method))


def normalise(curve: np.ndarray, low: np.ndarray, high: np.ndarray,
              method: str = "piecewise") -> np.ndarray:
    """Map ``curve[..., t, rank]`` into ``[-1, 1]`` given per-topic full-scale bounds
    ``low`` (<= 0) and ``high`` (>= 0).

    ``piecewise`` (default): ``c / |low_t|`` where ``c < 0``, ``c / high_t`` where ``c > 0``
    — 0 stays 0, so crossings stay visible. ``linear`` (MATTERS ``twist.m``,
    ``Normalize``): ``(2c - high - low) / (high - low)``, which moves 0 unless
    ``low = -high``. A zero-width bound maps to 0.
    """
    low = np.asarray(low, float)[..., :, None]
    high = np.asarray(high, float)[..., :, None]
    c = curve.astype(float)
    if method == "linear":
        den = np.broadcast_to(high - low, c.shape)
        return np.divide(2 * c - high - low, den, out=np.zeros_like(c), where=den > 0)
    if method != "piecewise":
        raise ParameterError(f"normalise: method must be 'piecewise' or 'linear', got {method!r}")
    low = np.abs(low)
    neg = np.divide(c, low, out=np.zeros_like(c), where=(c < 0) & (low > 0))
    pos = np.divide(c, high, out=np.zeros_like(c), where=(c > 0) & (high > 0))
    return neg + pos


def _dcg(gain: np.ndarray) -> np.ndarray:
    return np.cumsum(gain / np.log2(np.arange(2, gain.shape[-1] + 2)), axis=-1)


def curve_arrays(campaign: Campaign, runs=None, topics=None, depth: int = tw.DEFAULT_DEPTH,
                 rel_level: int = 1) -> CurveArrays:
    """RP, CRP and DCG curves for ``runs`` x ``topics`` (names or indices; None = all).

    ``RP[j] = min(0, j - lo(g_j)) + max(0, j - hi(g_j))``, ``CRP = cumsum(RP)`` (see
    :mod:`irmeta.measures.twist`); rankings shorter than ``depth`` are padded with
    non-relevant documents. Memory: ``len(runs) * len(topics) * depth`` cells.
    """
    _check("curve_arrays", depth, "matters", rel_level)
    ri = _index(campaign, "curve_arrays", runs, campaign.runs, "run")
    ti = _index(campaign, "curve_arrays", topics, campaign.topics, "topic")
    table = tw.degree_table(campaign, int(depth), int(rel_level))
    N = int(depth)
    sub = campaign.select_runs(ri)
    cols = np.concatenate([tw.block_columns(sub, table, t, t + 1) for t in ti], axis=1) \
        if ti else np.zeros((len(ri), 0, N), dtype=np.int16)
    lo, hi = table.lo[ti], table.hi[ti]
    rp = tw.relative_position(cols, lo[None], hi[None])
    fs_cols = table.full_scale_columns()[ti]
    rp_fs = tw.relative_position(fs_cols, lo, hi)
    g = sub.grades[:, ti, :N]
    if g.shape[2] < N:
        pad = np.full(g.shape[:2] + (N - g.shape[2],), NOT_IN_QRELS, dtype=g.dtype)
        g = np.concatenate([g, pad], axis=2)
    gain = np.where(g >= rel_level, g, 0).astype(float)
    ideal_cols = table.ideal_columns()[ti]
    vals = np.r_[table.values, 0].astype(float)
    ideal = np.where(ideal_cols < table.nr, vals[ideal_cols], 0.0)
    return CurveArrays(tuple(campaign.runs[i] for i in ri), tuple(campaign.topics[i] for i in ti),
                       N, rp, np.cumsum(rp, axis=2), _dcg(gain), g, rp_fs,
                       np.cumsum(rp_fs, axis=1), _dcg(ideal), table.rb[ti])


@validated(normalised=Flag())
def curves(campaign: Campaign, run, topic, depth: int = tw.DEFAULT_DEPTH, rel_level: int = 1,
           normalised: bool = False, method: str = "piecewise") -> pd.DataFrame:
    """One (run, topic) rank by rank: ``rank, docid, grade, rp, crp, rp_fs, crp_fs, dcg,
    ideal_dcg`` (and ``rp_norm, crp_norm, crp_fs_norm`` when ``normalised``, by
    :func:`normalise` with ``method``).

    ``grade`` is the qrels grade (NaN: not in the qrels or padding beyond the ranking);
    the frame's ``attrs`` hold ``rb``, ``run``, ``topic``, ``depth`` and the full-scale
    bounds ``crp_min_fs`` / ``crp_max_fs``.

    Examples
    --------
    >>> from irmeta.demo import toy_campaign
    >>> campaign = toy_campaign()
    >>> curves(campaign, "A", "q1", depth=3)[["rank", "docid", "rp", "crp", "dcg"]]
       rank docid  rp  crp  dcg
    0     1    d1  -1   -1  1.0
    1     2    d2  -1   -2  1.0
    2     3    d3   2    0  2.0
    """
    a = curve_arrays(campaign, [run], [topic], depth, rel_level)
    r, t = _index(campaign, "curves", run, campaign.runs, "run")[0], \
        _index(campaign, "curves", topic, campaign.topics, "topic")[0]
    n = min(int(campaign.length[r, t]), a.depth)
    docids = campaign.ranking(r, t)[:n] + [None] * (a.depth - n)
    grade = a.grades[0, 0].astype(float)
    grade[grade == float(NOT_IN_QRELS)] = np.nan
    frame = pd.DataFrame({"rank": np.arange(1, a.depth + 1), "docid": docids, "grade": grade,
                          "rp": a.rp[0, 0], "crp": a.crp[0, 0], "rp_fs": a.rp_fs[0],
                          "crp_fs": a.crp_fs[0], "dcg": a.dcg[0, 0], "ideal_dcg": a.ideal_dcg[0]})
    if normalised:
        rpn, crpn = a.normalised(method)
        frame["rp_norm"] = rpn[0, 0]
        frame["crp_norm"] = crpn[0, 0]
        frame["crp_fs_norm"] = normalise(a.crp_fs, a.crp_fs.min(axis=1), a.crp_fs.max(axis=1),
                                         method)[0]
    frame.attrs.update(run=a.runs[0], topic=a.topics[0], depth=a.depth, rb=int(a.rb[0]),
                       crp_min_fs=int(a.crp_fs[0].min()), crp_max_fs=int(a.crp_fs[0].max()))
    return frame



@dataclass(frozen=True)
class CrpDcgPanel:
    """One row of Figure 11, computed: the curves of one (run, topic) up to ``x_max``
    (:func:`curves`' frame), its recall base ``rb`` and its Twist components."""

    run: str
    topic: str
    curves: pd.DataFrame
    rb: int
    x_max: int
    twist: float
    rho: float
    sigma: float
    crossing: int       # rank of the crossing, 0 when the curves do not cross


def crp_dcg_panels(campaign: Campaign, pairs, depth: int = tw.DEFAULT_DEPTH,
                   rel_level: int = 1, max_rank: int | None = None,
                   normalised: bool = False, func: str = "crp_dcg_panels"
                   ) -> list[CrpDcgPanel]:
    """Figure 11 data for each ``(run, topic)`` of ``pairs``: :func:`curves` cut at
    ``max_rank`` (default ``max(3 RB, last relevant retrieved + 10, 20)``, capped at
    ``depth``) and the Twist, rho, sigma and crossing of the pair (crossing rule
    ``matters``). :func:`irmeta.plot.effort.plot_crp_dcg_panels` draws them."""
    if not pairs:
        raise ParameterError(f"{func}: pairs is empty")
    comp = tw.components(campaign, depth, "matters", rel_level, warn=False)
    panels = []
    for run, topic in pairs:
        f = curves(campaign, run, topic, depth=depth, rel_level=rel_level,
                   normalised=normalised)
        rb = f.attrs["rb"]
        rel_ranks = f["rank"][f["grade"].fillna(-1) >= rel_level]
        last = int(rel_ranks.max()) if len(rel_ranks) else rb
        x_max = max_rank or min(depth, max(3 * rb, last + 10, 20))
        r, t = campaign.run_index(run), campaign.topic_index(str(topic))
        panels.append(CrpDcgPanel(run=run, topic=topic, curves=f[f["rank"] <= x_max], rb=rb,
                                  x_max=x_max, twist=float(comp.twist[r, t]),
                                  rho=float(comp.rho[r, t]), sigma=float(comp.sigma[r, t]),
                                  crossing=int(comp.crossing[r, t])))
    return panels

# ================================================================= archetypes
def classify(comp: tw.TwistComponents) -> np.ndarray:
    """Archetype label of every (run, topic) from Twist components (object [R, T];
    None on undefined topics). Precedence: ideal (CRP identically 0), worst (no
    relevant document in the top N), full_scale (relevance vector equals the
    full-scale one), excellent (first crossing <= RB), typical_A (first crossing > RB),
    typical_B (no crossing)."""
    R, T = comp.twist.shape
    rb = comp.rb[None, :]
    x = comp.crossing
    label = np.full((R, T), "typical_B", dtype=object)
    label[(x > 0) & (x > rb)] = "typical_A"
    label[(x > 0) & (x <= rb)] = "excellent"
    label[comp.full_scale] = "full_scale"
    label[comp.n_relevant == 0] = "worst"
    label[comp.crp_zero] = "ideal"
    label[~np.broadcast_to(comp.defined[None, :], (R, T))] = None
    return label


def archetypes(campaign: Campaign, depth: int = tw.DEFAULT_DEPTH, crossing: str = "matters",
               rel_level: int = 1) -> pd.DataFrame:
    """Archetype of every (run, topic) on the defined topics (``0 < RB <= depth``):
    columns ``run, topic, archetype, crossing, rb, rho, sigma, twist`` (``crossing``:
    1-based first crossing of CRP under the chosen rule, 0 = none). A run without a
    topic is scored on an empty ranking there (a ``worst`` curve), as in the paper's
    totals (runs x topics). See :func:`classify`.

    Examples
    --------
    >>> from irmeta.demo import toy_campaign
    >>> campaign = toy_campaign()
    >>> archetypes(campaign, depth=10)[["run", "topic", "archetype"]]
      run topic  archetype
    0   A    q1  typical_B
    1   A    q2      ideal
    2   B    q1  typical_B
    3   B    q2      worst
    """
    _check("archetypes", depth, crossing, rel_level)
    comp = tw.components(campaign, int(depth), crossing, int(rel_level))
    label = classify(comp)
    r, t = np.nonzero(np.broadcast_to(comp.defined[None, :], label.shape))
    return pd.DataFrame({"run": np.asarray(campaign.runs, object)[r],
                         "topic": np.asarray(campaign.topics, object)[t],
                         "archetype": label[r, t], "crossing": comp.crossing[r, t],
                         "rb": comp.rb[t], "rho": comp.rho[r, t], "sigma": comp.sigma[r, t],
                         "twist": comp.twist[r, t]})


def archetype_table(frames) -> pd.DataFrame:
    """Percentages of (run, topic) curves per archetype (the paper's Table 2).

    ``frames``: one :func:`archetypes` frame or a mapping ``name -> frame``; one row per
    campaign with ``total`` and one percentage column per archetype.

    Examples
    --------
    >>> from irmeta.demo import toy_campaign
    >>> campaign = toy_campaign()
    >>> archetype_table({"tiny": archetypes(campaign, depth=10)})[["total", "ideal", "worst"]]
          total  ideal  worst
    tiny      4   25.0   25.0
    """
    if isinstance(frames, pd.DataFrame):
        frames = {"campaign": frames}
    rows = {}
    for name, frame in frames.items():
        counts = frame["archetype"].value_counts()
        total = int(len(frame))
        row: dict[str, float] = {"total": total}
        for a in ARCHETYPES:
            row[a] = 100.0 * counts.get(a, 0) / total if total else np.nan
        rows[name] = row
    return pd.DataFrame.from_dict(rows, orient="index")[["total", *ARCHETYPES]]


# ================================================================ effort/gain
@dataclass
class EffortGain:
    """The effort/gain grid of Twist (x) against a gain measure (y).

    ``points``: one row per (run, topic) with ``run, topic, twist, gain, row, col``
    (row 0 = lowest gain quartile, col 0 = Twist in [0, .25)). ``quartiles``: the
    three gain cut points (row = number of cut points strictly below the value, so
    ties at a cut point go to the lower row). ``counts``/``shares``: 4x4 DataFrames,
    rows from the top (highest gain) down as in the plot, columns left to right.
    ``diagonal``: share on the cells (i, i); ``high_high``: share in the top two gain
    rows x the left two Twist columns (high gain at high effort).
    """

    gain_name: str
    points: pd.DataFrame
    quartiles: np.ndarray
    counts: pd.DataFrame
    shares: pd.DataFrame
    diagonal: float
    high_high: float

    def table(self, percent: bool = True) -> pd.DataFrame:
        """The 4x4 shares (percent by default) with the plot's orientation."""
        return self.shares * (100.0 if percent else 1.0)


_ROWS = ["Q4 (huge gain)", "Q3 (high gain)", "Q2 (medium gain)", "Q1 (low gain)"]
_COLS = ["[0, .25) huge effort", "[.25, .5) high effort", "[.5, .75) medium effort",
         "[.75, 1] low effort"]


def grid(twist: np.ndarray,
         gain: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(row, col, quartiles, counts)`` of the 4x4 effort/gain grid for paired values.

    ``quartiles = quantile(gain, [.25, .5, .75])`` (linear interpolation);
    ``row = #(quartiles < gain)``, ``col = #(edges .25, .5, .75 <= twist)``;
    ``counts[row, col]`` (row 0 = lowest gain)."""
    twist = np.asarray(twist, float)
    gain = np.asarray(gain, float)
    if twist.shape != gain.shape:
        raise ParameterError(f"grid: twist and gain need the same shape, got {twist.shape} "
                             f"and {gain.shape}")
    if len(gain) == 0:
        raise ParameterError("grid: no (run, topic) point with both values defined")
    q = np.quantile(gain, [0.25, 0.5, 0.75])
    row = np.searchsorted(q, gain, side="left")
    col = np.searchsorted(np.asarray(TWIST_EDGES[1:-1]), twist, side="right")
    counts = np.zeros((4, 4), dtype=np.int64)
    np.add.at(counts, (row, col), 1)
    return row, col, q, counts


def effort_gain(campaign: Campaign, gain: str = "AP", depth: int = tw.DEFAULT_DEPTH,
                crossing: str = "matters", rel_level: int = 1, values=None) -> EffortGain:
    """Effort/gain grid of Twist@depth against ``gain`` (a measure string computed by
    the registered kernel, e.g. ``AP``, ``bpref``, ``RBP(p=0.8)``, ``nDCG``).

    Points: every run on every topic where Twist is defined (``0 < RB <= depth``),
    runs missing a topic scored on an empty ranking. ``values``: optional precomputed
    ``(twist[R, T], gain[R, T])`` to avoid recomputation. Shares are over the points
    with both values defined.
    """
    from irmeta.evaluation import compute
    from irmeta.measures.spec import EvalContext

    _check("effort_gain", depth, crossing, rel_level)
    if values is None:
        comp = tw.components(campaign, int(depth), crossing, int(rel_level))
        tv = comp.twist
        ms, gv = compute(campaign, [gain], EvalContext(rel_level=int(rel_level)))
        if len(ms) != 1:
            raise ParameterError(f"effort_gain: gain must name one measure, got {gain!r}")
        gv = gv[:, 0]
        name = ms[0].display
    else:
        tv, gv = (np.asarray(v, float) for v in values)
        name = str(gain)
    ok = ~np.isnan(tv) & ~np.isnan(gv)
    r, t = np.nonzero(ok)
    row, col, q, counts = grid(tv[ok], gv[ok])
    points = pd.DataFrame({"run": np.asarray(campaign.runs, object)[r],
                           "topic": np.asarray(campaign.topics, object)[t],
                           "twist": tv[ok], "gain": gv[ok], "row": row, "col": col})
    shares = counts / counts.sum()
    diag = float(np.trace(shares))
    high_high = float(shares[2:, :2].sum())
    cnt = pd.DataFrame(counts[::-1], index=_ROWS, columns=_COLS)
    shr = pd.DataFrame(shares[::-1], index=_ROWS, columns=_COLS)
    return EffortGain(name, points, q, cnt, shr, diag, high_high)


def effort_gain_summary(campaign: Campaign, gains: Iterable[str] = GAIN_MEASURES,
                        depth: int = tw.DEFAULT_DEPTH, crossing: str = "matters",
                        rel_level: int = 1) -> tuple[pd.DataFrame, dict[str, EffortGain]]:
    """Effort/gain grids for several gain measures: a summary frame (one row per gain:
    ``points, diagonal %, high_high %, top_row_low_effort %`` — the share of the top
    gain row with Twist >= .5 — and the quartile cut points) and the grids by name.

    Examples
    --------
    >>> from irmeta.demo import toy_campaign
    >>> campaign = toy_campaign()
    >>> summary, grids = effort_gain_summary(campaign, gains=["AP"], depth=10)
    >>> summary[["points", "diagonal %", "high_high %"]]
          points  diagonal %  high_high %
    gain
    AP         4        50.0         25.0
    """
    validate.campaign(campaign, "effort_gain_summary")
    _check("effort_gain_summary", depth, crossing, rel_level)
    gains = validate.measure_list(gains, "effort_gain_summary", "gains")
    comp = tw.components(campaign, int(depth), crossing, int(rel_level))
    from irmeta.evaluation import compute
    from irmeta.measures.spec import EvalContext
    ms, gv = compute(campaign, gains, EvalContext(rel_level=int(rel_level)))
    grids, rows = {}, []
    for j, m in enumerate(ms):
        eg = effort_gain(campaign, m.display, values=(comp.twist, gv[:, j]))
        grids[m.display] = eg
        top = eg.counts.iloc[0]
        rows.append({"gain": m.display, "points": int(eg.counts.values.sum()),
                     "diagonal %": 100 * eg.diagonal, "high_high %": 100 * eg.high_high,
                     "top_row_low_effort %": 100 * top.iloc[2:].sum() / max(top.sum(), 1),
                     "q1": eg.quartiles[0], "q2": eg.quartiles[1], "q3": eg.quartiles[2]})
    return pd.DataFrame(rows).set_index("gain"), grids


@validated(k=Integer(low=1))
def most_telling(eg: EffortGain, k: int = 2) -> pd.DataFrame:
    """(run, topic) pairs worth a CRP/DCG look: the ``k`` top-gain-row points with the
    lowest Twist (high gain at high effort) and the ``k`` with the highest Twist."""
    top = eg.points[eg.points["row"] == 3].sort_values(["twist", "run", "topic"])
    if top.empty:
        top = eg.points.sort_values(["gain", "twist"], ascending=[False, True]).head(4 * k)
        top = top.sort_values(["twist", "run", "topic"])
    out = pd.concat([top.head(k).assign(kind="high gain, high effort"),
                     top.tail(k).assign(kind="high gain, low effort")])
    return out.drop_duplicates(["run", "topic"]).reset_index(drop=True)
